/**
 * Following a task as the tester does: each task the server shows is checked against the model and moves it
 * along; waiting for the end answers the input the work asks and lets go of a held task; an ended task answers
 * what its end declares.
 */
import { checked, fail } from "./rule.js";
import { rules } from "./rules/index.js";
import { goneAfterCancel } from "./rules/cancellation.js";
import { goneByRetention } from "./rules/retention.js";
import { checkEndAnnounced } from "./rules/status-push.js";
import { checkFailure } from "./rules/outcomes.js";
import { checkRelated, checkRelatedAnswer } from "./rules/related-task.js";
import { checkGranted, checkReachable } from "./rules/retention.js";
import { checkEmptyAck, checkResultType } from "./rules/result-type.js";
import { checkEndResult, checkInline } from "./rules/results.js";
import { checkCreatedAt, checkTimes, ms, timeFields } from "./rules/timestamps.js";
import { isDeepStrictEqual } from "node:util";
import { taskIn, valueAt } from "./session.js";
import type { JsonRpcError } from "./wire.js";
import { checkSchema, count, expectAnswer, expectError, idParams, isLimitError, isObject, plainCall, type ModelTask, type World } from "./world.js";

/**
 * An error answered for a task the server may rightly have forgotten: a cancelled one where the spec lets it be
 * deleted at once, or one past its retention. The task is gone from then on.
 */
function forgotten(w: World, t: ModelTask, error: JsonRpcError | undefined): boolean {
  return goneAfterCancel(w, t, error) || goneByRetention(w, t, error);
}

/** Checks a task the server showed and moves the model along; the status must be one the last could lead to. */
export function observe(w: World, t: ModelTask, task: Record<string, unknown>, what: string, sentAt?: number): void {
  const m = w.model;
  const polling = m.ir.behaviour.polling;
  if (sentAt !== undefined) {
    const every = polling === false ? undefined : task[polling.field];
    t.polled = { at: sentAt, mark: w.session.wire.transcript.length, ...(typeof every === "number" ? { every } : {}) };
  }
  const taskSchema = m.schemas.type(m.ir.behaviour.taskType);
  checkSchema(taskSchema, task, rules.types, `${what}: the task`);
  checkCreatedAt(w, task, what);
  checked(rules.identity);
  checked(rules.states);
  checked(rules.transitions);
  if (m.terminal.has(t.status)) checked(rules.terminal);
  if (task[m.idField] !== t.id) fail(rules.identity, `${what} shows task ${JSON.stringify(task[m.idField])}, not ${JSON.stringify(t.id)}`);
  const status = task[m.statusField];
  if (typeof status !== "string" || !m.states.has(status)) fail(rules.states, `${what}: ${JSON.stringify(status)} is not a declared state`, [...m.states], status);
  if (m.terminal.has(t.status) && status !== t.status) fail(rules.terminal, `${what}: task ${t.id} left the terminal state ${t.status} for ${status}`, t.status, status);
  if (!m.reach.get(t.status)?.has(status)) fail(rules.transitions, `${what}: no transition path leads from ${t.status} to ${status}`, [...(m.reach.get(t.status) ?? [])], status);
  checkTimes(w, t, task, what);
  checkGranted(w, t, task, what);
  // A change of status is an update: a lastUpdatedAt seen unchanged well after it was first seen must move.
  const f = timeFields(m);
  const updated = f.updated === undefined ? undefined : task[f.updated];
  if (typeof updated === "string" && !Number.isNaN(ms(updated))) {
    const prev = t.updated;
    if (prev !== undefined && status !== t.status && updated === prev.value && prev.lastSentSame - prev.firstSeen >= 50) {
      fail(rules.timestamps, `${what}: task ${t.id} moved from ${t.status} to ${status}, but its lastUpdatedAt stayed ${updated}`, `later than ${updated}`, updated);
    }
    if (prev === undefined || updated !== prev.value) t.updated = { value: updated, firstSeen: Date.now(), lastSentSame: -Infinity };
    else if (status === t.status && sentAt !== undefined) prev.lastSentSame = Math.max(prev.lastSentSame, sentAt);
  }
  if (m.terminal.has(status) && t.notified !== undefined && m.terminal.has(t.notified) && t.notified !== status) {
    fail(rules.notifications, `${what} shows task ${t.id} ${status}, but its status notification said it ended ${t.notified}`, t.notified, status);
  }
  if (m.terminal.has(status)) {
    t.endedAt ??= Date.now();
    w.made.endedIds.add(t.id);
  }
  t.status = status;
  checkFailure(w, t, task, what);
}

