// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * The server runtime's public types (options, tools, operations) and the helpers its parts share.
 */
import { z } from "zod";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { type CallToolResult, type JSONRPCRequest, type Result } from "@modelcontextprotocol/sdk/types.js";
import type { TaskSupport } from "./behaviour.js";
import { type ServerExtra, type TaskContext, type TaskPeer } from "./task-context.js";
import { type TaskSpecDescriptor } from "./descriptor.js";
import { TaskProtocolError } from "./errors.js";
import { type TaskLimits } from "./limits.js";
import { type AuditEvent, type LogEntry } from "./log.js";
import { isObject } from "./plan.js";
import { type StoredError, type TaskStore } from "./store.js";
import { type RetryPolicy, type TaskQueue } from "./workers.js";

/** How long a task that expired into the declared expiry state stays readable by default (ms). */
export const EXPIRED_READABLE_MS = 600_000;

/** The message of every "not implemented" answer of this runtime. */
/** An answer relayed as it came: the work that asked checks it against what it asked. */
export const anyResult = z.record(z.string(), z.unknown());

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
export function toolErrorMessage(result: Record<string, unknown>): string {
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
export function acceptUnlistedTaskRequests(server: Server): void {
  (server as unknown as { assertTaskHandlerCapability: (method: string) => void }).assertTaskHandlerCapability = () => undefined;
}

/** An SDK request handler as the SDK keeps it (request and context in, result out). */
export type RequestHandler = (request: JSONRPCRequest, extra: ServerExtra) => Promise<unknown> | unknown;

/** Handlers that already run as a task's work where asked (not wrapped a second time). */
export const TASK_WORK = new WeakSet<RequestHandler>();

/** The task context of a request context handed to a registered handler as a task's work. */
export const TASK_CONTEXTS = new WeakMap<object, TaskContext>();

/** A copy of `extra` that carries the task's context to a `handle` inside the registered handler. */
export function withTaskContext(extra: ServerExtra, ctx: TaskContext): ServerExtra {
  const inner = { ...extra };
  TASK_CONTEXTS.set(inner, ctx);
  return inner;
}

export function methodNotFound(): TaskProtocolError {
  return new TaskProtocolError("methodNotFound", -32601, "Method not found");
}

export function hasError(d: TaskSpecDescriptor<string>, name: string | undefined): name is string {
  return name !== undefined && Object.prototype.hasOwnProperty.call(d.errors, name);
}
