// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Listening on node:http, shared by both HTTP bindings: bind (127.0.0.1 and a
 * free port by default), bound the time a client may take to send a request,
 * report the URL, and close without waiting for idle keep-alive connections.
 */
import type { IncomingMessage, Server as HttpServer } from "node:http";
import type { Duplex } from "node:stream";

/** How long a client may take to send a request, and how large its body may be. */
export interface HttpLimits {
  /** The most milliseconds a client may take to send a request's headers (default 10 000). */
  headersTimeoutMs?: number;
  /**
   * The most milliseconds a client may take to send a whole request, headers and body (default 20 000).
   * A slower one is answered 408 and its connection closed. An answer streamed back (SSE) is not bound by it.
   */
  requestTimeoutMs?: number;
  /** The largest request body in bytes (default 4 MiB): a larger one is answered 413 with a JSON-RPC error. */
  maxBodyBytes?: number;
}

/**
 * How long an idle keep-alive connection is said to stay open (the `Keep-Alive: timeout` every answer
 * carries), and how much longer it really stays open: a client reusing a connection at the moment the
 * server closes it sees its request reset (a stream that never opens, a request that fails), and a
 * client closes its idle connections by the advertised time, so the server must not close them first.
 */
export const KEEP_ALIVE_ADVERTISED_S = 5;
export const KEEP_ALIVE_GRACE_MS = 5_000;

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 20_000;
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Whether a POST's Accept header lists both answer types of Streamable HTTP, as the SDK's transport
 * requires (a wildcard is not enough: the client must say it reads an SSE stream).
 */
export function acceptsStreamableHttp(req: IncomingMessage): boolean {
  const accept = (req.headers.accept ?? "").toLowerCase();
  return accept.includes("application/json") && accept.includes("text/event-stream");
}

export const NOT_ACCEPTABLE = "Not Acceptable: the Accept header must list application/json and text/event-stream";

/**
 * A request body as text, "too large" when it is larger than `max` (the rest is then read and dropped,
 * up to 16 times the limit, so that the client, still sending, gets the answer; beyond that the
 * connection is cut), or "aborted" when the connection ended before the body did (a client that was
 * too slow included: the server's request time-out cuts it).
 */
export function readBody(req: IncomingMessage, max: number): Promise<{ text: string } | "too large" | "aborted"> {
  const drain = Math.max(64 * 1024 * 1024, 16 * max);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > drain) req.destroy();
      else if (size > max) chunks.length = 0;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(size > max ? "too large" : { text: Buffer.concat(chunks).toString("utf8") }));
    req.on("error", () => resolve("aborted"));
    req.on("close", () => {
      if (!req.complete) resolve("aborted");
    });
  });
}

export interface Listening {
  url: string;
  /** Stops accepting, drops open connections, and resolves once the server is closed. */
  close(): Promise<void>;
}

/**
 * A request node:http refuses before any handler sees it (headers over its limit, a malformed
 * request line) is still answered the JSON-RPC way: Node's own answer is an empty 431 or 400,
 * which a client cannot tell from a broken connection.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || err.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  // A request cut for being too slow may already be answered (or being answered): then it just ends.
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (answering?.headersSent === true) {
    socket.destroy();
    return;
  }
  const [status, error] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? ["431 Request Header Fields Too Large", { code: -32600, message: "Invalid Request: request header fields too large" }]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? ["408 Request Timeout", { code: -32600, message: "Invalid Request: the request was not received in time" }]
        : ["400 Bad Request", { code: -32700, message: "Parse error: malformed HTTP request" }];
  const body = JSON.stringify({ jsonrpc: "2.0", id: null, error });
  socket.end(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  // A client that sends nothing more and reads nothing must not hold the socket either.
  setTimeout(() => socket.destroy(), 1000).unref();
}

export async function listen(http: HttpServer, options: { port?: number; host?: string } & HttpLimits, path: string): Promise<Listening> {
  const host = options.host ?? "127.0.0.1";
  const requestTimeout = positive(options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS);
  const headersTimeout = Math.min(requestTimeout, positive(options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS));
  // Node looks for requests past their time every connectionsCheckingInterval (30 s by default, read
  // when listening starts): checked often enough, a slow request is cut close to its time-out.
  http.headersTimeout = headersTimeout;
  http.requestTimeout = requestTimeout;
  (http as HttpServer & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4)));
  http.keepAliveTimeout = KEEP_ALIVE_ADVERTISED_S * 1000 + KEEP_ALIVE_GRACE_MS;
  // First, so that it is set before any handler answers (an answer made by writeHead keeps it).
  http.prependListener("request", (_req, res) => res.setHeader("keep-alive", `timeout=${KEEP_ALIVE_ADVERTISED_S}`));
  http.on("clientError", answerClientError);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => resolve());
  });
  const addr = http.address();
  const port = typeof addr === "object" && addr ? addr.port : (options.port ?? 0);
  return {
    url: `http://${host}:${port}${path}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}