export async function waitTerminal(w: World, t: ModelTask, ms: number): Promise<void> {
  const get = w.model.op("get")!;
  const deadline = Date.now() + ms;
  while (!w.model.terminal.has(t.status) && Date.now() < deadline) {
    // Any work may ask for input (a tool that samples, one that elicits): answer it as the spec routes it.
    if (w.model.roleOf[t.status] === "input_required") await answerInputRound(w, t);
    // A task held by a transition (paused) waits for one that lets it go on: the spec's own way out.
    await letGo(w, t);
    await new Promise((r) => setTimeout(r, 50));
    const sent = Date.now();
    const a = await w.session.request(get.method, idParams(w, t.id));
    expectAnswer(a, rules.get, `${get.method} of task ${t.id}`);
    if (a.error && limitedPoll(w, t, sent, a.error.code, get.method)) continue;
    // Cancelled meanwhile (another path's cancel reply showed it so while this get was on its way), it may be deleted.
    if (forgotten(w, t, a.error)) return;
    if (a.error) fail(rules.get, `${get.method} of a live task ${t.id} failed`, "the task", a.error);
    checkResultType(w, get.method, a.result!);
    observe(w, t, taskIn(w.model, a.result) ?? {}, get.method, sent);
  }
}

/**
 * A get refused with a declared limit error: the server may rate-limit a requestor that polls sooner than the
 * task's poll interval (true: the tester waits and asks again), not one that waited it out (a violation).
 */
export function limitedPoll(w: World, t: ModelTask, sentAt: number, code: number, method: string): boolean {
  if (!isLimitError(w.model, code)) return false;
  const last = t.polled;
  checked(rules.get);
  // Patient: no other get of the task went out since the last answered one, and that one was the interval ago.
  const asked = (e: { dir: string; message: unknown }) => {
    const msg = e.message as { method?: unknown; params?: Record<string, unknown> } | undefined;
    return e.dir === "→" && msg?.method === method && msg.params?.[w.model.idField] === t.id;
  };
  const since = last === undefined ? 0 : w.session.wire.transcript.slice(last.mark).filter(asked).length;
  if (last?.every !== undefined && since <= 1 && sentAt - last.at >= last.every + 50) {
    fail(rules.get, `${method} of task ${t.id}, sent ${sentAt - last.at} ms after the last answered one, was refused with a limit error; the task's poll interval is ${last.every} ms`, "the task: a requestor that polls at the interval is not rate-limited", code);
  }
  return true;
}

/** A task held by a transition (paused) is let go by the spec's own way out, which the server must accept. */
export async function letGo(w: World, t: ModelTask): Promise<void> {
  if (w.model.roleOf[t.status] !== "paused") return;
  const out = w.model.ops("transition").find((m) => m.to !== undefined && m.to !== t.status && w.model.direct.get(t.status)?.has(m.to) && w.model.roleOf[m.to] !== "paused");
  if (!out) return;
  const a = await w.session.request(out.method, idParams(w, t.id));
  expectAnswer(a, rules.transitions, out.method);
  const guarded = w.model.ir.transitions.some((x) => x.from === t.status && x.to === out.to && x.guard !== undefined);
  if (a.error && !isLimitError(w.model, a.error.code) && !guarded) {
    await refresh(w, t);
    if (w.model.roleOf[t.status] === "paused") fail(rules.transitions, `${out.method} of a task in ${t.status} failed, but the spec allows ${t.status} → ${out.to}`, "a result", a.error);
  }
}

