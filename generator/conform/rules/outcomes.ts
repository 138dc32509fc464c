/** Rule `outcomes`: Work that completes, fails, errs or asks for input ends in the state the spec's outcomes name; a failed task says why. */
import { checked, defineRule, fail } from "../rule.js";
import type { ModelTask, World } from "../world.js";

export const outcomes = defineRule({
  name: "outcomes",
  description: "Work that completes, fails, errs or asks for input ends in the state the spec's outcomes name; a task whose work failed shows a status message about the failure where the spec declares one.",
  statements: [
    "ext-tasks-2026-07-28/execution.completed-with-error-result",
    "ext-tasks-2026-07-28/execution.error-is-that-error",
    "ext-tasks-2026-07-28/execution.failed-not-for-tool-errors",
    "ext-tasks-2026-07-28/execution.result-is-that-result",
    "ext-tasks-2026-07-28/execution.status-message",
    "ext-tasks-2026-07-28/status.failed-only-json-rpc",
    "mcp-2025-11-25/input.leave-input-required",
    "sep-1686-draft/lifecycle.prefer-failed",
  ],
  reads: ["behaviour.outcomes"],
});

/** A task whose own work failed (not a cancel, not a requestor's move) shows a non-empty status message, where the spec declares the field. */
export function checkStatusMessage(w: World, t: ModelTask, task: Record<string, unknown>, what: string): void {
  const field = w.model.ir.behaviour.outcomes.statusMessageField;
  const status = task[w.model.statusField];
  if (field === undefined || typeof status !== "string" || w.model.roleOf[status] !== "failed") return;
  if ((t.outcome !== "error" && t.outcome !== "fail") || t.cancelRequested || t.endedByMove || t.via !== undefined) return;
  checked(outcomes);
  const message = task[field];
  if (typeof message !== "string" || message.trim() === "") fail(outcomes, `${what}: task ${t.id} failed (${status}) without a ${field} saying why`, `a non-empty ${field}`, message ?? "nothing");
}
