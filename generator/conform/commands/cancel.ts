/** Cancelling a task: by the spec's cancel method, or by notifications/cancelled naming the request that made it. */
import { TaskCmd } from "./base.js";
import { observe, refresh, waitTerminal } from "../follow.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { checkRelated } from "../rules/related-task.js";
import { goneByRetention } from "../rules/retention.js";
import { checkEmptyAck, checkResultType } from "../rules/result-type.js";
import { checkCreatedAt } from "../rules/timestamps.js";
import { taskIn } from "../session.js";
import { cancelMethodOf, checkSchema, count, expectAnswer, expectError, idParams, isLimitError, type ModelTask, type World } from "../world.js";

export class Cancel extends TaskCmd {
  toString() {
    return `cancel(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    // A running task, where there is one: what a cancel of an ended one answers, every ended task's checks ask.
    const t = this.openTask(w);
    const method = cancelMethodOf(w);
    if (t && w.model.ir.behaviour.cancellation.via === "cancelled-notification" && t.requestId !== undefined) {
      count(w, "cancel");
      await cancelByNotification(w, t);
      return;
    }
    if (!t || method === undefined) return;
    count(w, "cancel");
    await cancelByMethod(w, t, method);
  }
}

/**
 * The cancel method asked of task `t`: a terminal task's cancel is answered as the spec says; a live task's
 * cancel succeeds and the task ends where the spec's cancel leads (long work does not end otherwise).
 */
export async function cancelByMethod(w: World, t: ModelTask, method: string): Promise<void> {
  checked(rules.cancellation);
  const c = w.model.ir.behaviour.cancellation;
  await refresh(w, t);
  const wasTerminal = w.model.terminal.has(t.status);
  const from = t.status;
  const a = await w.session.request(method, idParams(w, t.id));
  expectAnswer(a, rules.cancellation, method);
  if (a.error && isLimitError(w.model, a.error.code)) return;
  // Its retention may have run out meanwhile (a short one): then the server may have forgotten it.
  if (goneByRetention(w, t, a.error)) {
    count(w, "cancel of a task past its retention");
    return;
  }
  if (wasTerminal) {
    if (c.terminal === "error") expectError(a, w.model.error(c.terminalError), rules.cancellation, `${method} of a task already ${t.status}`);
    else if (a.error && isLimitError(w.model, a.error.code)) return;
    else if (a.error) fail(rules.cancellation, `${method} of a terminal task failed; the spec says it is ${c.terminal === "ack" ? "acknowledged" : "ignored"}`, "a result", a.error);
    return;
  }
  if (a.error && cancelGuarded(w, from)) {
    // Every edge the table gives a cancel from here has a guard: a refusal is the table's own answer, and leaves
    // the task where it was (or where its work took it meanwhile).
    count(w, "cancel refused by its guard");
    await refresh(w, t);
    return;
  }
  if (a.error) {
    // The task may have ended just before the request arrived: then the declared terminal error is right.
    const terminalErr = w.model.error(c.terminalError);
    if (c.terminal === "error" && terminalErr && a.error.code === terminalErr.code) {
      await refresh(w, t);
      if (!w.model.terminal.has(t.status)) fail(rules.cancellation, `${method} said the task is terminal, but it is ${t.status}`, "a terminal task", t.status);
      return;
    }
    fail(rules.cancellation, `${method} of a live task failed`, "a result", a.error);
  }
  checkResultType(w, method, a.result!);
  checkEmptyAck(w, method, a.result!, rules.cancellation);
  checkSchema(w.model.schemas.result(method), a.result, rules.types, `${method} result`);
  const replied = c.reply === "task" ? taskIn(w.model, a.result) : undefined;
  if (replied !== undefined) checkCreatedAt(w, replied, `${method} reply`);
  checkRelated(w, t, method, a.result!);
  t.cancelRequested = true;
  if (c.reply === "task" && c.timing === "before-reply") {
    const task = taskIn(w.model, a.result);
    if (task) {
      observe(w, t, task, `${method} reply`);
      if (!w.model.endStates.cancel.has(t.status) && !w.model.terminal.has(t.status)) fail(rules.cancellation, `${method} replied with a task still ${t.status}`, [...w.model.endStates.cancel], t.status);
    }
  }
  if (t.outcome === "long") count(w, "cancel of running work");
  if (w.model.op("get")) {
    await waitTerminal(w, t, 10_000);
    if (!w.model.terminal.has(t.status)) fail(rules.cancellation, `task ${t.id} is still ${t.status} 10 s after ${method}`, [...w.model.endStates.cancel], t.status);
    // Long work does not end on its own meanwhile: its acknowledged cancel ends it where the spec's cancel leads.
    if (t.outcome === "long" && !w.model.endStates.cancel.has(t.status)) {
      fail(rules.cancellation, `task ${t.id} (long work) ended ${t.status} after ${method} was acknowledged`, [...w.model.endStates.cancel], t.status);
    }
  }
}

/**
 * Cancelling the request that made the task cancels the task, whether or not that request was answered (an
 * acknowledgement may have answered it); the spec sends no reply.
 */
export async function cancelByNotification(w: World, t: ModelTask): Promise<void> {
  checked(rules.cancellation);
  await refresh(w, t);
  const wasTerminal = w.model.terminal.has(t.status);
  await w.session.wire.notify("notifications/cancelled", { requestId: t.requestId, reason: "conform" });
  if (!wasTerminal) t.cancelRequested = true;
  else {
    // Ignored: read right after it, the ended task is as it ended (rule terminal).
    checked(rules.terminal);
    await new Promise((r) => setTimeout(r, 50));
    await refresh(w, t);
    return;
  }
  if (w.model.op("get")) {
    await waitTerminal(w, t, 10_000);
    if (!w.model.terminal.has(t.status)) fail(rules.cancellation, `task ${t.id} is still ${t.status} 10 s after notifications/cancelled`, [...w.model.endStates.cancel], t.status);
    // Long work does not end on its own meanwhile: cancelled, it ends where the spec's cancel leads.
    if (!wasTerminal && t.outcome === "long" && !w.model.endStates.cancel.has(t.status)) {
      fail(rules.cancellation, `task ${t.id} (long work) ended ${t.status} after notifications/cancelled named its request`, [...w.model.endStates.cancel], t.status);
    }
  }
}

/** Whether every transition the table gives a cancel from \`status\` has a guard (so the cancel may be refused). */
export function cancelGuarded(w: World, status: string): boolean {
  const edges = w.model.ir.transitions.filter((x) => x.from === status && w.model.endStates.cancel.has(x.to));
  return edges.length > 0 && edges.every((x) => x.guard !== undefined);
}
