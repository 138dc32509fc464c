/** Rule `http-accept`: Streamable HTTP: a POST whose Accept lacks text/event-stream gets 406. */
import { defineRule } from "../rule.js";

export const httpAccept = defineRule({
  name: "http-accept",
  description: "Streamable HTTP: a POST whose Accept lacks text/event-stream gets 406.",
  statements: [
    "mcp-2025-11-25/get.transport-server",
    "mcp-2025-11-25/input.transport-server",
    "mcp-2025-11-25/result.transport-server",
  ],
  reads: [],
});
