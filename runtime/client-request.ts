// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
/**
 * What the requestor's side shares: the task and request types, the errors a
 * request ends with, the capability and related-task helpers, and
 * `PendingRequest`, a request that may become a task.
 */
import { z } from "zod";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { type TaskSpecDescriptor } from "./descriptor.js";
import { TaskProtocolError } from "./errors.js";
import { isObject, makePlan, type RuntimePlan } from "./plan.js";

/** A task as a requestor sees it: an object whose id and status live in the fields the spec names. */
export type TaskLike = object;

/** A field of a task, by name (the spec names the id and status fields). */
export function fieldOf(task: unknown, name: string): unknown {
  return isObject(task) ? task[name] : undefined;
}

/** A page of the list method: the tasks and the cursor of the next page. */
export type TaskListPage<Task extends TaskLike = TaskLike> = {
  tasks: Task[];
  nextCursor?: string;
  _meta?: Record<string, unknown>;
} & Record<string, unknown>;

/** The result of a task method (an empty object, an acknowledgement or a task, as the spec declares). */
export type TaskMethodResult = Record<string, unknown>;

/**
 * What the client sends requests through: an SDK `Client`, or a connection with
 * the same `request` method (the StatelessHttpClient of a per-request lifecycle).
 * `setNotificationHandler` is needed where tasks are acknowledged by notification;
 * `getServerCapabilities` is read where methods are gated on the server's capability.
 */
export interface TaskConnectionLike {
  request(request: never, resultSchema: never, options?: never): Promise<unknown>;
}

/** The request method both connections share, as the client calls it. */
export type Sender = { request(request: unknown, resultSchema: unknown, options?: unknown): Promise<unknown> };
export type Listening = { setNotificationHandler?: (schema: unknown, handler: (n: { params?: unknown }) => Promise<void>) => void };
export type Discovering = { getServerCapabilities?: () => unknown };

export interface TaskClientOptions<Task extends TaskLike = TaskLike> {
  /** The poll interval (ms) when the server suggests none. Default: the spec's polling default. */
  defaultPollFrequency?: number;
  /** Timeout (ms) of a task-augmented request's direct answer. Default 24 hours. */
  requestTimeout?: number;
  /** Timeout (ms) of task method requests (tasks/get, ...). Default 60 s. */
  methodTimeout?: number;
  /** How long (ms) to poll for the cancelled status after an abort. Default 10 s. */
  cancelConfirmTimeout?: number;
  /**
   * Called with every task state the server pushes (where the spec pushes status notifications);
   * polling goes on regardless. The TaskClient registers the client's handler of that notification:
   * use this instead of your own.
   */
  onStatusNotification?: (task: Task) => void | Promise<void>;
  /**
   * Answers an input request a task surfaced (where the spec surfaces them in the task while it waits
   * for input); the answer is sent with the spec's update method at once, one key at a time. Without
   * it a task that needs input ends the wait with an error.
   */
  onInputRequest?: (request: { method: string; params?: Record<string, unknown> }, key: string, taskId: string) => Promise<unknown>;
}

/** A progress notification's params, as `onProgress` receives them. */
export interface TaskProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface TaskRequestOptions<Task extends TaskLike = TaskLike> {
  /** The task id (default: a random UUID), where the requestor assigns it. */
  taskId?: string;
  /** The retention asked for (ms); null = unlimited where the spec allows it. */
  keepAlive?: number | null;
  /** More fields of the task request, as the spec's creation type declares them (e.g. a priority). */
  taskRequest?: Record<string, unknown>;
  /** Aborting sends notifications/cancelled for the request and confirms by polling. */
  signal?: AbortSignal;
  /** Called with every polled state of the task. */
  onTaskStatus?: (task: Task) => void | Promise<void>;
  /**
   * Called with every progress notification of the request (the request then carries a progress token)
   * and, where the spec keeps that token alive for the task, of the task's work after the request was
   * answered with the task.
   */
  onProgress?: (progress: TaskProgress) => void;
  /** Race the direct answer against polling (default true). */
  poll?: boolean;
}

/** The task ended in a status other than its completed status (failed, cancelled, unknown, ...). */
export class TaskEndedError<Task extends TaskLike = TaskLike> extends Error {
  readonly task: Task;
  /** `failureField`: the task field whose text describes a failure (the spec's outcomes.failureField). */
  constructor(task: Task, failureField = "error", idField = "taskId", statusField = "status") {
    const detail = fieldOf(task, failureField);
    super(`task ${String(fieldOf(task, idField))} ended ${String(fieldOf(task, statusField))}${typeof detail === "string" ? `: ${detail}` : ""}`);
    this.name = "TaskEndedError";
    this.task = task;
  }
}

