/** Rule `envelope`: Per-request lifecycle: a request whose _meta lacks the protocol version or the client capabilities is refused with -32602 (over HTTP, 400); one whose version is empty or not the spec's is refused. */
import { defineRule } from "../rule.js";

export const envelope = defineRule({
  name: "envelope",
  description: "Per-request lifecycle: a request whose _meta lacks the protocol version or the client capabilities is refused with -32602 (over HTTP, 400); one whose version is empty or not the spec's is refused.",
  statements: [
    "ext-tasks-2026-07-28/core.missing-meta-http-400",
    "ext-tasks-2026-07-28/core.missing-meta-invalid-params",
  ],
  reads: ["protocol.lifecycle", "protocol.protocolVersion"],
});
