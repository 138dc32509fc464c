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
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { createMcpHandler, type AuthInfo as CoreAuthInfo, type McpHandlerRequestOptions, type McpHttpHandler } from "@modelcontextprotocol/server";
import { acceptsStreamableHttp, DEFAULT_MAX_BODY_BYTES, listen, NOT_ACCEPTABLE, readBody, type HttpLimits } from "./http-listen.js";
import { isObject } from "./plan.js";
import { checkInputResponses, checkTaskIdRouting, checkUnsupportedMethod, headersOf, jsonRpcError, statelessServerFactory, type StatelessServerOptions } from "./stateless-dispatch.js";
import { serveTaskSubscription, subscribedTaskIds, type SubscriptionStreams } from "./stateless-subscriptions.js";
import type { LogEntry } from "./log.js";
import type { TaskRuntime } from "./server.js";

// Where users import them from: the routing, the input rounds and the stdio binding.
export {
  checkInputResponses,
  checkProtocolVersion,
  checkTaskIdRouting,
  checkUnsupportedMethod,
  protocolVersionOf,
  serverCapabilities,
  statelessServerFactory,
  taskRequestMethods,
  type Refusal,
  type StatelessPlan,
  type StatelessServerOptions,
} from "./stateless-dispatch.js";
export { signState, verifyState } from "./stateless-input.js";
export { serveStatelessStdio } from "./stateless-stdio.js";

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
