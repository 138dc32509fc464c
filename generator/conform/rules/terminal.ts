/** Rule `terminal`: A terminal state never changes: an ended task read again is as it ended. */
import { defineRule } from "../rule.js";

export const terminal = defineRule({
  name: "terminal",
  description: "A terminal state never changes: an ended task read again is as it ended.",
  statements: [
    "mcp-2025-11-25/cancel.stays-cancelled",
    "mcp-2025-11-25/lifecycle.terminal-final",
    "sep-1686-draft/cancel.ignore-after-end",
    "sep-1686-draft/lifecycle.terminal-final",
  ],
  reads: ["states.*.terminal"],
});
