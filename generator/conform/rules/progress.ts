/** Rule `progress`: Work that ends on its own reaches a terminal state within 15 s. */
import { defineRule } from "../rule.js";

export const progress = defineRule({
  name: "progress",
  description: "Work that ends on its own reaches a terminal state within 15 s.",
  statements: [
    "mcp-2025-11-25/input.leave-input-required",
  ],
  reads: ["behaviour.outcomes"],
});