/** Answers a task's input round the way the spec routes it: on the result stream, or by the update method. */
export async function answerInputRound(w: World, t: ModelTask): Promise<void> {
  const input = w.model.ir.behaviour.input;
  if (input === false) return;
  if (input.via === "result-stream") {
    // One result request open per task: its stream carries the input requests.
    const res = w.model.op("result");
    if (res && t.resultStream === undefined) t.resultStream = w.session.request(res.method, idParams(w, t.id), 15_000).finally(() => (t.resultStream = undefined));
    return;
  }
  if (input.via === "inline-poll" && input.updateMethod !== undefined && input.requestsField && input.responsesField) {
    const get = w.model.op("get")!;
    let sent = Date.now();
    let a = await w.session.request(get.method, idParams(w, t.id));
    // Rate-limited for polling sooner than the task's interval: asked again a little later.
    for (let tries = 0; a.error && tries < 50 && limitedPoll(w, t, sent, a.error.code, get.method); tries++) {
      await new Promise((r) => setTimeout(r, 200));
      sent = Date.now();
      a = await w.session.request(get.method, idParams(w, t.id));
    }
    const task = taskIn(w.model, a.result);
    if (task !== undefined) observe(w, t, task, get.method, sent);
    const asked = task === undefined ? undefined : task[input.requestsField];
    if (!isObject(asked) || w.model.roleOf[t.status] !== "input_required") return;
    const { answerInput } = await import("./session.js");
    const responses = Object.fromEntries(
      Object.entries(asked).map(([k, r]) => [k, answerInput(String(isObject(r) ? r.method : ""), isObject(r) && isObject(r.params) ? r.params : undefined)]),
    );
    const u = await w.session.request(input.updateMethod, { ...idParams(w, t.id), [input.responsesField]: responses });
    checked(rules.input);
    expectAnswer(u, rules.input, `${input.updateMethod} of task ${t.id}`);
    if (u.error) fail(rules.input, `${input.updateMethod} answering the task's own input requests failed`, "a result", u.error);
    checkResultType(w, input.updateMethod, u.result!);
    checkEmptyAck(w, input.updateMethod, u.result!, rules.input);
    checkSchema(w.model.schemas.result(input.updateMethod), u.result, rules.types, `${input.updateMethod} result`);
  }
}

export async function refresh(w: World, t: ModelTask): Promise<void> {
  const get = w.model.op("get");
  if (!get) return;
  const sent = Date.now();
  const g = await w.session.request(get.method, idParams(w, t.id));
  if (forgotten(w, t, g.error)) return;
  checkReachable(w, t, g, get.method);
  const task = taskIn(w.model, g.result);
  if (task) {
    observe(w, t, task, get.method, sent);
    checkInline(w, t, task, get.method);
  }
}

/** Waits for a task whose work ends on its own; it ends as its outcome says and answers what its end declares. */
export async function seeToEnd(w: World, t: ModelTask): Promise<void> {
  checked(rules.outcomes);
  checked(rules.progress);
  await waitTerminal(w, t, 15_000);
  // Forgotten by the server meanwhile, as the spec lets it (cancelled, or past its retention): nothing more to see.
  if (t.gone) return;
  if (!w.model.terminal.has(t.status)) fail(rules.progress, `task ${t.id} (${t.outcome}) is still ${t.status} after 15 s`, "a terminal state", t.status);
  // Long work is seen to its end only once cancelled.
  const expected = t.cancelRequested || t.outcome === "long" ? new Set([...w.model.endStates.cancel, ...w.model.terminal]) : w.model.endStates[t.outcome === "input" ? "complete" : t.outcome];
  w.made.ended.add(t.outcome);
  if (!expected.has(t.status) && !t.endedByMove) fail(rules.outcomes, `task ${t.id} of outcome ${t.outcome} ended ${t.status}`, [...expected], t.status);
  await endChecks(w, t);
}

