/** Rule `error-message`: Every declared error that is expected comes with the declared message (placeholders match any text). */
import { defineRule } from "../rule.js";

export const errorMessage = defineRule({
  name: "error-message",
  description: "Every declared error that is expected comes with the declared message (placeholders match any text).",
  statements: [],
  reads: ["errors"],
});
