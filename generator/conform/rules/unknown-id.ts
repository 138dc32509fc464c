/** Rule `unknown-id`: An unknown task id gets the declared not-found error's code. */
import { defineRule } from "../rule.js";

export const unknownId = defineRule({
  name: "unknown-id",
  description: "An unknown task id gets the declared not-found error's code.",
  statements: [],
  reads: ["behaviour.notFoundError"],
});
