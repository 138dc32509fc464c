// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * What the parts of the runtime share: the SDK's request context, the peer a
 * task talks back to, the context a handler receives, the state of a running
 * task, and the narrow view of the runtime (the host) that the input, result
 * and cancellation strategies work through.
 */
import type { z } from "zod";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { TransitionContext } from "./descriptor.js";
import { TaskProtocolError } from "./errors.js";
import type { AuditEvent, LogEntry } from "./log.js";
import type { RuntimePlan } from "./plan.js";
import type { Decision, TaskEvent } from "./machine.js";
import type { StoredError, TaskPatch, TaskRecord, TaskStore } from "./store.js";

/**
 * The capability a requestor must declare to be asked each kind of input (the core protocol's rule,
 * the same in every revision): a method missing here is not checked.
 */
export const INPUT_CAPABILITIES: Readonly<Record<string, string>> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/** The core protocol's progress notification and the `_meta` field of a request that names its token (the same in every revision). */
export const PROGRESS = { method: "notifications/progress", tokenField: "progressToken" } as const;

/** The progress token a request carries in its `_meta`, if any. */
export function progressTokenOf(params: unknown, extra: { _meta?: unknown }): string | number | undefined {
  const from = (meta: unknown) => (meta !== null && typeof meta === "object" ? (meta as Record<string, unknown>)[PROGRESS.tokenField] : undefined);
  const p = params !== null && typeof params === "object" ? (params as Record<string, unknown>)._meta : undefined;
  const token = from(p) ?? from(extra._meta);
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** The SDK's per-request context on the server side. */
export type ServerExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The other party of a session, as the runtime uses it (an SDK Server or Client fits). */
export interface TaskPeer {
  request(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: z.ZodType,
    options?: { relatedRequestId?: string | number; signal?: AbortSignal; timeout?: number },
  ): Promise<unknown>;
  notification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
}

/** What a task-augmentable handler receives besides its arguments. */
export interface TaskContext {
  /** The task id, or undefined when the request was not augmented with a task. */
  readonly taskId: string | undefined;
  /** Fires when the request or its task is cancelled. */
  readonly signal: AbortSignal;
  readonly requestId: string | number;
  readonly sessionId: string | undefined;
  readonly authInfo: AuthInfo | undefined;
  /** Asks the requestor (elicitation); the task is in the declared input status until every pending answer arrived. */
  elicit(params: ElicitRequest["params"]): Promise<ElicitResult>;
  /** Asks the requestor's model (sampling); the task is in the declared input status meanwhile. */
  sample(params: CreateMessageRequest["params"]): Promise<CreateMessageResult>;
  /**
   * Sends a notification about this request to the requestor (progress, logging, ...). For a task it
   * carries the related-task meta where the spec declares it on notifications, and reaches the requestor
   * even after the request was answered with the task.
   */
  notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  /**
   * The request's progress token while progress may be sent with it: for a task whose spec makes the
   * token live as long as the task, until the task ends; otherwise while the request is open. Undefined
   * when the requestor asked for no progress: send none. `notify` adds it to a progress notification.
   */
  readonly progressToken: string | number | undefined;
  /**
   * The task request as the requestor sent it (e.g. `params.task`), checked against the spec's declared
   * type; undefined for a plain request.
   */
  readonly taskRequest: Record<string, unknown> | undefined;
  /**
   * Sets the task's own fields (those the spec declares and no behaviour fills, e.g. a progress
   * percentage): stored, sent with the task on the wire. The task with them must pass the spec's task
   * check, else it throws a TypeError and nothing changes. No-op for a plain request.
   */
  setFields(fields: Record<string, unknown>): Promise<void>;
  /**
   * Resolves when the task may make progress: at once while it is in a running state; while a transition
   * (e.g. pause) holds it in a state of another role, when a transition brings it back. Rejects when the
   * task ends or is cancelled meanwhile. Resolves at once for a plain request.
   */
  whenRunning(): Promise<void>;
  /** The SDK's request context, for anything else. */
  readonly extra: ServerExtra;
}

/** A request to the requestor (elicitation, sampling) that travels on a result stream. */
export interface PendingInput {
  request: { method: string; params: Record<string, unknown> };
  schema: z.ZodType;
  state: "queued" | "sent";
  abort: AbortController;
  settle(outcome: { ok: true; value: unknown } | { ok: false; error: unknown }): void;
  /**
   * Where the request asked the requestor for a task: turns the acknowledgement into the answer by
   * following that task through the same peer (polling it, then reading its result).
   */
  follow?(ack: unknown, peer: TaskPeer, options: { relatedRequestId?: string | number; signal?: AbortSignal; timeout?: number }): Promise<unknown>;
}

/** The in-process state of a task whose work runs here. */
export interface ActiveTask {
  controller: AbortController;
  owner: string;
  /** Input requests asked and not answered yet. */
  pending: number;
  cancelled: boolean;
  /** Set once the task reached a terminal status or its work ended: its progress ends with it. */
  ended?: boolean;
  /** Input requests surfaced inline: the last key number, the waiting askers by key, and a lock over the task's input state. */
  inputSeq: number;
  waiters: Map<string, { schema: z.ZodType; resolve: (value: unknown) => void }>;
  lock: Promise<unknown>;
  /** Input requests waiting for a result stream, or sent on one and unanswered (input via result stream). */
  inputs: PendingInput[];
  /** Sends a notification to the requestor's session. */
  notify: (notification: { method: string; params?: Record<string, unknown> }) => Promise<void>;
  /**
   * The work runs on a worker: the server holding the requestor's session sends the task's status
   * notifications, from the store's changes, rather than this process through `notify`.
   */
  statusElsewhere?: boolean;
  /** The capabilities the requestor declared (its client capabilities), or undefined where they cannot be known. */
  requestorCapabilities: Record<string, unknown> | undefined;
  /**
   * The original request's progress token, where the spec keeps it valid for the task's whole life: the
   * work's progress notifications carry it even after the request was answered with the task.
   */
  progressToken?: string | number | undefined;
  /** Fires when the retention (counted from creation) elapses while the task runs. */
  expiry?: ReturnType<typeof setTimeout>;
  /** The task as this process last wrote it: what its acknowledgement shows, with no read of the store. */
  latest?: TaskRecord;
}

/** The state of a task whose work starts here now: nothing asked, nothing cancelled, no input pending. */
export function activeTask(o: Pick<ActiveTask, "controller" | "owner" | "notify" | "requestorCapabilities" | "progressToken" | "statusElsewhere">): ActiveTask {
  return { ...o, pending: 0, cancelled: false, inputSeq: 0, waiters: new Map(), lock: Promise.resolve(), inputs: [] };
}

/** The runtime as its strategies (input, results, cancellation) see it. */
export interface TaskHost<S extends string> {
  readonly plan: RuntimePlan<S>;
  readonly store: TaskStore;
  /** Timeout (ms) of input requests sent for a task. */
  readonly inputTimeout: number;
  /** Applies what an event does to a task, as the table interpreter decides it (see machine.ts). */
  step(taskId: string, event: TaskEvent, options?: StepOptions): Promise<Step>;
  /** The running task's state, when its work runs in this process. */
  active(taskId: string): ActiveTask | undefined;
  /** Wakes whatever waits on the task (result streams). */
  wake(taskId: string): void;
  /** Calls `fn` on every change of the task until the returned function is called. */
  watch(taskId: string, fn: () => void): () => void;
  /** The task if the requestor may see it; throws the declared not-found / expired error otherwise. */
  lookup(taskId: string, owner: string, extra: ServerExtra, method: string): Promise<TaskRecord>;
  /** Cancels a non-terminal task and stops its work. */
  cancel(taskId: string, reason: string): Promise<TaskRecord | undefined>;
  audit(event: Omit<AuditEvent<S>, "at">): void;
  log(entry: LogEntry): void;
}

/** What `TaskHost.step` writes with the event, and how. */
export interface StepOptions {
  /** Written with the move, or alone where the task stays where it is (never the status). */
  readonly patch?: TaskPatch;
  /** Added to what the guards read. */
  readonly ctx?: TransitionContext;
  /** A refusal is not logged (the caller answers it). */
  readonly quiet?: boolean;
  /** The task as the caller just read or wrote it, tried first. */
  readonly known?: TaskRecord;
  /** The error written where the move ends the task in a failed state. */
  readonly failure?: StoredError;
}

/** What a step did: the interpreter's decision, the record it wrote (`rec`), the task as last seen (`current`). */
export interface Step {
  readonly decision?: Decision | undefined;
  readonly rec?: TaskRecord;
  readonly current?: TaskRecord;
}

/**
 * The request without its task request (the creation param or `_meta` entry): what the work of a task
 * made from a registered handler receives, so that the handler (and any layer of the SDK around it)
 * answers it as the plain request it would have answered, never with a second task.
 */
export function withoutTaskRequest<R extends { params?: unknown }>(plan: RuntimePlan<string>, request: R): R {
  const params = request.params;
  if (params === null || typeof params !== "object") return request;
  const p = { ...(params as Record<string, unknown>) };
  if (plan.creation.via === "param") delete p[plan.creation.param];
  else if (plan.creation.via === "meta" && plan.creation.metaKey !== undefined && p._meta !== null && typeof p._meta === "object") {
    const meta = { ...(p._meta as Record<string, unknown>) };
    delete meta[plan.creation.metaKey];
    p._meta = meta;
  } else return request;
  return { ...request, params: p };
}

/** The answer to an input request of a task cancelled meanwhile. */
export function cancelledError(): TaskProtocolError {
  return new TaskProtocolError("cancelled", -32800, "Task was cancelled");
}

/** The spec's internal error (behaviour.internalError). */
export function internalError(plan: RuntimePlan<string>): TaskProtocolError {
  return plan.error(plan.errors.internal, {}, () => new TaskProtocolError("internalError", -32603, "Internal error"));
}

/** The spec's not-found error (behaviour.notFoundError), also answered for another requestor's task. */
export function notFoundError(plan: RuntimePlan<string>): TaskProtocolError {
  return plan.error(plan.errors.notFound, {}, () => new TaskProtocolError("taskNotFound", -32602, "Task not found"));
}

/** The audit fields of a request. */
export function requestor(owner: string, extra: ServerExtra): { owner: string; sessionId: string | undefined; clientId: string | undefined } {
  return { owner, sessionId: extra.sessionId, clientId: extra.authInfo?.clientId };
}