/** What an ended task answers: its result (or error) as its end declares, and to a cancel what the spec says of a terminal task. */
export async function endChecks(w: World, t: ModelTask): Promise<void> {
  t.endChecked = true;
  await checkEndAnnounced(w, t);
  await checkCreationAnswer(w, t);
  // An inline result is checked on the task itself.
  if (w.model.ir.behaviour.results.mode === "inline") await refresh(w, t);
  const res = w.model.op("result");
  if (res !== undefined && w.model.ir.behaviour.results.mode !== "inline") {
    const a = await w.session.request(res.method, idParams(w, t.id), 10_000);
    expectAnswer(a, rules.results, `${res.method} of a task that ended ${t.status}`);
    if (forgotten(w, t, a.error)) return;
    if (!(a.error && isLimitError(w.model, a.error.code))) checkEndResult(w, t, a, res.method);
    if (a.result) checkRelated(w, t, res.method, a.result);
    if (a.result && w.model.roleOf[t.status] === "completed") await checkSameResult(w, t, a.result, res.method);
    if (a.error && !isLimitError(w.model, a.error.code) && w.model.ir.behaviour.results.mode === "block-until-terminal") await checkReplay(w, t, a.error, res.method);
  }
  // An inline result or error is what the same call answers without a task.
  const r = w.model.ir.behaviour.results;
  const get = w.model.op("get");
  if (r.mode === "inline" && (r.errorField !== undefined || r.resultField !== undefined) && get !== undefined) {
    const g = await w.session.request(get.method, idParams(w, t.id));
    const task = taskIn(w.model, g.result);
    const err = r.errorField === undefined ? undefined : task?.[r.errorField];
    if (isObject(err) && typeof err.code === "number") await checkReplay(w, t, err as unknown as JsonRpcError, `${get.method} (${r.errorField})`);
    const result = r.resultField === undefined ? undefined : task?.[r.resultField];
    if (isObject(result) && w.model.roleOf[t.status] === "completed") await checkSameResult(w, t, result, `${get.method} (${r.resultField})`);
  }
  // Cancelling it now does what the spec says of a terminal task, and leaves it as it ended.
  const c = w.model.ir.behaviour.cancellation;
  if (c.via === "cancelled-notification" && t.requestId !== undefined && w.model.op("get") !== undefined) {
    // The notification is ignored: read right after it, the task is as it ended.
    count(w, "cancelled notification after the end");
    checked(rules.terminal);
    await w.session.wire.notify("notifications/cancelled", { requestId: t.requestId, reason: "conform" });
    await new Promise((r) => setTimeout(r, 50));
    await refresh(w, t);
    return;
  }
  const cancel = c.via === "method" && c.method !== undefined && w.offered(c.method) ? c.method : undefined;
  if (cancel === undefined) return;
  count(w, "cancel after the end");
  checked(rules.cancellation);
  const a = await w.session.request(cancel, idParams(w, t.id));
  expectAnswer(a, rules.cancellation, cancel);
  if (a.error && isLimitError(w.model, a.error.code)) return;
  if (forgotten(w, t, a.error)) return;
  if (c.terminal === "error") expectError(a, w.model.error(c.terminalError), rules.cancellation, `${cancel} of a task already ${t.status}`);
  else if (a.error) fail(rules.cancellation, `${cancel} of a terminal task failed; the spec says it is ${c.terminal === "ack" ? "acknowledged" : "ignored"}`, "a result", a.error);
  if (a.result) {
    checkResultType(w, `${cancel} of a task already ${t.status}`, a.result);
    checkEmptyAck(w, cancel, a.result, rules.cancellation);
  }
  await refresh(w, t);
}

/**
 * Where a notification acknowledges a task, the request that made it stays open and is answered as the work ended:
 * that answer is a response of the task's (it carries the related-task meta naming it), and an error the work threw
 * is the error the same call answers without a task.
 */
async function checkCreationAnswer(w: World, t: ModelTask): Promise<void> {
  if (t.pending === undefined || t.via !== undefined || t.cancelRequested || t.endedByMove || w.model.ir.behaviour.creation.ack.mode !== "notification") return;
  const a = await Promise.race([t.pending, new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000))]);
  if (a === undefined || a.timedOut || a.broken !== undefined) return;
  if (a.result) checkRelatedAnswer(w, t, "tools/call", a.result);
  if (a.error && !isLimitError(w.model, a.error.code)) await checkReplay(w, t, a.error, "the answer to the request that made it");
}

