/** Rule `handshake`: The lifecycle's handshake succeeds. */
import { defineRule } from "../rule.js";

export const handshake = defineRule({
  name: "handshake",
  description: "The lifecycle's handshake succeeds.",
  statements: [],
  reads: ["protocol.lifecycle"],
});
