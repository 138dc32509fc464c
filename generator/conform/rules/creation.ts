/** Rule `creation`: A task request is acknowledged at once (or by the declared notification) with a task, and no task id is handed out twice; a task request without a required field of its declared type is refused with -32602 and makes no task. */
import { defineRule } from "../rule.js";

export const creation = defineRule({
  name: "creation",
  description: "A task request is acknowledged at once (or by the declared notification) with a task, and no task id is handed out twice; a task request without a required field of its declared type is refused with -32602 and makes no task.",
  statements: [
    "ext-tasks-2026-07-28/core.multiple-tasks",
    "mcp-2025-11-25/id.receiver-generated",
    "mcp-2025-11-25/id.unique",
    "mcp-2025-11-25/result.create-task-result",
    "sep-1686-draft/created.notify",
  ],
  reads: ["behaviour.creation", "behaviour.creation.paramType", "meta.*.type"],
});
