/** Rule `get`: The get method answers a live task with that task (its retention and poll interval may change between answers). */
import { defineRule } from "../rule.js";

export const get = defineRule({
  name: "get",
  description: "The get method answers a live task with that task; its retention and poll interval may change between answers (a permission conform honours); a poll sooner than the task's interval may be refused with a declared limit error, one at the interval may not.",
  statements: [
    "ext-tasks-2026-07-28/core.explicit-task-identifier",
    "ext-tasks-2026-07-28/core.multiple-tasks",
    "ext-tasks-2026-07-28/get.respond-by-status",
    "ext-tasks-2026-07-28/get.ttl-may-change",
    "ext-tasks-2026-07-28/polling.interval-may-change",
    "ext-tasks-2026-07-28/polling.may-rate-limit",
    "ext-tasks-2026-07-28/task.poll-interval-may-change",
    "ext-tasks-2026-07-28/task.ttl-may-change",
  ],
  reads: ["methods.*.operation=get"],
});
