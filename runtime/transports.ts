// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Transports for a task server: stdio that answers malformed input instead of
 * dropping it, and Streamable HTTP with one SDK server per session.
 */
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  JSONRPCMessageSchema,
  RELATED_TASK_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
import { listen } from "./http-listen.js";
import { stderrLine, type LogEntry } from "./log.js";
import { isObject } from "./plan.js";

/**
 * A stdio transport that answers malformed input instead of dropping it:
 * invalid JSON gets -32700, a JSON value that is no JSON-RPC message -32600;
 * the server keeps serving. Nothing but JSON-RPC is written to stdout.
 */
export class TaskStdioServerTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  sessionId?: string;
  private buffer = "";
  private started = false;
  private readonly maxLine: number;
  private readonly onData = (chunk: string) => this.append(chunk);
  private readonly onEnd = () => void this.close();
  private readonly onStreamError = (e: Error) => this.onerror?.(e);

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    options: { maxLineBytes?: number } = {},
  ) {
    this.maxLine = options.maxLineBytes ?? 10 * 1024 * 1024;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("TaskStdioServerTransport already started");
    this.started = true;
    this.stdin.setEncoding("utf8");
    this.stdin.on("data", this.onData);
    this.stdin.on("end", this.onEnd);
    this.stdin.on("error", this.onStreamError);
  }

  private append(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf("\n"); nl !== -1; nl = this.buffer.indexOf("\n")) {
      const line = this.buffer.slice(0, nl).replace(/\r$/, "");
      this.buffer = this.buffer.slice(nl + 1);
      this.handleLine(line);
    }
    if (this.buffer.length > this.maxLine) {
      this.buffer = "";
      this.reply(null, -32600, "Invalid Request: message too large");
    }
  }

  private handleLine(line: string): void {
    if (line.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.reply(null, -32700, "Parse error: invalid JSON");
      return;
    }
    // Most messages are requests the schema would accept as they are: they skip it (and its copy).
    if (isPlainRequest(raw)) {
      this.onmessage?.(raw);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(raw);
    if (parsed.success) {
      this.onmessage?.(parsed.data as JSONRPCMessage);
      return;
    }
    const id = isObject(raw) && (typeof raw.id === "string" || typeof raw.id === "number") ? raw.id : null;
    // A malformed response is not answered (JSON-RPC never answers a response).
    if (isObject(raw) && ("result" in raw || "error" in raw) && !("method" in raw)) {
      this.onerror?.(new Error("invalid JSON-RPC response received"));
      return;
    }
    const why = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "message"}: ${i.message}`).slice(0, 3).join("; ");
    this.reply(id, -32600, `Invalid Request: ${why}`);
  }

  private reply(id: string | number | null, code: number, message: string): void {
    this.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n");
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + "\n")) resolve();
      else this.stdout.once("drain", () => resolve());
    });
  }

  async close(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.stdin.off("data", this.onData);
    this.stdin.off("end", this.onEnd);
    this.stdin.off("error", this.onStreamError);
    this.stdin.pause();
    this.onclose?.();
  }
}

/**
 * Whether a parsed JSON value is a request or notification that JSONRPCMessageSchema accepts and
 * returns unchanged but for the order of keys: the schema allows no other keys in the envelope,
 * keeps params and their `_meta` as they are, and checks two `_meta` keys: a progress token (checked
 * here too) and a related task (whose extra keys it would drop: such a message is left to it).
 */
export function isPlainRequest(raw: unknown): raw is JSONRPCRequest | JSONRPCNotification {
  if (!isObject(raw) || raw.jsonrpc !== "2.0" || typeof raw.method !== "string") return false;
  for (const key in raw) if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return false;
  if (raw.id !== undefined && typeof raw.id !== "string" && !Number.isSafeInteger(raw.id)) return false;
  if (raw.params === undefined) return true;
  if (!isObject(raw.params)) return false;
  const meta = raw.params._meta;
  if (meta === undefined) return true;
  if (!isObject(meta) || meta[RELATED_TASK_META_KEY] !== undefined) return false;
  return meta.progressToken === undefined || typeof meta.progressToken === "string" || Number.isSafeInteger(meta.progressToken);
}

/** The methods each server answers with nothing sent before the answer (see answerAsJson). */
const jsonAnswers = new WeakMap<object, ReadonlySet<string>>();

/**
 * Declares that `server` answers requests of `methods` with nothing sent on their stream before the
 * answer: {@link serveStreamableHttp} then answers them as one JSON response, never upgraded to SSE.
 */
export function answerAsJson(server: object, methods: Iterable<string>): void {
  jsonAnswers.set(server, new Set([...(jsonAnswers.get(server) ?? []), ...methods]));
}

/**
 * A session's transport as its SDK server sees it: every message goes through the SDK's Streamable
 * HTTP transport, but for the answers of the requests {@link SessionTransport.answer} was given.
 */
class SessionTransport implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private readonly pending = new Map<string | number, (message: JSONRPCMessage) => void>();

  constructor(readonly http: StreamableHTTPServerTransport) {
    http.onmessage = (message, extra) => this.onmessage?.(message, extra);
    http.onerror = (error) => this.onerror?.(error);
    http.onclose = () => this.onclose?.();
  }

  get sessionId(): string | undefined {
    return this.http.sessionId;
  }

  setProtocolVersion(version: string): void {
    (this.http as Transport).setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.http.start();
  }

  close(): Promise<void> {
    return this.http.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (("result" in message || "error" in message) && "id" in message && message.id !== null && message.id !== undefined) {
      const settle = this.pending.get(message.id);
      if (settle) {
        this.pending.delete(message.id);
        settle(message);
        return Promise.resolve();
      }
    }
    const related = options?.relatedRequestId;
    if (related !== undefined && this.pending.has(related)) {
      // A request answered as JSON has no stream of its own: what relates to it goes on the session's stream.
      return this.http.send(message);
    }
    return this.http.send(message, options);
  }

  /** Hands a request to the server and resolves with its answer, which never reaches the SDK transport. */
  answer(request: JSONRPCRequest, extra: MessageExtraInfo): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      this.pending.set(request.id, resolve);
      this.onmessage?.(request, extra);
    });
  }
}

/** The most bytes of a request body read to answer it as JSON (the SDK transport's own limit). */
const MAX_BODY = 4 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        req.destroy();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/**
 * A POST of a session whose server answers some methods with nothing before the answer: one such
 * request is answered here as application/json; anything else goes to the SDK transport (with the
 * body read). Streamable HTTP lets a server answer a request either way; JSON spares a stream.
 */
async function postToSession(transport: SessionTransport, methods: ReadonlySet<string>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const type = req.headers["content-type"] ?? "";
  if (!type.includes("application/json")) return transport.http.handleRequest(req, res);
  const text = await readBody(req);
  if (text === undefined) {
    res.writeHead(413, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Request body too large" } }));
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: invalid JSON" } }));
    return;
  }
  const version = req.headers["mcp-protocol-version"];
  const accept = req.headers.accept ?? "";
  let message: JSONRPCMessage | undefined;
  if (isPlainRequest(body)) message = body;
  else {
    const parsed = JSONRPCMessageSchema.safeParse(body);
    message = parsed.success ? (parsed.data as JSONRPCMessage) : undefined;
  }
  const plain =
    message !== undefined &&
    "method" in message &&
    "id" in message &&
    methods.has(message.method) &&
    (accept.includes("application/json") || accept.includes("*/*")) &&
    (version === undefined || (typeof version === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(version)));
  if (!plain) return transport.http.handleRequest(req, res, body);
  const auth = (req as IncomingMessage & { auth?: MessageExtraInfo["authInfo"] }).auth;
  const answer = await transport.answer(message as JSONRPCRequest, { requestInfo: { headers: req.headers }, ...(auth === undefined ? {} : { authInfo: auth }) });
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (transport.sessionId !== undefined) headers["mcp-session-id"] = transport.sessionId;
  res.writeHead(200, headers).end(JSON.stringify(answer));
}

export interface HttpServeOptions {
  port?: number;
  host?: string;
  /** The endpoint path (default /mcp). */
  path?: string;
  log?: (entry: LogEntry) => void;
}

/**
 * Serves Streamable HTTP at http://host:port/path, one SDK server (from
 * `createServer`) and one transport per session. Resolves once listening.
 */
export async function serveStreamableHttp(
  createServer: () => Server | McpServer,
  options: HttpServeOptions = {},
): Promise<{ server: HttpServer; url: string; close: () => Promise<void> }> {
  const path = options.path ?? "/mcp";
  const sessions = new Map<string, { transport: SessionTransport; server: Server | McpServer; json: ReadonlySet<string> | undefined }>();
  const log = options.log ?? ((e: LogEntry) => stderrLine(e));
  const fail = (res: ServerResponse, status: number, code: number, message: string) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
  };
  const http = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname !== path) return fail(res, 404, -32601, "Not found");
      const sid = req.headers["mcp-session-id"];
      if (typeof sid === "string") {
        const s = sessions.get(sid);
        if (!s) return fail(res, 404, -32001, "Session not found");
        // Methods answered with nothing before the answer (task polling, listing) come back as JSON, not SSE.
        if (req.method === "POST" && s.json !== undefined && s.json.size > 0) return postToSession(s.transport, s.json, req, res);
        return s.transport.http.handleRequest(req, res);
      }
      if (req.method !== "POST") return fail(res, 400, -32000, "Bad Request: no session; initialize first");
      const http: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server, json: jsonAnswers.get(server) });
        },
      });
      const transport = new SessionTransport(http);
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      const server = createServer();
      await server.connect(transport);
      await http.handleRequest(req, res);
      // A request that opened no session (not an initialize) leaves nothing behind.
      if (transport.sessionId === undefined) await server.close();
    })().catch((e: unknown) => {
      log({ level: "error", msg: "HTTP request failed", error: String(e) });
      if (!res.headersSent) fail(res, 500, -32603, "Internal error");
    });
  });
  const listening = await listen(http, options, path);
  return {
    server: http,
    url: listening.url,
    close: async () => {
      for (const s of sessions.values()) await s.server.close().catch(() => undefined);
      sessions.clear();
      await listening.close();
    },
  };
}
