// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
/**
 * The core binding of a per-request lifecycle (protocol.lifecycle
 * per-request): the TaskRuntime served over stateless Streamable HTTP on
 * @modelcontextprotocol/server 2.x.
 *
 * The SDK provides the core layer: server/discover, the per-request `_meta`
 * envelope (protocolVersion, clientCapabilities), header validation
 * (Mcp-Method, Mcp-Name → -32020 with HTTP 400), protocol versions (-32022),
 * HTTP 404 with -32601 for methods nobody serves, and input_required results
 * (multi round-trip requests). Served here, because no SDK provides it: the
 * task methods and task creation on top (the runtime), input asked before a
 * task exists (TaskContext.elicit / sample on the request) as input_required
 * rounds whose earlier answers travel in an HMAC-protected requestState, and,
 * when the spec delivers task status by subscription, the status notifications
 * on the declared subscribe method's streams.
 *
 * Every spec value (protocol version, task methods, capabilities, the
 * subscription's methods and field) is read from the runtime's plan.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { z } from "zod";
import {
  Server as CoreServer,
  createMcpHandler,
  inputRequired,
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  type ServerEvent,
  type AuthInfo as CoreAuthInfo,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { TaskProtocolError, invalidParams } from "./errors.js";
import { listen } from "./http-listen.js";
import { isObject, type RuntimePlan } from "./plan.js";
import type { LogEntry } from "./log.js";
import type { ServerExtra, TaskRuntime } from "./server.js";
import type { TaskRecord } from "./store.js";

/** The plan members these functions read (any runtime's plan, whatever its status and task types). */
export interface StatelessPlan {
  readonly descriptor: { readonly spec: { readonly id: string; readonly protocol: { readonly protocolVersion?: string } } };
  readonly clientRequests: readonly string[];
  readonly serverCapability: Record<string, unknown> | undefined;
}

/** The core protocol version every request must carry (the spec's `protocol.protocolVersion`). */
export function protocolVersionOf(plan: StatelessPlan): string {
  const version = plan.descriptor.spec.protocol.protocolVersion;
  if (version === undefined || version === "") {
    throw new Error(`mcp-task-gen: spec ${plan.descriptor.spec.id} declares no protocol.protocolVersion; the stateless binding needs one`);
  }
  return version;
}

/** The task methods a requestor sends, registered one by one on each per-request SDK server. */
export function taskRequestMethods(plan: StatelessPlan): readonly string[] {
  return plan.clientRequests;
}

/** The server capabilities advertised by server/discover: tools, plus the declared task capability. */
export function serverCapabilities(plan: StatelessPlan): Record<string, unknown> {
  return { tools: {}, ...(plan.serverCapability ?? {}) };
}

export interface StatelessServerOptions {
  /** name and version, advertised by server/discover and on every result. */
  serverInfo?: { name: string; version: string };
  instructions?: string;
  /**
   * Authenticates an HTTP request (e.g. from its Authorization header); tasks
   * are bound to the result as the spec's session binding declares. Default:
   * anonymous. Throw to refuse the request (it is answered HTTP 401).
   */
  authenticate?: (request: Request) => CoreAuthInfo | undefined | Promise<CoreAuthInfo | undefined>;
  /** The HMAC key protecting the requestState of input_required rounds (default: 32 random bytes per process). */
  requestStateSecret?: string | Uint8Array;
  /** Adds to each per-request SDK server (resources, prompts, ...) before it serves. */
  setup?: (server: CoreServer) => void;
  /** Out-of-band errors and rejected requests (reporting only). */
  onerror?: (error: Error) => void;
  /**
   * How often (ms) a subscription stream looks for changes of its tasks in the
   * store, for specs that deliver task status by subscription. Default 100.
   */
  subscriptionPollMs?: number;
}

// ---------------------------------------------------------------------------
// Input asked before a task exists: input_required rounds
// ---------------------------------------------------------------------------

/** Thrown through the handler when it asked for input the request does not carry yet. */
class InputNeeded extends Error {
  constructor() {
    super("input required");
    this.name = "InputNeeded";
  }
}

/**
 * One round of a request whose handler asks for input: the n-th question gets
 * the key `input-<n>` in every round, so a retried request finds its answers
 * under the keys it was asked with. Answers of earlier rounds come back in the
 * requestState, signed with HMAC-SHA256 over the requestor, the method and the
 * name, so a client cannot forge or move them.
 */
