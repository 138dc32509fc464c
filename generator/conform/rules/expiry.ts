/** Rule `expiry`: A task whose retention ran out is in the declared expiry state (or answered with the expired error, or gone). */
import { defineRule } from "../rule.js";

export const expiry = defineRule({
  name: "expiry",
  description: "A task whose retention ran out is in the declared expiry state (or answered with the expired error, or gone).",
  statements: [],
  basis: "the spec's declared expiry state (behaviour.events.expiry) for a retention counted from creation",
  reads: ["behaviour.events.expiry", "behaviour.retention"],
});