/** The request was aborted; `task` is the last state seen, `confirmed` whether the server reported it cancelled. */
export class TaskCancelledError<Task extends TaskLike = TaskLike> extends Error {
  readonly taskId: string;
  readonly task: Task | undefined;
  readonly confirmed: boolean;
  constructor(taskId: string, task: Task | undefined, confirmed: boolean) {
    super(`task ${taskId} was cancelled${confirmed ? "" : " (not confirmed by the server)"}`);
    this.name = "TaskCancelledError";
    this.taskId = taskId;
    this.task = task;
    this.confirmed = confirmed;
  }
}

/** Turns the SDK's McpError into a TaskProtocolError carrying the wire message unchanged. */
export function toTaskError(e: unknown): unknown {
  if (e instanceof McpError) {
    const prefix = `MCP error ${e.code}: `;
    const message = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
    return new TaskProtocolError("remote", e.code, message, e.data);
  }
  return e;
}

export const MAX_TIMER = 2_147_483_647;

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, Math.min(MAX_TIMER, Math.max(0, ms)));
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Resolves with the first promise to fulfil; rejects with the first one's error when both reject. */
export function firstSuccess<R>(primary: Promise<R>, secondary: Promise<R>): Promise<R> {
  return new Promise((resolve, reject) => {
    let failures = 0;
    let primaryError: unknown;
    const fail = (isPrimary: boolean) => (e: unknown) => {
      if (isPrimary) primaryError = e;
      if (++failures === 2) reject(primaryError);
    };
    primary.then(resolve, fail(true));
    secondary.then(resolve, fail(false));
  });
}

/** The value at `path` inside an object (a capabilities object, a tool definition), or undefined. */
export function pathIn(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const k of path) {
    if (!isObject(v)) return undefined;
    v = v[k];
  }
  return v;
}

export function mergeDeep(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObject(v) && isObject(out[k]) ? mergeDeep(out[k] as Record<string, unknown>, v) : v;
  return out;
}

/** The client capability the requestor declares on the requests that need it, or undefined where none does. */
export function clientCapabilityOf(descriptor: TaskSpecDescriptor): Record<string, unknown> | undefined {
  const plan = makePlan(descriptor);
  return plan.readsClientCapability ? plan.clientCapability : undefined;
}

/** `_meta` with the client capability of the spec added to what it declares. */
export function withCapability(descriptor: TaskSpecDescriptor, meta: unknown): Record<string, unknown> {
  return capabilityAdder(makePlan(descriptor))(meta);
}

export function capabilityAdder(plan: RuntimePlan): (meta: unknown) => Record<string, unknown> {
  const key = plan.creation.capabilityMetaKey;
  const capability = plan.clientCapability;
  return (meta) => {
    if (key === undefined || capability === undefined) {
      throw new Error(`the spec ${plan.descriptor.spec.id} declares no client capability to add to a request's _meta`);
    }
    const m = isObject(meta) ? meta : {};
    const declared = m[key];
    return { ...m, [key]: mergeDeep(isObject(declared) ? declared : {}, capability) };
  };
}

/**
 * Where the receiver's requests for a task (elicitation, sampling) carry the related-task meta, the
 * requestor's answers to them relate to the same task and carry it too: the connection's own request
 * handlers (registered before or after) answer, and the meta is added to what they return. A request
 * that itself asks for a task is answered with that task, not with the meta of another.
 */
export function relateAnswers(client: unknown, plan: RuntimePlan<string>): void {
  const key = plan.related.key;
  if (!plan.related.requests || key === undefined) return;
  const handlers = isObject(client) ? (client as { _requestHandlers?: unknown })._requestHandlers : undefined;
  if (!(handlers instanceof Map)) return;
  type Handler = (request: { params?: unknown }, extra: unknown) => unknown;
  const wrapped = new WeakSet<Handler>();
  const asksTask = (params: Record<string, unknown>): boolean =>
    plan.creation.via === "param" ? params[plan.creation.param] !== undefined : plan.creation.metaKey !== undefined && isObject(params._meta) && params._meta[plan.creation.metaKey] !== undefined;
  const wrap = (handler: Handler): Handler => {
    if (typeof handler !== "function" || wrapped.has(handler)) return handler;
    const relating: Handler = async (request, extra) => {
      const answer = await handler(request, extra);
      const params = isObject(request.params) ? request.params : {};
      const related = isObject(params._meta) ? params._meta[key] : undefined;
      if (!isObject(related) || typeof related.taskId !== "string" || asksTask(params) || !isObject(answer)) return answer;
      return { ...answer, _meta: { ...(isObject(answer._meta) ? answer._meta : {}), [key]: { taskId: related.taskId } } };
    };
    wrapped.add(relating);
    return relating;
  };
  const map = handlers as Map<string, Handler>;
  for (const [method, handler] of map) map.set(method, wrap(handler));
  const set = map.set.bind(map);
  map.set = (method: string, handler: Handler) => set(method, wrap(handler));
}

