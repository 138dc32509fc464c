/** Rule `terminal`: A terminal state never changes: an ended task read again is as it ended. */
import { defineRule } from "../rule.js";

export const terminal = defineRule({
  name: "terminal",
  description: "A terminal state never changes: an ended task read again is as it ended.",
  statements: [],
  reads: ["states.terminal"],
});