/**
 * The result a completed task's tool call answers through the result method is what the same call answers when no
 * task is asked: the same result, its _meta aside (once per tool and run of conform; where the server serves that
 * call plainly).
 */
async function checkSameResult(w: World, t: ModelTask, result: Record<string, unknown>, where: string): Promise<void> {
  if ((t.outcome !== "complete" && t.outcome !== "fail") || t.via !== undefined || t.endedByMove || t.cancelRequested) return;
  const recipe = w.outcomes[t.outcome];
  if (recipe === undefined) return;
  const { _meta: _, ...got } = result;
  const plain = await plainResultOf(w, recipe, t.outcome);
  if (plain === null) return;
  count(w, "plain call: the same result");
  checked(rules.results);
  if (!isDeepStrictEqual(got, plain)) fail(rules.results, `${where} of task ${t.id} answered another result than the same call answers without a task`, plain, got);
}

/**
 * What a tool call of quick work (outcome complete or fail) answers when no task is asked, its _meta aside (asked
 * once per tool and run of conform); null where the server does not serve that call plainly: a tool whose switch
 * requires a task refuses it (with an error, or a result that says so), and so does a plain call of quick work
 * answered as a failure.
 */
export async function plainResultOf(w: World, recipe: { name: string; arguments?: Record<string, unknown> }, outcome: "complete" | "fail"): Promise<Record<string, unknown> | null> {
  let plain = w.made.plainResults.get(recipe.name);
  if (plain === undefined) {
    const sw = w.model.ir.behaviour.creation.toolSwitch;
    const setting = sw === false ? undefined : (valueAt(w.tools.get(recipe.name) ?? {}, sw.field.split(".")) ?? sw.default);
    const a = setting === "required" ? undefined : await plainCall(w, recipe.name, recipe.arguments ?? {});
    // Work that ends well as a task is served the same without one, or, where the requestor opts in per request,
    // refused as served only as a task: with the error the spec declares for that, and no other.
    const c = w.model.ir.behaviour.creation;
    const required = c.via === "client-capability" ? w.model.error(c.requiredTaskError) : undefined;
    if (a?.error !== undefined && required !== undefined && !isLimitError(w.model, a.error.code)) {
      expectError(a, required, rules.optIn, `tools/call of ${recipe.name} without the opt-in (a task of it ${outcome === "complete" ? "completes" : "ends as the tool's failure"})`);
    }
    const { _meta: __, ...rest } = a?.result ?? {};
    plain = a?.result === undefined || (outcome === "complete" && rest.isError === true) ? null : rest;
    w.made.plainResults.set(recipe.name, plain);
  }
  return plain;
}

/**
 * The error a task of a protocol-error tool ended in is the error the work threw: the same code, message and data
 * as the same tool call answers when no task is asked (once per tool and run of conform; where the server serves
 * that call plainly).
 */
async function checkReplay(w: World, t: ModelTask, error: JsonRpcError, where: string): Promise<void> {
  if (t.outcome !== "error" || t.via !== undefined || t.endedByMove || t.cancelRequested) return;
  const recipe = w.outcomes.error;
  if (recipe === undefined) return;
  let plain = w.made.plainErrors.get(recipe.name);
  if (plain === undefined) {
    const a = await plainCall(w, recipe.name, recipe.arguments ?? {});
    // A server that serves this tool only as a task refuses the plain call: nothing to compare with.
    const required = w.model.error(w.model.ir.behaviour.creation.requiredTaskError);
    const sw = w.model.ir.behaviour.creation.toolSwitch;
    const switchErr = sw === false ? undefined : w.model.error(sw.requiredError);
    plain = a.error === undefined || a.error.code === required?.code || (switchErr !== undefined && a.error.code === switchErr.code && switchErr.pattern.test(a.error.message)) ? null : a.error;
    w.made.plainErrors.set(recipe.name, plain);
  }
  if (plain === null) return;
  count(w, "plain call: the same error");
  checked(rules.results);
  const same = error.code === plain.code && error.message === plain.message && isDeepStrictEqual(error.data, plain.data);
  if (!same) fail(rules.results, `${where} of task ${t.id} carries another error than the work threw (the same call without a task answers it)`, plain, { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) });
}
