/** Rule `cancellation`: Cancelling a live task ends it where the spec's cancel leads; cancelling a terminal one answers what the spec declares for a terminal task. */
import { checked, defineRule } from "../rule.js";
import type { JsonRpcError } from "../wire.js";
import type { ModelTask, World } from "../world.js";

export const cancellation = defineRule({
  name: "cancellation",
  description: "Cancelling a live task ends it where the spec's cancel leads; cancelling a terminal one answers what the spec declares for a terminal task; a task cancelled while it waits for input stays cancelled once that input is answered. Where the cancel is eventual, work that finished before the cancel took effect may end as it finished (long work cannot, and ends cancelled). Where the spec does not keep tasks reachable their whole retention, a cancelled task may be deleted at any time, even as soon as its cancel is answered (a permission conform honours): from then on it is answered with the not-found error (its code and message), and no list need show it; any other error for it is a failure.",
  statements: [
    "ext-tasks-2026-07-28/cancel.ack-empty",
    "ext-tasks-2026-07-28/cancel.may-stay-working",
    "ext-tasks-2026-07-28/cancel.may-end-otherwise",
    "mcp-2025-11-25/cancel.may-delete",
    "mcp-2025-11-25/cancel.cancelled-before-reply",
    "mcp-2025-11-25/cancel.stays-cancelled",
    "mcp-2025-11-25/cancel.terminal-error",
    "mcp-2025-11-25/errors.cancel-terminal",
    "sep-1686-draft/cancel.ignore-pending-responses",
    "sep-1686-draft/cancel.move-to-cancelled",
  ],
  reads: ["behaviour.cancellation", "behaviour.events.cancel", "methods.*.operation=cancel"],
});

/**
 * Where the spec does not keep tasks reachable their whole retention (behaviour.retention.reachableWholeTime false),
 * a cancelled task may be deleted at any time, even at once: an answer for it that is the not-found error (its code
 * and message) is that deletion, and the task is gone from then on. Any other error is left to the caller's check.
 */
export function goneAfterCancel(w: World, t: ModelTask, error: JsonRpcError | undefined): boolean {
  const ret = w.model.ir.behaviour.retention;
  const nf = w.model.notFound;
  if (error === undefined || ret === false || ret.reachableWholeTime || nf === undefined || !w.model.endStates.cancel.has(t.status)) return false;
  if (error.code !== nf.code || !nf.pattern.test(error.message)) return false;
  checked(cancellation);
  t.gone = true;
  return true;
}
