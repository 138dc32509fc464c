/** Rule `isolation`: A task bound to its requestor is hidden from another: every task method answers the not-found error, no list holds it, its cancel notification names none of theirs. */
import { defineRule } from "../rule.js";

export const isolation = defineRule({
  name: "isolation",
  description: "A task bound to its requestor is hidden from another: every task method answers the not-found error, no list holds it, its cancel notification names none of theirs.",
  statements: [
    "ext-tasks-2026-07-28/security.auth-every-request",
    "mcp-2025-11-25/security.bind-auth-context",
    "mcp-2025-11-25/security.list-own-context",
    "mcp-2025-11-25/security.reject-other-context",
    "sep-1686-draft/security.scope-bind-auth",
    "sep-1686-draft/security.scope-bind-session",
    "sep-1686-draft/security.scope-reject-other",
  ],
  reads: ["behaviour.sessionBinding"],
});
