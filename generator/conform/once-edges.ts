/**
 * Checks at the edges of the task requests, made once per invocation of conform (see `once.ts`): a task's log
 * messages, a request the server makes no task of asked as a task, a plain call of a tool that leaves tasks
 * optional, tasks whose end is compared with the plain call where the drawn runs compared none, the task methods
 * asked with a related-task meta that names another task, work that asks for two inputs at once, a task
 * cancelled while it waits for input, and the delete of a task while its work runs.
 */
import { isDeepStrictEqual } from "node:util";
import { Create } from "./commands/create.js";
import { cancelGuarded } from "./commands/cancel.js";
import { deleteTask } from "./commands/delete.js";
import { keyedInput } from "./commands/input-keys.js";
import { switchSetting } from "./commands/refusals.js";
import { answerInputRound, observe, refresh, seeToEnd, waitTerminal } from "./follow.js";
import { checked, fail } from "./rule.js";
import { rules } from "./rules/index.js";
import { checkRelatedNotification } from "./rules/related-task.js";
import { taskIn, valueAt } from "./session.js";
import { brief, cancelMethodOf, count, expectAnswer, idParams, isObject, mayAugment, type ModelTask, plainCall, type World } from "./world.js";

/** The notification a server logs with (core MCP logging). */
const LOG = "notifications/message";

/**
 * A task's log messages: one task of the complete outcome, made while no other work of the tester runs, read to its
 * end. Every log message that came meanwhile is its work's (no plain request was open), and names it in the
 * related-task meta where the spec puts that meta on a task's notifications; one that names a task of an earlier run
 * on the same connection, not seen ended, is that task's. A server that logs nothing is not checked.
 */
export async function taskLogs(w: World): Promise<void> {
  const rel = w.model.ir.behaviour.relatedTask;
  const key = rel === false || !rel.notifications ? undefined : w.model.metaKey(rel.meta);
  const recipe = w.outcomes.complete;
  if (key === undefined || recipe === undefined || !w.tools.has(recipe.name) || !mayAugment(w.model, "tools/call") || !w.augmented("tools/call") || w.model.op("get") === undefined) return;
  if (w.tasks.some((t) => !t.gone && !w.model.terminal.has(t.status))) return;
  const from = w.session.wire.notifications.length;
  const made = await new Create("complete").make(w);
  if (made === undefined) return;
  await waitTerminal(w, made.t, 15_000);
  // Up to its end as read: what comes later (its result read, a plain call of the same tool) is not in the window.
  const logs = w.session.wire.notifications.slice(from).filter((n) => n.method === LOG);
  await seeToEnd(w, made.t);
  if (logs.length === 0) return;
  count(w, "once: a task's log messages");
  for (const n of logs) {
    const entry = valueAt(n.params ?? {}, ["_meta", key]);
    const named = isObject(entry) && typeof entry.taskId === "string" ? entry.taskId : undefined;
    // A task of a run before this one on the same connection, not seen ended, may still log as its work stops.
    if (named !== undefined && named !== made.t.id && w.made.ids.has(named) && !w.made.endedIds.has(named) && w.tasks.every((t) => t.id !== named)) continue;
    checkRelatedNotification(w, made.t, LOG, n.params);
  }
}

/** A request no spec lets become a task on its own terms here: the tool listing. */
const PLAIN = "tools/list";

/**
 * tools/list asked as a task, where the server makes no task of it (the spec does not let it, or the server does
 * not declare it): its own result, no task in it; where a notification acknowledges tasks, none announces one
 * unless the server made one, which it then answers with.
 */
