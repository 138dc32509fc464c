/**
 * --auth: the auth context a static bearer token stands for, and the check of the token a request carries
 * (over Streamable HTTP, a request without one of the tokens is answered 401).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";

/** The auth context a bearer token stands for: the client id is a digest of it, so the store never holds the token. */
export function tokenAuth(token: string): AuthInfo {
  return { token, clientId: `bearer-${createHash("sha256").update(token).digest("hex").slice(0, 16)}`, scopes: [] };
}

/** Whether a request carries `Authorization: Bearer <token>` (compared in constant time). */
export function bearerMatches(header: string | string[] | null | undefined, token: string): boolean {
  const v = Array.isArray(header) ? header[0] : header;
  const m = v === undefined || v === null ? null : /^Bearer +(\S+)\s*$/i.exec(v);
  if (!m) return false;
  const a = Buffer.from(m[1]!);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * --auth over Streamable HTTP: a request without one of the bearer tokens is answered 401; one with it
 * reaches the SDK transport with that token's auth context (the SDK reads `req.auth`).
 */
export function requireBearer(server: HttpServer, tokens: string[]): void {
  const handlers = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse) => {
    const token = tokens.find((t) => bearerMatches(req.headers.authorization, t));
    if (token === undefined) {
      res
        .writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer realm="mcp-task-gen-demo"' })
        .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Unauthorized" } }));
      return;
    }
    req.auth = tokenAuth(token);
    for (const h of handlers) h.call(server, req, res);
  });
}
