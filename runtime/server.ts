// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * The task runtime: one call (`install`) wires task support into an SDK
 * `Server`, `McpServer` or `Client`; `registerTools` / `handle` / `tool` turn
 * plain async functions into task-augmentable handlers. Everything about the
 * protocol comes from the descriptor: every status change goes through its
 * transition table, every error comes from its catalog, and every strategy
 * (creation, acknowledgement, input, results, cancellation) is chosen from
 * its declared behaviour.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolResultSchema,
  CreateMessageResultSchema,
  ErrorCode,
  McpError,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type CreateMessageResult,
  type ElicitResult,
  type JSONRPCRequest,
  type Result,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { Behaviour, TaskSupport } from "./behaviour.js";
import { activeTask, cancelledError, INPUT_CAPABILITIES, internalError, notFoundError, PROGRESS, progressTokenOf, requestor, withoutTaskRequest, type ActiveTask, type ServerExtra, type TaskContext, type TaskHost, type TaskPeer } from "./task-context.js";
import { answerCancel, answerDelete } from "./cancellation.js";
import { signCursor, verifyCursor } from "./cursor.js";
import { checkRuntimeVersion, type TaskSpecDescriptor, type TransitionContext } from "./descriptor.js";
import { invalidParams, isDatabaseUnavailable, TaskProtocolError, unavailableError, untilDatabaseBack } from "./errors.js";
import { answerInline, askBySideRequest, askInline, askThroughResultStream, describeIssues, failInputs } from "./input.js";
import { ConcurrencyCounter, RateLimiter, type TaskLimits } from "./limits.js";
import { stderrLine, type AuditEvent, type LogEntry } from "./log.js";
import { capabilityAt, isObject, makePlan, nestAt, type RuntimePlan } from "./plan.js";
import { awaitResult, resultWhenCompleted } from "./results.js";
import { InMemoryTaskStore, type SqlRunner, type StoredError, type TaskLookup, type TaskPatch, type TaskRecord, type TaskStore } from "./store.js";
import { checkTaskIdHeader, declaresClientCapability, scopedTaskId, TASK_SCOPE_MARK, toDetailedTask, toWireTask, wireTaskId, withRelated, withResultType } from "./wire.js";
import { answerAsJson } from "./transports.js";
import { settleUnfinished } from "./restart.js";
import { followStoreChanges } from "./store-events.js";
import { handBackLostJobs, jobRunner, relaySideRequests, runnerJob, runnerProcess, sideRequestThroughStore, type QueuedWork, type RetryPolicy, type TakenJob, type TaskQueue } from "./workers.js";

export { CANCELLED_BY_REQUEST } from "./cancellation.js";
export { signCursor, verifyCursor } from "./cursor.js";
export { invalidParams } from "./errors.js";
export { RateLimiter, ConcurrencyCounter, type TaskLimits } from "./limits.js";
export type { AuditEvent, LogEntry } from "./log.js";
export type { RetryPolicy, TaskQueue } from "./workers.js";
export { capabilityAt } from "./plan.js";
export type { ServerExtra, TaskContext, TaskPeer } from "./task-context.js";
export { answerAsJson, isPlainRequest, serveStreamableHttp, TaskStdioServerTransport, type HttpServeOptions } from "./transports.js";
export {
  checkTaskIdHeader,
  declaresClientCapability,
  decodeHeaderValue,
  isoTime,
  toDetailedTask,
  toWireTask,
  withRelated,
  withResultType,
} from "./wire.js";

/** How long a task that expired into the declared expiry state stays readable by default (ms). */
const EXPIRED_READABLE_MS = 600_000;

/** The message of every "not implemented" answer of this runtime. */
/** An answer relayed as it came: the work that asked checks it against what it asked. */
const anyResult = z.record(z.string(), z.unknown());

export const NOT_SUPPORTED = "not supported by this generated server yet";

/** The -32603 answer for a declared behaviour this runtime does not implement. */
export function notSupported(behaviour: string): TaskProtocolError {
  return new TaskProtocolError("notSupported", -32603, `${NOT_SUPPORTED}: ${behaviour}`);
}

/** How the spec declares one side's tasks capability (false: the spec has none). */
export type TaskCapabilityDecl =
  | false
  | {
      path: readonly string[];
      value: unknown;
      gates?: Readonly<Record<string, readonly string[]>>;
      augments?: Readonly<Record<string, readonly string[]>>;
    };

export interface TaskServerOptions<S extends string = string> {
  /** Where tasks live (default: a new InMemoryTaskStore). */
  store?: TaskStore;
  /** The retention granted when the requestor asks for none (ms; null = unlimited). Default: the spec's. */
  defaultKeepAlive?: number | null;
  /** The most retention granted (ms); null = no cap (where the spec lets null mean unlimited, a request for null then gets it). Default: the spec's. */
  maxKeepAlive?: number | null;
  /** The poll interval suggested to requestors (ms). Default: the spec's. */
  pollFrequency?: number;
  /** Tasks per list page (capped by the spec's maximum). */
  pageSize?: number;
  /** Statuses in which the delete method is accepted. */
  deletableStatuses?: readonly S[];
  limits?: Partial<TaskLimits>;
  /** The HMAC key of list cursors (default: 32 random bytes per process). */
  cursorSecret?: string | Uint8Array;
  /** Receives audit events; default: one JSON line per event on stderr. `false` turns auditing off. */
  audit?: ((event: AuditEvent<S>) => void) | false;
  /** Receives log entries; default: one JSON line per entry on stderr. */
  log?: (entry: LogEntry) => void;
  /** The key tasks are bound to (default: the session and/or the auth context, as the spec declares). */
  ownerOf?: (extra: ServerExtra) => string;
  /** Methods that may be augmented (default: what the spec allows for the side). */
  augment?: readonly string[];
  /** Timeout (ms) of input requests (elicitation, sampling) sent for a task. Default 1 hour. */
  inputTimeout?: number;
  /**
   * Where the spec declares a state for expiry (`events.expiry`): how long a task that expired into it
   * stays readable in that state before the store drops it (ms). Default 10 minutes.
   */
  expiredReadableMs?: number;
  /**
   * Which side receives the tasks: "server" (the requests a server receives, e.g. tools/call) or
   * "client" (e.g. elicitation/create, sampling/createMessage; install the runtime on an SDK Client). Default server.
   */
  side?: "server" | "client";
  /**
   * The tasks capability value declared at install (default: the spec's). A gated method (e.g. the list
   * method gated on `list`) answers -32601 when its path is missing; a request whose augmentation path is
   * missing is served plainly.
   */
  taskCapability?: Record<string, unknown>;
  /** Methods served only as tasks: a plain request gets the declared requiredTaskError (tools use `taskSupport`). */
  requireTask?: readonly string[];
  /** The handlers of the spec's custom operations, by method (each is required: see the generated binding). */
  operations?: Readonly<Record<string, CustomOperation<S>>>;
  /**
   * Whether to end, on start, the tasks a stopped process left unfinished in the store (each goes to
   * the declared restart state with a message; see `ready`). Default: when the store is durable and
   * not shared (a shared store's unfinished tasks may be another live process's).
   */
  settleOnStart?: boolean;
  /**
   * On a shared store that keeps leases (`heartbeat`): how long a process may go unseen before the
   * others end the tasks it was running, as after a restart (ms). It renews its lease three times in
   * that span. Default 30 s.
   */
  runnerLeaseMs?: number;
  /**
   * This process's name in a shared store's leases (default: a random one per start). A process started
   * again under the name it had settles (or, with a queue, hands back) its earlier unfinished tasks before
   * it serves, instead of waiting for its old lease to run out.
   */
  runnerId?: string;
  /**
   * Runs tool tasks' work on a pool of workers (see workers.ts): each task is stored, then its work is
   * enqueued, and whichever process runs `work()` on the same queue and store executes it. Needs a shared
   * store (PostgreSQL). With a queue, the runner lease defaults to 3 s.
   */
  queue?: TaskQueue;
}

/** What a custom operation's handler may do: read and move the requestor's own tasks. */
export interface OperationContext<S extends string = string> {
  /** The requestor (its tasks are the only ones it may see). */
  readonly owner: string;
  readonly extra: ServerExtra;
  /** The requestor's task as it sees it (the spec's not-found error otherwise). */
  task(taskId: string): Promise<unknown>;
  /** Moves the requestor's task through the transition table; undefined when the table does not allow it. */
  move(taskId: string, status: S): Promise<unknown>;
}

/** A custom operation: answers the request (its params already checked against the spec). */
export type CustomOperation<S extends string = string> = (params: Record<string, unknown>, ctx: OperationContext<S>) => Promise<Result> | Result;

export type TaskHandler<A, R extends Result> = (args: A, ctx: TaskContext) => R | Promise<R>;

/**
 * The handler of a request other than tools/call (resources/read, prompts/get, their lists, ...), for
 * a binding that builds its own SDK servers (the per-request one): run as a task where the spec lets
 * the method be augmented and the request asks for one, plainly otherwise.
 */
export type RequestWork = (request: { method: string; params: Record<string, unknown> }, ctx: TaskContext) => Result | Promise<Result>;

/** A tool for {@link TaskRuntime.registerTools}: a zod object schema for its arguments and a plain async function. */
export interface TaskTool<S extends z.ZodType = z.ZodType> {
  name: string;
  title?: string;
  description?: string;
  /** A zod object schema of the arguments (default: any object). */
  inputSchema?: S;
  /**
   * Whether a call may run as a task; the server decides per call. forbidden:
   * never; optional (default): when the requestor allows it; required: only as
   * a task — a call whose requestor does not allow one is refused. Where the
   * spec has a per-tool switch, tools/list shows it and a call against it is an
   * error: a task asked of a forbidden tool, or a required tool called plainly.
   */
  taskSupport?: TaskSupport;
  /**
   * Runs on the request itself, before a task is made: input asked here
   * (`ctx.elicit`, `ctx.sample`) is resolved with the request, never through
   * the task. Returns the arguments `handler` receives.
   */
  prepare?: (args: z.infer<S>, ctx: TaskContext) => Promise<z.infer<S>>;
  handler: TaskHandler<z.infer<S>, CallToolResult>;
  /**
   * With a worker pool (TaskServerOptions.queue): whether the work is run again on another worker when
   * the one running it is lost (killed, cut off). Declare it only for work that is safe to repeat.
   * Default: none; the task is settled to the spec's restart state.
   */
  retry?: RetryPolicy;
}

/** Builds a tool definition with its argument type inferred from the schema. */
export function defineTool<S extends z.ZodType>(tool: TaskTool<S>): TaskTool<S> {
  return tool;
}

/** Options of {@link TaskRuntime.run}. */
export interface RunOptions {
  /** Whether the request may run as a task (default optional): see {@link TaskTool.taskSupport}. */
  taskSupport?: TaskSupport;
  /** Runs after the decision and before a task is made, on the request's own context. */
  before?: (ctx: TaskContext) => Promise<void>;
  /** The tool called (tools/call): its `taskSupport` is then the per-tool switch, where the spec has one. */
  tool?: string;
  /** The session the request came from, to reach the requestor later (status notifications). */
  peer?: TaskPeer;
  /** With a queue: the tool and arguments a worker runs (a task is then enqueued rather than run here). */
  queued?: { tool: string; args: () => unknown; retry?: RetryPolicy };
}

/** The failure message of a tool result with isError (its first text), for a task that fails on it. */
function toolErrorMessage(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const text = content.find((c): c is { type: "text"; text: string } => isObject(c) && c.type === "text" && typeof c.text === "string");
  return text ? `Tool execution failed: ${text.text.slice(0, 500)}` : "The request returned an error result";
}

/** A JSON-RPC error object thrown by user code (McpError, TaskProtocolError, or any { code, message }). */
export function asRpcError(e: unknown): StoredError | undefined {
  if (!isObject(e) && !(e instanceof Error)) return undefined;
  const code = (e as { code?: unknown }).code;
  const message = (e as { message?: unknown }).message;
  if (typeof code !== "number" || !Number.isSafeInteger(code) || typeof message !== "string") return undefined;
  // The SDK's McpError prefixes its message with "MCP error <code>: ".
  const prefix = `MCP error ${code}: `;
  const text = message.startsWith(prefix) ? message.slice(prefix.length) : message;
  const data = (e as { data?: unknown }).data;
  return data === undefined ? { code, message: text } : { code, message: text, data };
}

