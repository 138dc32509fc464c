/** Rule `retention`: the retention granted is within the spec's bounds, whatever the requestor asked. */
import { checked, defineRule, fail } from "../rule.js";
import type { ModelTask, World } from "../world.js";

export const retention = defineRule({
  name: "retention",
  description:
    "The retention a task request is granted (behaviour.retention.field) is within the spec's bounds whatever was asked (0, a little, far too much): at most the declared max, of its declared type (rule types checks its minimum), or the request is refused as invalid; a task granted a retention is readable right after it is made; where an acknowledgement result shows the task, later answers show the retention it granted.",
  statements: ["mcp-2025-11-25/resources.max-ttl", "mcp-2025-11-25/ttl.actual-in-get", "sep-1686-draft/resources.max-keep-alive"],
  reads: ["behaviour.retention", "behaviour.creation.retentionField"],
});

/**
 * The retention a task shows (behaviour.retention.field) is the one it was granted: where the acknowledgement shows
 * the task as granted (an acknowledgement result), every later answer shows that value.
 */
export function checkGranted(w: World, t: ModelTask, task: Record<string, unknown>, what: string): void {
  const ret = w.model.ir.behaviour.retention;
  if (ret === false || t.granted === undefined || !(ret.field in task)) return;
  checked(retention);
  const shown = task[ret.field];
  if (shown !== t.granted) fail(retention, `${what} shows task ${t.id} with ${ret.field} ${JSON.stringify(shown)}, but the acknowledgement granted it ${JSON.stringify(t.granted)}`, t.granted, shown);
}
