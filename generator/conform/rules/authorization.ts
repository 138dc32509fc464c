/** Rule `authorization`: over Streamable HTTP with credentials, every task request is checked for them, and another principal's tasks are theirs. */
import { defineRule } from "../rule.js";

export const authorization = defineRule({
  name: "authorization",
  description:
    "Over Streamable HTTP, where the tester is given credentials (an Authorization header in --header): once per invocation, the get method " +
    "of one of its tasks sent without them and with an invalid bearer token is refused with HTTP 401 and a WWW-Authenticate header (a server " +
    "that serves both uses no authorization: not exercised); where it is also given another principal (--other-header), that principal's " +
    "session asking for a task of the first by every task method gets the not-found error and its list holds none of them (as rule isolation " +
    "checks another session), and the blocking result method of a running task is refused at once (within 5 s), not waited on as for its " +
    "owner. A token lacking a scope (403) is not tried: the tester has none. Without credentials, or over stdio, not exercised.",
  statements: [
    "ext-tasks-2026-07-28/core.authorization-status-codes",
    "ext-tasks-2026-07-28/security.auth-every-request",
    "mcp-2025-11-25/security.bind-auth-context",
    "mcp-2025-11-25/security.reject-other-context",
    "sep-1686-draft/security.scope-bind-auth",
  ],
  reads: ["behaviour.sessionBinding", "methods.*.operation=get", "methods.*.operation=result"],
});