/**
 * Lets the runtime decide which requests become tasks on an SDK Server: a request carrying a task
 * request for a type the declared capability does not list is then served plainly, as the spec
 * requires, where the SDK Server would refuse it (-32603).
 */
function acceptUnlistedTaskRequests(server: Server): void {
  (server as unknown as { assertTaskHandlerCapability: (method: string) => void }).assertTaskHandlerCapability = () => undefined;
}

/** An SDK request handler as the SDK keeps it (request and context in, result out). */
type RequestHandler = (request: JSONRPCRequest, extra: ServerExtra) => Promise<unknown> | unknown;

/** Handlers that already run as a task's work where asked (not wrapped a second time). */
const TASK_WORK = new WeakSet<RequestHandler>();

/** The task context of a request context handed to a registered handler as a task's work. */
const TASK_CONTEXTS = new WeakMap<object, TaskContext>();

/** A copy of `extra` that carries the task's context to a `handle` inside the registered handler. */
function withTaskContext(extra: ServerExtra, ctx: TaskContext): ServerExtra {
  const inner = { ...extra };
  TASK_CONTEXTS.set(inner, ctx);
  return inner;
}

function methodNotFound(): TaskProtocolError {
  return new TaskProtocolError("methodNotFound", -32601, "Method not found");
}

function hasError(d: TaskSpecDescriptor<string>, name: string | undefined): name is string {
  return name !== undefined && Object.prototype.hasOwnProperty.call(d.errors, name);
}

/**
 * Task support for one or more SDK servers (one per HTTP session, or one on
 * stdio) sharing one store. `S` is the spec's status type, `W` its task type
 * as the requestor sees it.
 */
export class TaskRuntime<S extends string = string, W = Record<string, unknown>> {
  readonly descriptor: TaskSpecDescriptor<S>;
  /** The strategies derived from the descriptor. */
  readonly plan: RuntimePlan<S>;
  readonly store: TaskStore;
  readonly limits: TaskLimits;
  /** The HMAC key of list cursors. */
  readonly cursorSecret: Uint8Array | string;
  /** Which side this runtime receives tasks for. */
  readonly side: "server" | "client";
  private readonly options: TaskServerOptions<S>;
  private readonly active = new Map<string, ActiveTask>();
  private readonly concurrency = new ConcurrencyCounter();
  private readonly rates = new RateLimiter();
  private readonly tools = new Map<string, TaskTool>();
  private readonly works = new Map<string, RequestWork>();
  /** The handlers of the spec's custom operations. */
  private readonly operations = new Map<string, CustomOperation<S>>();
  private readonly auditSink: ((event: AuditEvent<S>) => void) | undefined;
  private readonly logSink: (entry: LogEntry) => void;
  /** Wakes the waiters of a task (result streams) on every change. */
  private readonly watchers = new Map<string, Set<() => void>>();
  /** The session's peer by session id, to reach a requestor after its request was answered. */
  private readonly peers = new Map<string, TaskPeer>();
  /** The task each task-making request made, by requestor, session, method and request id (see replayKey). */
  private readonly byRequest = new Map<string, string>();
  /**
   * Where the work of a task this process made runs on a worker: how to reach its requestor with the
   * notifications the work sends (progress, status), until the task ends.
   */
  private readonly relays = new Map<string, ActiveTask["notify"]>();
  /** The answers that acknowledge a task (as opposed to a request's own result). */
  private readonly acks = new WeakSet<object>();
  private readonly inputTimeout: number;
  /** The view of this runtime its strategies work through. */
  private readonly host: TaskHost<S>;
  /**
   * Resolves once the tasks a stopped process left unfinished are settled (at once when there is
   * nothing to settle); serve requests after it. No task is created before it resolves.
   */
  readonly ready: Promise<void>;
  /** This process's name in a shared store's leases (the runner of the tasks it creates). */
  readonly runner: string;
  private leaseTimer: ReturnType<typeof setInterval> | undefined;
  private leaseMs = 0;
  /** This start of the process: a runner name is held by one start at a time. */
  private readonly instance = randomUUID();
  /** Aborted on close: writes waiting for the store's database give up. */
  private readonly closing = new AbortController();
  /** Whether the spec has a state that holds a task's work (paused, queued): ended work then waits it out. */
  private readonly holds: boolean;

  constructor(descriptor: TaskSpecDescriptor<S>, options: TaskServerOptions<S> = {}) {
    checkRuntimeVersion(descriptor);
    this.descriptor = descriptor;
    this.holds = Object.values(descriptor.states.roleOf).some((role) => role === "paused" || role === "queued");
    this.runner = options.runnerId ?? randomUUID();
    this.plan = makePlan(descriptor);
    this.side = options.side ?? "server";
    this.options = options;
    for (const [method, handler] of Object.entries(options.operations ?? {})) this.operations.set(method, handler);
    this.store = options.store ?? new InMemoryTaskStore();
    // Workers elsewhere could never see the tasks whose work they are handed.
    if (options.queue !== undefined && this.store.shared !== true) {
      throw new Error("TaskServerOptions.queue needs a task store that servers and workers share (PostgresTaskStore); this store is not shared");
    }
    const l = descriptor.behaviour.limits;
    this.limits = {
      maxConcurrentPerRequestor: l.maxConcurrentPerRequestor,
      createPerMinute: l.createPerMinute,
      pollPerMinute: l.pollPerMinute,
      resultPerMinute: l.resultPerMinute ?? l.pollPerMinute,
      listPerMinute: l.listPerMinute,
      ...options.limits,
    };
    this.cursorSecret = options.cursorSecret ?? randomBytes(32);
    this.auditSink = options.audit === false ? undefined : (options.audit ?? ((e) => stderrLine({ audit: e })));
    this.logSink = options.log ?? ((e) => stderrLine(e));
    this.inputTimeout = options.inputTimeout ?? 3_600_000;
    this.host = {
      plan: this.plan,
      store: this.store,
      inputTimeout: this.inputTimeout,
      move: (taskId, to, patch, ctx, onlyIfLegal) => this.move(taskId, to, patch, ctx, onlyIfLegal),
      active: (taskId) => this.active.get(taskId),
      wake: (taskId) => this.wake(taskId),
      watch: (taskId, fn) => this.watch(taskId, fn),
      lookup: (taskId, owner, extra, method) => this.lookup(taskId, owner, extra, method),
      cancel: (taskId, reason) => this.cancel(taskId, reason),
      audit: (e) => this.audit(e),
      log: (e) => this.log(e),
    };
    // Changes other processes make to a shared store reach the work and the waiters here (closing the store stops them).
    const release = (taskId: string, owner: string) => this.concurrency.releaseTask(taskId, owner);
    followStoreChanges({
      plan: this.plan,
      store: this.store,
      running: this.active,
      wake: (id) => this.wake(id),
      pushStatus: (r) => this.pushStatus(r),
      release,
      log: (e) => this.log(e),
      relay: (id, n) => void this.relays.get(id)?.(n).catch((e: unknown) => this.log({ level: "warn", msg: "could not relay a worker's notification to the requestor", taskId: id, error: String(e) })),
      relaysStatus: (id) => this.plan.statusPush !== undefined && this.relays.has(id),
      ended: (id) => this.relays.delete(id),
    });
    const settle = options.settleOnStart ?? (this.store.durable === true && this.store.shared !== true);
    const settled = settle
      ? settleUnfinished(this.host).then(
          () => undefined,
          (e: unknown) => this.log({ level: "error", msg: "could not settle the tasks left unfinished by a restart", error: String(e) }),
        )
      : Promise.resolve();
    // Under a name of its own, the first lease round ends this name's earlier tasks: serve after it.
    const leased = this.startLease(options.runnerLeaseMs ?? (options.queue ? 3_000 : 30_000));
    this.ready = options.runnerId === undefined ? settled : Promise.all([settled, leased]).then(() => undefined);
    // Whoever awaits `ready` hears why it failed; unawaited, the failure is logged, not a crash.
    this.ready.catch(() => undefined);
  }

  /**
   * A write the task's outcome depends on (its claim, its start, its end): while the store's database
   * is away it is made again once the database is back, for as long as this runtime is open.
   */
  private lasting<T>(write: () => Promise<T>, what: string, taskId?: string): Promise<T> {
    return untilDatabaseBack(write, {
      signal: this.closing.signal,
      onWait: (attempt, retryInMs) => {
        if (attempt === 1 || attempt % 10 === 0) this.log({ level: "warn", msg: `the task store is unavailable: ${what} waits for it`, taskId, attempt, retryInMs });
      },
    });
  }

  /** The answer to a request met by the store's database being away: declared, retryable, naming nothing of the database. */
  private unavailable(): TaskProtocolError {
    return unavailableError((name, ctx, fallback, data) => this.plan.error(name, ctx, fallback, data));
  }

  /**
   * On a shared store with leases: this process renews its own and ends the unfinished tasks of
   * processes whose lease ran out (they were killed or lost), as a restart would.
   */
  private startLease(leaseMs: number): Promise<void> {
    const store = this.store;
    if (store.shared !== true || store.heartbeat === undefined || store.liveRunners === undefined) return Promise.resolve();
    const heartbeat = store.heartbeat.bind(store);
    const liveRunners = store.liveRunners.bind(store);
    const runner = this.runner;
    this.leaseMs = leaseMs;
    const machine = this.descriptor.machine;
    const unfinished = this.descriptor.states.all.filter((s) => !machine.isTerminal(s));
    let first = true;
    // Until this process has renewed without a miss for a whole lease, a peer's stale lease may be the
    // database's absence (which kept every process from renewing), not the peer's: no one is declared lost.
    let unsureUntil = 0;
    const tick = async () => {
      try {
        await heartbeat(runner, this.instance);
      } catch (e) {
        unsureUntil = Date.now() + leaseMs + Math.floor(leaseMs / 3);
        throw e;
      }
      const live = await liveRunners(Date.now() - leaseMs);
      // On the first round, tasks recorded under this name are a previous start's: nothing runs them now.
      const earlier = first;
      first = false;
      const sure = Date.now() >= unsureUntil;
      const lost = (rec: TaskRecord) => {
        if (rec.runner === undefined || this.active.has(rec.taskId)) return false;
        const process = runnerProcess(rec.runner);
        return process === runner ? earlier : sure && !live.has(process);
      };
      // With a queue, a lost worker's job runs again where its tool allows a retry; the others are settled.
      // A job another process lost that started within the last renewal period is a retry taken since (by a
      // live worker): left alone. A job under this process's own name is its previous start's, however recent.
      const minAge = (rec: TaskRecord) => (runnerProcess(rec.runner!) === runner ? 0 : Math.floor(leaseMs / 3));
      const kept = this.options.queue ? await handBackLostJobs(store, unfinished, lost, this.options.queue, minAge) : new Set<string>();
      await settleUnfinished(this.host, (rec) => lost(rec) && !kept.has(rec.taskId));
    };
    const run = () =>
      tick().catch((e: unknown) => this.log({ level: "warn", msg: "could not renew the lease or settle stopped processes' tasks", error: String(e) }));
    const renewMs = Math.max(50, Math.floor(leaseMs / 3));
    const start = () => {
      if (this.closing.signal.aborted) return Promise.resolve();
      this.leaseTimer = setInterval(() => void run(), renewMs);
      this.leaseTimer.unref?.();
      return run();
    };
    // A name given by the operator is taken from no live process: two processes never share one.
    if (this.options.runnerId === undefined || store.takeRunner === undefined) return start();
    const takeRunner = store.takeRunner.bind(store);
    return this.lasting(() => takeRunner(runner, this.instance, renewMs), "taking the runner name").then(start, (e: unknown) => {
      this.log({ level: "error", msg: "not started: the runner name is in use", runner, error: String(e) });
      throw e;
    });
  }

