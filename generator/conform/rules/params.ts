/** Rule `params`: Params a task method's type refuses get -32602. */
import { defineRule } from "../rule.js";

export const params = defineRule({
  name: "params",
  description: "Params a task method's type refuses get -32602.",
  statements: [],
  reads: ["methods"],
});
