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
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  type ServerEvent,
  type AuthInfo as CoreAuthInfo,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
  type ServerContext,
  type Transport,
} from "@modelcontextprotocol/server";
// Imported as the package's main entry is, so that both resolve to the same declarations in an ES module and in
// a CommonJS one (a dynamic import resolves to the ESM ones even from CommonJS, whose types then do not match).
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { TaskProtocolError, invalidParams } from "./errors.js";
import { acceptsStreamableHttp, DEFAULT_MAX_BODY_BYTES, listen, NOT_ACCEPTABLE, readBody, type HttpLimits } from "./http-listen.js";
import { isObject, type RuntimePlan } from "./plan.js";
import { checkTaskIdHeader } from "./wire.js";
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
  const b = runtime.plan.behaviour;
  if (subscription === undefined && runtime.plan.methods.update === undefined && b.http === false && b.unsupportedMethods === undefined) return inner;
  const pollMs = options.subscriptionPollMs ?? 100;
  // The open task subscription streams, each ended with its closing response when the handler closes.
  const open = new Set<() => void>();
  const streams: SubscriptionStreams = { open, pollMs, serverInfo: options.serverInfo };
  // Served here, before the SDK sees them: the spec's unsupported methods and task id header, malformed
  // update answers, and subscribe requests that ask for task ids (the SDK knows no task filter).
  const fetch = async (request: Request, opts: McpHandlerRequestOptions = {}): Promise<Response> => {
    if (request.method === "POST") {
      const body = opts.parsedBody !== undefined ? opts.parsedBody : await request.clone().json().catch(() => undefined);
      const refused = checkUnsupportedMethod(runtime.plan, body) ?? checkTaskIdRouting(runtime.plan, body, headersOf(request));
      if (refused !== undefined) return jsonRpcError(refused.status, refused.id, refused.error);
      const bad = checkInputResponses(runtime.plan, body);
      if (bad !== undefined) return jsonRpcError(200, bad.id, { code: bad.code, message: bad.message });
      const taskIds = subscription === undefined ? undefined : subscribedTaskIds(subscription, body);
      if (taskIds !== undefined && subscription !== undefined) {
        return serveTaskSubscription(runtime, subscription, inner, request, body as Record<string, unknown>, taskIds, opts.authInfo, streams);
      }
    }
    return inner.fetch(request, opts);
  };
  const close = async (): Promise<void> => {
    for (const end of [...open]) end();
    await inner.close();
  };
  return { fetch, close, notify: inner.notify, bus: inner.bus };
}

/** A request refused before dispatch: its id, the HTTP status and the JSON-RPC error. */
export interface Refusal {
  id: string | number | null;
  status: number;
  error: { code: number; message: string; data?: unknown };
}

const idOf = (message: Record<string, unknown>) => (typeof message.id === "string" || typeof message.id === "number" ? message.id : null);

/** A well-formed JSON-RPC request (anything else is left to the transport's and the SDK's own answers). */
function isRequest(message: unknown): message is Record<string, unknown> & { method: string; id: string | number } {
  return (
    isObject(message) &&
    message.jsonrpc === "2.0" &&
    typeof message.method === "string" &&
    (typeof message.id === "string" || Number.isSafeInteger(message.id)) &&
    (message.params === undefined || isObject(message.params)) &&
    Object.keys(message).every((k) => REQUEST_KEYS.has(k))
  );
}
const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * The declared error for a request of a method the spec lists as unsupported (behaviour.unsupportedMethods),
 * with its HTTP status (404 unless it declares another). Such methods have no handler, so without this the
 * SDK would answer its own error instead of the spec's. Undefined for anything else (notifications and
 * malformed messages included).
 */