class InputRound {
  private seq = 0;
  private readonly asked: Record<string, { method: string; params: Record<string, unknown> }> = {};
  readonly answers: Record<string, unknown>;

  constructor(
    private readonly secret: string | Uint8Array,
    private readonly scope: string,
    earlier: Record<string, unknown>,
    responses: Record<string, unknown> | undefined,
  ) {
    this.answers = { ...earlier, ...(responses ?? {}) };
  }

  /** The answer to the next question, or a rejection that ends the round. */
  ask(request: { method: string; params?: Record<string, unknown> }, schema: z.ZodType): Promise<unknown> {
    const key = `input-${++this.seq}`;
    if (Object.prototype.hasOwnProperty.call(this.answers, key)) {
      const parsed = schema.safeParse(this.answers[key]);
      if (!parsed.success) {
        return Promise.reject(invalidParams(`Invalid params: inputResponses.${key}: ${parsed.error.issues.map((i) => i.message).join("; ")}`));
      }
      return Promise.resolve(parsed.data);
    }
    this.asked[key] = { method: request.method, params: request.params ?? {} };
    return Promise.reject(new InputNeeded());
  }

  get pending(): boolean {
    return Object.keys(this.asked).length > 0;
  }

  /** The input_required result of this round. */
  result(): Record<string, unknown> {
    const known = Object.keys(this.answers).filter((k) => /^input-\d+$/.test(k));
    const state = known.length ? signState(this.secret, this.scope, Object.fromEntries(known.map((k) => [k, this.answers[k]]))) : undefined;
    return inputRequired({ inputRequests: this.asked as never, ...(state === undefined ? {} : { requestState: state }) }) as unknown as Record<string, unknown>;
  }
}

function mac(secret: string | Uint8Array, scope: string, payload: string): Buffer {
  return createHmac("sha256", secret).update(scope).update("\n").update(payload).digest();
}

/** Answers of earlier rounds as an opaque, integrity-protected requestState. */
export function signState(secret: string | Uint8Array, scope: string, answers: Record<string, unknown>): string {
  const payload = Buffer.from(JSON.stringify({ v: 1, a: answers })).toString("base64url");
  return `${payload}.${mac(secret, scope, payload).toString("base64url")}`;
}

