/**
 * A Streamable HTTP proxy that simulates one server bug: it sits between a client (the tester) and a real
 * server on 127.0.0.1 and hands every JSON-RPC message, both ways, to a mutant that may rewrite, drop, answer
 * or add messages. It works on the wire only, so a mutant holds whatever the server's code becomes.
 *
 * A mutant keeps state across the sessions that pass through it (`ctx.state`), so bugs that need a server's
 * memory (another session's tasks in a list, a task seen terminal earlier) can be simulated.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

export type Msg = Record<string, unknown>;

export interface MutantContext {
  /** The HTTP session the message belongs to ("" where the protocol has none). */
  session: string;
  /** Shared by every session of one proxy (one mutant's run). */
  state: Map<string, unknown>;
  /** Sends a message to the client on a session's standalone stream (GET), if it has one open. */
  push(message: Msg, session?: string): boolean;
  /** Sends a request to the real server as another session would (a session id and headers of its own). */
  upstream(message: Msg, session: string): Promise<Msg[]>;
  /** Every session seen, with the headers its handshake used (for requests made as that session). */
  sessions: Map<string, Record<string, string>>;
}

/** What a mutant does to a client message: pass it on (rewritten or not), or answer it itself. */
export type RequestOutcome = Msg | { reply: Msg | Msg[] } | { session: string; message: Msg } | undefined;

export interface MutantHooks {
  /** A client message (request, notification or answer to a server request) before it reaches the server. */
  onRequest?(message: Msg, ctx: MutantContext, headers: Record<string, string>): RequestOutcome | Promise<RequestOutcome>;
  /**
   * A server message before it reaches the client: `request` is the client request it answers (responses),
   * or undefined (notifications, server requests). Return a message, several, or null to drop it.
   */
  onMessage?(message: Msg, request: Msg | undefined, ctx: MutantContext): Msg | Msg[] | null | undefined | Promise<Msg | Msg[] | null | undefined>;
  /** The raw HTTP request: an answer here replaces the server's (transport bugs). */
  onHttp?(method: string, headers: Record<string, string>): { status: number; body: string; headers?: Record<string, string> } | undefined;
  /** Rewrites the headers forwarded to the server. */
  forwardHeaders?(headers: Record<string, string>): Record<string, string>;
}

const isObject = (v: unknown): v is Msg => typeof v === "object" && v !== null && !Array.isArray(v);

/** Hop-by-hop and length headers that the proxy must not copy as they are. */
const SKIP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"]);

function plainHeaders(h: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !SKIP.has(k)) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

export interface Proxy {
  url: string;
  close(): Promise<void>;
}