export async function ignoredTaskRequest(w: World): Promise<void> {
  const c = w.model.ir.behaviour.creation;
  if (c.via !== "param" && c.via !== "meta") return;
  const declared = mayAugment(w.model, PLAIN) && w.augmented(PLAIN);
  // Where any request may become a task and a notification says which did, the server may make one: only that the
  // answer and the announcement agree is checked.
  if (declared && c.ack.mode !== "notification") return;
  const requestorId = c.taskId.assignedBy === "requestor" ? `conform-${Math.random().toString(36).slice(2, 10)}` : undefined;
  count(w, "once: a task request of tools/list");
  const before = w.session.wire.notifications.length;
  const a = await w.session.request(PLAIN, w.session.taskParams({}, requestorId, 60_000));
  expectAnswer(a, rules.plainRequest, `${PLAIN} asking for a task`);
  checked(rules.plainRequest);
  if (a.error) fail(rules.plainRequest, `${PLAIN} asking for a task was refused; a request the server makes no task of is served as usual`, "its result", a.error);
  const made = taskIn(w.model, a.result);
  if (made !== undefined && !declared) fail(rules.plainRequest, `${PLAIN} asking for a task answered task ${String(made[w.model.idField])}, but the server makes no task of it`, "its result", a.result);
  if (made === undefined && !Array.isArray(a.result?.tools)) fail(rules.plainRequest, `${PLAIN} asking for a task answered neither its result nor a task`, "a result with tools", a.result);
  if (made === undefined) {
    // Served as usual: the task metadata ignored, the same result as the same request asked without it.
    const plain = await w.session.request(PLAIN, {});
    expectAnswer(plain, rules.plainRequest, PLAIN);
    const { _meta: _, ...asTask } = a.result!;
    const { _meta: __, ...asked } = plain.result ?? {};
    if (plain.result && !isDeepStrictEqual(asTask, asked)) fail(rules.plainRequest, `${PLAIN} asking for a task answered another result than ${PLAIN} asked without one`, asked, asTask);
  }
  if (c.ack.mode !== "notification" || requestorId === undefined) return;
  await new Promise((r) => setTimeout(r, 300));
  const announced = w.session.wire.notifications.slice(before).find((n) => n.method === c.ack.notification && JSON.stringify(n.params ?? {}).includes(JSON.stringify(requestorId)));
  if (announced === undefined || !Array.isArray(a.result?.tools)) return;
  // Announced as a task, yet answered at once with its own result: the requestor would poll a task that is not.
  const get = w.model.op("get");
  const g = get === undefined ? undefined : await w.session.request(get.method, idParams(w, requestorId));
  if (g === undefined || g.error || taskIn(w.model, g.result) === undefined) {
    fail(rules.plainRequest, `${PLAIN} was served as usual, but ${c.ack.notification} announced task ${requestorId} for it, which is not there`, "no announcement", announced.params);
  }
}

/** A plain call of a tool whose switch leaves tasks optional is served: the switch, not the server, says when a task is needed. */
export async function optionalServedPlainly(w: World): Promise<void> {
  const sw = w.model.ir.behaviour.creation.toolSwitch;
  if (sw === false || !w.augmented("tools/call")) return;
  // The quick tool of the outcomes, where its switch says optional.
  const recipe = w.outcomes.complete;
  const tool = recipe === undefined ? undefined : w.tools.get(recipe.name);
  if (recipe === undefined || tool === undefined || switchSetting(w.model, tool) !== "optional") return;
  count(w, "once: a plain call of an optional tool");
  const a = await plainCall(w, recipe.name, recipe.arguments ?? {});
  expectAnswer(a, rules.toolSwitch, `tools/call of ${recipe.name} (${sw.field}: optional) without a task request`);
  checked(rules.toolSwitch);
  if (a.error) fail(rules.toolSwitch, `a plain call of ${recipe.name}, whose ${sw.field} is optional, was refused`, "its result", a.error);
  if (taskIn(w.model, a.result) !== undefined) fail(rules.toolSwitch, `a plain call of ${recipe.name} (${sw.field}: optional) answered a task`, "its result", a.result);
}

/**
 * A task of quick work (complete, fail) and one of work that throws a JSON-RPC error (error), seen to their end,
 * where the drawn runs compared none of that tool with the same call made without a task: the result or error the
 * task ends with is the plain call's, whatever the draws.
 */
