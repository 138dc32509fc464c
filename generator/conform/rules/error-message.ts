/** Rule `error-message`: Every declared error that is expected comes with the declared message (placeholders match any text). */
import { defineRule } from "../rule.js";

export const errorMessage = defineRule({
  name: "error-message",
  description: "Every declared error that is expected comes with the declared message (placeholders match any text).",
  statements: [
    "ext-tasks-2026-07-28/errors.informative-messages",
    "mcp-2025-11-25/errors.informative-messages",
    "sep-1686-draft/errors.informative-messages",
  ],
  reads: ["errors"],
});
