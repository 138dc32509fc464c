/** Making a task: a tool call of an outcome (or another request the spec lets become a task) as a task request. */
import { isDeepStrictEqual } from "node:util";
import { Cmd } from "./base.js";
import { observe, plainResultOf, refresh } from "../follow.js";
import type { OutcomeName, ToolRecipe } from "../report.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { taskIn } from "../session.js";
import { checkRelatedNotification } from "../rules/related-task.js";
import { checkInline } from "../rules/results.js";
import { type Augmentable, brief, checkSchema, count, expectAnswer, idParams, isLimitError, isObject, type ModelTask, type World } from "../world.js";

/** How late an acknowledgement of long work may come (ms). */
const LATE_ACK_MS = 5000;

export class Create extends Cmd {
  /**
   * `via`: made through another augmentable request (its work completes), rather than a tool of an outcome;
   * `ttl`: the retention asked for.
   */
  constructor(
    readonly outcome: OutcomeName,
    readonly via?: Augmentable,
    readonly ttl = 60_000,
    /** The tool call to make, where not the outcome's. */
    readonly recipe?: ToolRecipe,
  ) {
    super();
  }
  toString() {
    return this.via ? `create(${this.via.method})` : `create(${this.outcome})`;
  }
  async exec(w: World): Promise<void> {
    const made = await this.make(w);
    if (made === undefined) return;
    const get = w.model.op("get");
    if (get === undefined || w.model.ir.behaviour.creation.ack.mode === "notification") return refresh(w, made.t);
    // Read back at once what was made: a task is answered only once it is durably created, so its get resolves.
    const sent = Date.now();
    const a = await w.session.request(get.method, idParams(w, made.t.id));
    expectAnswer(a, rules.creation, `${get.method} of task ${made.t.id} at once after its acknowledgement`);
    checked(rules.creation);
    if (a.error) {
      if (isLimitError(w.model, a.error.code)) return;
      fail(rules.creation, `${get.method} of task ${made.t.id} at once after its acknowledgement failed: the task was answered before it could be read`, "the task", a.error);
    }
    const task = taskIn(w.model, a.result);
    if (task === undefined) return;
    observe(w, made.t, task, get.method, sent);
    checkInline(w, made.t, task, get.method);
  }
  /**
   * Makes the task and adds it to the model: the task and the acknowledgement's record of it (none where a
   * notification acknowledges it); undefined where the server refused for a limit or served no task.
   */
  async make(w: World): Promise<{ t: ModelTask; task?: Record<string, unknown> } | undefined> {
    const m = w.model;
    const c = m.ir.behaviour.creation;
    const recipe = this.via ? undefined : (this.recipe ?? w.outcomes[this.outcome]!);
    const method = this.via?.method ?? "tools/call";
    const label = recipe ? `tools/call of ${recipe.name}` : method;
    const requestorId = c.taskId.assignedBy === "requestor" ? `conform-${Math.random().toString(36).slice(2, 10)}` : undefined;
    const asked = w.session.taskParams(this.via?.params ?? { name: recipe!.name, arguments: recipe!.arguments ?? {} }, requestorId, this.ttl);
    // A progress token of its own, whose life the spec's progressTokenLifetime bounds.
    const progressToken = `conform-progress-${Math.random().toString(36).slice(2, 10)}`;
    const params = { ...asked, _meta: { ...(isObject(asked._meta) ? asked._meta : {}), progressToken } };
    const made = { ...(this.via ? { via: method } : {}), progressToken };
    w.made.tokens.add(progressToken);
    count(w, this.via ? `create via ${method}` : "create");
    if (c.ack.mode === "notification") {
      const before = w.session.wire.notifications.length;
      let requestId: number | undefined;
      const pending = w.session.request(method, params, 60_000, (id) => (requestId = id));
      const deadline = Date.now() + 10_000;
      let ack: Record<string, unknown> | undefined;
      let acknowledgedAt: number | undefined;
      while (ack === undefined && Date.now() < deadline) {
        const n = w.session.wire.notifications.slice(before).find((n) => n.method === c.ack.notification && JSON.stringify(n.params ?? {}).includes(JSON.stringify(requestorId)));
        ack = n?.params;
        acknowledgedAt = n?.at;
        if (ack === undefined) {
          const early = await Promise.race([pending, new Promise<undefined>((r) => setTimeout(() => r(undefined), 25))]);
          if (early?.error && isLimitError(m, early.error.code)) return;
          if (early !== undefined && ack === undefined) {
            // Its own announcement may have come meanwhile; else the first one since the request (naming another task?).
            const since = w.session.wire.notifications.slice(before).filter((n) => n.method === c.ack.notification);
            ack = (since.find((n) => JSON.stringify(n.params ?? {}).includes(JSON.stringify(requestorId))) ?? since[0])?.params;
            if (ack === undefined && this.via !== undefined && early.result !== undefined) {
              await servedPlainly(w, method, early.result, requestorId!, before);
              return;
            }
            if (ack === undefined) fail(rules.creation, `${method} with a task request answered before any ${c.ack.notification}`, c.ack.notification, brief(early));
          }
        }
      }
      if (ack === undefined) fail(rules.creation, `no ${c.ack.notification} within 10 s of a task request`, c.ack.notification, "nothing");
      checkSchema(m.schemas.params(c.ack.notification!), ack, rules.types, `${c.ack.notification} params`);
      const t: ModelTask = { id: requestorId!, outcome: this.outcome, status: m.initial, cancelRequested: false, gone: false, pending, ...made, ...(requestId === undefined ? {} : { requestId }), ...(acknowledgedAt === undefined ? {} : { acknowledgedAt }) };
      void pending.then(() => (t.answeredAt = Date.now()));
      w.tasks.push(t);
      w.made.ids.add(t.id);
      // The announcement is a notification of the task's: it names the task in the related-task meta (not where it
      // is a status notification, which names its task in its params).
      const sn = m.ir.behaviour.statusNotifications;
      if (sn === false || sn.method !== c.ack.notification) checkRelatedNotification(w, t, c.ack.notification!, ack);
      checked(rules.creation);
      w.made.tasks++;
      return { t };
    }
    // An acknowledgement comes at once, whatever the work: a server that runs the work first answers late.
    const sent = Date.now();
    // The request's id: where the spec cancels a task with notifications/cancelled, it names this request.
    let requestId: number | undefined;
    const a = await w.session.request(method, params, 10_000, (id) => (requestId = id));
    const answeredAt = Date.now();
    expectAnswer(a, rules.creation, `${label} with a task request (an acknowledgement is due at once)`);
    if (a.error) {
      if (isLimitError(m, a.error.code)) return;
      fail(rules.creation, `${label} as a task failed`, "a task", a.error);
    }
    // A request the server does not declare among those it makes tasks of is served plainly.
    if (!w.augmented(method)) {
      const served = taskIn(m, a.result);
      // A task made where none is declared: the server has task support, and breaks the capability rule.
      if (served !== undefined) w.made.tasks++;
      if (served !== undefined) fail(rules.capabilities, `${label} with a task request made task ${String(served[m.idField])}, but the server does not declare ${method} among its task requests`, "a plain result", a.result);
      count(w, `create: ${method} served plainly`);
      checked(rules.capabilities);
      w.made.plainly++;
      // Served as usual: the result the same call answers without the task request (quick work, once per tool).
      if (served === undefined && recipe !== undefined && a.result && (this.outcome === "complete" || this.outcome === "fail")) {
        const plain = await plainResultOf(w, recipe, this.outcome);
        const { _meta: _, ...got } = a.result;
        if (plain !== null && !isDeepStrictEqual(got, plain)) fail(rules.capabilities, `${label} with a task request, where the server does not declare ${method} among its task requests, answered another result than the same call without one`, plain, got);
      }
      return;
    }
    const ackType = typeof c.ack.resultType === "string" ? c.ack.resultType : undefined;
    if (c.ack.mode === "flat-result" && m.ir.behaviour.resultType !== false && c.decidedBy === "receiver") {
      const rt = m.ir.behaviour.resultType;
      checked(rules.resultType);
      // A task answered without the marker is not a plain result: the requestor would take the task for the result.
      const shown = taskIn(m, a.result);
      if (a.result![rt.field] !== rt.task && shown !== undefined && a.result![rt.field] !== undefined) {
        fail(rules.resultType, `${label} answered task ${String(shown[m.idField])} with ${rt.field}: ${JSON.stringify(a.result![rt.field])}`, rt.task, a.result![rt.field]);
      }
      if (a.result![rt.field] !== rt.task && shown !== undefined) fail(rules.resultType, `${label} answered task ${String(shown[m.idField])} without ${rt.field}: ${JSON.stringify(rt.task)}`, rt.task, "nothing");
      if (a.result![rt.field] !== rt.task) {
        count(w, "create: served without a task");
        w.made.plainly++;
        return;
      }
    }
    if (ackType !== undefined) checkSchema(m.schemas.type(ackType), a.result, rules.types, `the acknowledgement (${ackType})`);
    const task = taskIn(m, a.result);
    if (task === undefined) fail(rules.creation, "the acknowledgement holds no task", `a task with ${m.idField} and ${m.statusField}`, a.result);
    // Long work (30 s) cannot have ended: an acknowledgement that came seconds late waited on the work, not on the
    // request (the bound leaves room for a loaded machine, so a short delay goes unseen).
    if (this.outcome === "long" && this.via === undefined) {
      checked(rules.creation);
      if (answeredAt - sent > LATE_ACK_MS) fail(rules.creation, `${label} was acknowledged ${answeredAt - sent} ms after the task request; the acknowledgement is due as soon as the task is accepted`, `within ${LATE_ACK_MS} ms`, answeredAt - sent);
    }
    const id = task[m.idField] as string;
    // Unique among every task the server handed out in this invocation: this run's, earlier runs' and another session's.
    if (w.made.handedOut.has(id)) fail(rules.creation, `the server handed out task id ${id} twice${w.tasks.some((t) => t.id === id) ? "" : " (once in an earlier run or another session)"}`);
    const t: ModelTask = { id, outcome: this.outcome, status: m.initial, cancelRequested: false, gone: false, answeredAt, ...made, ...(requestId === undefined ? {} : { requestId }) };
    observe(w, t, task, "the acknowledgement", sent);
    const ret = m.ir.behaviour.retention;
    if (c.ack.mode === "result" && ret !== false && ret.field in task) t.granted = task[ret.field];
    w.tasks.push(t);
    w.made.ids.add(t.id);
    w.made.handedOut.add(t.id);
    checked(rules.creation);
    w.made.tasks++;
    return { t, task };
  }
}

/**
 * A request other than tools/call, asked as a task and answered before any acknowledgement: the server chose not
 * to support tasks for its type (where the requestor decides, a receiver chooses the request types it makes tasks
 * of), and serves it as usual: its own result with no task in it, and no task announced for it after.
 */
async function servedPlainly(w: World, method: string, result: Record<string, unknown>, requestorId: string, before: number): Promise<void> {
  const ack = w.model.ir.behaviour.creation.ack.notification;
  checked(rules.plainRequest);
  count(w, `create: ${method} served plainly`);
  w.made.plainly++;
  if (taskIn(w.model, result) !== undefined) fail(rules.plainRequest, `${method} asking for a task was answered with a task before any ${ack}`, "its own result", result);
  await new Promise((r) => setTimeout(r, 300));
  const late = w.session.wire.notifications.slice(before).find((n) => n.method === ack && JSON.stringify(n.params ?? {}).includes(JSON.stringify(requestorId)));
  if (late !== undefined) fail(rules.plainRequest, `${method} asking for a task was served as usual, but ${ack} announced task ${requestorId} for it after`, "no announcement", late.params);
}
