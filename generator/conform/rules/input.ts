/** Rule `input`: a task's input requests: the task waits for them in the spec's input state; they are all shown, each under a key of its own for the task's life, and answered through the update method. */
import { checked, defineRule, fail } from "../rule.js";
import type { ServerRequestSeen } from "../session.js";
import type { World } from "../world.js";

export const input = defineRule({
  name: "input",
  description:
    "While a request the server sent for a task's input waits for its answer, the task shows the spec's input state (the second of two asked at once too, read after the first was answered); the task's own input requests are all shown at once, each under a key that names it alone for the task's whole life; answers through the update method are accepted; a partial answer leaves the task waiting for the rest; an answer to a key never issued or already answered is acknowledged and changes nothing; answers may show in the task a while after their acknowledgement. Once all its requests are answered, a task may leave the input state (usually back to working, for as long as its work takes: a permission conform honours), not before.",
  statements: [
    "ext-tasks-2026-07-28/get.all-outstanding-requests",
    "ext-tasks-2026-07-28/update.ack-empty",
    "ext-tasks-2026-07-28/update.may-ack-early",
    "ext-tasks-2026-07-28/update.ignore-unknown-keys",
    "ext-tasks-2026-07-28/update.keys-unique",
    "ext-tasks-2026-07-28/update.may-accept-partial",
    "ext-tasks-2026-07-28/update.no-key-for-two-requests",
    "ext-tasks-2026-07-28/update.no-key-reuse-after-response",
    "mcp-2025-11-25/input.move-to-input-required",
    "sep-1686-draft/input.may-leave",
    "sep-1686-draft/input.move-to-input-required",
    "sep-1686-draft/input.stay-until-all-answered",
  ],
  reads: ["behaviour.input", "methods.*.operation=update"],
});

/**
 * A request the server sent for one of the tester's tasks (elicitation, sampling: what the spec's input asks
 * with): the task, read before the request was answered, showed the spec's input state.
 */
export function checkInputShown(w: World, r: ServerRequestSeen): void {
  const spec = w.model.ir.behaviour.input;
  if (spec === false || !spec.requests.includes(r.method) || r.relatedTaskId === undefined || r.statusBefore === undefined) return;
  if (!w.made.ids.has(r.relatedTaskId)) return;
  checked(input);
  if (r.statusBefore !== spec.status) {
    fail(input, `task ${r.relatedTaskId} showed ${r.statusBefore} while the server's ${r.method} for it waited for an answer`, spec.status, r.statusBefore);
  }
}
