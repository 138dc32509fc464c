/** Rule `types`: Every answer, acknowledgement, task and notification params matches its declared type. */
import { defineRule } from "../rule.js";

export const types = defineRule({
  name: "types",
  description: "Every answer, acknowledgement, task and notification params matches its declared type.",
  statements: [],
  reads: ["types", "methods"],
});
