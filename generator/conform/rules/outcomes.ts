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

/**
 * A task its own work failed (a tool error or a protocol error, not a cancel or a requestor's move), shown in a
 * failed-role state, says what went wrong where the spec declares a field for it: in the failure field
 * (outcomes.failureField: a message that is not empty, or an error object with a code and a message), and in the
 * status message field (a message that is not empty).
 */
export function checkFailure(w: World, t: ModelTask, task: Record<string, unknown>, what: string): void {
  const o = w.model.ir.behaviour.outcomes;
  const { failureField, statusMessageField } = o;
  if ((failureField === undefined && statusMessageField === undefined) || w.model.roleOf[t.status] !== "failed") return;
  if ((t.outcome !== "fail" && t.outcome !== "error") || t.via !== undefined || t.cancelRequested || t.endedByMove) return;
  checked(outcomes);
  const said = (v: unknown) => typeof v === "string" && v.trim() !== "";
  if (failureField !== undefined) {
    const v = task[failureField];
    const ok = o.failureShape === "message" ? said(v) : isObject(v) && typeof v.code === "number" && typeof v.message === "string";
    if (!ok) fail(outcomes, `${what}: task ${t.id} failed (${t.status}) without saying why in ${failureField}`, o.failureShape === "message" ? "a message" : "{ code, message }", v ?? "nothing");
  }
  if (statusMessageField !== undefined && statusMessageField !== failureField && !said(task[statusMessageField])) {
    fail(outcomes, `${what}: task ${t.id} failed (${t.status}) without a ${statusMessageField} saying why`, `a non-empty ${statusMessageField}`, task[statusMessageField] ?? "nothing");
  }
}