export function checkUnsupportedMethod(plan: RuntimePlan<string>, message: unknown): Refusal | undefined {
  const unsupported = plan.behaviour.unsupportedMethods;
  if (unsupported === undefined || !isRequest(message)) return undefined;
  if (!unsupported.methods.includes(message.method)) return undefined;
  const e = plan.error(unsupported.error, {}, () => new TaskProtocolError("methodNotFound", -32601, "Method not found"));
  return { id: idOf(message), status: e.httpStatus ?? 404, error: e.toJSON() };
}

/**
 * The protocol version a request's `_meta` names, checked as the SDK's HTTP entry checks it: a request
 * that names none, or one this spec does not speak, is refused (-32022, as over HTTP). Over stdio the
 * SDK's entry does not check it; undefined for a valid request and for anything that is no request.
 */
export function checkProtocolVersion(plan: RuntimePlan<string>, message: unknown): Refusal | undefined {
  if (!isRequest(message)) return undefined;
  const supported = plan.descriptor.spec.protocol.protocolVersion;
  if (supported === undefined) return undefined;
  const meta = isObject(message.params) && isObject(message.params._meta) ? message.params._meta : {};
  const version = meta[PROTOCOL_VERSION_META_KEY];
  if (version === supported) return undefined;
  const message_ = typeof version === "string" && version !== "" ? `Unsupported protocol version: ${version}` : "Unsupported protocol version: the request did not name a protocol version";
  return { id: idOf(message), status: 400, error: { code: -32022, message: message_, data: { supported: [supported], ...(version === undefined ? {} : { requested: version }) } } };
}

/**
 * The declared mismatch error for a task method the spec routes by header whose header does not repeat
 * its task id, with the error's HTTP status (400 unless it declares another). Checked before dispatch,
 * as the SDK checks the headers of the methods it knows: an error a handler throws stays on HTTP 200.
 * Undefined for anything else.
 */
export function checkTaskIdRouting(plan: RuntimePlan<string>, message: unknown, headers: Record<string, string>): Refusal | undefined {
  const http = plan.behaviour.http;
  if (http === false || !isRequest(message) || !http.methods.includes(message.method)) return undefined;
  try {
    checkTaskIdHeader(plan, { requestInfo: { headers } }, message.params);
  } catch (e) {
    if (!(e instanceof TaskProtocolError)) throw e;
    return { id: idOf(message), status: e.httpStatus ?? 400, error: e.toJSON() };
  }
  return undefined;
}

/**
 * -32602 for a request of the update method whose responses are no map of bare result objects. The
 * SDK lifts the responses out of every request and keeps only such entries: a malformed answer would
 * otherwise reach the update method as no answer at all. Undefined for anything else.
 */
export function checkInputResponses(plan: RuntimePlan<string>, message: unknown): { id: string | number | null; code: number; message: string } | undefined {
  const update = plan.methods.update;
  if (update === undefined || !isObject(message) || message.method !== update || !isObject(message.params)) return undefined;
  const field = plan.input.responsesField;
  const responses = message.params[field];
  const id = typeof message.id === "string" || typeof message.id === "number" ? message.id : null;
  if (responses === undefined) return { id, code: -32602, message: `Invalid params for ${update}: ${field}: required` };
  if (!isObject(responses)) return { id, code: -32602, message: `Invalid params for ${update}: ${field}: expected an object` };
  for (const key of Object.keys(responses)) {
    const entry = responses[key];
    if (!isObject(entry) || "method" in entry || "result" in entry) {
      return { id, code: -32602, message: `Invalid params for ${update}: ${field}.${key}: expected the bare result object of the input request` };
    }
  }
  return undefined;
}

