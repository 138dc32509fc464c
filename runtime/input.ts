// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Input a task asks of its requestor (elicitation, sampling, ...), in the
 * three declared ways: a side request on the original request's stream, a
 * request carried by the requestor's pending result stream, or a request
 * surfaced inline in the polled task and answered by the update method. In
 * every way the task is in the input status until every answer arrived.
 */
import { z } from "zod";
import type { ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { TransitionContext } from "./descriptor.js";
import { invalidParams, TaskProtocolError } from "./errors.js";
import { capabilityAt, isObject, type RuntimePlan } from "./plan.js";
import { cancelledError, type ActiveTask, type PendingInput, type ServerExtra, type TaskHost, type TaskPeer } from "./task-context.js";
import { wireTaskId } from "./wire.js";

/** zod issues as one line, for an error message. */
export function describeIssues(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }): string {
  return error.issues.map((i) => `${i.path.length ? i.path.map(String).join(".") : "params"}: ${i.message}`).join("; ");
}

/** The request to the requestor, carrying the related-task meta where the spec declares it on requests. */
export function relatedRequest(
  plan: RuntimePlan<string>,
  method: string,
  params: Record<string, unknown>,
  taskId: string,
): { method: string; params: Record<string, unknown> } {
  const key = plan.related.key;
  if (!plan.related.requests || key === undefined) return { method, params };
  const meta = { ...(isObject(params._meta) ? params._meta : {}), [key]: { taskId: wireTaskId(taskId) } };
  return { method, params: { ...params, _meta: meta } };
}

/**
 * The task request to put on an input request, where the requestor may serve it as a task: the spec
 * lets requestors receive that request as a task (creation.requests.client), the requestor declared so
 * in its tasks capability (at the declared path for that request), and the spec's task methods let the
 * asking side follow the task (get and result). Undefined otherwise: the request is sent plainly.
 */
export function inputTaskRequest(plan: RuntimePlan<string>, capabilities: Record<string, unknown> | undefined, method: string): Record<string, unknown> | undefined {
  const decl = plan.behaviour.capabilities.client;
  const at = decl === false ? undefined : decl.augments?.[method];
  if (decl === false || at === undefined || capabilities === undefined) return undefined;
  if (!plan.behaviour.creation.requests.client.includes(method)) return undefined;
  if (plan.creation.via !== "param" || plan.creation.ackMode === "notification" || plan.methods.get === undefined || plan.methods.result === undefined) return undefined;
  return capabilityAt(capabilityAt(capabilities, decl.path), at) === undefined ? undefined : {};
}

const anyObject = z.record(z.string(), z.unknown());

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Follows a task the requestor made for an input request: polls it with the get method at the interval
 * it suggests until it ends, then reads its result with the result method (which answers what the
 * request would have, or its error). Aborting cancels the requestor's task where the spec has a cancel method.
 */
async function followInputTask(
  plan: RuntimePlan<string>,
  ack: unknown,
  schema: z.ZodType,
  peer: TaskPeer,
  options: { relatedRequestId?: string | number; signal?: AbortSignal; timeout?: number },
): Promise<unknown> {
  const flat = plan.creation.ackMode !== "result";
  const acked = isObject(ack) ? (flat ? ack : ack.task) : undefined;
  const taskId = isObject(acked) ? acked[plan.idField] : undefined;
  if (!isObject(acked) || typeof taskId !== "string") {
    throw new TaskProtocolError("invalidAnswer", -32603, "The requestor answered a task-augmented input request without a task");
  }
  let task: Record<string, unknown> = acked;
  const ref = { [plan.idField]: taskId };
  try {
    while (!plan.descriptor.machine.isTerminal(String(task[plan.statusField]))) {
      const suggested = plan.polling.field === undefined ? undefined : task[plan.polling.field];
      await pause(typeof suggested === "number" && suggested > 0 ? suggested : plan.polling.default, options.signal);
      const polled: unknown = await peer.request({ method: plan.methods.get!, params: ref }, anyObject, options);
      if (!isObject(polled)) throw new TaskProtocolError("invalidAnswer", -32603, `The requestor answered ${plan.methods.get} without a task`);
      task = polled;
    }
    return await peer.request({ method: plan.methods.result!, params: ref }, schema, options);
  } catch (e) {
    if (options.signal?.aborted && plan.methods.cancel !== undefined) {
      await peer.request({ method: plan.methods.cancel, params: ref }, anyObject, options.timeout === undefined ? {} : { timeout: options.timeout }).catch(() => undefined);
    }
    throw e;
  }
}

/** Rejects a task's input requests still waiting or travelling (cancel, expiry). */
export function failInputs(active: ActiveTask, error: unknown): void {
  for (const item of [...active.inputs]) {
    item.abort.abort(error);
    item.settle({ ok: false, error });
  }
}