export async function sameAsPlain(w: World): Promise<void> {
  if (!mayAugment(w.model, "tools/call") || !w.augmented("tools/call")) return;
  for (const outcome of ["complete", "fail", "error"] as const) {
    const recipe = w.outcomes[outcome];
    const compared = outcome === "error" ? w.made.plainErrors : w.made.plainResults;
    if (recipe === undefined || !w.tools.has(recipe.name) || compared.has(recipe.name)) continue;
    count(w, `once: a task of ${outcome} work against the plain call`);
    const made = await new Create(outcome).make(w);
    if (made !== undefined) await seeToEnd(w, made.t);
  }
}

/**
 * The task methods name their task by the id param: a related-task meta naming another task is ignored. Two long
 * tasks A and B: the get of A with the meta naming B shows A; the cancel of A with the meta naming B cancels A and
 * leaves B running.
 */
export async function paramIsTheTask(w: World): Promise<void> {
  const rel = w.model.ir.behaviour.relatedTask;
  const key = rel === false ? undefined : w.model.metaKey(rel.meta);
  const get = w.model.op("get");
  const cancel = cancelMethodOf(w);
  const long = w.outcomes.long;
  if (key === undefined || get === undefined || long === undefined || !w.tools.has(long.name) || !mayAugment(w.model, "tools/call") || !w.augmented("tools/call")) return;
  const a = await new Create("long").make(w);
  const b = await new Create("long").make(w);
  if (a === undefined || b === undefined) return;
  count(w, "once: a task method with a related-task meta naming another task");
  const naming = (id: string, other: string) => ({ ...idParams(w, id), _meta: { [key]: { taskId: other } } });
  const g = await w.session.request(get.method, naming(a.t.id, b.t.id));
  expectAnswer(g, rules.relatedTask, get.method);
  checked(rules.relatedTask);
  if (g.error) fail(rules.relatedTask, `${get.method} of task ${a.t.id} with a related-task meta naming task ${b.t.id} was refused; the id param names the task`, "task " + a.t.id, g.error);
  const shown = taskIn(w.model, g.result);
  if (shown?.[w.model.idField] !== a.t.id) fail(rules.relatedTask, `${get.method} of task ${a.t.id} with a related-task meta naming task ${b.t.id} answered another task`, a.t.id, shown?.[w.model.idField] ?? brief(g));
  observe(w, a.t, shown!, get.method);
  if (cancel === undefined) return;
  const x = await w.session.request(cancel, naming(a.t.id, b.t.id));
  expectAnswer(x, rules.relatedTask, cancel);
  if (x.error) fail(rules.relatedTask, `${cancel} of task ${a.t.id} with a related-task meta naming task ${b.t.id} was refused; the id param names the task`, "a result", x.error);
  a.t.cancelRequested = true;
  // Where the reply shows the task, it is seen cancelled (and may be deleted from then on).
  const xShown = taskIn(w.model, x.result);
  if (xShown?.[w.model.idField] === a.t.id) observe(w, a.t, xShown, `${cancel} reply`);
  const other = await w.session.request(get.method, idParams(w, b.t.id));
  const bShown = taskIn(w.model, other.result);
  if (isObject(bShown)) {
    observe(w, b.t, bShown, get.method);
    if (w.model.terminal.has(b.t.status)) fail(rules.relatedTask, `${cancel} of task ${a.t.id} with a related-task meta naming task ${b.t.id} ended task ${b.t.id} (${b.t.status})`, "still running", b.t.status);
  }
}

/**
 * Work that asks for two inputs at once (the `inputs` outcome), seen to its end: the tester answers a task's input
 * requests one after the other and reads the task before each answer, so the second is read while it still waits
 * (rule `input`). Where input is asked in the task by key, the input keys' checks make this work (one task serves
 * both).
 */
export async function twoInputs(w: World): Promise<void> {
  const recipe = w.outcomes.inputs;
  if (keyedInput(w)) return;
  if (w.model.ir.behaviour.input === false || recipe === undefined || !w.tools.has(recipe.name) || !mayAugment(w.model, "tools/call") || !w.augmented("tools/call")) return;
  // Made as input work (it ends completed once answered) with the inputs outcome's tool.
  const made = await new Create("input", undefined, undefined, recipe).make(w);
  if (made === undefined) return;
  count(w, "once: work that asks for two inputs at once");
  await seeToEnd(w, made.t);
}