  /** The spec's declared behaviour this runtime follows. */
  get behaviour(): Behaviour {
    return this.descriptor.behaviour;
  }

  /** Declared behaviours this runtime answers with -32603 {@link NOT_SUPPORTED} (none should remain). */
  get unsupportedBehaviours(): readonly string[] {
    return this.plan.gaps;
  }

  // -------------------------------------------------------------------------
  // The task on the wire (for bindings)
  // -------------------------------------------------------------------------

  /** The task as the requestor sees it. */
  toWireTask(rec: TaskRecord): W {
    return toWireTask<W>(this.plan, rec);
  }

  /** The task with what its status carries inlined (result, error, pending input requests). */
  toDetailedTask(rec: TaskRecord): W {
    return toDetailedTask<W>(this.plan, rec);
  }

  /** Marks a result as the request's own answer where the spec declares a result type. */
  withResultType<R>(result: R): R {
    return withResultType(this.plan, result);
  }

  /** Adds the related-task meta to a result where the spec declares one. */
  withRelated<R extends object>(result: R, taskId: string): R {
    return withRelated(this.plan, result, taskId);
  }

  /** Whether a request declares the client capability in its own `_meta`. */
  declaresClientCapability(params: unknown): boolean {
    return declaresClientCapability(this.plan, params);
  }

  // -------------------------------------------------------------------------
  // Wiring
  // -------------------------------------------------------------------------

  /**
   * Wires the task methods into an SDK server (low-level `Server` or `McpServer`),
   * or a `Client` for side "client". Call it before `connect`. Other requests keep
   * their handlers; requests for methods nobody handles still get -32601.
   */
  install(target: Server | McpServer): Server;
  install(target: Client): Client;
  install(target: Server | McpServer | Client): Server | Client {
    this.assertServed();
    const server = target instanceof McpServer ? target.server : target;
    if (!(target instanceof McpServer) && server instanceof Server) acceptUnlistedTaskRequests(server);
    // Over Streamable HTTP, task methods that send nothing before their answer are answered as JSON.
    if (server instanceof Server) for (const t of [target, server]) answerAsJson(t, this.plan.immediateMethods);
    // The tasks capability: the spec's value, or options.taskCapability.
    const decl = this.capabilityDecl;
    if (decl !== false) server.registerCapabilities(nestAt(decl.path, this.capabilityValue) as never);
    // Remember each session's peer: status notifications reach it after its request was answered.
    const peer = server as unknown as TaskPeer;
    if (server instanceof Server) {
      const initialized = server.oninitialized;
      server.oninitialized = () => {
        initialized?.();
        const transport = server.transport;
        const sid = transport?.sessionId;
        if (!transport || sid === undefined) return;
        this.peers.set(sid, peer);
        const closed = transport.onclose;
        transport.onclose = () => {
          closed?.();
          if (this.peers.get(sid) === peer) this.peers.delete(sid);
        };
      };
    }
    this.augmentHandlers(server, peer);
    this.refuseSchemaErrors(server);
    const previous = server.fallbackRequestHandler as ((request: JSONRPCRequest, extra: ServerExtra) => Promise<unknown>) | undefined;
    // A `then`, not an async function: every request without a handler of its own passes here.
    (server as Server).fallbackRequestHandler = (request: JSONRPCRequest, extra: ServerExtra) =>
      this.dispatch(request, extra, peer).then((handled) => {
        if (handled !== undefined) return handled as never;
        if (previous) return previous(request, extra) as never;
        throw methodNotFound();
      });
    return server;
  }

  /** Adds handlers of the spec's custom operations (before `install`, or before serving). */
  addOperations(operations: Readonly<Record<string, CustomOperation<S>>>): this {
    for (const [method, handler] of Object.entries(operations)) {
      if (!this.plan.custom.includes(method)) throw new Error(`mcp-task-gen: ${method} is not a custom operation of spec ${this.descriptor.spec.id}`);
      this.operations.set(method, handler);
    }
    return this;
  }

  /**
   * Throws unless every custom operation of the spec has its handler: a server that advertised the
   * method and answered it with -32601 would serve less than it claims. Called by `install`.
   */
  assertServed(): void {
    if (this.side !== "server") return;
    const unserved = this.plan.custom.filter((m) => !this.operations.has(m));
    if (unserved.length > 0) {
      throw new Error(`mcp-task-gen: spec ${this.descriptor.spec.id} declares the custom operation(s) ${unserved.join(", ")}; give their handlers (options.operations or addOperations) before serving`);
    }
  }

  /**
   * A request the SDK's schema for its method refuses (e.g. tools/list with a cursor that is no
   * string) is the requestor's mistake: -32602, where the SDK answers the schema's exception -32603.
   */
  private refuseSchemaErrors(server: Server | Client): void {
    const handlers = (server as unknown as { _requestHandlers?: Map<string, RequestHandler> })._requestHandlers;
    if (!(handlers instanceof Map)) return;
    const wrap = (handler: RequestHandler): RequestHandler => (request, extra) => {
      const refused = (e: unknown): never => {
        const issues = (e as { issues?: unknown } | null)?.issues;
        if (e instanceof Error && /^\$?ZodError$/.test(e.name) && Array.isArray(issues)) {
          throw new McpError(ErrorCode.InvalidParams, `Invalid params for ${request.method}: ${describeIssues(e as unknown as Parameters<typeof describeIssues>[0])}`);
        }
        if (isDatabaseUnavailable(e)) throw this.unavailable();
        throw e;
      };
      try {
        return Promise.resolve(handler(request, extra)).catch(refused);
      } catch (e) {
        return refused(e);
      }
    };
    for (const [method, handler] of handlers) handlers.set(method, wrap(handler));
    const set = handlers.set.bind(handlers);
    handlers.set = (method: string, handler: RequestHandler) => set(method, wrap(handler));
  }

  /**
   * Serves the augmentable requests other than tools/call (e.g. resources/read) as tasks: the handler the
   * server registers for such a method, before or after install, becomes the task's work when a request
   * carries a task request, and is called as before otherwise.
   */
  private augmentHandlers(server: Server | Client, peer: TaskPeer): void {
    const handlers = (server as unknown as { _requestHandlers?: Map<string, RequestHandler> })._requestHandlers;
    if (!(handlers instanceof Map)) return;
    const augmented = (this.options.augment ?? this.descriptor.behaviour.creation.requests[this.side]).filter((m) => m !== "*" && m !== "tools/call");
    if (augmented.length === 0) return;
    const wrap = (method: string, handler: RequestHandler): RequestHandler => {
      if (!augmented.includes(method) || TASK_WORK.has(handler)) return handler;
      // The handler (and the SDK's layer around it) answers the plain request; a `handle` inside gets the task's context.
      const served: RequestHandler = (request, extra) =>
        this.run(method, request.params, extra, (ctx) => handler(withoutTaskRequest(this.plan, request), withTaskContext(extra, ctx)) as Result | Promise<Result>, { peer });
      TASK_WORK.add(served);
      return served;
    };
    for (const [method, handler] of handlers) handlers.set(method, wrap(method, handler));
    const set = handlers.set.bind(handlers);
    handlers.set = (method: string, handler: RequestHandler) => set(method, wrap(method, handler));
  }

  /**
   * Answers a task method for a binding that registers the methods itself;
   * resolves to undefined for any other method.
   */
  handleTaskRequest(method: string, params: unknown, extra: ServerExtra): Promise<Result | undefined> {
    return this.dispatch({ jsonrpc: "2.0", id: extra.requestId, method, params: (params ?? {}) as Record<string, unknown> } as JSONRPCRequest, extra);
  }

