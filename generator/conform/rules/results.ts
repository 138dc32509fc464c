/** Rule `results`: The result method answers as the spec's results mode says: not ready (or blocking) before the end, the result once completed, the declared error for any other end; inline results present exactly when the task ended in the matching role. */
import { checked, defineRule, fail } from "../rule.js";
import type { Answer } from "../wire.js";
import { count, expectError, isObject, type ModelTask, type World } from "../world.js";

export const results = defineRule({
  name: "results",
  description: "The result method answers as the spec's results mode says: not ready (or blocking) before the end, the result once completed, the declared error for any other end; inline results present exactly when the task ended in the matching role.",
  statements: [
    "ext-tasks-2026-07-28/execution.completed-with-error-result",
    "ext-tasks-2026-07-28/execution.error-field",
    "ext-tasks-2026-07-28/execution.error-is-that-error",
    "ext-tasks-2026-07-28/execution.result-is-that-result",
    "ext-tasks-2026-07-28/get.completed-result",
    "ext-tasks-2026-07-28/get.failed-error",
    "mcp-2025-11-25/exec.same-error",
    "mcp-2025-11-25/exec.success-result",
    "mcp-2025-11-25/result.block",
    "mcp-2025-11-25/result.exactly",
    "mcp-2025-11-25/result.terminal-final",
    "sep-1686-draft/errors.result-not-completed",
    "sep-1686-draft/result.error-otherwise",
    "sep-1686-draft/result.only-when-completed",
  ],
  reads: ["behaviour.results", "behaviour.internalError", "methods.*.operation=result"],
});

/** Results carried in the task itself: present exactly when the task is terminal in the matching role. */
export function checkInline(w: World, t: ModelTask, task: Record<string, unknown>, what: string): void {
  const r = w.model.ir.behaviour.results;
  if (r.mode !== "inline" || r.resultField === undefined) return;
  checked(results);
  const role = w.model.roleOf[t.status];
  if (role === "completed" && !(r.resultField in task) && !(r.errorField !== undefined && r.errorField in task)) {
    fail(results, `${what}: a completed task carries neither ${r.resultField} nor ${r.errorField ?? "an error"}`, r.resultField, task);
  }
  if (!w.model.terminal.has(t.status) && r.resultField in task) fail(results, `${what}: a task in ${t.status} already carries ${r.resultField}`, undefined, task);
  // A task that did not complete has no result: a failure carries its error, never a success.
  if (w.model.terminal.has(t.status) && role !== "completed" && r.resultField in task) fail(results, `${what}: a task that ended ${t.status} carries ${r.resultField}`, r.errorField ?? "no result", task);
  if (role === "failed" && r.errorField !== undefined && t.outcome !== "long" && !(r.errorField in task)) fail(results, `${what}: a task that failed (${t.status}) carries no ${r.errorField}`, r.errorField, task);
  if (role === "completed" && t.outcome === "fail" && t.via === undefined && r.resultField in task) {
    const res = task[r.resultField];
    if (!isObject(res) || res.isError !== true) fail(results, `${what}: task ${t.id}, whose tool returned an error, carries a result without isError: true`, { isError: true }, res);
  }
}

/**
 * The result of an ended task through the result method: a completed task's result (with isError where its
 * tool failed), and for any other end the declared error, never a success (a tool's error result aside).
 */
export function checkEndResult(w: World, t: ModelTask, a: Answer & { result?: Record<string, unknown>; error?: { code: number; message: string } }, method: string): void {
  checked(results);
  const m = w.model;
  const r = m.ir.behaviour.results;
  const role = m.roleOf[t.status];
  if (role === "completed") {
    if (a.error) fail(results, `${method} of a task that completed (${t.status}) answered an error`, "the result", a.error);
    if (t.outcome === "fail" && t.via === undefined && a.result?.isError !== true) fail(results, `${method} of task ${t.id}, whose tool returned an error, answered a result without isError: true`, { isError: true }, a.result);
    return;
  }
  if (a.result) {
    // A tool call that failed answers its failure as the tool's result with isError: true, where the spec's results
    // block until the end (the tool's own error, or a requestor's move into a failed-role state).
    const failedCall = t.via === undefined && (t.outcome === "fail" || (t.endedByMove === true && role === "failed"));
    const toolError = failedCall && r.mode === "block-until-terminal" && a.result.isError === true;
    if (!toolError) fail(results, `${method} of a task that ended ${t.status} answered a success`, "the declared error", a.result);
    return;
  }
  // Where the result method answers only a completed task, any other end gets the declared error (its code and
  // message): the not-ready one, or the cancelled one for a cancelled task. Not checked here: the error a failed task
  // ended with where the spec replays errors (the replay check compares it with the plain call's), and the expired
  // error of a task whose retention ran out meanwhile.
  if (r.mode === "error-until-completed" && !(r.replaysErrors && role === "failed")) {
    const declared = (role === "cancelled" ? m.error(r.cancelledError) : undefined) ?? m.error(r.notReadyError);
    const ret = m.ir.behaviour.retention;
    const expired = ret === false ? undefined : m.error(ret.expiredError);
    if (declared === undefined || (expired !== undefined && a.error?.code === expired.code && expired.pattern.test(a.error.message))) return;
    count(w, "result of a task that ended not completed");
    expectError(a, declared, results, `${method} of a task that ended ${t.status}`);
    return;
  }
  if (role === "cancelled" && r.mode === "block-until-terminal") {
    const declared = m.error(r.cancelledError) ?? m.error(m.ir.behaviour.internalError ?? "internalError");
    if (declared && a.error?.code !== declared.code) fail(results, `${method} of a cancelled task answered error ${a.error?.code}, the spec declares ${declared.code} (${declared.name})`, { code: declared.code, message: declared.message }, a.error);
  }
}
