/** Rule `params`: Params a task method's type refuses get -32602. */
import { defineRule } from "../rule.js";

export const params = defineRule({
  name: "params",
  description: "Params a task method's type refuses get -32602 (a delete method the server supports not at all may answer Method not found, -32601, whatever the params).",
  statements: [
    "ext-tasks-2026-07-28/errors.unknown-id-get",
    "ext-tasks-2026-07-28/errors.unknown-id-update-cancel",
    "mcp-2025-11-25/errors.unknown-task-id",
    "sep-1686-draft/errors.unknown-task-id",
  ],
  reads: ["methods.*.params"],
});
