// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Listening on node:http, shared by both HTTP bindings: bind (127.0.0.1 and a
 * free port by default), report the URL, and close without waiting for
 * idle keep-alive connections.
 */
import type { Server as HttpServer } from "node:http";

export interface Listening {
  url: string;
  /** Stops accepting, drops open connections, and resolves once the server is closed. */
  close(): Promise<void>;
}

export async function listen(http: HttpServer, options: { port?: number; host?: string }, path: string): Promise<Listening> {
  const host = options.host ?? "127.0.0.1";
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
