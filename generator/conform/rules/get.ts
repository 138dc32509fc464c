/** Rule `get`: The get method answers a live task with that task. */
import { defineRule } from "../rule.js";

export const get = defineRule({
  name: "get",
  description: "The get method answers a live task with that task.",
  statements: [
    "ext-tasks-2026-07-28/core.explicit-task-identifier",
    "ext-tasks-2026-07-28/core.multiple-tasks",
    "ext-tasks-2026-07-28/get.respond-by-status",
  ],
  reads: ["methods.*.operation=get"],
});