export async function startProxy(upstreamUrl: string, hooks: MutantHooks): Promise<Proxy> {
  const state = new Map<string, unknown>();
  const sessions = new Map<string, Record<string, string>>();
  const standalone = new Map<string, ServerResponse>();
  /** The client requests in flight, by session and JSON-RPC id, so a response knows what it answers. */
  const asked = new Map<string, Msg>();
  const key = (session: string, id: unknown) => `${session}\u0000${JSON.stringify(id)}`;

  const ctxFor = (session: string): MutantContext => ({
    session,
    state,
    sessions,
    push(message, to = session) {
      const res = standalone.get(to);
      if (res === undefined || res.writableEnded) return false;
      res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
      return true;
    },
    async upstream(message, as) {
      const headers: Record<string, string> = { ...(sessions.get(as) ?? {}), "content-type": "application/json", accept: "application/json, text/event-stream" };
      if (as !== "") headers["mcp-session-id"] = as;
      const r = await fetch(upstreamUrl, { method: "POST", headers, body: JSON.stringify(message), signal: AbortSignal.timeout(10_000) });
      const text = await r.text();
      if ((r.headers.get("content-type") ?? "").includes("text/event-stream")) return sseMessages(text);
      try {
        const parsed = JSON.parse(text) as unknown;
        return (Array.isArray(parsed) ? parsed : [parsed]).filter(isObject);
      } catch {
        return [];
      }
    },
  });

  /** Applies the mutant to one server message; null: dropped. */
  const rewrite = async (m: Msg, session: string): Promise<Msg[]> => {
    const isResponse = m.method === undefined && m.id !== undefined && m.id !== null;
    const request = isResponse ? asked.get(key(session, m.id)) : undefined;
    if (isResponse) asked.delete(key(session, m.id));
    if (!hooks.onMessage) return [m];
    const out = await hooks.onMessage(m, request, ctxFor(session));
    if (out === null) return [];
    if (out === undefined) return [m];
    return Array.isArray(out) ? out : [out];
  };

  const server: Server = createServer({ maxHeaderSize: 65_536 }, (req, res) => {
    void handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`proxy: ${(e as Error).message}`);
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    let headers = plainHeaders(req.headers);
    const special = hooks.onHttp?.(method, headers);
    if (special) {
      res.writeHead(special.status, special.headers ?? {}).end(special.body);
      return;
    }
    let session = headers["mcp-session-id"] ?? "";
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body = Buffer.concat(chunks).toString("utf8");
    const replies: Msg[] = [];
    let answered = false;
    if (method === "POST" && body !== "") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      if (isObject(parsed)) {
        const outcome = hooks.onRequest ? await hooks.onRequest(parsed, ctxFor(session), headers) : undefined;
        let message: Msg | undefined = parsed;
        if (outcome !== undefined && "reply" in outcome && !("jsonrpc" in outcome)) {
          const r = (outcome as { reply: Msg | Msg[] }).reply;
          replies.push(...(Array.isArray(r) ? r : [r]));
          message = undefined;
          answered = true;
        } else if (outcome !== undefined && "session" in outcome && "message" in outcome && !("jsonrpc" in outcome)) {
          // Served as another session: the answer comes back on this client's request.
          const o = outcome as { session: string; message: Msg };
          const answers = await ctxFor(session).upstream(o.message, o.session);
          const out: Msg[] = [];
          for (const a of answers) out.push(...(await rewrite(a, session)));
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out.length === 1 ? out[0] : out));
          return;
        } else if (outcome !== undefined) message = outcome as Msg;
        if (message !== undefined) {
          if (typeof message.method === "string" && message.id !== undefined) asked.set(key(session, message.id), message);
          body = JSON.stringify(message);
        }
      }
      if (answered) {
        // Nothing to answer (a dropped notification): accepted, as the transport answers notifications.
        if (replies.length === 0) res.writeHead(202).end();
        else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(replies.length === 1 ? replies[0] : replies));
        return;
      }
    }
    if (hooks.forwardHeaders) headers = hooks.forwardHeaders(headers);
    const ctl = new AbortController();
    res.on("close", () => ctl.abort());
    const up = await fetch(upstreamUrl, { method, headers, ...(method === "POST" ? { body } : {}), signal: ctl.signal });
    const out: Record<string, string> = {};
    up.headers.forEach((v, k) => {
      if (!SKIP.has(k) && k !== "content-encoding") out[k] = v;
    });
    const sid = up.headers.get("mcp-session-id");
    if (sid !== null && session === "") {
      session = sid;
      const kept = { ...headers };
      delete kept["mcp-session-id"];
      sessions.set(sid, kept);
      // The handshake's request was recorded under no session: its answer comes under the new one.
      for (const [k, v] of [...asked]) {
        if (k.startsWith("\u0000")) {
          asked.delete(k);
          asked.set(`${sid}${k}`, v);
        }
      }
    }
    if (session === "" && !sessions.has("")) sessions.set("", { ...headers });
    const type = up.headers.get("content-type") ?? "";
    if (type.includes("text/event-stream") && up.body !== null) {
      res.writeHead(up.status, out);
      res.flushHeaders();
      if (method === "GET") standalone.set(session, res);
      await pipeSse(up.body, res, (m) => rewrite(m, session));
      res.end();
      return;
    }
    const text = await up.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined) {
      res.writeHead(up.status, out).end(text);
      return;
    }
    const msgs: Msg[] = [];
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) if (isObject(m)) msgs.push(...(await rewrite(m, session)));
    delete out["content-length"];
    res.writeHead(up.status, out).end(msgs.length === 0 ? "" : JSON.stringify(msgs.length === 1 ? msgs[0] : msgs));
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr !== null ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of standalone.values()) r.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The JSON messages of a complete SSE text. */
function sseMessages(text: string): Msg[] {
  const out: Msg[] = [];
  for (const event of text.replace(/\r\n?/g, "\n").split("\n\n")) {
    const data = event
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""))
      .join("\n");
    if (!data) continue;
    try {
      const m = JSON.parse(data) as unknown;
      if (isObject(m)) out.push(m);
    } catch {
      // Not JSON: not a message.
    }
  }
  return out;
}

/** Copies an SSE stream event by event, each message rewritten. */
async function pipeSse(body: ReadableStream<Uint8Array>, res: ServerResponse, each: (m: Msg) => Promise<Msg[]>): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = event.split("\n");
        const data = lines
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).replace(/^ /, ""))
          .join("\n");
        let message: unknown;
        try {
          message = data ? JSON.parse(data) : undefined;
        } catch {
          message = undefined;
        }
        if (!isObject(message)) {
          res.write(`${event}\n\n`);
          continue;
        }
        const idLine = lines.find((l) => l.startsWith("id:"));
        for (const m of await each(message)) res.write(`${idLine ? `${idLine}\n` : ""}event: message\ndata: ${JSON.stringify(m)}\n\n`);
      }
    }
  } catch {
    // The client or the server closed the stream.
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}