/** The related-task `_meta` for a task. */
export function relatedMeta(descriptor: TaskSpecDescriptor, taskId: string): Record<string, unknown> {
  const key = makePlan(descriptor).related.key;
  if (key === undefined) throw new Error(`the spec ${descriptor.spec.id} declares no related-task _meta key`);
  return { [key]: { taskId } };
}

/** The task a request or notification from the server relates to, if any. */
export function relatedTaskId(descriptor: TaskSpecDescriptor, message: { params?: { _meta?: Record<string, unknown> } }): string | undefined {
  const key = makePlan(descriptor).related.key;
  if (key === undefined) return undefined;
  const v = message.params?._meta?.[key] as { taskId?: unknown } | undefined;
  return typeof v?.taskId === "string" ? v.taskId : undefined;
}

/** What a pending request reads of the client that made it (a TaskClient). */
export interface PendingOwner<Task extends TaskLike = TaskLike> {
  readonly plan: RuntimePlan;
  readonly defaultPollFrequency: number;
  getTask(taskId: string): Promise<Task>;
  getTaskResult(taskId: string): Promise<Record<string, unknown>>;
  confirmCancelled(taskId: string): Promise<TaskCancelledError<Task>>;
}

/** A request that resolves directly or through its task (tasks acknowledged by notification). */
export class PendingRequest<R, Task extends TaskLike = TaskLike> {
  constructor(
    private readonly owner: PendingOwner<Task>,
    /** The direct answer of the original request. */
    readonly direct: Promise<R>,
    /** The task id, or undefined when no task was asked for. */
    readonly taskId: string | undefined,
    /** Resolves true once the server acknowledged the task, false if the direct answer came first. */
    readonly created: Promise<boolean>,
    private readonly resultSchema: z.ZodType<R>,
    private readonly options: TaskRequestOptions<Task>,
    private readonly release: () => void,
  ) {}

  /** The result: the direct answer or the task's result, whichever comes first. */
  async result(opts: { onTaskStatus?: (task: Task) => void | Promise<void> } = {}): Promise<R> {
    const onTaskStatus = opts.onTaskStatus ?? this.options.onTaskStatus;
    const taskId = this.taskId;
    const signal = this.options.signal;
    try {
      if (taskId === undefined || this.options.poll === false) return await this.direct;
      const stop = new AbortController();
      const onAbort = () => stop.abort();
      signal?.addEventListener("abort", onAbort, { once: true });
      const viaTask = (async () => {
        if (!(await this.created)) throw new Error("no task was created");
        return this.poll(taskId, stop.signal, onTaskStatus);
      })();
      try {
        return await firstSuccess(this.direct, viaTask);
      } finally {
        stop.abort();
        signal?.removeEventListener("abort", onAbort);
      }
    } catch (e) {
      if (signal?.aborted && taskId !== undefined) throw await this.owner.confirmCancelled(taskId);
      throw toTaskError(e);
    } finally {
      this.release();
    }
  }

  private async poll(taskId: string, stop: AbortSignal, onTaskStatus?: (task: Task) => void | Promise<void>): Promise<R> {
    const plan = this.owner.plan;
    for (;;) {
      if (stop.aborted) throw new Error("polling stopped");
      const task = await this.owner.getTask(taskId);
      await onTaskStatus?.(task);
      const status = fieldOf(task, plan.statusField) as string;
      if (plan.descriptor.machine.isTerminal(status)) {
        if (plan.methods.result !== undefined) {
          if (plan.isRole(status, "completed")) return this.resultSchema.parse(await this.owner.getTaskResult(taskId));
        } else if (plan.results.mode === "inline") {
          const inline = fieldOf(task, plan.results.resultField);
          if (plan.isRole(status, "completed") && inline !== undefined) return this.resultSchema.parse(inline);
        }
        throw new TaskEndedError(task, plan.behaviour.outcomes.failureField ?? "error", plan.idField, plan.statusField);
      }
      const suggested = plan.polling.field === undefined ? undefined : fieldOf(task, plan.polling.field);
      await sleep(typeof suggested === "number" ? suggested : this.owner.defaultPollFrequency, stop);
    }
  }
}
