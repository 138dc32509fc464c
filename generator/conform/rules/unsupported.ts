/** Rule `unsupported`: A method the spec lists as unsupported gets the declared error. */
import { defineRule } from "../rule.js";

export const unsupported = defineRule({
  name: "unsupported",
  description: "A method the spec lists as unsupported gets the declared error.",
  statements: [
    "ext-tasks-2026-07-28/core.method-not-found-404",
  ],
  reads: ["behaviour.unsupportedMethods"],
});
