/** Rule `handshake`: The lifecycle's handshake succeeds. */
import { defineRule } from "../rule.js";

export const handshake = defineRule({
  name: "handshake",
  description: "The lifecycle's handshake succeeds.",
  statements: [],
  basis: "the core lifecycle's handshake, which every other check needs",
  reads: ["protocol.lifecycle"],
});