/** The answers in a requestState issued by this server for this scope, or undefined when it was not. */
export function verifyState(secret: string | Uint8Array, scope: string, state: string): Record<string, unknown> | undefined {
  const dot = state.indexOf(".");
  if (dot <= 0 || state.length > 1_000_000) return undefined;
  const payload = state.slice(0, dot);
  const given = Buffer.from(state.slice(dot + 1), "base64url");
  const expected = mac(secret, scope, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { a?: unknown };
    return isObject(v.a) ? v.a : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------
// The SDK server per request
// ---------------------------------------------------------------------------

type Handler = (extra: ServerExtra) => Promise<unknown>;

/** The request's params as the runtime reads them: `_meta` with the envelope keys the SDK lifted out. */
function withEnvelope(params: unknown, ctx: ServerContext): Record<string, unknown> {
  const p = isObject(params) ? { ...params } : {};
  p._meta = { ...(isObject(p._meta) ? p._meta : {}), ...(ctx.mcpReq._meta ?? {}), ...(ctx.mcpReq.envelope ?? {}) };
  return p;
}

function headersOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

/**
 * Serves the runtime's tools and task methods, one SDK server per HTTP request
 * (`createMcpHandler`). The returned handler is web-standard (`fetch`); see
 * {@link serveStatelessHttp} for node:http.
 */
export function createStatelessHandler<S extends string, W>(runtime: TaskRuntime<S, W>, options: StatelessServerOptions = {}): McpHttpHandler {
  const inner = createMcpHandler(statelessServerFactory(runtime, options), {
    legacy: "reject",
    ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
  });
  const subscription = runtime.plan.statusSubscription;
  if (subscription === undefined) return inner;
  const pollMs = options.subscriptionPollMs ?? 100;
  // Subscribe requests that ask for task ids are served here (the SDK knows no task filter).
  const fetch = async (request: Request, opts: McpHandlerRequestOptions = {}): Promise<Response> => {
    if (request.method === "POST") {
      const body = opts.parsedBody !== undefined ? opts.parsedBody : await request.clone().json().catch(() => undefined);
      const taskIds = subscribedTaskIds(subscription, body);
      if (taskIds !== undefined) {
        return serveTaskSubscription(runtime, subscription, inner, request, body as Record<string, unknown>, taskIds, opts.authInfo, pollMs);
      }
    }
    return inner.fetch(request, opts);
  };
  return { fetch, close: inner.close, notify: inner.notify, bus: inner.bus };
}

/** Runs a handler with an SDK-1-shaped request context the runtime understands. */
async function serveWith<S extends string, W>(runtime: TaskRuntime<S, W>, secret: string | Uint8Array, ctx: ServerContext, method: string, name: string, fn: Handler): Promise<unknown> {
  // The request's own signal ends with the HTTP exchange; a task outlives it,
  // so the runtime gets a signal linked only while the handler runs.
  const link = new AbortController();
  const onAbort = () => link.abort(ctx.mcpReq.signal.reason);
  if (ctx.mcpReq.signal.aborted) onAbort();
  else ctx.mcpReq.signal.addEventListener("abort", onAbort, { once: true });
  const authInfo = ctx.http?.authInfo;
  const scope = `${runtime.ownerOf({ authInfo } as unknown as ServerExtra)}|${method}|${name}`;
  const rawState = ctx.mcpReq.requestState();
  let earlier: Record<string, unknown> = {};
  if (typeof rawState === "string") {
    const verified = verifyState(secret, scope, rawState);
    if (verified === undefined) throw invalidParams("Invalid or expired requestState");
    earlier = verified;
  }
  const round = new InputRound(secret, scope, earlier, ctx.mcpReq.inputResponses);
  const extra = {
    signal: link.signal,
    requestId: ctx.mcpReq.id,
    sessionId: undefined,
    authInfo,
    _meta: { ...(ctx.mcpReq._meta ?? {}), ...(ctx.mcpReq.envelope ?? {}) },
    // Headers only over HTTP: the runtime checks the declared task-id header there.
    requestInfo: ctx.http?.req === undefined ? undefined : { headers: headersOf(ctx.http.req) },
    sendNotification: (notification: { method: string; params?: Record<string, unknown> }) =>
      ctx.mcpReq.notify(notification as never).catch(() => undefined),
    sendRequest: (request: { method: string; params?: Record<string, unknown> }, schema: z.ZodType) => round.ask(request, schema),
  } as unknown as ServerExtra;
  try {
    return await fn(extra);
  } catch (e) {
    if (round.pending) return round.result();
    throw e;
  } finally {
    ctx.mcpReq.signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The factory of per-request SDK servers serving the runtime: for
 * `createMcpHandler` (see {@link createStatelessHandler}) or `serveStdio`
 * (`@modelcontextprotocol/server/stdio`).
 */
export function statelessServerFactory<S extends string, W>(runtime: TaskRuntime<S, W>, options: StatelessServerOptions = {}): () => CoreServer {
  const plan = runtime.plan;
  // Read once: a spec without a protocol version cannot be served per request.
  protocolVersionOf(plan);
  const capabilities = serverCapabilities(plan);
  const methods = taskRequestMethods(plan);
  const responsesField = plan.input.responsesField;
  const secret = options.requestStateSecret ?? randomBytes(32);
  const serverInfo = options.serverInfo ?? { name: "mcp-task-gen", version: "0.0.0" };
  const serve = (ctx: ServerContext, method: string, name: string, fn: Handler) => serveWith(runtime, secret, ctx, method, name, fn);
  return () => {
    const server = new CoreServer(serverInfo, {
      capabilities: capabilities as never,
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    });
    server.setRequestHandler("tools/list", async () => runtime.listTools() as never);
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const params = withEnvelope(request.params, ctx);
      return (await serve(ctx, "tools/call", String(params.name ?? ""), (extra) => runtime.callTool(params, extra))) as never;
    });
    for (const method of methods) {
      // Custom schemas that accept anything: the runtime checks the capability
      // before it looks at params (a requestor without it learns nothing).
      server.setRequestHandler(method, { params: z.looseObject({}) }, async (raw, ctx) => {
        const params = withEnvelope(raw, ctx);
        // The SDK lifts inputResponses out of every request; the update method wants them back.
        if (ctx.mcpReq.inputResponses !== undefined && params[responsesField] === undefined) {
          params[responsesField] = ctx.mcpReq.inputResponses;
        }
        return (await serve(ctx, method, String(params.taskId ?? ""), async (extra) => {
          const answer = await runtime.handleTaskRequest(method, params, extra);
          if (answer === undefined) throw new TaskProtocolError("methodNotFound", -32601, "Method not found");
          return answer;
        })) as never;
      });
    }
    options.setup?.(server);
    return server;
  };
}

// ---------------------------------------------------------------------------
// Task status by subscription: streams of the declared subscribe method
// ---------------------------------------------------------------------------

type Subscription = NonNullable<RuntimePlan["statusSubscription"]>;

/** The core notification that acknowledges a subscribe request, naming the filters it honours. */
const ACKNOWLEDGED = "notifications/subscriptions/acknowledged";

/** The task ids a subscribe request asks for (at the declared field), or undefined when it asks for none. */
function subscribedTaskIds(subscription: Subscription, body: unknown): string[] | undefined {
  if (!isObject(body) || body.method !== subscription.subscribeMethod || subscription.subscribePath.length === 0) return undefined;
  let v: unknown = body.params;
  for (const k of subscription.subscribePath) v = isObject(v) ? v[k] : undefined;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;
}

/** Sets `value` at `path` inside `target`, creating the objects on the way. */
function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let o = target;
  for (const k of path.slice(0, -1)) {
    if (!isObject(o[k])) o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  o[path[path.length - 1]!] = value;
}

function jsonRpcError(status: number, id: unknown, error: { code: number; message: string; data?: unknown }): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * A subscribe request that asks for task ids: an SSE stream that acknowledges
 * first (naming the task ids it accepted: those the requestor may see), then
 * sends the declared status notification with the task as the get method would
 * answer it whenever a subscribed task changes, each with the subscription id
 * (the subscribe request's id). Other filters of the same request (list
 * changes) are served from the handler's event bus. The SDK serves subscribe
 * requests that ask for no task ids.
 */
async function serveTaskSubscription<S extends string, W>(
  runtime: TaskRuntime<S, W>,
  subscription: Subscription,
  handler: McpHttpHandler,
  request: Request,
  body: Record<string, unknown>,
  taskIds: string[],
  authInfo: CoreAuthInfo | undefined,
  pollMs: number,
): Promise<Response> {
  const plan = runtime.plan;
  const protocolVersion = protocolVersionOf(plan);
  const capabilities = serverCapabilities(plan);
  const id = body.id;
  const params = isObject(body.params) ? body.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  if (request.headers.get("mcp-method") !== body.method) {
    return jsonRpcError(400, id, { code: -32020, message: "Bad Request: the Mcp-Method header does not match the body" });
  }
  const version = meta[PROTOCOL_VERSION_META_KEY];
  if (version !== protocolVersion || request.headers.get("mcp-protocol-version") !== protocolVersion) {
    return jsonRpcError(400, id, { code: -32022, message: "Unsupported protocol version", data: { supported: [protocolVersion], requested: version ?? null } });
  }
  if (!isObject(meta[CLIENT_CAPABILITIES_META_KEY])) {
    return jsonRpcError(400, id, { code: -32602, message: "Invalid params: _meta needs the client capabilities" });
  }
  if (!runtime.declaresClientCapability(params)) {
    const missing =
      plan.missingCapability(plan.gateErrorName, { method: subscription.subscribeMethod }) ??
      new TaskProtocolError("missingRequiredClientCapability", -32021, "Missing required client capability", { requiredCapabilities: plan.clientCapability ?? {} });
    return jsonRpcError(missing.httpStatus ?? 400, id, missing.toJSON());
  }
  const extra = { authInfo, sessionId: undefined, requestId: typeof id === "number" || typeof id === "string" ? id : 0 } as unknown as ServerExtra;
  const owner = runtime.ownerOf(extra);
  const accepted: string[] = [];
  for (const taskId of taskIds) {
    const found = await runtime.store.get(taskId);
    if (found?.state === "live" && found.record.owner === owner) accepted.push(taskId);
  }
  const filter = isObject(params.notifications) ? params.notifications : {};
  const lists: Record<string, string> = {
    toolsListChanged: "tools_list_changed",
    promptsListChanged: "prompts_list_changed",
    resourcesListChanged: "resources_list_changed",
  };
  const wantedLists = Object.keys(lists).filter((k) => filter[k] === true && (k === "toolsListChanged" || k in capabilities));
  const ack: Record<string, unknown> = {};
  setAt(ack, subscription.subscribePath, accepted);
  if (wantedLists.length > 0) {
    if (!isObject(ack.notifications)) ack.notifications = {};
    for (const k of wantedLists) (ack.notifications as Record<string, unknown>)[k] = true;
  }
  const toTask = (rec: TaskRecord) =>
    (subscription.detailed ? runtime.toDetailedTask(rec) : runtime.toWireTask(rec)) as unknown as Record<string, unknown>;
  const encoder = new TextEncoder();
  let stop = () => undefined as void;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const send = (method: string, p: Record<string, unknown>) => {
        if (closed) return;
        const message = { jsonrpc: "2.0", method, params: { ...p, _meta: { ...(isObject(p._meta) ? p._meta : {}), [SUBSCRIPTION_ID_META_KEY]: id } } };
        controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
      };
      send(ACKNOWLEDGED, ack);
      const seen = new Map<string, string>();
      const look = async () => {
        for (const taskId of accepted) {
          const found = await runtime.store.get(taskId);
          if (found?.state !== "live") continue;
          const version = `${found.record.status}|${found.record.updatedAt}|${JSON.stringify(found.record.inputRequests ?? {})}`;
          if (seen.get(taskId) === version) continue;
          seen.set(taskId, version);
          send(subscription.method, toTask(found.record));
        }
      };
      let timer: ReturnType<typeof setTimeout> | undefined;
      const loop = () => {
        timer = setTimeout(() => {
          void look()
            .catch(() => undefined)
            .finally(() => {
              if (!closed) loop();
            });
        }, pollMs);
      };
      void look()
        .catch(() => undefined)
        .finally(() => {
          if (!closed) loop();
        });
      const unsubscribe = handler.bus.subscribe((event: ServerEvent) => {
        const key = Object.keys(lists).find((k) => lists[k] === event.kind);
        if (key && wantedLists.includes(key)) send(`notifications/${event.kind.replace("_list_changed", "")}/list_changed`, {});
      });
      stop = () => {
        if (closed) return;
        closed = true;
        if (timer) clearTimeout(timer);
        unsubscribe();
      };
    },
    cancel() {
      stop();
    },
  });
  request.signal.addEventListener("abort", () => stop(), { once: true });
  return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

