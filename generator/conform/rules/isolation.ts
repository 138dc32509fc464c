/** Rule `isolation`: A task bound to its requestor is hidden from another: every task method answers the not-found error, no list holds it, its cancel notification names none of theirs. */
import { defineRule } from "../rule.js";

export const isolation = defineRule({
  name: "isolation",
  description: "A task bound to its requestor is hidden from another: every task method answers the not-found error, no list holds it, its cancel notification names none of theirs. Where the other requestor is another principal (--other-header), what it is refused is rule authorization's.",
  statements: [
    "mcp-2025-11-25/security.list-own-context",
    "sep-1686-draft/security.scope-bind-session",
    "sep-1686-draft/security.scope-reject-other",
  ],
  reads: ["behaviour.sessionBinding"],
});