/** Runs `fn` after every earlier locked step of the task (input requests and their answers change one record). */
export function locked<T>(active: ActiveTask | undefined, fn: () => Promise<T>): Promise<T> {
  if (!active) return fn();
  const next = active.lock.then(fn, fn);
  active.lock = next.catch(() => undefined);
  return next;
}

/** After an answer: back to the resume status once none is pending (the guard decides), else the count is updated. */
async function afterAnswer<S extends string>(host: TaskHost<S>, taskId: string, active: ActiveTask): Promise<void> {
  active.pending--;
  if (!active.cancelled) {
    const ctx: TransitionContext = { pendingInputs: active.pending };
    const found = await host.store.get(taskId);
    if (found?.state === "live" && host.plan.isRole(found.record.status, "input_required")) {
      // Back to work once the guards allow it (none pending); else the count alone changes.
      const step = await host.step(taskId, { type: "answer" }, { patch: { pendingInputs: active.pending }, ctx, known: found.record, quiet: true });
      if (step.decision?.kind === "refused" && step.current !== undefined) await host.store.update(taskId, step.current.status, { pendingInputs: active.pending });
    } else if (found?.state === "live") {
      await host.store.update(taskId, found.record.status, { pendingInputs: active.pending });
    }
  }
  host.log({ level: "info", msg: "task input answered", taskId, pendingInputs: active.pending, cancelled: active.cancelled });
}

/** Input as a side request on the original request's stream (related to the task where declared). */
export async function askBySideRequest<S extends string>(
  host: TaskHost<S>,
  extra: ServerExtra,
  taskId: string,
  active: ActiveTask,
  method: string,
  params: Record<string, unknown>,
  schema: z.ZodType,
): Promise<unknown> {
  if (active.cancelled) throw cancelledError();
  active.pending++;
  await host.step(taskId, { type: "ask" }, { patch: { pendingInputs: active.pending }, quiet: true });
  try {
    const request = relatedRequest(host.plan, method, params, taskId);
    const answer = await extra.sendRequest(request as ServerRequest, schema as never, {
      signal: active.controller.signal,
      timeout: host.inputTimeout,
    });
    // Answers for a task cancelled meanwhile are ignored.
    if (active.cancelled) throw cancelledError();
    return answer;
  } finally {
    await afterAnswer(host, taskId, active);
  }
}

/**
 * Input through a result stream: the request waits in the task's queue until a
 * pending result request of the requestor carries it (see deliverInputs).
 */
export async function askThroughResultStream<S extends string>(
  host: TaskHost<S>,
  taskId: string,
  active: ActiveTask,
  method: string,
  params: Record<string, unknown>,
  schema: z.ZodType,
): Promise<unknown> {
  if (active.cancelled) throw cancelledError();
  const plan = host.plan;
  // Asked as a task of the requestor's where it declared it serves this request so; followed until it ends.
  const taskRequest = inputTaskRequest(plan, active.requestorCapabilities, method);
  const request = relatedRequest(plan, method, taskRequest === undefined ? params : { ...params, [plan.creation.param]: taskRequest }, taskId);
  active.pending++;
  try {
    const answered = new Promise<unknown>((resolve, reject) => {
      const item: PendingInput = {
        request,
        schema: taskRequest === undefined ? schema : anyObject,
        ...(taskRequest === undefined ? {} : { follow: (ack: unknown, peer: TaskPeer, options: Parameters<typeof followInputTask>[4]) => followInputTask(plan, ack, schema, peer, options) }),
        state: "queued",
        abort: new AbortController(),
        settle: (outcome) => {
          clearTimeout(timer);
          const i = active.inputs.indexOf(item);
          if (i < 0) return; // settled already
          active.inputs.splice(i, 1);
          if (outcome.ok) resolve(outcome.value);
          else reject(outcome.error);
        },
      };
      const timer = setTimeout(() => {
        const error = new TaskProtocolError("inputTimeout", -32001, "Timed out waiting for the requestor's input");
        item.abort.abort(error);
        item.settle({ ok: false, error });
      }, host.inputTimeout);
      timer.unref?.();
      active.inputs.push(item);
    });
    await host.step(taskId, { type: "ask" }, { patch: { pendingInputs: active.pending }, quiet: true });
    // A pending result stream picks the request up now; otherwise the next one does.
    host.wake(taskId);
    const answer = await answered;
    if (active.cancelled) throw cancelledError();
    return answer;
  } finally {
    await afterAnswer(host, taskId, active);
  }
}

/** A failure to deliver a request (no stream, connection closed): it may be delivered again later. */
export function undelivered(e: unknown): boolean {
  // An McpError with a code is an answer, except ConnectionClosed (-32000); a plain Error is a transport failure.
  const code = (e as { code?: unknown } | undefined)?.code;
  if (typeof code === "number") return code === -32000;
  return e instanceof Error && !Array.isArray((e as { issues?: unknown }).issues);
}

