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
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  JSONRPCMessageSchema,
  RELATED_TASK_META_KEY,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
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
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server | McpServer }>();
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
        return s.transport.handleRequest(req, res);
      }
      if (req.method !== "POST") return fail(res, 400, -32000, "Bad Request: no session; initialize first");
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      const server = createServer();
      await server.connect(transport);
      await transport.handleRequest(req, res);
      // A request that opened no session (not an initialize) leaves nothing behind.
      if (transport.sessionId === undefined) await server.close();
    })().catch((e: unknown) => {
      log({ level: "error", msg: "HTTP request failed", error: String(e) });
      if (!res.headersSent) fail(res, 500, -32603, "Internal error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const addr = http.address();
  const port = typeof addr === "object" && addr ? addr.port : (options.port ?? 0);
  return {
    server: http,
    url: `http://${options.host ?? "127.0.0.1"}:${port}${path}`,
    close: async () => {
      for (const s of sessions.values()) await s.server.close().catch(() => undefined);
      sessions.clear();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}