/** Runs a handler with an SDK-1-shaped request context the runtime understands. */
async function serveWith<S extends string, W>(runtime: TaskRuntime<S, W>, secret: string | Uint8Array, ctx: ServerContext, method: string, name: string, fn: Handler): Promise<unknown> {
  // The request's own signal ends with the HTTP exchange; a task outlives it,
  // so the runtime gets a signal linked only while the handler runs.
  const link = new AbortController();
  // No closure here refers to ctx itself: a task keeps its extra, and ctx holds the request's
  // SDK server and HTTP request (most of a working task's memory if kept).
  let requestSignal: AbortSignal | undefined = ctx.mcpReq.signal;
  const onAbort = () => link.abort(requestSignal?.reason);
  if (requestSignal.aborted) onAbort();
  else requestSignal.addEventListener("abort", onAbort, { once: true });
  // Notifications go on the request's stream while it is open; after the answer there is none.
  let notify: ServerContext["mcpReq"]["notify"] | undefined = ctx.mcpReq.notify.bind(ctx.mcpReq);
  const authInfo = ctx.http?.authInfo;
  const scope = () => `${runtime.ownerOf({ authInfo } as unknown as ServerExtra)}|${method}|${name}`;
  const rawState = ctx.mcpReq.requestState();
  let earlier: Record<string, unknown> = {};
  if (typeof rawState === "string") {
    const verified = verifyState(secret, scope(), rawState);
    if (verified === undefined) throw invalidParams("Invalid or expired requestState");
    earlier = verified;
  }
  const responses = ctx.mcpReq.inputResponses;
  // Made when the handler first asks for input: most requests never do, and a task keeps its extra.
  let round: InputRound | undefined;
  const extra = {
    signal: link.signal,
    requestId: ctx.mcpReq.id,
    sessionId: undefined,
    authInfo,
    _meta: { ...(ctx.mcpReq._meta ?? {}), ...(ctx.mcpReq.envelope ?? {}) },
    // Headers only over HTTP: the runtime checks the declared task-id header there.
    requestInfo: ctx.http?.req === undefined ? undefined : { headers: headersOf(ctx.http.req) },
    sendNotification: (notification: { method: string; params?: Record<string, unknown> }) =>
      notify === undefined ? Promise.resolve() : notify(notification as never).catch(() => undefined),
    sendRequest: (request: { method: string; params?: Record<string, unknown> }, schema: z.ZodType) =>
      (round ??= new InputRound(secret, scope(), earlier, responses)).ask(request, schema),
  } as unknown as ServerExtra;
  try {
    return await fn(extra);
  } catch (e) {
    if (round?.pending) return round.result();
    throw e;
  } finally {
    requestSignal.removeEventListener("abort", onAbort);
    requestSignal = undefined;
    notify = undefined;
    // Once answered, nothing goes out on the request: a task keeps its extra, and with these shared
    // functions no closure over this request (its input round, scope and secret) any more.
    Object.assign(extra, ANSWERED);
  }
}

/** What a request's extra sends and asks once the request is answered: nothing. */
const ANSWERED = {
  sendNotification: () => Promise.resolve(),
  sendRequest: () => Promise.reject(new Error("The request was answered: nothing can be asked on it any more")),
};

/**
 * The factory of per-request SDK servers serving the runtime: for
 * `createMcpHandler` (see {@link createStatelessHandler}) or `serveStdio`
 * (`@modelcontextprotocol/server/stdio`).
 */
