/** Rule `custom`: A custom operation answers a result of its declared type or an error the spec declares for it. */
import { defineRule } from "../rule.js";

export const custom = defineRule({
  name: "custom",
  description: "A custom operation answers a result of its declared type or an error the spec declares for it.",
  statements: [],
  basis: "the spec's own custom operations: their declared result types and errors",
  reads: ["methods.*.operation=custom", "methods.*.result", "methods.*.errors"],
});
