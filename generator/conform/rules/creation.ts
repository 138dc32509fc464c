/** Rule `creation`: A task request is acknowledged at once (or by the declared notification) with a task (long work's within 5 s), and no task id is handed out twice. */
import { defineRule } from "../rule.js";

export const creation = defineRule({
  name: "creation",
  description: "A task request is acknowledged at once (or by the declared notification) with a task (long work's within 5 s), and no task id is handed out twice.",
  statements: [
    "ext-tasks-2026-07-28/core.multiple-tasks",
    "mcp-2025-11-25/id.receiver-generated",
    "mcp-2025-11-25/id.unique",
    "mcp-2025-11-25/result.asap",
    "mcp-2025-11-25/result.create-task-result",
    "sep-1686-draft/created.notify",
  ],
  reads: ["behaviour.creation"],
});
