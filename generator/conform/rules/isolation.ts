/** Rule `isolation`: A task bound to its requestor is hidden from another: every task method answers the not-found error, no list holds it, its cancel notification names none of theirs. */
import { defineRule } from "../rule.js";

export const isolation = defineRule({
  name: "isolation",
  description: "A task bound to its requestor is hidden from another: every task method answers the not-found error, no list holds it, its cancel notification names none of theirs.",
  statements: [],
  reads: ["behaviour.sessionBinding"],
});