/**
 * Two tasks waiting for input at once, told apart by when they asked: the first input request after task A was made
 * is held unanswered (A waits), task B is made meanwhile and read until it asks too. The request before B was made
 * names A; the one that came after names B (the input outcome's work asks one input at a time, so A, still waiting
 * for its answer, asks nothing more). Where B does not ask while A waits (a server may hold its requests back), the
 * second is not checked.
 */
export async function twoWaiting(w: World): Promise<void> {
  const rel = w.model.ir.behaviour.relatedTask;
  const input = w.model.ir.behaviour.input;
  const recipe = w.outcomes.input;
  if (rel === false || !rel.requests || input === false || input.via === "inline-poll" || w.model.op("get") === undefined) return;
  if (recipe === undefined || !w.tools.has(recipe.name) || !mayAugment(w.model, "tools/call") || !w.augmented("tools/call")) return;
  const transcript = w.session.wire.transcript;
  // The input requests the server sent after `mark` (an entry of the transcript), with the task each names.
  const asked = (mark: unknown) =>
    transcript
      .slice(transcript.indexOf(mark as never) + 1)
      .filter((e) => e.dir === "←" && isObject(e.message) && e.message.id !== undefined && input.requests.includes(String(e.message.method)))
      .map((e) => valueAt(e.message as Record<string, unknown>, ["params", "_meta", w.model.metaKey(rel.meta) ?? ""]))
      .map((m) => (isObject(m) && typeof m.taskId === "string" ? m.taskId : "nothing"));
  let settle: (t: ModelTask | undefined) => void = () => {};
  const aTask = new Promise<ModelTask | undefined>((r) => (settle = r));
  let phase: "a" | "b" | "done" = "a";
  const named: { a?: string; b?: string } = {};
  let b: ModelTask | undefined;
  let problem: unknown;
  w.session.beforeInputAnswer = async (seen) => {
    if (phase !== "a") return;
    phase = "b";
    try {
      named.a = seen.relatedTaskId;
      if ((await aTask) === undefined) return;
      const mark = transcript.at(-1);
      b = (await new Create("input").make(w))?.t;
      // B is read (its input asked for the way the spec routes it) until it asks, while A's request waits.
      for (const until = Date.now() + 10_000; b !== undefined && named.b === undefined && Date.now() < until; ) {
        await refresh(w, b);
        if (w.model.roleOf[b.status] === "input_required") await answerInputRound(w, b);
        named.b = asked(mark)[0];
        if (named.b === undefined) await new Promise((r) => setTimeout(r, 50));
      }
    } catch (e) {
      problem = e;
    } finally {
      phase = "done";
    }
  };
  let a: ModelTask | undefined;
  try {
    try {
      a = (await new Create("input").make(w))?.t;
    } finally {
      settle(a);
    }
    if (a === undefined) return;
    await waitTerminal(w, a, 30_000);
    if (problem !== undefined) throw problem;
  } finally {
    w.session.beforeInputAnswer = undefined;
  }
  if (phase === "a") return;
  checked(rules.relatedTask);
  if (named.a !== a.id) fail(rules.relatedTask, `the first input request after task ${a.id} was made, while no other task of the tester waited, names ${named.a ?? "no task"}`, a.id, named.a ?? "nothing");
  if (b === undefined || named.b === undefined) return;
  count(w, "once: two tasks waiting for input at once");
  if (named.b !== b.id) fail(rules.relatedTask, `with tasks ${a.id} and ${b.id} both waiting for input, the input request that came after ${b.id} was made (${a.id} still waiting for its answer) names ${named.b}`, b.id, named.b);
  await seeToEnd(w, b);
  await seeToEnd(w, a);
}

/**
 * A task cancelled while it waits for input, its input request answered after the cancel: the answer is ignored and
 * the task stays where the spec's cancel leads (it does not go on to complete).
 */
