/** Rule `plain-request`: a request the server makes no task of, asked as a task, is served as usual. */
import { defineRule } from "../rule.js";

export const plainRequest = defineRule({
  name: "plain-request",
  description:
    "A request the server makes no task of (tools/list), asked as a task, is served as usual: its own result, the same as the request asked without task metadata, no task in it, none announced. Where the requestor decides, the server may choose which request types it makes tasks of (a permission conform honours): resources/read or prompts/get asked as a task and answered before any acknowledgement is such a choice, and must then be served as usual too (a result, no task in it, none announced after).",
  statements: ["mcp-2025-11-25/support.undeclared-normal", "sep-1686-draft/support.choose-types", "sep-1686-draft/support.ignore-unsupported"],
  reads: ["behaviour.creation", "behaviour.capabilities.server.augments"],
});
