/** Rule `outcomes`: Work that completes, fails, errs or asks for input ends in the state the spec's outcomes name. */
import { defineRule } from "../rule.js";

export const outcomes = defineRule({
  name: "outcomes",
  description: "Work that completes, fails, errs or asks for input ends in the state the spec's outcomes name.",
  statements: [],
  reads: ["behaviour.outcomes"],
});
