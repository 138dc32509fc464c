/** Rule `states`: Every status shown is a declared state. */
import { defineRule } from "../rule.js";

export const states = defineRule({
  name: "states",
  description: "Every status shown is a declared state.",
  statements: [
    "ext-tasks-2026-07-28/get.respond-by-status",
  ],
  reads: ["states", "behaviour.statusField"],
});