export async function cancelWhileWaiting(w: World): Promise<void> {
  const c = w.model.ir.behaviour.cancellation;
  const method = cancelMethodOf(w);
  const byNotification = c.via === "cancelled-notification";
  const recipe = w.outcomes.input;
  if (w.model.ir.behaviour.input === false || recipe === undefined || !w.tools.has(recipe.name) || !mayAugment(w.model, "tools/call") || !w.augmented("tools/call") || w.model.op("get") === undefined) return;
  if (method === undefined && !byNotification) return;
  // The input request may come before the creation returns (a notification acknowledges it): the hook waits for it.
  let settle: (t: ModelTask | undefined) => void = () => {};
  const task = new Promise<ModelTask | undefined>((r) => (settle = r));
  let cancelled = false;
  // Where every edge the table gives a cancel from where the task waits has a guard, the cancel may be refused
  // (or, by notification, ignored): the table's own answer, and then nothing is expected of the task.
  let refused = false;
  w.session.beforeInputAnswer = async (seen) => {
    const t = await task;
    if (t === undefined || seen.relatedTaskId !== t.id || cancelled) return;
    if (byNotification && t.requestId === undefined) return;
    cancelled = true;
    await refresh(w, t);
    const guarded = cancelGuarded(w, t.status);
    t.cancelRequested = true;
    if (method !== undefined) {
      const a = await w.session.request(method, idParams(w, t.id));
      if (a.error && guarded) {
        refused = true;
        t.cancelRequested = false;
        count(w, "cancel refused by its guard");
        return;
      }
      // Where the reply shows the task, it is seen cancelled (and may be deleted from then on).
      const shown = taskIn(w.model, a.result);
      if (shown !== undefined) observe(w, t, shown, `${method} reply`);
    } else {
      await w.session.wire.notify("notifications/cancelled", { requestId: t.requestId, reason: "conform" });
      if (guarded) {
        refused = true;
        t.cancelRequested = false;
        return;
      }
    }
    await waitTerminal(w, t, 5000);
  };
  try {
    let made: Awaited<ReturnType<Create["make"]>>;
    try {
      made = await new Create("input").make(w);
    } finally {
      settle(made?.t);
    }
    if (made === undefined) return;
    const t = made.t;
    await waitTerminal(w, t, 15_000);
    if (!cancelled || refused) return;
    count(w, "once: a task cancelled while it waits for input");
    // The answer went out after the cancel: a little later the task is still where the cancel left it.
    await new Promise((r) => setTimeout(r, 300));
    await refresh(w, t);
    checked(rules.cancellation);
    if (!w.model.endStates.cancel.has(t.status)) fail(rules.cancellation, `task ${t.id}, cancelled while it waited for input, is ${t.status} once its input was answered`, [...w.model.endStates.cancel], t.status);
  } finally {
    w.session.beforeInputAnswer = undefined;
  }
}

/**
 * The delete of a task whose work runs (the long outcome), where the spec declares a delete method that does not
 * let a running task be deleted: the drawn runs meet such a task only when a delete is drawn while long work runs.
 * The delete's checks are the drawn command's (`commands/delete.ts`): refused with the declared error, or Method not
 * found, and the task still there; a result for it is a violation. The task is cancelled after, where the spec can.
 */
export async function deleteWhileRunning(w: World): Promise<void> {
  const del = w.model.op("delete");
  const long = w.outcomes.long;
  if (del === undefined || long === undefined || !w.tools.has(long.name) || !mayAugment(w.model, "tools/call") || !w.augmented("tools/call")) return;
  const made = await new Create("long").make(w);
  if (made === undefined) return;
  const t = made.t;
  await refresh(w, t);
  const c = w.model.ir.behaviour.cancellation;
  const deletable = c.deletableStatuses === undefined ? w.model.terminal.has(t.status) : c.deletableStatuses.includes(t.status);
  if (!t.gone && !deletable) {
    count(w, "once: the delete of a task whose work runs");
    await deleteTask(w, t);
  }
  const cancel = cancelMethodOf(w);
  if (cancel === undefined || t.gone || w.model.terminal.has(t.status)) return;
  t.cancelRequested = true;
  const x = await w.session.request(cancel, idParams(w, t.id));
  const shown = taskIn(w.model, x.result);
  if (shown?.[w.model.idField] === t.id) observe(w, t, shown, `${cancel} reply`);
}