/** Sends the task's queued input requests on a result stream (the response stream of `relatedRequestId`). */
export function deliverInputs(active: ActiveTask, peer: TaskPeer, relatedRequestId: string | number, timeout: number): void {
  for (const item of active.inputs) {
    if (item.state !== "queued") continue;
    item.state = "sent";
    const options = { relatedRequestId, signal: item.abort.signal, timeout };
    let acknowledged = false;
    peer
      .request(item.request, item.schema, options)
      .then((value) => {
        if (!item.follow) return value;
        // The requestor made a task of it: it exists now, so the request is never sent again.
        acknowledged = true;
        return item.follow(value, peer, options);
      })
      .then(
        (value) => item.settle({ ok: true, value }),
        (error: unknown) => {
          if (item.abort.signal.aborted) return;
          // Not delivered (the stream is gone): the next result stream sends it again.
          if (undelivered(error) && !acknowledged) item.state = "queued";
          else item.settle({ ok: false, error });
        },
      );
  }
}

/**
 * Input surfaced inline: the request appears in the polled task under a key
 * unique over the task's life; the update method answers it.
 */
export async function askInline<S extends string>(
  host: TaskHost<S>,
  taskId: string,
  active: ActiveTask,
  method: string,
  params: Record<string, unknown>,
  schema: z.ZodType,
): Promise<unknown> {
  if (active.cancelled) throw cancelledError();
  const key = `input-${++active.inputSeq}`;
  const signal = active.controller.signal;
  const answered = new Promise<unknown>((resolve, reject) => {
    const onAbort = () => {
      active.waiters.delete(key);
      reject(cancelledError());
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    active.waiters.set(key, {
      schema,
      resolve: (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
    });
  });
  await locked(active, async () => {
    const found = await host.store.get(taskId);
    if (found?.state !== "live" || host.plan.descriptor.machine.isTerminal(found.record.status as S)) return;
    const pending = { ...(found.record.inputRequests ?? {}), [key]: { method, params } };
    const step = await host.step(taskId, { type: "ask" }, { patch: { inputRequests: pending, pendingInputs: Object.keys(pending).length }, known: found.record });
    if (step.rec === undefined) active.waiters.get(key)?.resolve(undefined);
  });
  active.pending++;
  try {
    const value = await answered;
    if (value === undefined) throw cancelledError();
    host.log({ level: "info", msg: "task input answered", taskId, key });
    return value;
  } finally {
    active.pending--;
  }
}

/**
 * Applies answers to a task's pending inline input requests before the update
 * is acknowledged (a poll after the ack sees them): keys that are not pending
 * are ignored unread; a pending one is checked against what was asked; a
 * partial set keeps the task in the input status.
 */
export async function answerInline<S extends string>(host: TaskHost<S>, taskId: string, responses: Record<string, unknown>): Promise<void> {
  const active = host.active(taskId);
  const field = host.plan.input.responsesField;
  await locked(active, async () => {
    const found = await host.store.get(taskId);
    if (found?.state !== "live") return;
    const rec = found.record;
    const pending = { ...(rec.inputRequests ?? {}) };
    const accepted: Array<[string, unknown]> = [];
    for (const [key, value] of Object.entries(responses)) {
      if (!Object.prototype.hasOwnProperty.call(pending, key)) continue;
      const waiter = active?.waiters.get(key);
      const parsed = waiter ? waiter.schema.safeParse(value) : { success: true as const, data: value };
      if (!parsed.success) throw invalidParams(`Invalid params: ${field}.${key}: ${describeIssues(parsed.error)}`);
      accepted.push([key, parsed.data]);
    }
    if (accepted.length === 0) return;
    for (const [key] of accepted) delete pending[key];
    const left = Object.keys(pending).length;
    const answered = left === 0 && host.plan.isRole(rec.status, "input_required") ? await host.step(taskId, { type: "answer" }, { patch: { inputRequests: {}, pendingInputs: 0 }, ctx: { pendingInputs: 0 }, known: rec }) : undefined;
    if (answered === undefined || answered.decision?.kind === "refused") {
      await host.store.update(taskId, rec.status, { inputRequests: pending, pendingInputs: left, updatedAt: Date.now() });
    }
    for (const [key, value] of accepted) {
      const waiter = active?.waiters.get(key);
      active?.waiters.delete(key);
      waiter?.resolve(value);
    }
    // The work runs in another process sharing the store: the answers travel there (see store-events.ts).
    if (active === undefined && host.store.publish) await host.store.publish(taskId, { inlineAnswers: Object.fromEntries(accepted) });
  });
}
