/** Rule `plain-request`: a request the server makes no task of, asked as a task, is served as usual. */
import { defineRule } from "../rule.js";

export const plainRequest = defineRule({
  name: "plain-request",
  description: "A request the server makes no task of (tools/list), asked as a task, is served as usual: its own result, the same as the request asked without task metadata, no task in it, none announced.",
  statements: ["mcp-2025-11-25/support.undeclared-normal", "sep-1686-draft/support.ignore-unsupported"],
  reads: ["behaviour.creation", "behaviour.capabilities.server.augments"],
});
