/** Rule `transitions`: Every status shown is reachable from the last one seen through the transition table; a move the table allows from where the task is is not refused (guards aside). */
import { defineRule } from "../rule.js";

export const transitions = defineRule({
  name: "transitions",
  description:
    "Every status shown is reachable from the last one seen through the transition table; a move the table allows from where the task is is not refused (guards aside). A server may move quick work from its initial status straight to its end (a permission conform honours): a task first shown completed is no violation, and once shown ended it stays so (rule terminal).",
  statements: [
    "sep-1686-draft/lifecycle.may-complete-at-once",
    "mcp-2025-11-25/lifecycle.valid-paths",
    "sep-1686-draft/lifecycle.valid-paths",
  ],
  reads: ["transitions", "methods.*.operation=transition", "methods.*.to"],
});
