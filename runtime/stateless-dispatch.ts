// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// Request routing of the per-request lifecycle: what the spec's plan says is served (protocol version,
// task methods, capabilities), the checks that refuse a request before the SDK dispatches it, and the
// per-request SDK server that hands each request to the runtime with a request context it understands.

import { randomBytes } from "node:crypto";
import { z } from "zod";
import { Server as CoreServer, PROTOCOL_VERSION_META_KEY, type AuthInfo as CoreAuthInfo, type ServerContext } from "@modelcontextprotocol/server";
import { TaskProtocolError, invalidParams, isDatabaseUnavailable, unavailableError } from "./errors.js";
import { isObject, type RuntimePlan } from "./plan.js";
import { InputRound, verifyState } from "./stateless-input.js";
import { checkTaskIdHeader } from "./wire.js";
import type { ServerExtra, TaskRuntime } from "./server.js";

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
// The SDK server per request
// ---------------------------------------------------------------------------

type Handler = (extra: ServerExtra) => Promise<unknown>;

/** The request's params as the runtime reads them: `_meta` with the envelope keys the SDK lifted out. */
function withEnvelope(params: unknown, ctx: ServerContext): Record<string, unknown> {
  const p = isObject(params) ? { ...params } : {};
  p._meta = { ...(isObject(p._meta) ? p._meta : {}), ...(ctx.mcpReq._meta ?? {}), ...(ctx.mcpReq.envelope ?? {}) };
  return p;
}

export function headersOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
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
    // The store's own "unavailable" error carries the default code: the answer is the spec's declared one.
    if (isDatabaseUnavailable(e)) throw unavailableError((n, c, f, d) => runtime.plan.error(n, c, f, d));
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


export function jsonRpcError(status: number, id: unknown, error: { code: number; message: string; data?: unknown }): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error }), {
    status,
    headers: { "content-type": "application/json" },
  });
}
