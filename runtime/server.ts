// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * The task runtime: one call (`install`) wires task support into an SDK
 * `Server`, `McpServer` or `Client`; `registerTools` / `handle` / `tool` turn
 * plain async functions into task-augmentable handlers. Everything about the
 * protocol comes from the descriptor: every status change is the table
 * interpreter's decision (machine.ts) on its transition table, every error
 * comes from its catalog, and every strategy
 * (creation, acknowledgement, input, results, cancellation) is chosen from
 * its declared behaviour.
 */
import { z } from "zod";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolResultSchema,
  CancelledNotificationSchema,
  ErrorCode,
  McpError,
  ListToolsRequestSchema,
  type CallToolResult,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type Result,
} from "@modelcontextprotocol/sdk/types.js";
import { withoutTaskRequest, type ServerExtra, type TaskContext, type TaskPeer } from "./task-context.js";
import { type TaskSpecDescriptor } from "./descriptor.js";
import { invalidParams, isDatabaseUnavailable, TaskProtocolError } from "./errors.js";
import { describeIssues } from "./input.js";
import { isObject, nestAt } from "./plan.js";
import { answerAsJson } from "./transports.js";
import { settleUnfinished } from "./restart.js";
import {
  type TaskServerOptions,
  type CustomOperation,
  type TaskHandler,
  type RequestWork,
  type TaskTool,
  acceptUnlistedTaskRequests,
  type RequestHandler,
  TASK_WORK,
  TASK_CONTEXTS,
  withTaskContext,
  methodNotFound,
} from "./server-api.js";
import { RuntimeDispatch } from "./server-dispatch.js";

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
export {
  NOT_SUPPORTED,
  notSupported,
  type TaskCapabilityDecl,
  type TaskServerOptions,
  type OperationContext,
  type CustomOperation,
  type TaskHandler,
  type RequestWork,
  type TaskTool,
  defineTool,
  type RunOptions,
  asRpcError,
} from "./server-api.js";

/**
 * Task support for one or more SDK servers (one per HTTP session, or one on
 * stdio) sharing one store. `S` is the spec's status type, `W` its task type
 * as the requestor sees it.
 */
export class TaskRuntime<S extends string = string, W = Record<string, unknown>> extends RuntimeDispatch<S, W> {
  /**
   * Resolves once the tasks a stopped process left unfinished are settled (at once when there is
   * nothing to settle); serve requests after it. No task is created before it resolves.
   */
  readonly ready: Promise<void>;

  constructor(descriptor: TaskSpecDescriptor<S>, options: TaskServerOptions<S> = {}) {
    super(descriptor, options);
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
    this.cancelOnNotification(server);
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
   * notifications/cancelled, where the spec cancels tasks with it: the SDK aborts the request it names while
   * that request is open; the task it made is cancelled too once the acknowledgement answered it.
   */
  private cancelOnNotification(protocol: Server | Client): void {
    if (this.plan.behaviour.cancellation.via !== "cancelled-notification") return;
    const handlers = (protocol as unknown as { _notificationHandlers?: Map<string, (n: JSONRPCNotification) => Promise<void>> })._notificationHandlers;
    if (!(handlers instanceof Map)) return;
    const sdk = handlers.get(CancelledNotificationSchema.shape.method.value);
    Protocol.prototype.setNotificationHandler.call(protocol, CancelledNotificationSchema, async (n) => {
      await sdk?.(n as unknown as JSONRPCNotification);
      const requestId = n.params.requestId;
      if (requestId !== undefined) await this.cancelRequest(requestId, protocol.transport?.sessionId);
    });
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
}
