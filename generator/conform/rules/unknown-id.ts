/** Rule `unknown-id`: An unknown task id gets the declared not-found error's code. */
import { defineRule } from "../rule.js";

export const unknownId = defineRule({
  name: "unknown-id",
  description: "An unknown task id gets the declared not-found error's code.",
  statements: [
    "ext-tasks-2026-07-28/cancel.unknown-task-error",
    "ext-tasks-2026-07-28/errors.unknown-id-get",
    "ext-tasks-2026-07-28/errors.unknown-id-update-cancel",
    "ext-tasks-2026-07-28/update.unknown-task-error",
    "mcp-2025-11-25/errors.unknown-task-id",
    "sep-1686-draft/errors.unknown-task-id",
  ],
  reads: ["behaviour.notFoundError"],
});