  /**
   * Registers plain async tools on a low-level `Server` (tools/list and
   * tools/call); each call may be augmented with a task. Call before `connect`.
   */
  registerTools(server: Server, tools: readonly TaskTool<any>[]): void {
    this.addTools(tools);
    acceptUnlistedTaskRequests(server);
    server.registerCapabilities({ tools: {} });
    server.setRequestHandler(ListToolsRequestSchema, async () => this.listTools() as never);
    // params optional here: a call without them is answered -32602 by callTool, not -32603 by the schema.
    const CallTool = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() });
    // Registered past the SDK Server's own tools/call wrapper, which takes every request carrying a
    // task request for a task and refuses a plain answer to it: here the runtime decides (a request
    // this server does not augment is served plainly). Plain results are checked as that wrapper would.
    Protocol.prototype.setRequestHandler.call(server, CallTool, async (request, extra) => {
      const result = await this.callTool(request.params, extra as ServerExtra, server as unknown as TaskPeer);
      if (this.acks.has(result)) return result as never;
      const checked = CallToolResultSchema.safeParse(result);
      if (!checked.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${describeIssues(checked.error)}`);
      return checked.data as never;
    });
  }

  /** Adds tools to this runtime without wiring a server (a binding calls listTools / callTool). */
  addTools(tools: readonly TaskTool<any>[]): void {
    for (const t of tools) this.tools.set(t.name, t as TaskTool);
  }

  /** Adds handlers of other requests (by method) without wiring a server: a binding serves them (see RequestWork). */
  addRequestHandlers(handlers: Readonly<Record<string, RequestWork>>): void {
    for (const [method, work] of Object.entries(handlers)) this.works.set(method, work);
  }

  /** The request handlers added so far, by method. */
  requestHandlers(): ReadonlyMap<string, RequestWork> {
    return this.works;
  }

  /** Serves one request with its added handler (see addRequestHandlers). */
  callRequest(method: string, params: Record<string, unknown>, extra: ServerExtra): Promise<Result> {
    const work = this.works.get(method);
    if (work === undefined) return Promise.reject(new TaskProtocolError("methodNotFound", -32601, `Method not found: ${method}`));
    return this.run(method, params, extra, (ctx) => work({ method, params }, ctx));
  }

  /** The tools/list result for the tools added so far. */
  listTools(): { tools: Array<{ name: string; title?: string; description?: string; inputSchema: { type: "object"; [k: string]: unknown } }> } {
    const toolSwitch = this.plan.toolSwitch;
    return {
      tools: [...this.tools.values()].map((t) => {
        const schema = t.inputSchema ? (z.toJSONSchema(t.inputSchema, { io: "input" }) as Record<string, unknown>) : { type: "object" };
        delete schema.$schema;
        const listed = {
          name: t.name,
          ...(t.title === undefined ? {} : { title: t.title }),
          ...(t.description === undefined ? {} : { description: t.description }),
          inputSchema: schema as { type: "object"; [k: string]: unknown },
        };
        // The per-tool switch, where the spec lists one (e.g. execution.taskSupport).
        return toolSwitch ? { ...listed, ...nestAt(toolSwitch.path, t.taskSupport ?? toolSwitch.default) } : listed;
      }),
    };
  }

  /** Answers a tools/call for the tools added: validates the arguments, then runs the tool (as a task when allowed). */
  async callTool(params: unknown, extra: ServerExtra, peer?: TaskPeer): Promise<Result> {
    const p = params;
    if (!isObject(p) || typeof p.name !== "string") throw invalidParams("Invalid params: tools/call needs params.name (a string)");
    if (p.arguments !== undefined && !isObject(p.arguments)) throw invalidParams("Invalid params: arguments must be an object");
    const tool = this.tools.get(p.name);
    if (!tool) throw invalidParams(`Unknown tool: ${p.name}`);
    const raw = p.arguments ?? {};
    const parsed = tool.inputSchema ? tool.inputSchema.safeParse(raw) : { success: true as const, data: raw };
    if (!parsed.success) throw invalidParams(`Invalid arguments for tool ${p.name}: ${describeIssues(parsed.error)}`);
    let args: unknown = parsed.data;
    const prepare = tool.prepare;
    return this.run("tools/call", p, extra, (ctx) => tool.handler(args, ctx), {
      ...(tool.taskSupport === undefined ? {} : { taskSupport: tool.taskSupport }),
      tool: tool.name,
      ...(this.options.queue === undefined ? {} : { queued: { tool: tool.name, args: () => args, ...(tool.retry === undefined ? {} : { retry: tool.retry }) } }),
      ...(peer === undefined ? {} : { peer }),
      ...(prepare === undefined
        ? {}
        : {
            before: async (ctx: TaskContext) => {
              args = await prepare(args, ctx);
            },
          }),
    });
  }

  /**
   * Makes a request handler task-augmentable, for `server.setRequestHandler(schema, runtime.handle("resources/read", fn))`.
   * `fn` receives the request and a TaskContext.
   */
  handle<Req extends { method: string; params?: unknown }, R extends Result>(
    method: string,
    fn: (request: Req, ctx: TaskContext) => R | Promise<R>,
  ): (request: Req, extra: ServerExtra) => Promise<R> {
    const handler = (request: Req, extra: ServerExtra) => {
      // Already the work of a task made by the wrapper around registered handlers: that task's context.
      const outer = TASK_CONTEXTS.get(extra);
      return outer !== undefined ? Promise.resolve(fn(request, outer)) : this.run(method, request.params, extra, (ctx) => fn(request, ctx));
    };
    TASK_WORK.add(handler as unknown as RequestHandler);
    return handler;
  }

  /**
   * Makes an `McpServer` tool callback task-augmentable:
   * `mcp.registerTool("name", config, runtime.tool(async (args, ctx) => ...))`.
   */
  tool<A>(fn: TaskHandler<A, CallToolResult>): (args: A, extra: ServerExtra) => Promise<CallToolResult> {
    return (args, extra) => this.run("tools/call", { _meta: extra._meta }, extra, (ctx) => fn(args, ctx));
  }

  /** Stops the running work, the job queue (if any) and the store's timers. */
  async close(): Promise<void> {
    this.closing.abort();
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    for (const a of this.active.values()) a.controller.abort(new Error("server closing"));
    // The queue's running jobs end with their aborted work; then it lets go of its connections.
    await this.options.queue?.stop(5_000).catch((e: unknown) => this.log({ level: "warn", msg: "could not stop the job queue", error: String(e) }));
    await this.store.close();
  }

  // -------------------------------------------------------------------------
  // Augmentation
  // -------------------------------------------------------------------------

  /** The task the requestor asked for, or undefined when the request is a plain one. */
  private readTaskRequest(params: unknown): { taskId: string | undefined; keepAlive: number | null | undefined; request: Record<string, unknown> } | undefined {
    const p = isObject(params) ? params : {};
    const creation = this.plan.creation;
    let raw: unknown;
    if (creation.via === "client-capability") {
      // The requestor opts in through this request's own capabilities (never earlier ones);
      // it asks for nothing else: the receiver decides (run) and assigns id and retention.
      raw = declaresClientCapability(this.plan, p) ? {} : undefined;
    } else if (creation.via === "meta") {
      const meta = isObject(p._meta) ? p._meta : undefined;
      raw = creation.metaKey === undefined ? undefined : meta?.[creation.metaKey];
    } else {
      raw = p[creation.param];
    }
    if (raw === undefined) return undefined;
    if (!isObject(raw)) throw invalidParams("Invalid task metadata: expected an object");
    let taskId: string | undefined;
    if (creation.idFromRequestor) {
      const id = raw[creation.idField];
      if (typeof id !== "string" || id.length === 0) throw invalidParams("Invalid task metadata: taskId must be a non-empty string");
      if (id.length > 256) throw invalidParams("Invalid task metadata: taskId is longer than 256 characters");
      if (id.includes(TASK_SCOPE_MARK)) throw invalidParams("Invalid task metadata: taskId must not contain U+001F");
      taskId = id;
    }
    const keepAlive = creation.retentionField === undefined ? undefined : raw[creation.retentionField];
    if (keepAlive !== undefined && keepAlive !== null && (typeof keepAlive !== "number" || !Number.isFinite(keepAlive) || keepAlive < 0)) {
      throw invalidParams(`Invalid task metadata: ${creation.retentionField ?? "retention"} must be a non-negative number`);
    }
    // The rest of the task request's declared type (e.g. a priority enum): checked, then handed to the work.
    const validate = this.descriptor.validateCreation;
    if (validate !== undefined) {
      const checked = validate(raw);
      if (!checked.success) throw invalidParams(`Invalid task metadata: ${describeIssues(checked.error)}`);
    }
    return { taskId, keepAlive: keepAlive as number | null | undefined, request: raw };
  }

  /** The retention granted for a requested one (capped by maxKeepAlive); null = unlimited. */
  grant(requested: number | null | undefined): number | null {
    const r = this.plan.retention;
    const max = this.options.maxKeepAlive === undefined ? r.max : this.options.maxKeepAlive;
    const dflt = this.options.defaultKeepAlive === undefined ? r.default : this.options.defaultKeepAlive;
    let want = requested === undefined ? dflt : requested;
    // Where null does not mean unlimited, asking for null asks for the most there is.
    if (want === null && !r.nullMeansUnlimited) want = max;
    if (want === null) return max;
    return max === null ? Math.floor(want) : Math.min(Math.floor(want), max);
  }

  private augments(method: string): boolean {
    const allowed = this.options.augment ?? this.descriptor.behaviour.creation.requests[this.side];
    if (!(allowed.includes("*") || allowed.includes(method))) return false;
    // Where the capability lists augmentable requests (exhaustively), only a declared one is a task.
    const decl = this.capabilityDecl;
    const paths = decl === false ? undefined : decl.augments;
    if (paths === undefined) return true;
    // Own keys only: a method named like an Object.prototype member (constructor, toString) is no declared path.
    const path = Object.prototype.hasOwnProperty.call(paths, method) ? paths[method] : undefined;
    return path !== undefined && capabilityAt(this.capabilityValue, path) !== undefined;
  }

  /** The spec's declaration of this side's tasks capability. */
  get capabilityDecl(): TaskCapabilityDecl {
    return this.descriptor.behaviour.capabilities[this.side];
  }

  /** The tasks capability value this runtime declares. */
  get capabilityValue(): unknown {
    const decl = this.capabilityDecl;
    return this.options.taskCapability ?? (decl === false ? undefined : decl.value);
  }

  /** -32601 for a method gated on a capability path this runtime does not declare (e.g. the list method without `list`). */
  private gate(method: string): void {
    const decl = this.capabilityDecl;
    const gates = decl === false ? undefined : decl.gates;
    const path = gates !== undefined && Object.prototype.hasOwnProperty.call(gates, method) ? gates[method] : undefined;
    if (path !== undefined && capabilityAt(this.capabilityValue, path) === undefined) throw methodNotFound();
  }

  /**
   * The per-tool switch: a task asked of a tool that forbids one, or a plain call of a tool that
   * requires one, is an error (not a silent fallback); so is a plain request of a method served only as a task.
   */
  private checkTaskSupport(method: string, params: unknown, options: RunOptions): void {
    const asked = this.augments(method) && this.readTaskRequest(params) !== undefined;
    const toolSwitch = this.plan.toolSwitch;
    if (toolSwitch && options.tool !== undefined) {
      const tool = options.tool;
      const support = options.taskSupport ?? toolSwitch.default;
      if (asked && support === "forbidden") {
        throw this.plan.error(toolSwitch.forbiddenError, { tool, method }, () => invalidParams(`Tool ${tool} does not support task augmentation`));
      }
      if (!asked && support === "required") {
        throw this.plan.error(toolSwitch.requiredError, { tool, method }, () => invalidParams(`Tool ${tool} requires task augmentation`));
      }
    }
    const required = this.descriptor.behaviour.creation.requiredTaskError;
    if (!asked && hasError(this.descriptor, required) && (this.options.requireTask ?? []).includes(method)) {
      throw this.plan.error(required, { method, tool: options.tool ?? "" }, methodNotFound);
    }
  }

  /**
   * The capabilities the requestor of a request declared: on the request itself where capabilities
   * travel with every request (per-request lifecycle), else those its session declared at
   * initialization (an SDK Server peer knows them); undefined where they cannot be known.
   */
  private requestorCapabilities(params: unknown, extra: ServerExtra, peer: TaskPeer | undefined): Record<string, unknown> | undefined {
    const key = this.plan.creation.capabilityMetaKey;
    if (this.plan.perRequest && key !== undefined) {
      const meta = isObject(params) && isObject(params._meta) ? params._meta : isObject(extra._meta) ? extra._meta : undefined;
      const declared = meta?.[key];
      return isObject(declared) ? declared : {};
    }
    const via = peer ?? (extra.sessionId === undefined ? undefined : this.peers.get(extra.sessionId));
    const read = (via as { getClientCapabilities?: () => unknown } | undefined)?.getClientCapabilities;
    if (typeof read !== "function") return undefined;
    const declared = read.call(via);
    return isObject(declared) ? declared : undefined;
  }

  /** The error for input a task's requestor never declared it can answer (undefined when it did, or when that is unknown). */
  private undeclaredInput(active: ActiveTask, method: string, params: Record<string, unknown>): TaskProtocolError | undefined {
    const declared = active.requestorCapabilities;
    const capability = Object.prototype.hasOwnProperty.call(INPUT_CAPABILITIES, method) ? INPUT_CAPABILITIES[method] : undefined;
    if (declared === undefined || capability === undefined) return undefined;
    const have = declared[capability];
    // A URL-mode elicitation needs the url sub-capability; an empty elicitation capability means forms.
    const ok = isObject(have) && !(capability === "elicitation" && params.mode === "url" && !isObject(have.url));
    if (ok) return undefined;
    const required = capability === "elicitation" && params.mode === "url" ? { elicitation: { url: {} } } : { [capability]: {} };
    const client = this.plan.behaviour.capabilities.client;
    const name = client === false ? undefined : client.missingError;
    const decl = name !== undefined && Object.prototype.hasOwnProperty.call(this.descriptor.errors, name) ? this.descriptor.errors[name] : undefined;
    const data = decl?.dataField === undefined ? undefined : { [decl.dataField]: required };
    return this.plan.error(
      name,
      { method },
      () => new TaskProtocolError("missingClientCapability", -32603, `The requestor did not declare the ${capability} capability (required for ${method})`),
      data,
    );
  }

  /** How to reach the requestor of a request later, after that request was answered. */
  private notifier(extra: ServerExtra, peer: TaskPeer | undefined): ActiveTask["notify"] {
    const via = peer ?? (extra.sessionId === undefined ? undefined : this.peers.get(extra.sessionId));
    if (via) return (n) => via.notification(n);
    return (n) => extra.sendNotification(n as unknown as ServerNotification);
  }

  private watch(taskId: string, fn: () => void): () => void {
    let set = this.watchers.get(taskId);
    if (!set) this.watchers.set(taskId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.watchers.get(taskId) === set) this.watchers.delete(taskId);
    };
  }

  private wake(taskId: string): void {
    const set = this.watchers.get(taskId);
    if (set) for (const fn of set) fn();
  }

  /** Sends the task's new state to its requestor, where the spec pushes status notifications. */
  private pushStatus(rec: TaskRecord): void {
    const push = this.plan.statusPush;
    if (push === undefined) return;
    const active = this.active.get(rec.taskId);
    // Work on a worker: the runtime that made the task sends it (this one, where it runs its own worker).
    const notify = active === undefined || active.statusElsewhere === true ? this.relays.get(rec.taskId) : active.notify;
    if (notify === undefined) return;
    const params = toWireTask<Record<string, unknown>>(this.plan, rec);
    void notify({ method: push.method, params }).catch((e: unknown) =>
      this.log({ level: "warn", msg: "could not send a task status notification", taskId: rec.taskId, error: String(e) }),
    );
  }

  /** Counts a task's retention from creation: once it elapses, the running work is stopped. */
  private armExpiry(taskId: string, active: ActiveTask, at: number): void {
    if (active.expiry) clearTimeout(active.expiry);
    active.expiry = setTimeout(() => void this.onExpiry(taskId).catch(() => undefined), Math.min(2_147_483_647, Math.max(1, at - Date.now() + 1)));
    active.expiry.unref?.();
  }

  private async onExpiry(taskId: string): Promise<void> {
    const active = this.active.get(taskId);
    if (!active) return;
    const found = await this.store.get(taskId);
    if (found?.state === "live") {
      const rec = found.record;
      if (this.isTerminal(rec.status)) return;
      const expiry = this.plan.status.onExpiry;
      if (expiry === undefined) {
        if (rec.expiresAt !== null) this.armExpiry(taskId, active, rec.expiresAt);
        return;
      }
      // Expiry is an event with a state of its own: the task ends there and stays readable a while.
      const message = this.plan.task.statusMessageField === undefined ? {} : { statusMessage: "The task's retention ran out before it ended" };
      const moved = await this.move(taskId, expiry, { ...message, expiresAt: Date.now() + (this.options.expiredReadableMs ?? EXPIRED_READABLE_MS) });
      if (!moved) return;
    }
    // The receiver may delete a task whose retention elapsed, whatever its status: stop its work.
    this.log({ level: "info", msg: "task expired while running", taskId });
    active.cancelled = true;
    active.controller.abort(new Error("The task expired"));
    failInputs(active, new TaskProtocolError("expired", -32603, "The task expired"));
    this.concurrency.releaseTask(taskId, active.owner);
    this.wake(taskId);
  }

  /**
   * The session of a connection that has none of its own (stdio: one client per process). On a store of
   * its own (SQLite locks its file), the same after a restart, so the tasks outlive it; on a store that
   * several processes share, this process's own, so no other process's stdio client sees its tasks.
   */
  private connectionWithoutSession(): string {
    return this.store.shared ? `stdio:${this.runner}` : "stdio";
  }

  /** The requestor key: the session and/or the auth context the task is bound to. */
  ownerOf(extra: ServerExtra): string {
    if (this.options.ownerOf) return this.options.ownerOf(extra);
    const parts: string[] = [];
    if (this.plan.binding.session) parts.push(`session:${extra.sessionId ?? this.connectionWithoutSession()}`);
    if (this.plan.binding.auth) {
      const auth = extra.authInfo;
      const subject = auth && isObject(auth.extra) && typeof auth.extra.sub === "string" ? auth.extra.sub : "";
      parts.push(auth ? `auth:${auth.clientId}:${subject}` : "auth:anonymous");
    }
    return parts.length ? parts.join("|") : "*";
  }

  private context(
    extra: ServerExtra,
    taskId: string | undefined,
    signal: AbortSignal,
    active: ActiveTask | undefined,
    taskRequest?: Record<string, unknown>,
  ): TaskContext {
    return {
      taskId,
      taskRequest,
      setFields: (fields) => (taskId === undefined ? Promise.resolve() : this.setFields(taskId, fields)),
      whenRunning: () => (taskId === undefined || active === undefined ? Promise.resolve() : this.whenRunning(taskId, active)),
      signal,
      requestId: extra.requestId,
      sessionId: extra.sessionId,
      authInfo: extra.authInfo,
      extra,
      elicit: (params) =>
        this.askRequestor(extra, taskId, active, "elicitation/create", params as Record<string, unknown>, ElicitResultSchema) as Promise<ElicitResult>,
      sample: (params) =>
        this.askRequestor(extra, taskId, active, "sampling/createMessage", params as Record<string, unknown>, CreateMessageResultSchema) as Promise<CreateMessageResult>,
      notify: (notification) => this.notifyRequestor(extra, taskId, active, notification),
      progressToken: active === undefined ? progressTokenOf(undefined, extra) : active.progressToken,
    };
  }

  /** The progress token a task's work may use: where it outlives the answer, or where the request stays open until the result. */
  private lastingProgressToken(params: unknown, extra: ServerExtra): string | number | undefined {
    const plan = this.plan;
    return plan.behaviour.creation.progressTokenLifetime === "task" || plan.creation.ackMode === "notification" ? progressTokenOf(params, extra) : undefined;
  }

  /**
   * A notification about a request to its requestor. For a task: with the related-task meta where the
   * spec declares it on notifications; on the request's own stream while that request is still open
   * (tasks acknowledged by notification), else the way that reaches the requestor after the answer.
   */
  private notifyRequestor(
    extra: ServerExtra,
    taskId: string | undefined,
    active: ActiveTask | undefined,
    notification: { method: string; params?: Record<string, unknown> },
  ): Promise<void> {
    if (taskId === undefined || active === undefined) return extra.sendNotification(notification as unknown as ServerNotification);
    // A task's progress ends with it: what its work reports once it was cancelled or became terminal goes nowhere.
    if (notification.method === PROGRESS.method && (active.cancelled || active.ended)) {
      this.log({ level: "info", msg: `progress after the task ${active.cancelled ? "was cancelled" : "ended"} dropped`, taskId });
      return Promise.resolve();
    }
    const plan = this.plan;
    const key = plan.related.key;
    let message = notification;
    // Progress after the answer still names the original request's token (valid for the task's life).
    if (active.progressToken !== undefined && notification.method === PROGRESS.method && notification.params?.[PROGRESS.tokenField] === undefined) {
      message = { method: notification.method, params: { ...notification.params, [PROGRESS.tokenField]: active.progressToken } };
    }
    if (plan.related.notifications && key !== undefined) {
      const params = message.params ?? {};
      const meta = isObject(params._meta) ? params._meta : {};
      message = { method: notification.method, params: { ...params, _meta: { ...meta, [key]: { taskId: wireTaskId(taskId) } } } };
    }
    if (plan.creation.ackMode === "notification") return extra.sendNotification(message as unknown as ServerNotification);
    return active.notify(message);
  }

  /** Sends a request to the requestor; for a task, the declared way, with the task in the input status until every answer arrived. */
  private askRequestor(
    extra: ServerExtra,
    taskId: string | undefined,
    active: ActiveTask | undefined,
    method: string,
    params: Record<string, unknown>,
    schema: z.ZodType,
  ): Promise<unknown> {
    if (taskId === undefined || active === undefined) {
      return extra.sendRequest({ method, params } as ServerRequest, schema as never, { timeout: this.inputTimeout });
    }
    // A task asks only for what its requestor declared it can answer; anything else could never be answered.
    const missing = this.undeclaredInput(active, method, params);
    if (missing) return Promise.reject(missing);
    switch (this.plan.input.via) {
      case "side-request":
        return askBySideRequest(this.host, extra, taskId, active, method, params, schema);
      case "result-stream":
        return askThroughResultStream(this.host, taskId, active, method, params, schema);
      case "inline-poll":
        return askInline(this.host, taskId, active, method, params, schema);
      case "none":
        return Promise.reject(new TaskProtocolError("noInput", -32603, `A task of this protocol cannot ask its requestor for input (${method})`));
    }
  }

  /**
   * Runs one request: plainly when it carries no task request (or its method
   * is not augmentable), otherwise as a task.
   */
  async run<R extends Result>(
    method: string,
    params: unknown,
    extra: ServerExtra,
    work: (ctx: TaskContext) => R | Promise<R>,
    options: RunOptions = {},
  ): Promise<R> {
    const plan = this.plan;
    this.checkTaskSupport(method, params, options);
    const support = options.taskSupport ?? "optional";
    const wanted = support !== "forbidden" && this.augments(method) ? this.readTaskRequest(params) : undefined;
    if (wanted === undefined) {
      // A request that only runs as a task, from a requestor that did not allow one.
      if (support === "required") {
        const missing = plan.missingCapability(plan.behaviour.creation.requiredTaskError, { method });
        if (missing) throw missing;
      }
      const plain = this.context(extra, undefined, extra.signal, undefined);
      if (options.before) await options.before(plain);
      return plan.behaviour.resultType === false ? work(plain) : withResultType(plan, await work(plain));
    }
    const owner = this.ownerOf(extra);
    // A request id the requestor already used in this session for a task that still lives (a peer
    // replaying its request) makes no second task: it is answered with the task it made.
    const replay = this.replayKey(owner, method, extra);
    if (replay !== undefined) {
      const existing = await this.replayedTask(replay);
      if (existing !== undefined) {
        this.log({ level: "info", msg: "repeated request id answered with its task", taskId: existing.taskId, method, requestId: extra.requestId });
        return this.acknowledgement(existing) as R;
      }
    }
    // Input asked before the task exists is resolved with the request itself.
    if (options.before) await options.before(this.context(extra, undefined, extra.signal, undefined));
    const audit = { ...requestor(owner, extra), method };
    if (!(await this.takeRate(`create|${owner}`, this.limits.createPerMinute))) {
      this.audit({ ...audit, type: "denied", reason: "task creation rate limit" });
      throw this.rateLimited("task creation");
    }
    const limit = this.limits.maxConcurrentPerRequestor;
    const overLimit = () => {
      this.audit({ ...audit, type: "denied", reason: "concurrent task limit" });
      return plan.error(plan.behaviour.limits.concurrencyError, { limit }, () =>
        new TaskProtocolError("concurrencyLimitReached", -32011, `Too many concurrent tasks (limit ${limit})`),
      );
    };
    if (!this.concurrency.reserve(owner, limit)) throw overLimit();
    await this.ready;
    const wantedId = wanted.taskId ?? randomUUID();
    const keepAlive = this.grant(wanted.keepAlive);
    const now = Date.now();
    const fromTerminal = plan.retention.countedFrom === "terminal";
    // Where expiry is an event with a state of its own, the runtime applies it (the store must not drop the task first).
    const expiryEvent = plan.status.onExpiry !== undefined;
    // Work for a worker: where the queue lives in the store's database, the job commits with the task, so a
    // crash between the two leaves neither a task no worker will run nor a job without its task.
    const along = this.enqueueAlong(params, extra, options, wanted.request);
    const record = await this.createRecord(
      {
        taskId: wantedId,
        owner,
        status: plan.status.initial,
        method,
        requestId: extra.requestId,
        createdAt: now,
        updatedAt: now,
        terminalAt: null,
        keepAlive,
        pollFrequency: this.options.pollFrequency ?? plan.polling.default,
        expiresAt: fromTerminal || keepAlive === null || expiryEvent ? null : now + keepAlive,
        pendingInputs: 0,
        // On a shared store with leases: who runs the work, so the others can settle it if this process dies.
        // Work enqueued for a worker has no runner until a worker takes it.
        ...(this.leaseTimer === undefined || (options.queued !== undefined && this.options.queue !== undefined) ? {} : { runner: this.runner }),
      },
      limit,
      along,
    ).catch((e: unknown) => {
      // Nothing was created (the store, or the job written with the task, failed): the slot is free again.
      this.concurrency.release(owner);
      this.log({ level: "error", msg: "could not create a task", method, error: String((e as { cause?: unknown }).cause ?? e) });
      throw isDatabaseUnavailable(e) ? this.unavailable() : internalError(plan);
    });
    if (record === "limit") {
      this.concurrency.release(owner);
      throw overLimit();
    }
    if (!record) {
      this.concurrency.release(owner);
      this.audit({ ...audit, type: "denied", taskId: wantedId, reason: "duplicate task id" });
      throw plan.error(plan.behaviour.creation.taskId.duplicateError, { taskId: wantedId }, () => invalidParams(`Task ID already exists: ${wantedId}`));
    }
    // The stored key: the id, with the requestor's scope where another requestor holds the same id.
    const taskId = record.taskId;
    this.concurrency.hold(taskId);
    if (replay !== undefined) this.rememberRequest(replay, taskId);
    this.audit({ ...audit, type: "created", taskId, to: plan.status.initial });
    if (options.queued !== undefined && this.options.queue !== undefined) return this.enqueue(taskId, record, params, extra, options, wanted.request, along !== undefined) as Promise<R>;
    const active = activeTask({
      controller: new AbortController(),
      owner,
      notify: this.notifier(extra, options.peer),
      requestorCapabilities: this.requestorCapabilities(params, extra, options.peer),
      progressToken: this.lastingProgressToken(params, extra),
    });
    this.active.set(taskId, active);
    // Retention counts from creation: a task still running when it elapses is stopped.
    if (!fromTerminal && keepAlive !== null) this.armExpiry(taskId, active, now + keepAlive);
    // Cancellation: the SDK aborts extra.signal when the request is cancelled.
    const onAbort = () => void this.cancel(taskId, "The request was cancelled").catch(() => undefined);
    extra.signal.addEventListener("abort", onAbort, { once: true });
    const cleanup = () => {
      extra.signal.removeEventListener("abort", onAbort);
      if (active.expiry) clearTimeout(active.expiry);
      active.ended = true;
      this.active.delete(taskId);
    };
    if (plan.creation.ackMode === "notification") {
      // The task can be polled now: acknowledge on the request's own stream; the request is answered with the result.
      const key = plan.related.key;
      await extra
        .sendNotification({
          method: plan.creation.ackNotification ?? "",
          params: { _meta: key === undefined ? {} : { [key]: { taskId: wantedId } } },
        } as unknown as ServerNotification)
        .catch((e: unknown) => this.log({ level: "warn", msg: "could not send the task creation notification", taskId, error: String(e) }));
      return this.execute(taskId, active, method, extra, work, cleanup, wanted.request);
    }
    // The request is answered at once with the task; the work goes on in the background.
    void this.execute(taskId, active, method, extra, work, cleanup, wanted.request, { known: record }).catch(() => undefined);
    const created = await this.store.get(taskId);
    return this.acknowledgement(created?.state === "live" ? created.record : record) as R;
  }

  /** The job of a task whose work runs on a worker: plain JSON, what the worker needs to run the tool. */
  private queuedWork(taskId: string, params: unknown, extra: ServerExtra, options: RunOptions, taskRequest: Record<string, unknown>): QueuedWork {
    const auth = extra.authInfo;
    const capabilities = this.requestorCapabilities(params, extra, options.peer);
    const progressToken = this.lastingProgressToken(params, extra);
    const work: QueuedWork = {
      taskId,
      tool: options.queued!.tool,
      args: options.queued!.args(),
      requestId: extra.requestId,
      ...(extra.sessionId === undefined ? {} : { sessionId: extra.sessionId }),
      ...(auth === undefined
        ? {}
        : { authInfo: { clientId: auth.clientId, scopes: auth.scopes, ...(auth.expiresAt === undefined ? {} : { expiresAt: auth.expiresAt }), ...(auth.extra === undefined ? {} : { extra: auth.extra }) } }),
      ...(capabilities === undefined ? {} : { capabilities }),
      ...(progressToken === undefined ? {} : { progressToken }),
      taskRequest,
    };
    return JSON.parse(JSON.stringify(work)) as QueuedWork;
  }

  /** Where the task's job can be written in the transaction that creates the task: what writes it there. */
  private enqueueAlong(params: unknown, extra: ServerExtra, options: RunOptions, taskRequest: Record<string, unknown>): ((rec: TaskRecord, sql: SqlRunner) => Promise<void>) | undefined {
    const queue = this.options.queue;
    const queued = options.queued;
    if (queued === undefined || queue?.enqueueAlong === undefined || this.store.createAlong === undefined) return undefined;
    if (queue.database === undefined || queue.database !== this.store.database) return undefined;
    return async (rec, sql) => {
      await queue.enqueueAlong!(this.queuedWork(rec.taskId, params, extra, options, taskRequest), queued.retry, sql);
    };
  }

  /**
   * A task whose work runs on a worker: its job is enqueued (`enqueued`: it was, with the task) and the request
   * answered as a local run would answer it (with the task, or, where the request stays open until the result,
   * with what the worker stored).
   */
  private async enqueue(taskId: string, record: TaskRecord, params: unknown, extra: ServerExtra, options: RunOptions, taskRequest: Record<string, unknown>, enqueued: boolean): Promise<Result> {
    const plan = this.plan;
    const queue = this.options.queue!;
    // This process runs nothing: the store counts the task against its requestor's limit (createBounded).
    this.concurrency.releaseTask(taskId, record.owner);
    if (!enqueued) {
      try {
        await queue.enqueue(this.queuedWork(taskId, params, extra, options, taskRequest), options.queued!.retry);
      } catch (e) {
        // Never queued: no work will ever run behind the task.
        this.log({ level: "error", msg: "could not enqueue a task's work", taskId, error: String(e) });
        const internal = internalError(plan);
        await this.move(taskId, plan.status.onUnexpected, plan.task.statusMessageOnFailure ? { error: { code: internal.code, message: internal.message }, statusMessage: internal.message } : { error: { code: internal.code, message: internal.message } });
        throw internal;
      }
    }
    // The task as created: a worker may have taken it meanwhile, which the requestor learns by polling.
    // What its work sends the requestor comes here through the store (the worker holds no session).
    if (plan.creation.ackMode !== "notification") {
      this.relays.set(taskId, this.notifier(extra, options.peer));
      return this.acknowledgement(record);
    }
    const key = plan.related.key;
    await extra
      .sendNotification({ method: plan.creation.ackNotification ?? "", params: { _meta: key === undefined ? {} : { [key]: { taskId } } } } as unknown as ServerNotification)
      .catch((e: unknown) => this.log({ level: "warn", msg: "could not send the task creation notification", taskId, error: String(e) }));
    const onAbort = () => void this.cancel(taskId, "The request was cancelled").catch(() => undefined);
    extra.signal.addEventListener("abort", onAbort, { once: true });
    // While the request is open, the work's requests and notifications to the requestor go out on it.
    const stopRelay = relaySideRequests(this.store, taskId, (request) => extra.sendRequest(request as ServerRequest, anyResult as never, { timeout: this.inputTimeout }));
    this.relays.set(taskId, (n) => extra.sendNotification(n as unknown as ServerNotification));
    try {
      const ended = await this.untilEnded(taskId);
      if (ended === undefined) throw new TaskProtocolError("expired", -32603, "The task is gone (deleted or expired)");
      if (ended.status === plan.status.cancelled) throw cancelledError();
      if (ended.result !== undefined && ended.error === undefined) return withRelated(plan, ended.result as Result, taskId);
      const error = ended.error ?? { code: -32603, message: ended.statusMessage ?? "The task failed" };
      throw new TaskProtocolError("requestFailed", error.code, error.message, error.data);
    } finally {
      stopRelay();
      this.relays.delete(taskId);
      extra.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Resolves with the task once it is terminal (whichever process ended it), or undefined once it is gone. */
  private async untilEnded(taskId: string): Promise<TaskRecord | undefined> {
    for (;;) {
      let wake!: () => void;
      const changed = new Promise<void>((resolve) => (wake = resolve));
      const stop = this.watch(taskId, wake);
      try {
        const found = await this.store.get(taskId);
        if (found?.state !== "live") return undefined;
        if (this.isTerminal(found.record.status)) return found.record;
        await changed;
      } finally {
        stop();
      }
    }
  }

  /**
   * Runs, in this process, the work of the tool tasks that servers enqueued on `TaskServerOptions.queue`:
   * each job runs its tool's handler (the tools added here, by name) with the task's context, and the
   * task ends in the store as a local run would end it. Resolves once the workers are taking jobs.
   */
  async work(options: { concurrency?: number } = {}): Promise<void> {
    const queue = this.options.queue;
    if (queue === undefined) throw new Error("TaskRuntime.work needs a queue (TaskServerOptions.queue)");
    if (this.store.shared !== true) throw new Error("TaskRuntime.work needs a store every server and worker shares (PostgreSQL)");
    await this.ready;
    await queue.consume((job) => this.runJob(job), options.concurrency ?? 1);
  }

  /** One job: claims its task, then runs the tool's work as `run` would have. */
  private async runJob(job: TakenJob): Promise<void> {
    const w = job.work;
    const taskId = w.taskId;
    const plan = this.plan;
    const runner = jobRunner(this.runner, job.id);
    const controller = new AbortController();
    const tool = this.tools.get(w.tool);
    // Registered before the claim: a cancel made through another process once the claim is written stops the work.
    // Notifications (progress, status) go through the store to the server that holds the requestor's session.
    const publish = (n: { method: string; params?: Record<string, unknown> }): Promise<void> => {
      // This runtime made the task too: it holds the session itself.
      const here = this.relays.get(taskId);
      if (here !== undefined) return here(n);
      return typeof this.store.publish === "function" ? this.store.publish(taskId, { notification: JSON.parse(JSON.stringify(n)) as Record<string, unknown> }) : Promise.resolve();
    };
    const active = activeTask({ controller, owner: "", notify: publish, requestorCapabilities: w.capabilities, progressToken: w.progressToken, statusElsewhere: true });
    this.active.set(taskId, active);
    const cleanup = () => {
      if (active.expiry) clearTimeout(active.expiry);
      active.ended = true;
      if (this.active.get(taskId) === active) this.active.delete(taskId);
    };
    let claimed: { rec: TaskRecord; running: boolean } | undefined;
    try {
      claimed = tool === undefined ? undefined : await this.lasting(() => this.claimFresh(taskId, runner), "a job's claim", taskId);
      claimed ??= await this.lasting(() => this.claimTaken(taskId, runner), "a job's claim", taskId);
    } catch (e) {
      cleanup();
      throw e;
    }
    if (claimed === undefined || active.cancelled) {
      cleanup();
      return;
    }
    const rec = claimed.rec;
    active.owner = rec.owner;
    if (tool === undefined) {
      cleanup();
      this.log({ level: "error", msg: "a queued task names a tool this worker does not have", taskId, tool: w.tool });
      const internal = internalError(plan);
      const error = { code: internal.code, message: `This worker has no tool named ${w.tool}` };
      await this.lasting(() => this.move(taskId, plan.status.onUnexpected, plan.task.statusMessageOnFailure ? { error, statusMessage: error.message } : { error }, undefined, false, rec), "a task's end", taskId);
      return;
    }
    const noConnection = () => new TaskProtocolError("noConnection", -32603, "The task's work runs on a worker, which holds no connection to the requestor");
    const extra = {
      signal: controller.signal,
      requestId: w.requestId,
      ...(w.sessionId === undefined ? {} : { sessionId: w.sessionId }),
      ...(w.authInfo === undefined ? {} : { authInfo: { token: "", ...w.authInfo } }),
      sendNotification: publish,
      // Where the request that made the task stays open until its result, the server holding it relays.
      sendRequest: plan.creation.ackMode === "notification" ? sideRequestThroughStore(this.store, taskId, this.inputTimeout) : () => Promise.reject(noConnection()),
    } as unknown as ServerExtra;
    if (plan.retention.countedFrom !== "terminal" && rec.keepAlive !== null) this.armExpiry(taskId, active, rec.createdAt + rec.keepAlive);
    await this.execute(taskId, active, rec.method, extra, (ctx) => tool.handler(w.args, ctx), cleanup, w.taskRequest, { known: rec, running: claimed.running }).catch((e: unknown) => {
      // The work's own failure is stored already (a protocol error); anything else left the task as it was.
      if (!(e instanceof TaskProtocolError) && !active.cancelled) this.log({ level: "error", msg: "a job ended without its task's outcome stored", taskId, error: String(e) });
    });
  }

  /**
   * The claim of a task no worker has started, in one write: from the initial state straight to running
   * (where the transition needs no more than a fresh task), with this worker's job as its runner.
   */
  private async claimFresh(taskId: string, runner: string): Promise<{ rec: TaskRecord; running: boolean } | undefined> {
    const { initial, running } = this.plan.status;
    if (typeof this.store.claim !== "function") return undefined;
    const start = initial !== running && this.descriptor.machine.canTransition(initial as S, running, { pendingInputs: 0 } as TransitionContext);
    const rec = await this.store.claim(taskId, initial, { ...(start ? { status: running } : {}), runner, updatedAt: Date.now() });
    if (rec === undefined) return undefined;
    if (start) this.moved(initial as S, rec);
    return { rec, running: start || initial === running };
  }

  /**
   * The claim of a task in any other state: a retry of a lost worker's job, or a task a transition moved
   * before a worker took it. Undefined when it ended, or when the worker running it is in fact alive.
   */
  private async claimTaken(taskId: string, runner: string): Promise<{ rec: TaskRecord; running: boolean } | undefined> {
    for (let attempt = 0; attempt < 16; attempt++) {
      const found = await this.store.get(taskId);
      // Ended before a worker took it (cancelled, expired, deleted): nothing to run.
      if (found?.state !== "live" || this.isTerminal(found.record.status)) return undefined;
      const held = found.record;
      const process = held.runner === undefined ? undefined : runnerProcess(held.runner);
      // Handed back while its worker was in fact alive (a lease renewed late): that worker goes on.
      if (process !== undefined && process !== this.runner && held.runner !== undefined && runnerJob(held.runner) !== undefined) {
        const live = await this.store.liveRunners?.(Date.now() - this.leaseMs);
        if (live?.has(process)) return undefined;
      }
      const rec = await this.store.update(taskId, held.status, { runner });
      if (rec !== undefined) return { rec, running: false };
    }
    return undefined;
  }

  /** The answer that acknowledges a task in the request's own answer ({ task }, or the flat task with its result type). */
  private acknowledgement(rec: TaskRecord): Result {
    const plan = this.plan;
    const task = toWireTask<Record<string, unknown>>(plan, rec);
    const rt = plan.behaviour.resultType;
    const ack = plan.creation.ackMode === "result" ? { task } : rt === false ? { ...task } : { [rt.field]: rt.task, ...task };
    this.acks.add(ack);
    return ack as unknown as Result;
  }

  /**
   * The key of a request among the task-making requests of its session, where a repeated id can be
   * told from a new request: request ids are unique only within a session, and where the requestor
   * names the task itself (or the request stays open until its result), a repeat meets the declared
   * duplicate-id answer instead.
   */
  private replayKey(owner: string, method: string, extra: ServerExtra): string | undefined {
    const creation = this.plan.creation;
    if (creation.idFromRequestor || creation.ackMode === "notification" || extra.sessionId === undefined) return undefined;
    return JSON.stringify([owner, extra.sessionId, method, extra.requestId]);
  }

  /** The live task a request key made, if any (a key whose task is gone is forgotten). */
  private async replayedTask(key: string): Promise<TaskRecord | undefined> {
    const taskId = this.byRequest.get(key);
    if (taskId === undefined) return undefined;
    const found = await this.store.get(taskId);
    if (found?.state === "live") return found.record;
    if (this.byRequest.get(key) === taskId) this.byRequest.delete(key);
    return undefined;
  }

  /** Remembers the task a request key made; forgets the oldest keys whose tasks are gone, a few per call. */
  private rememberRequest(key: string, taskId: string): void {
    this.byRequest.set(key, taskId);
    let checked = 0;
    for (const [k, id] of this.byRequest) {
      if (k === key || ++checked > 2) break;
      void this.store.get(id).then(
        (found) => {
          if (found?.state !== "live" && this.byRequest.get(k) === id) this.byRequest.delete(k);
        },
        () => undefined,
      );
    }
  }

  private async execute<R extends Result>(
    taskId: string,
    active: ActiveTask,
    method: string,
    extra: ServerExtra,
    work: (ctx: TaskContext) => R | Promise<R>,
    cleanup: () => void,
    taskRequest?: Record<string, unknown>,
    start: { known?: TaskRecord; running?: boolean } = {},
  ): Promise<R> {
    const plan = this.plan;
    const status = plan.status;
    try {
      // The task as this process last wrote it: where the spec has no state that holds work and the final
      // move needs no guard, that move compares the status it expects instead of reading the task again.
      let last = start.running === true ? start.known : await this.lasting(() => this.move(taskId, status.running, {}, undefined, false, start.known), "a task's start", taskId);
      let result: R;
      try {
        result = await work(this.context(extra, taskId, active.controller.signal, active, taskRequest));
        // A task held by a transition (e.g. paused) ends only once a transition lets it run again.
        if (this.holds) last = await this.hold(taskId, active, (role) => role === "paused" || role === "queued");
      } catch (e) {
        if (active.cancelled) throw e;
        const rpc = asRpcError(e);
        if (rpc) {
          await this.lasting(() => this.move(taskId, status.onProtocolError, plan.task.statusMessageOnFailure ? { error: rpc, statusMessage: rpc.message } : { error: rpc }), "a task's end", taskId);
          throw new TaskProtocolError("requestFailed", rpc.code, rpc.message, rpc.data);
        }
        this.log({ level: "error", msg: "unexpected failure of a task's work", taskId, method, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
        const internal = internalError(plan);
        const error = { code: internal.code, message: internal.message };
        await this.lasting(() => this.move(taskId, status.onUnexpected, plan.task.statusMessageOnFailure ? { error, statusMessage: internal.message } : { error }), "a task's end", taskId);
        throw internal;
      }
      if (active.cancelled) return result;
      const toolError = method === "tools/call" && isObject(result) && result.isError === true;
      const to = toolError ? status.onToolError : status.completed;
      // Stored as the request's own answer would be (marked complete where the spec declares result types).
      const stored = withResultType(plan, JSON.parse(JSON.stringify(result)) as Record<string, unknown>);
      const patch: TaskPatch = { result: stored };
      if (toolError && status.onToolError === status.failed) patch.error = { code: -32603, message: toolErrorMessage(stored) };
      const known = this.holds || (last !== undefined && this.descriptor.machine.canTransition(last.status as S, to)) ? last : undefined;
      await this.lasting(() => this.move(taskId, to, patch, undefined, false, known), "a task's end", taskId);
      // Where the request itself is answered with the result, that answer relates to the task too.
      return plan.related.key !== undefined && plan.creation.ackMode === "notification" ? withRelated(plan, result, taskId) : result;
    } finally {
      cleanup();
    }
  }

  private isTerminal(status: string): boolean {
    return this.descriptor.machine.isTerminal(status as S);
  }

  /**
   * Moves a task to `to` through the transition table. An illegal transition is
   * logged and refused (never applied); returns the updated record or undefined.
   */
  private async move(taskId: string, to: S, patch: TaskPatch = {}, ctx?: TransitionContext, onlyIfLegal = false, known?: TaskRecord): Promise<TaskRecord | undefined> {
    const machine = this.descriptor.machine;
    for (let attempt = 0; attempt < 16; attempt++) {
      // `known`: the task as this process just read or wrote it, tried first (the write compares its status).
      const found: TaskLookup = attempt === 0 && known !== undefined ? { state: "live", record: known } : await this.store.get(taskId);
      if (found?.state !== "live") return undefined;
      const rec = found.record;
      const from = rec.status as S;
      if (from === to) {
        const updated = await this.store.update(taskId, from, { ...patch, updatedAt: Date.now() });
        if (updated !== undefined || attempt > 0 || known === undefined) return updated;
        continue; // `known` was stale: look again
      }
      // Guards read the task as it stands: its own fields (as the work set them) and its unanswered inputs.
      ctx = { ...(rec.fields ?? {}), pendingInputs: rec.pendingInputs, ...(ctx ?? {}) } as TransitionContext;
      if (!machine.canTransition(from, to, ctx)) {
        if (onlyIfLegal) return undefined;
        try {
          machine.assertTransition(from, to, ctx);
        } catch (e) {
          const guard = isObject(e) || e instanceof Error ? (e as { guard?: unknown }).guard : undefined;
          this.log({ level: "error", msg: "illegal task transition refused", taskId, from, to, guard });
        }
        return undefined;
      }
      const now = Date.now();
      const full: TaskPatch = { ...patch, status: to, updatedAt: now };
      if (machine.isTerminal(to)) {
        full.terminalAt = now;
        if (rec.keepAlive !== null && this.plan.retention.countedFrom === "terminal") full.expiresAt = now + rec.keepAlive;
        // Where expiry is an event, the store drops an ended task at the deadline counted from creation.
        else if (rec.keepAlive !== null && this.plan.status.onExpiry !== undefined && rec.expiresAt === null && to !== this.plan.status.onExpiry) {
          full.expiresAt = Math.max(now, rec.createdAt + rec.keepAlive);
        }
        full.pendingInputs = 0;
      }
      const updated = await this.store.update(taskId, from, full);
      if (!updated) continue; // the status changed meanwhile: look again
      this.moved(from, updated);
      return updated;
    }
    return undefined;
  }

  /** What follows a task's move from `from` to the status `rec` now has: limits, audit, waiters, the requestor. */
  private moved(from: S, rec: TaskRecord): void {
    const machine = this.descriptor.machine;
    const to = rec.status as S;
    const taskId = rec.taskId;
    if (machine.isTerminal(to) && !machine.isTerminal(from)) {
      this.concurrency.releaseTask(taskId, rec.owner);
      const running = this.active.get(taskId);
      if (running) running.ended = true;
      this.relays.delete(taskId);
    }
    this.audit({ type: "status", taskId, owner: rec.owner, method: rec.method, from, to });
    this.wake(taskId);
    this.pushStatus(rec);
  }

  /**
   * Resolves with the task once it is in a state where its work may go on (`held` says which roles hold
   * it), once it ended, or once its work was stopped; undefined when the task is gone.
   */
  private async hold(taskId: string, active: ActiveTask, held: (role: string | undefined) => boolean): Promise<TaskRecord | undefined> {
    for (;;) {
      let wake!: () => void;
      const changed = new Promise<void>((resolve) => (wake = resolve));
      // Watch before reading: a change between the read and the wait is not missed.
      const stop = this.watch(taskId, wake);
      const signal = active.controller.signal;
      signal.addEventListener("abort", wake, { once: true });
      try {
        // Work that waits for its task's state waits for the database too, rather than fail.
        const found = await this.lasting(() => this.store.get(taskId), "the work's wait for its task's state", taskId);
        if (found?.state !== "live") return undefined;
        const rec = found.record;
        if (this.isTerminal(rec.status) || signal.aborted || !held(this.plan.status.roleOf[rec.status])) return rec;
        await changed;
      } finally {
        stop();
        signal.removeEventListener("abort", wake);
      }
    }
  }

  /** TaskContext.whenRunning: waits while the task is in a state without the running role. */
  private async whenRunning(taskId: string, active: ActiveTask): Promise<void> {
    const rec = await this.hold(taskId, active, (role) => role !== "running");
    if (rec === undefined || active.cancelled || this.isTerminal(rec.status)) throw active.controller.signal.reason ?? cancelledError();
  }

  /** TaskContext.setFields: the task's own fields, checked with the task as the requestor would see it. */
  private async setFields(taskId: string, fields: Record<string, unknown>): Promise<void> {
    const extras = this.plan.task.extras ?? [];
    for (const k of Object.keys(fields)) {
      if (!extras.includes(k)) throw new TypeError(`'${k}' is not one of the task's own fields (${extras.length ? extras.join(", ") : "the spec declares none"})`);
    }
    const copy = JSON.parse(JSON.stringify(fields)) as Record<string, unknown>;
    for (let attempt = 0; attempt < 16; attempt++) {
      const found = await this.store.get(taskId);
      if (found?.state !== "live" || this.isTerminal(found.record.status)) return;
      const rec = found.record;
      const next = { ...(rec.fields ?? {}), ...copy };
      const checked = this.descriptor.validateTask(toWireTask(this.plan, { ...rec, fields: next }));
      if (!checked.success) throw new TypeError(`Invalid task fields: ${describeIssues(checked.error)}`);
      const updated = await this.store.update(taskId, rec.status, { fields: next, updatedAt: Date.now() });
      if (updated === undefined) continue; // the status changed meanwhile: look again
      this.wake(taskId);
      this.pushStatus(updated);
      return;
    }
  }

  /** Cancels a task (ignored once it is terminal) and aborts its work. */
  async cancel(taskId: string, reason: string): Promise<TaskRecord | undefined> {
    const found = await this.store.get(taskId);
    if (found?.state !== "live" || this.isTerminal(found.record.status)) return undefined;
    const active = this.active.get(taskId);
    const patch: TaskPatch = this.plan.task.statusMessageField === undefined ? {} : { statusMessage: reason };
    const updated = await this.move(taskId, this.plan.status.cancelled, patch);
    if (updated && active) {
      active.cancelled = true;
      active.controller.abort(new Error(reason));
      failInputs(active, cancelledError());
    }
    return updated;
  }

  // -------------------------------------------------------------------------
  // Task methods
  // -------------------------------------------------------------------------

  /** Answers a task method, or returns undefined for other methods. */
  private async dispatch(request: JSONRPCRequest, extra: ServerExtra, peer?: TaskPeer): Promise<Result | undefined> {
    const plan = this.plan;
    const b = plan.behaviour;
    const methods = plan.methods;
    const method = request.method;
    const params = request.params ?? {};
    // A method the spec has only the other side send is not this side's to answer.
    const decl = this.descriptor.methods.find((m) => m.method === method && m.kind === "request");
    if (decl !== undefined && decl.from !== "either" && decl.from === this.side) throw methodNotFound();
    // Methods gated on the declared capability (e.g. the list method on `list`).
    this.gate(method);
    if (peer !== undefined && extra.sessionId !== undefined && !this.peers.has(extra.sessionId)) this.peers.set(extra.sessionId, peer);
    if (b.unsupportedMethods !== undefined && b.unsupportedMethods.methods.includes(method)) {
      throw plan.error(b.unsupportedMethods.error, {}, methodNotFound);
    }
    if (b.http !== false && b.http.methods.includes(method)) checkTaskIdHeader(plan, extra, params);
    // Before the task is looked up: a requestor that does not declare the capability learns nothing.
    if (plan.capabilityGated !== undefined && plan.capabilityGated.includes(method) && !declaresClientCapability(plan, params)) {
      const missing = plan.missingCapability(plan.gateErrorName, { method });
      if (missing) throw missing;
    }
    const idField = plan.idField;
    if (method === methods.get) {
      const { rec } = await this.addressed(method, params, extra, "poll", this.limits.pollPerMinute);
      const task = plan.results.mode === "inline" ? toDetailedTask<Record<string, unknown>>(plan, rec) : toWireTask<Record<string, unknown>>(plan, rec);
      // withRelated's and withResultType's answers, made in place: the task is a fresh object, and V8 is slow to copy one that then gains a key.
      if (plan.related.onGet) task._meta = { [plan.related.key!]: { taskId: wireTaskId(rec.taskId) } };
      const rt = b.resultType;
      if (rt !== false && typeof task[rt.field] !== "string") task[rt.field] = rt.complete;
      return task as Result;
    }
    if (method === methods.result) {
      const { owner, rec } = await this.addressed(method, params, extra, "result", this.limits.resultPerMinute);
      if (plan.results.mode === "block-until-terminal") return awaitResult(this.host, rec, owner, extra, method, peer);
      return resultWhenCompleted(this.host, rec, owner, extra);
    }
    if (method === methods.list && b.listing !== false) {
      const listing = b.listing;
      const p = this.params(method, params) as { cursor?: string };
      const owner = this.ownerOf(extra);
      await this.rate(owner, "list", this.limits.listPerMinute, method);
      let after = 0;
      if (p.cursor !== undefined) {
        const seq = verifyCursor(this.cursorSecret, owner, p.cursor);
        if (seq === undefined) {
          this.audit({ type: "denied", ...requestor(owner, extra), method, reason: "invalid cursor" });
          throw plan.error(listing.invalidCursorError, {}, () => new TaskProtocolError("invalidCursor", -32602, "Invalid cursor"));
        }
        after = seq;
      }
      const size = Math.max(1, Math.min(this.options.pageSize ?? listing.pageSize, listing.maxPageSize));
      const page = await this.store.list(owner, after, size);
      const last = page.records[page.records.length - 1];
      const result: Record<string, unknown> = { tasks: page.records.map((r) => toWireTask(plan, r)) };
      if (page.hasMore && last) result.nextCursor = signCursor(this.cursorSecret, owner, last.seq);
      return result as Result;
    }
    if (method === methods.delete) {
      const { owner, rec } = await this.addressed(method, params, extra);
      const deletable = this.options.deletableStatuses ?? b.cancellation.deletableStatuses ?? plan.terminal;
      return answerDelete(this.host, rec, owner, extra, method, deletable);
    }
    if (method === methods.cancel) {
      const { rec } = await this.addressed(method, params, extra);
      return answerCancel(this.host, rec);
    }
    const to = plan.transitions.get(method);
    if (to !== undefined) {
      const { owner, rec } = await this.addressed(method, params, extra, "poll", this.limits.pollPerMinute);
      // A task already there is refused like any move the table does not allow: the request changed nothing.
      const moved = rec.status === to ? undefined : await this.move(rec.taskId, to, {}, { pendingInputs: rec.pendingInputs }, true);
      if (moved === undefined) {
        const now = await this.store.get(rec.taskId);
        const from = now?.state === "live" ? now.record.status : rec.status;
        this.audit({ type: "denied", ...requestor(owner, extra), method, taskId: rec.taskId, reason: `no transition ${from} -> ${to}` });
        throw invalidParams(`Task ${wireTaskId(rec.taskId)} cannot move from '${from}' to '${to}'`);
      }
      return toWireTask<Record<string, unknown>>(plan, moved) as Result;
    }
    if (plan.custom.includes(method)) {
      const handler = this.operations.get(method);
      if (handler === undefined) throw methodNotFound();
      const p = this.params(method, params) as Record<string, unknown>;
      const owner = this.ownerOf(extra);
      await this.rate(owner, "poll", this.limits.pollPerMinute, method);
      const answer = await handler(p, {
        owner,
        extra,
        task: async (taskId: string) => toWireTask<W>(plan, await this.lookup(taskId, owner, extra, method)),
        move: async (taskId: string, status: S) => {
          const rec = await this.lookup(taskId, owner, extra, method);
          const moved = await this.move(rec.taskId, status, {}, { pendingInputs: rec.pendingInputs }, true);
          return moved === undefined ? undefined : toWireTask<W>(plan, moved);
        },
      });
      // The answer goes out as the spec declares it or not at all: a handler's mistake is the server's failure.
      const checked = this.descriptor.validateResult?.(method, answer);
      if (checked !== undefined && !checked.success) {
        this.log({ level: "error", msg: "custom operation answered a result its declared type refuses", method, issues: checked.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "result"}: ${i.message}`) });
        throw internalError(plan);
      }
      return answer as Result;
    }
    if (method === methods.update) {
      // Only taskId and the shape are checked here: values under keys that are not
      // pending are ignored unread; pending ones are checked against what was asked.
      const field = plan.input.responsesField;
      const p = isObject(params) ? params : {};
      const taskId = p[idField];
      if (typeof taskId !== "string") throw invalidParams(`Invalid params for ${method}: ${idField}: expected a string`);
      const responses = p[field];
      if (!isObject(responses)) throw invalidParams(`Invalid params for ${method}: ${field}: expected an object`);
      const owner = this.ownerOf(extra);
      await this.rate(owner, "update", this.limits.pollPerMinute, method);
      const rec = await this.lookup(taskId, owner, extra, method);
      await answerInline(this.host, rec.taskId, responses);
      return withResultType(plan, {} as Result);
    }
    return undefined;
  }

  /**
   * The task a task method addresses by its id field: the params checked, the requestor's rate counted
   * in `bucket` where given, the task looked up as this requestor may see it.
   */
  private async addressed(method: string, params: unknown, extra: ServerExtra, bucket?: string, perMinute = 0): Promise<{ owner: string; rec: TaskRecord }> {
    const p = this.params(method, params) as Record<string, string>;
    const owner = this.ownerOf(extra);
    if (bucket !== undefined) await this.rate(owner, bucket, perMinute, method);
    return { owner, rec: await this.lookup(p[this.plan.idField]!, owner, extra, method) };
  }

  /**
   * Checks the params of a task method (-32602 on failure). The generated guard decides on the
   * hot path; the zod schema, which accepts exactly what the guard accepts, runs only on params the
   * guard rejects, for the details of the error.
   */
  private params(method: string, params: unknown): unknown {
    const guards = this.descriptor.requestGuards;
    if (Object.prototype.hasOwnProperty.call(guards, method) && guards[method]?.params(params)) return params;
    const v = this.descriptor.validateParams(method, params);
    if (!v.success) throw invalidParams(`Invalid params for ${method}: ${describeIssues(v.error)}`);
    return v.data;
  }

  private rateLimited(operation: string): TaskProtocolError {
    return this.plan.error(this.plan.behaviour.limits.rateLimitError, { operation, method: operation }, () =>
      new TaskProtocolError("rateLimited", -32010, `Rate limit exceeded: ${operation}`),
    );
  }

  /** A per-minute budget: counted in the store where it is shared (over every process), else in this process. */
  private takeRate(key: string, perMinute: number): Promise<boolean> | boolean {
    const store = this.store;
    if (store.shared === true && store.takeRate !== undefined && Number.isFinite(perMinute)) return store.takeRate(key, perMinute);
    return this.rates.take(key, perMinute);
  }

  private async rate(owner: string, bucket: string, perMinute: number, operation: string): Promise<void> {
    if (await this.takeRate(`${bucket}|${owner}`, perMinute)) return;
    this.audit({ type: "denied", owner, method: operation, reason: `${bucket} rate limit` });
    throw this.rateLimited(operation);
  }

  /**
   * Stores a new task; undefined when its requestor already has a task of that id, "limit" when it
   * has `max` unfinished tasks. A requestor-chosen id is the requestor's own: where another requestor
   * holds it, the task is stored under the id with this requestor's scope (shown without it), so that
   * the answer tells nothing of the other's task. On a shared store that counts unfinished tasks
   * (createBounded), the count covers every process; otherwise this process's own count, taken
   * before, is the only one.
   */
  private async createRecord(record: Omit<TaskRecord, "seq">, max: number, along?: (rec: TaskRecord, sql: SqlRunner) => Promise<void>): Promise<TaskRecord | undefined | "limit"> {
    const store = this.store;
    const create =
      along !== undefined && store.createAlong !== undefined
        ? (r: Omit<TaskRecord, "seq">) => store.createAlong!(r, max, along)
        : store.shared === true && store.createBounded !== undefined && Number.isFinite(max)
          ? (r: Omit<TaskRecord, "seq">) => store.createBounded!(r, max)
          : (r: Omit<TaskRecord, "seq">) => store.create(r);
    if (!this.plan.creation.idFromRequestor) return create(record);
    const scoped = scopedTaskId(record.taskId, record.owner);
    if ((await store.get(scoped)) !== undefined) return undefined;
    const made = await create(record);
    if (made) return made;
    const held = await store.get(record.taskId);
    const heldBy = held === undefined ? undefined : held.state === "live" ? held.record.owner : held.owner;
    if (heldBy === undefined || heldBy === record.owner) return undefined;
    return create({ ...record, taskId: scoped });
  }

  /**
   * Finds a task the requestor may see; another requestor's task is "not found".
   * A `then`, not an async function: every task method but the list method passes here.
   */
  private lookup(taskId: string, owner: string, extra: ServerExtra, method: string): Promise<TaskRecord> {
    return this.store.get(taskId).then(async (held) => {
      if (held?.state === "live" && held.record.owner === owner) return held.record;
      // A requestor-chosen id another requestor held first: this requestor's task is under its scope.
      const heldBy = held === undefined ? undefined : held.state === "live" ? held.record.owner : held.owner;
      const found = heldBy !== undefined && heldBy !== owner && this.plan.creation.idFromRequestor && !taskId.includes(TASK_SCOPE_MARK) ? await this.store.get(scopedTaskId(taskId, owner)) : held;
      if (found?.state === "live" && found.record.owner === owner) return found.record;
      const denied = (reason: string) => this.audit({ ...requestor(owner, extra), method, taskId, type: "denied", reason });
      if (found === undefined) {
        denied(heldBy !== undefined && heldBy !== owner ? "task of another requestor" : "unknown task id");
        throw notFoundError(this.plan);
      }
      if (found.state === "expired") {
        if (found.owner !== owner) {
          denied("task of another requestor");
          throw notFoundError(this.plan);
        }
        throw this.plan.error(this.plan.retention.expiredError, {}, () => notFoundError(this.plan));
      }
      denied("task of another requestor");
      throw notFoundError(this.plan);
    });
  }

  private audit(e: Omit<AuditEvent<S>, "at">): void {
    if (!this.auditSink) return;
    try {
      this.auditSink({ at: new Date().toISOString(), ...e });
    } catch {
      // An audit sink that throws must not break the protocol.
    }
  }

  private log(e: LogEntry): void {
    try {
      this.logSink(e);
    } catch {
      // A log sink that throws must not break the protocol.
    }
  }
}
