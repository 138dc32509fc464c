/** Rule `transport`: Every message is well-formed JSON-RPC on the transport. */
import { defineRule } from "../rule.js";

export const transport = defineRule({
  name: "transport",
  description: "Every message is well-formed JSON-RPC on the transport.",
  statements: [],
  basis: "JSON-RPC 2.0 and the transport's framing, which every other check needs",
  reads: [],
});