// ---------------------------------------------------------------------------
// node:http
// ---------------------------------------------------------------------------

export interface StatelessHttpOptions extends StatelessServerOptions {
  port?: number;
  host?: string;
  /** The endpoint path (default /mcp). */
  path?: string;
  /** Largest request body (bytes). Default 4 MiB. */
  maxBodyBytes?: number;
  log?: (entry: LogEntry) => void;
}

/** What {@link serveStatelessHttp} resolves to. */
export interface StatelessHttpServer {
  server: HttpServer;
  url: string;
  handler: McpHttpHandler;
  close: () => Promise<void>;
}

/**
 * Serves the runtime at http://host:port/path over stateless Streamable HTTP
 * (one POST per request, no session). Resolves once listening.
 */
export async function serveStatelessHttp<S extends string, W>(runtime: TaskRuntime<S, W>, options: StatelessHttpOptions = {}): Promise<StatelessHttpServer> {
  const path = options.path ?? "/mcp";
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const log = options.log ?? ((e: LogEntry) => process.stderr.write(JSON.stringify(e) + "\n"));
  const handler = createStatelessHandler(runtime, options);
  const plain = (res: ServerResponse, status: number, code: number, message: string) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== path) return void plain(res, 404, -32601, "Not found");
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBody) return void plain(res, 413, -32600, "Request body too large");
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
    }
    const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? path}`, {
      method: req.method ?? "GET",
      headers,
      signal: abort.signal,
      ...(req.method === "GET" || req.method === "HEAD" ? {} : { body }),
    });
    let authInfo: CoreAuthInfo | undefined;
    try {
      authInfo = await options.authenticate?.(request);
    } catch (e) {
      log({ level: "warn", msg: "request not authenticated", error: String(e) });
      return void plain(res, 401, -32001, "Unauthorized");
    }
    const response = await handler.fetch(request, authInfo === undefined ? {} : { authInfo });
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      out[name] = value;
    });
    res.writeHead(response.status, out);
    if (response.body === null) return void res.end();
    const reader = response.body.getReader();
    res.on("close", () => void reader.cancel().catch(() => undefined));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  };

  const http = createHttpServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log({ level: "error", msg: "HTTP request failed", error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      if (!res.headersSent) plain(res, 500, -32603, "Internal error");
      else res.end();
    });
  });
  const listening = await listen(http, options, path);
  return {
    server: http,
    url: listening.url,
    handler,
    close: async () => {
      await handler.close().catch(() => undefined);
      await listening.close();
    },
  };
}
