// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Listening on node:http, shared by both HTTP bindings: bind (127.0.0.1 and a
 * free port by default), report the URL, and close without waiting for
 * idle keep-alive connections.
 */
import type { Server as HttpServer } from "node:http";
import type { Duplex } from "node:stream";

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
  const overflow = err.code === "HPE_HEADER_OVERFLOW";
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: null,
    error: overflow ? { code: -32600, message: "Invalid Request: request header fields too large" } : { code: -32700, message: "Parse error: malformed HTTP request" },
  });
  socket.end(
    `HTTP/1.1 ${overflow ? "431 Request Header Fields Too Large" : "400 Bad Request"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export async function listen(http: HttpServer, options: { port?: number; host?: string }, path: string): Promise<Listening> {
  const host = options.host ?? "127.0.0.1";
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
