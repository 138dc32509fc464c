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
import { acceptsStreamableHttp, DEFAULT_MAX_BODY_BYTES, listen, NOT_ACCEPTABLE, readBody, type HttpLimits } from "./http-listen.js";
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
  /** The pieces of the line being read (its newline not seen yet) and their length in characters. */
  private parts: string[] = [];
  private partsLength = 0;
  /** Set while the rest of a line that outgrew the limit is skipped (up to its newline). */
  private skipping = false;
  private started = false;
  private readonly maxLine: number;
  private readonly check: ((message: JSONRPCMessage) => MessageError | undefined) | undefined;
  private readonly onData = (chunk: string) => this.append(chunk);
  /** The client went away: its end of stdin closed (EOF, or the pipe closed without one). */
  private readonly onEnd = () => void this.close();
  private readonly onStreamError = (e: Error) => this.onerror?.(e);
  /** A write to a client that went away (EPIPE) ends the connection as its EOF would; other errors are reported. */
  private readonly onOutputError = (e: Error) => {
    if ((e as { code?: unknown }).code === "EPIPE" || (e as { code?: unknown }).code === "ERR_STREAM_DESTROYED") void this.close();
    else this.onerror?.(e);
  };

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    options: {
      maxLineBytes?: number;
      /** Refuses a well-formed message before the server sees it (e.g. params the SDK would rewrite); a notification is dropped. */
      check?: (message: JSONRPCMessage) => MessageError | undefined;
    } = {},
  ) {
    this.maxLine = options.maxLineBytes ?? 10 * 1024 * 1024;
    this.check = options.check;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("TaskStdioServerTransport already started");
    this.started = true;
    this.stdin.setEncoding("utf8");
    this.stdin.on("data", this.onData);
    this.stdin.on("end", this.onEnd);
    this.stdin.on("close", this.onEnd);
    this.stdin.on("error", this.onStreamError);
    this.stdout.on("error", this.onOutputError);
  }

  /**
   * Splits the input into lines, looking for newlines in each new chunk only (a long line costs
   * linear time). A line longer than the limit is answered once, as soon as it outgrows the limit;
   * the rest of it, up to its newline, is skipped unread, and the next line is served as usual.
   */
  private append(chunk: string): void {
    let from = 0;
    for (let nl = chunk.indexOf("\n"); nl !== -1; nl = chunk.indexOf("\n", from)) {
      const piece = chunk.slice(from, nl);
      from = nl + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      let line = piece;
      if (this.parts.length > 0) {
        this.parts.push(piece);
        line = this.parts.join("");
        this.parts = [];
        this.partsLength = 0;
      }
      if (line.length > this.maxLine) this.tooLarge();
      else this.handleLine(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    if (from >= chunk.length || this.skipping) return;
    const rest = from === 0 ? chunk : chunk.slice(from);
    this.partsLength += rest.length;
    if (this.partsLength > this.maxLine) {
      this.parts = [];
      this.partsLength = 0;
      this.skipping = true;
      this.tooLarge();
      return;
    }
    this.parts.push(rest);
  }

  private tooLarge(): void {
    this.reply(null, -32600, `Invalid Request: message larger than ${this.maxLine} characters`);
  }

  private handleLine(line: string): void {
    if (line.trim() === "") return;
    const read = readMessage(line);
    if ("message" in read) {
      const refused = this.check?.(read.message);
      if (refused === undefined) this.onmessage?.(read.message);
      else if ("id" in read.message && "method" in read.message) this.reply(refused.id, refused.code, refused.message);
    } else if (read.error.code === 0) this.onerror?.(new Error(read.error.message));
    else this.reply(read.error.id, read.error.code, read.error.message);
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
    this.stdin.off("close", this.onEnd);
    this.stdin.off("error", this.onStreamError);
    // The output's error listener stays: a write still under way when the client left may yet fail (EPIPE).
    this.stdin.pause();
    this.onclose?.();
  }
}

const hasOwnProto = (value: object): boolean => Object.prototype.hasOwnProperty.call(value, "__proto__");

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
  // An own "__proto__" key (JSON.parse makes one) is dropped by the schema: left to it.
  if (!isObject(raw.params) || hasOwnProto(raw.params)) return false;
  const meta = raw.params._meta;
  if (meta === undefined) return true;
  if (!isObject(meta) || meta[RELATED_TASK_META_KEY] !== undefined || hasOwnProto(meta)) return false;
  return meta.progressToken === undefined || typeof meta.progressToken === "string" || Number.isSafeInteger(meta.progressToken);
}

/** What a malformed message is answered: a JSON-RPC error (code 0: a malformed response, which JSON-RPC never answers). */
export interface MessageError {
  id: string | number | null;
  code: number;
  message: string;
}

/**
 * One message as read from the wire: -32700 for text that is no JSON; -32600 (with the request's id
 * where it can be read) for JSON that is no single JSON-RPC message (batches included: the protocol
 * has none); a leading byte order mark is ignored, as JSON allows.
 */
