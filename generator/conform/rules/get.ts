/** Rule `get`: The get method answers a live task with that task (its retention and poll interval may change between answers). */
import { defineRule } from "../rule.js";

export const get = defineRule({
  name: "get",
  description: "The get method answers a live task with that task; its retention and poll interval may change between answers (a permission conform honours); a poll sooner than the task's interval may be refused with a declared limit error, one at the interval may not. On the per-request lifecycle over Streamable HTTP, once per invocation, a task read through a fresh TCP connection (nothing shared with the requests before but the requestor's headers) is answered: a task is kept by the id each request names, not by a connection (over stdio the connection is the server process, whose tasks another process holds only on a store that outlives it: not tried).",
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
