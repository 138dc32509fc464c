/** Rule `http-header-limit`: Streamable HTTP: headers over the server's limit get a JSON-RPC error body, not an empty 431. */
import { defineRule } from "../rule.js";

export const httpHeaderLimit = defineRule({
  name: "http-header-limit",
  description: "Streamable HTTP: headers over the server's limit get a JSON-RPC error body, not an empty 431.",
  statements: [
    "mcp-2025-11-25/get.transport-server",
    "mcp-2025-11-25/input.transport-server",
    "mcp-2025-11-25/result.transport-server",
  ],
  reads: [],
});
