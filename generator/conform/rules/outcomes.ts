/** Rule `outcomes`: Work that completes, fails, errs or asks for input ends in the state the spec's outcomes name; a failed task says why. */
import { checked, defineRule, fail } from "../rule.js";
import { isObject, type ModelTask, type World } from "../world.js";

export const outcomes = defineRule({
  name: "outcomes",
  description: "Work that completes, fails, errs or asks for input ends in the state the spec's outcomes name; a task its work failed carries what went wrong in the spec's failure field, and shows a status message about it where the spec declares one.",
  statements: [
    "ext-tasks-2026-07-28/execution.completed-with-error-result",
    "ext-tasks-2026-07-28/execution.error-is-that-error",
    "ext-tasks-2026-07-28/execution.failed-not-for-tool-errors",
    "ext-tasks-2026-07-28/execution.result-is-that-result",
    "ext-tasks-2026-07-28/execution.status-message",
    "ext-tasks-2026-07-28/status.failed-only-json-rpc",
    "mcp-2025-11-25/exec.status-message",
    "mcp-2025-11-25/input.leave-input-required",
    "sep-1686-draft/execution.error-field",
    "sep-1686-draft/lifecycle.prefer-failed",
  ],
  reads: ["behaviour.outcomes"],
});

/** A task whose own work failed (not a cancel, not a requestor's move) shows a non-empty status message, where the spec declares the field. */
export function checkStatusMessage(w: World, t: ModelTask, task: Record<string, unknown>, what: string): void {
  const field = w.model.ir.behaviour.outcomes.statusMessageField;
  const status = task[w.model.statusField];
  // Where the failure field is the status message, checkFailure reads it.
  if (field === undefined || field === w.model.ir.behaviour.outcomes.failureField || typeof status !== "string" || w.model.roleOf[status] !== "failed") return;
  if ((t.outcome !== "error" && t.outcome !== "fail") || t.cancelRequested || t.endedByMove || t.via !== undefined) return;
  checked(outcomes);
  const message = task[field];
  if (typeof message !== "string" || message.trim() === "") fail(outcomes, `${what}: task ${t.id} failed (${status}) without a ${field} saying why`, `a non-empty ${field}`, message ?? "nothing");
}

/**
 * A task its own work failed (a tool error or a protocol error, not a cancel or a requestor's move), shown in a
 * failed-role state, says what went wrong in the spec's failure field (outcomes.failureField): a message that is
 * not empty, or an error object with a code and a message.
 */
export function checkFailure(w: World, t: ModelTask, task: Record<string, unknown>, what: string): void {
  const o = w.model.ir.behaviour.outcomes;
  const field = o.failureField;
  if (field === undefined || w.model.roleOf[t.status] !== "failed") return;
  if ((t.outcome !== "fail" && t.outcome !== "error") || t.via !== undefined || t.cancelRequested || t.endedByMove) return;
  checked(outcomes);
  const v = task[field];
  const ok = o.failureShape === "message" ? typeof v === "string" && v.trim() !== "" : isObject(v) && typeof v.code === "number" && typeof v.message === "string";
  if (!ok) fail(outcomes, `${what}: task ${t.id} failed (${t.status}) without saying why in ${field}`, o.failureShape === "message" ? "a message" : "{ code, message }", v ?? "nothing");
}