export function readMessage(text: string): { message: JSONRPCMessage } | { error: MessageError } {
  let raw: unknown;
  try {
    raw = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return { error: { id: null, code: -32700, message: "Parse error: invalid JSON" } };
  }
  // Most messages are requests the schema would accept as they are: they skip it (and its copy).
  if (isPlainRequest(raw)) return { message: raw };
  if (Array.isArray(raw)) return { error: { id: null, code: -32600, message: "Invalid Request: JSON-RPC batches are not supported; send one message at a time" } };
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  if (parsed.success) return { message: parsed.data as JSONRPCMessage };
  const id = isObject(raw) && (typeof raw.id === "string" || typeof raw.id === "number") ? raw.id : null;
  if (isObject(raw) && ("result" in raw || "error" in raw) && !("method" in raw)) {
    return { error: { id, code: 0, message: "invalid JSON-RPC response received" } };
  }
  const why = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "message"}: ${i.message}`).slice(0, 3).join("; ");
  return { error: { id, code: -32600, message: `Invalid Request: ${why}` } };
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
    // A request answered as JSON has no stream of its own: what relates to it goes on the session's stream.
    if (related === undefined || this.pending.has(related)) return this.http.send(message);
    return this.http.send(message, { relatedRequestId: related });
  }

  /** Hands a request to the server and resolves with its answer, which never reaches the SDK transport. */
  answer(request: JSONRPCRequest, extra: MessageExtraInfo): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      this.pending.set(request.id, resolve);
      this.onmessage?.(request, extra);
    });
  }
}

/** A JSON-RPC error answer over HTTP (`id` null where the request's cannot be read). */
function httpError(res: ServerResponse, status: number, id: string | number | null, code: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }));
}

/**
 * The JSON-RPC message of a POST with a JSON body, read and checked here so that a malformed one is
 * answered as on stdio (the SDK transport answers every one -32700 without its id): undefined when
 * it was answered (HTTP 413 or 400) or its connection was cut.
 */
async function readPost(req: IncomingMessage, res: ServerResponse, maxBody: number): Promise<JSONRPCMessage | undefined> {
  const body = await readBody(req, maxBody);
  // A connection cut before its body ended (the client went away, or was too slow) gets no answer.
  if (body === "aborted") return undefined;
  if (body === "too large") {
    httpError(res, 413, null, -32600, `Invalid Request: body larger than ${maxBody} bytes`);
    return undefined;
  }
  const read = readMessage(body.text);
  if ("message" in read) return read.message;
  const { id, code, message } = read.error;
  // A malformed response is answered over HTTP too (every POST is): as an invalid message.
  httpError(res, 400, id, code === 0 ? -32600 : code, code === 0 ? `Invalid Request: ${message}` : message);
  return undefined;
}

/**
 * A request answered as one JSON response where the session's server answers its method with
 * nothing before the answer; undefined (not answered) for anything else. Streamable HTTP lets a
 * server answer a request either way; JSON spares a stream.
 */
async function answerAsJsonResponse(
  transport: SessionTransport,
  methods: ReadonlySet<string>,
  message: JSONRPCMessage,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const version = req.headers["mcp-protocol-version"];
  const plain =
    "method" in message &&
    "id" in message &&
    methods.has(message.method) &&
    (version === undefined || (typeof version === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(version)));
  if (!plain) return false;
  const auth = (req as IncomingMessage & { auth?: MessageExtraInfo["authInfo"] }).auth;
  const answer = await transport.answer(message as JSONRPCRequest, { requestInfo: { headers: req.headers }, ...(auth === undefined ? {} : { authInfo: auth }) });
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (transport.sessionId !== undefined) headers["mcp-session-id"] = transport.sessionId;
  res.writeHead(200, headers).end(JSON.stringify(answer));
  return true;
}

/**
 * Where and how Streamable HTTP is served. The limits ({@link HttpLimits}): headers within 10 s, a whole
 * request within 20 s (else 408, connection closed), a body of 4 MiB at most (else 413), by default.
 */
export interface HttpServeOptions extends HttpLimits {
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
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const sessions = new Map<string, { transport: SessionTransport; server: Server | McpServer; json: ReadonlySet<string> | undefined }>();
  const log = options.log ?? ((e: LogEntry) => stderrLine(e));
  const fail = (res: ServerResponse, status: number, code: number, message: string) => httpError(res, status, null, code, message);
  const http = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname !== path) return fail(res, 404, -32601, "Not found");
      const sid = req.headers["mcp-session-id"];
      const session = typeof sid === "string" ? sessions.get(sid) : undefined;
      if (typeof sid === "string" && !session) return fail(res, 404, -32001, "Session not found");
      if (session === undefined && req.method !== "POST") return fail(res, 400, -32000, "Bad Request: no session; initialize first");
      // Every POST, answered as JSON or as a stream, says it can read both (the SDK transport's rule).
      if (req.method === "POST" && !acceptsStreamableHttp(req)) return fail(res, 406, -32600, NOT_ACCEPTABLE);
      // A JSON body is read and checked here; other content types are refused by the SDK transport.
      let body: JSONRPCMessage | undefined;
      if (req.method === "POST" && /application\/json/i.test(req.headers["content-type"] ?? "")) {
        body = await readPost(req, res, maxBody);
        if (body === undefined) return;
      }
      if (session) {
        // Methods answered with nothing before the answer (task polling, listing) come back as JSON, not SSE.
        if (body !== undefined && session.json !== undefined && session.json.size > 0 && (await answerAsJsonResponse(session.transport, session.json, body, req, res))) return;
        return session.transport.http.handleRequest(req, res, body);
      }
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
      await http.handleRequest(req, res, body);
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
