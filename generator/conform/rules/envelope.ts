/** Rule `envelope`: Per-request lifecycle: a request whose _meta protocol version is absent, empty or not the spec's is refused. */
import { defineRule } from "../rule.js";

export const envelope = defineRule({
  name: "envelope",
  description: "Per-request lifecycle: a request whose _meta protocol version is absent, empty or not the spec's is refused.",
  statements: [
    "ext-tasks-2026-07-28/core.missing-meta-invalid-params",
  ],
  reads: ["protocol.lifecycle", "protocol.protocolVersion"],
});
