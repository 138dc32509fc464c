/** Rule `retention`: the retention granted is within the spec's bounds, whatever the requestor asked. */
import { defineRule } from "../rule.js";

export const retention = defineRule({
  name: "retention",
  description:
    "The retention a task request is granted (behaviour.retention.field) is within the spec's bounds whatever was asked (0, a little, far too much): at most the declared max, of its declared type (rule types checks its minimum), or the request is refused as invalid; a task granted a retention is readable right after it is made.",
  statements: ["mcp-2025-11-25/resources.max-ttl", "sep-1686-draft/resources.max-keep-alive"],
  reads: ["behaviour.retention", "behaviour.creation.retentionField"],
});
