/** Rule `input`: a task's input requests: the task waits for them in the spec's input state, and answers through the update method are accepted. */
import { checked, defineRule, fail } from "../rule.js";
import type { ServerRequestSeen } from "../session.js";
import type { World } from "../world.js";

export const input = defineRule({
  name: "input",
  description: "While a request the server sent for a task's input waits for its answer, the task shows the spec's input state (the second of two asked at once too, read after the first was answered); the task's own input requests, answered through the update method, are accepted.",
  statements: [
    "ext-tasks-2026-07-28/update.ack-empty",
    "mcp-2025-11-25/input.move-to-input-required",
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
