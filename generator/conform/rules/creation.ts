/** Rule `creation`: A task request is acknowledged at once (or by the declared notification) with a task (long work's within 5 s) that a get at once then shows, and no task id is handed out twice in an invocation (across its runs and sessions, and another requestor's; with --fresh-process, within one server process); a task request without a required field of its declared type is refused with -32602 and makes no task; where the receiver decides, it may serve a task request plainly. */
import { defineRule } from "../rule.js";

export const creation = defineRule({
  name: "creation",
  description: "A task request is acknowledged at once (or by the declared notification) with a task (long work's within 5 s) that a get at once then shows, and no task id is handed out twice in an invocation (across its runs and sessions, and another requestor's; with --fresh-process, within one server process); a task request without a required field of its declared type is refused with -32602 and makes no task.",
  statements: [
    "ext-tasks-2026-07-28/core.multiple-tasks",
    "ext-tasks-2026-07-28/creation.durable-before-answer",
    "ext-tasks-2026-07-28/creation.wait-for-consistency",
    "ext-tasks-2026-07-28/negotiation.may-return-task",
    "mcp-2025-11-25/id.receiver-generated",
    "mcp-2025-11-25/id.unique",
    "mcp-2025-11-25/result.asap",
    "mcp-2025-11-25/result.create-task-result",
    "sep-1686-draft/created.notify",
  ],
  reads: ["behaviour.creation", "behaviour.creation.paramType", "meta.*.type"],
});