export function statelessServerFactory<S extends string, W>(runtime: TaskRuntime<S, W>, options: StatelessServerOptions = {}): () => CoreServer {
  const plan = runtime.plan;
  runtime.assertServed();
  // Read once: a spec without a protocol version cannot be served per request.
  protocolVersionOf(plan);
  // Resources and prompts are declared where the runtime was given handlers for them.
  const added = [...runtime.requestHandlers().keys()];
  const capabilities = {
    ...serverCapabilities(plan),
    ...(added.some((m) => m.startsWith("resources/")) ? { resources: {} } : {}),
    ...(added.some((m) => m.startsWith("prompts/")) ? { prompts: {} } : {}),
  };
  const methods = taskRequestMethods(plan);
  const responsesField = plan.input.responsesField;
  const secret = options.requestStateSecret ?? randomBytes(32);
  const serverInfo = options.serverInfo ?? { name: "mcp-task-gen", version: "0.0.0" };
  const serve = (ctx: ServerContext, method: string, name: string, fn: Handler) => serveWith(runtime, secret, ctx, method, name, fn);
  // One schema for every per-request server: a schema made per request and method is garbage on every request.
  const anyParams = { params: z.looseObject({}) };
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
    for (const method of added) {
      // What names the request in its input round's scope: the resource or the prompt.
      server.setRequestHandler(method as "resources/read", async (request, ctx) => {
        const params = withEnvelope(request.params, ctx);
        const name = String(params.uri ?? params.name ?? "");
        return (await serve(ctx, method, name, (extra) => runtime.callRequest(method, params, extra))) as never;
      });
    }
    for (const method of methods) {
      // Custom schemas that accept anything: the runtime checks the capability
      // before it looks at params (a requestor without it learns nothing).
      server.setRequestHandler(method, anyParams, async (raw, ctx) => {
        const params = withEnvelope(raw, ctx);
        // The SDK lifts inputResponses out of every request; the update method wants them back.
        if (ctx.mcpReq.inputResponses !== undefined && params[responsesField] === undefined) {
          params[responsesField] = ctx.mcpReq.inputResponses;
        }
        return (await serve(ctx, method, String(params[runtime.plan.idField] ?? ""), async (extra) => {
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

/**
 * Serves the runtime over stdio (`serveStdio` of @modelcontextprotocol/server) on the runtime's
 * stdio transport, which answers malformed lines (-32700, -32600) where the SDK's drops them, and
 * refuses a missing or unsupported protocol version, malformed update answers and the spec's
 * unsupported methods as over HTTP ({@link checkProtocolVersion}, {@link checkInputResponses},
 * {@link checkUnsupportedMethod}).
 */
export async function serveStatelessStdio<S extends string, W>(
  runtime: TaskRuntime<S, W>,
  options: StatelessServerOptions & { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream; maxLineBytes?: number } = {},
): Promise<{ close(): Promise<void> }> {
  const { TaskStdioServerTransport } = await import("./transports.js");
  const transport = new TaskStdioServerTransport(options.stdin, options.stdout, {
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    check: (message) => {
      const refused = checkProtocolVersion(runtime.plan, message) ?? checkUnsupportedMethod(runtime.plan, message);
      return refused === undefined ? checkInputResponses(runtime.plan, message) : { id: refused.id, ...refused.error };
    },
  });
  // Task subscriptions are served in front of the SDK's entry, which knows no task filter.
  const subscription = runtime.plan.statusSubscription;
  const wire = subscription === undefined ? transport : new TaskSubscriptionTransport(runtime, subscription, transport as never, options.subscriptionPollMs ?? 100, options.serverInfo);
  return serveStdio(statelessServerFactory(runtime, options), {
    transport: wire as never,
    ...(options.onerror === undefined ? {} : { onerror: options.onerror }),
  });
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

/**
 * The response that ends a subscribe request the server will not serve any longer (it stops): the
 * request's own result, complete, naming the subscription (and the server) in `_meta`; the requestor
 * knows the stream ended by the server's decision and may subscribe again.
 */
function closingResponse(plan: RuntimePlan, id: unknown, serverInfo: { name: string; version: string } | undefined): Record<string, unknown> {
  const rt = plan.behaviour.resultType;
  return {
    jsonrpc: "2.0",
    id,
    result: {
      ...(rt === false ? {} : { [rt.field]: rt.complete }),
      _meta: { [SUBSCRIPTION_ID_META_KEY]: id, ...(serverInfo === undefined ? {} : { [SERVER_INFO_META_KEY]: serverInfo }) },
    },
  };
}

/**
 * Sends the declared status notification (the task as the get method answers it) whenever one of
 * `taskIds` changes in the store, looking every `pollMs`; the first look sends each task's current
 * state. Returns the function that stops it.
 */
function watchTasks<S extends string, W>(
  runtime: TaskRuntime<S, W>,
  subscription: Subscription,
  taskIds: readonly string[],
  send: (method: string, params: Record<string, unknown>) => void,
  pollMs: number,
): () => void {
  const toTask = (rec: TaskRecord) =>
    (subscription.detailed ? runtime.toDetailedTask(rec) : runtime.toWireTask(rec)) as unknown as Record<string, unknown>;
  let stopped = false;
  const seen = new Map<string, string>();
  const look = async () => {
    for (const taskId of taskIds) {
      const found = await runtime.store.get(taskId);
      if (stopped || found?.state !== "live") continue;
      const version = `${found.record.status}|${found.record.updatedAt}|${JSON.stringify(found.record.inputRequests ?? {})}`;
      if (seen.get(taskId) === version) continue;
      seen.set(taskId, version);
      send(subscription.method, toTask(found.record));
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const again = () => {
    if (!stopped) timer = setTimeout(() => void look().catch(() => undefined).finally(again), pollMs);
  };
  void look()
    .catch(() => undefined)
    .finally(again);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

/** What serves task subscription streams: the open ones (their closers), the store's poll interval, the server's identity. */
interface SubscriptionStreams {
  open: Set<() => void>;
  pollMs: number;
  serverInfo: { name: string; version: string } | undefined;
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
  streams: SubscriptionStreams,
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
  const encoder = new TextEncoder();
  let stop = (_graceful: boolean) => undefined as void;
  const end = () => stop(true);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const frame = (message: unknown) => controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
      const send = (method: string, p: Record<string, unknown>) => {
        if (closed) return;
        frame({ jsonrpc: "2.0", method, params: { ...p, _meta: { ...(isObject(p._meta) ? p._meta : {}), [SUBSCRIPTION_ID_META_KEY]: id } } });
      };
      send(ACKNOWLEDGED, ack);
      const unwatch = watchTasks(runtime, subscription, accepted, send, streams.pollMs);
      const unsubscribe = handler.bus.subscribe((event: ServerEvent) => {
        const key = Object.keys(lists).find((k) => lists[k] === event.kind);
        if (key && wantedLists.includes(key)) send(`notifications/${event.kind.replace("_list_changed", "")}/list_changed`, {});
      });
      // Graceful: the server stops serving it, so the request gets its closing response and the stream ends.
      stop = (graceful) => {
        if (closed) return;
        closed = true;
        streams.open.delete(end);
        unwatch();
        unsubscribe();
        if (!graceful) return;
        try {
          frame(closingResponse(plan, id, streams.serverInfo));
          controller.close();
        } catch {
          // The requestor went away meanwhile.
        }
      };
      streams.open.add(end);
    },
    cancel() {
      stop(false);
    },
  });
  request.signal.addEventListener("abort", () => stop(false), { once: true });
  return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

// ---------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------

/**
 * A stdio connection with task subscriptions served in front of the SDK's entry (see
 * {@link serveStatelessStdio}): a subscribe request that asks for task ids is checked for the envelope
 * and the declared client capability as over HTTP, acknowledged with the task ids the requestor may see,
 * followed by the status notifications on the stdio stream (each with the subscription id), and ended by
 * the requestor's cancellation or, when the server stops, by its closing response. Other subscribe
 * requests (list changes) stay with the SDK.
 */
class TaskSubscriptionTransport<S extends string, W> implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  /** The open subscriptions by request id: each stops its stream (gracefully: with the closing response). */
  private readonly open = new Map<string | number, (graceful: boolean) => Promise<void>>();

  constructor(
    private readonly runtime: TaskRuntime<S, W>,
    private readonly subscription: Subscription,
    private readonly wire: Transport,
    private readonly pollMs: number,
    private readonly serverInfo: { name: string; version: string } | undefined,
  ) {}

  get sessionId(): string | undefined {
    return this.wire.sessionId;
  }

  setProtocolVersion = (version: string): void => this.wire.setProtocolVersion?.(version);

  async start(): Promise<void> {
    this.wire.onmessage = ((message: unknown, extra?: unknown) => {
      if (!this.intercept(message)) (this.onmessage as ((m: unknown, e?: unknown) => void) | undefined)?.(message, extra);
    }) as Transport["onmessage"];
    this.wire.onerror = (e) => this.onerror?.(e);
    this.wire.onclose = () => {
      // The requestor is gone: nothing can be sent any more.
      for (const stop of [...this.open.values()]) void stop(false);
      this.onclose?.();
    };
    await this.wire.start();
  }

  send(message: Parameters<Transport["send"]>[0], options?: Parameters<Transport["send"]>[1]): Promise<void> {
    return this.wire.send(message, options);
  }

  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map((stop) => stop(true)));
    await this.wire.close();
  }

  /** Serves a task subscribe request or the cancellation of one; false for anything else (the SDK's). */
  private intercept(message: unknown): boolean {
    if (!isObject(message)) return false;
    if (message.method === "notifications/cancelled" && !("id" in message)) {
      const requestId = isObject(message.params) ? message.params.requestId : undefined;
      const stop = typeof requestId === "string" || typeof requestId === "number" ? this.open.get(requestId) : undefined;
      if (stop === undefined) return false;
      void stop(false);
      return true;
    }
    const id = message.id;
    if ((typeof id !== "string" && typeof id !== "number") || subscribedTaskIds(this.subscription, message) === undefined) return false;
    void this.serve(id, isObject(message.params) ? message.params : {}).catch((e: unknown) => {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
      void this.reply(id, { code: -32603, message: "Internal error" });
    });
    return true;
  }

  private reply(id: string | number, error: { code: number; message: string; data?: unknown }): Promise<void> {
    return this.wire.send({ jsonrpc: "2.0", id, error } as never).catch(() => undefined);
  }

  private async serve(id: string | number, params: Record<string, unknown>): Promise<void> {
    const { runtime, subscription } = this;
    const plan = runtime.plan;
    const protocolVersion = protocolVersionOf(plan);
    const meta = isObject(params._meta) ? params._meta : {};
    const version = meta[PROTOCOL_VERSION_META_KEY];
    if (version !== protocolVersion) {
      return this.reply(id, { code: -32022, message: "Unsupported protocol version", data: { supported: [protocolVersion], requested: version ?? null } });
    }
    if (!isObject(meta[CLIENT_CAPABILITIES_META_KEY])) return this.reply(id, { code: -32602, message: "Invalid params: _meta needs the client capabilities" });
    if (!runtime.declaresClientCapability(params)) {
      const missing =
        plan.missingCapability(plan.gateErrorName, { method: subscription.subscribeMethod }) ??
        new TaskProtocolError("missingClientCapability", -32603, `The requestor did not declare the client capability ${subscription.subscribeMethod} needs`);
      return this.reply(id, missing.toJSON());
    }
    const taskIds = subscribedTaskIds(subscription, { method: subscription.subscribeMethod, params }) ?? [];
    const owner = runtime.ownerOf({ authInfo: undefined, sessionId: undefined, requestId: id } as unknown as ServerExtra);
    const accepted: string[] = [];
    for (const taskId of taskIds) {
      const found = await runtime.store.get(taskId);
      if (found?.state === "live" && found.record.owner === owner) accepted.push(taskId);
    }
    const ack: Record<string, unknown> = {};
    setAt(ack, subscription.subscribePath, accepted);
    let closed = false;
    const send = (method: string, p: Record<string, unknown>) => {
      if (closed) return;
      const message = { jsonrpc: "2.0", method, params: { ...p, _meta: { ...(isObject(p._meta) ? p._meta : {}), [SUBSCRIPTION_ID_META_KEY]: id } } };
      void this.wire.send(message as never).catch(() => undefined);
    };
    send(ACKNOWLEDGED, ack);
    const unwatch = watchTasks(runtime, subscription, accepted, send, this.pollMs);
    this.open.set(id, async (graceful) => {
      if (closed) return;
      closed = true;
      this.open.delete(id);
      unwatch();
      if (graceful) await this.wire.send(closingResponse(plan, id, this.serverInfo) as never).catch(() => undefined);
    });
  }
}

// ---------------------------------------------------------------------------
// node:http
// ---------------------------------------------------------------------------

/**
 * Where and how the stateless binding is served. The limits ({@link HttpLimits}): headers within 10 s, a
 * whole request within 20 s (else 408, connection closed), a body of 4 MiB at most (else 413), by default.
 */
export interface StatelessHttpOptions extends StatelessServerOptions, HttpLimits {
  /**
   * The most keys a request's params may have, counting its own and those of each object directly in it
   * (`_meta`, a tool's `arguments`, ...): a request with more is refused (-32602, HTTP 400) before any
   * of it is copied or validated. Default 10 000.
   */
  maxParamsKeys?: number;
  port?: number;
  host?: string;
  /** The endpoint path (default /mcp). */
  path?: string;
  log?: (entry: LogEntry) => void;
}

export const DEFAULT_MAX_PARAMS_KEYS = 10_000;

/** The keys of `params` and of the objects directly in it, counted up to just past `max`. */
export function countKeys(params: unknown, max: number): number {
  if (!isObject(params)) return 0;
  let n = 0;
  for (const key in params) {
    if (++n > max) return n;
    const v = params[key];
    if (isObject(v)) for (const _ in v) if (++n > max) return n;
  }
  return n;
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
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = options.log ?? ((e: LogEntry) => process.stderr.write(JSON.stringify(e) + "\n"));
  const handler = createStatelessHandler(runtime, options);
  const plain = (res: ServerResponse, status: number, code: number, message: string, id: string | number | null = null) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }));
  // Malformed bodies are answered as on stdio: the SDK answers some invalid requests without their id.
  const { isPlainRequest, readMessage } = await import("./transports.js");
  const maxKeys = options.maxParamsKeys ?? DEFAULT_MAX_PARAMS_KEYS;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== path) return void plain(res, 404, -32601, "Not found");
    // Streamable HTTP: a POST's Accept lists both answer types (the SDK underneath lets a JSON-only one through).
    if (req.method === "POST" && !acceptsStreamableHttp(req)) return void plain(res, 406, -32600, NOT_ACCEPTABLE);
    const read = await readBody(req, maxBody);
    // A connection cut before its body ended (the client went away, or was too slow) gets no answer.
    if (read === "aborted") return;
    if (read === "too large") return void plain(res, 413, -32600, `Invalid Request: body larger than ${maxBody} bytes`);
    const body = read.text;
    // A plain request, parsed once here, is handed on parsed (the SDK would parse it again, twice).
    let parsed: unknown;
    if (req.method === "POST" && /application\/json/i.test(req.headers["content-type"] ?? "")) {
      try {
        parsed = JSON.parse(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
      } catch {
        parsed = undefined;
      }
      if (!isPlainRequest(parsed)) {
        parsed = undefined;
        const message = readMessage(body);
        if ("error" in message && message.error.code !== 0) return void plain(res, 400, message.error.code, message.error.message, message.error.id);
      } else if (parsed.params !== undefined && countKeys(parsed.params, maxKeys) > maxKeys) {
        const id = "id" in parsed && parsed.id !== undefined ? parsed.id : null;
        return void plain(res, 400, -32602, `Invalid params: more than ${maxKeys} keys in params and the objects directly in it (the server's limit)`, id);
      }
    }
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
    const response = await handler.fetch(request, { ...(authInfo === undefined ? {} : { authInfo }), ...(parsed === undefined ? {} : { parsedBody: parsed }) });
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
