/**
 * The mutating proxy: sits between a client and a real MCP server and applies one statement mutant
 * (mutant.ts) to the JSON-RPC messages both ways.
 *
 *   stdio: tsx scripts/statement-mutants/proxy.ts --mutant <name> -- <server command...>
 *          spawns the server and relays newline-delimited JSON-RPC between our stdin/stdout and its own.
 *   http:  startHttpProxy({ upstream, mutant }) (or --http <port> --upstream <url>): an HTTP server on
 *          127.0.0.1 forwarding every request to the real endpoint, JSON and SSE bodies rewritten.
 *
 * STATEMENT_MUTANT_TRACE=<file> appends every message the proxy sends on, as JSON lines;
 * STATEMENT_MUTANT_ERRORS=<file> records a mutant that throws (the message is then passed on unchanged);
 * STATEMENT_MUTANT_HITS=<file> gets a line each time the mutant changes, drops or adds a message or an HTTP exchange.
 */
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { findMutant } from "./catalogue.js";
import type { Ctx, Direction, HttpResponseView, Msg, Mutant, Rewriter, Transport } from "./mutant.js";

const MAX_DELAY_MS = 20_000;
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The state the proxy keeps to give each response the request it answers. */
class Relay {
  private pending = new Map<string, { method: string; params?: any }>();
  constructor(
    readonly rewriter: Rewriter,
    readonly transport: Transport,
    private readonly trace = process.env.STATEMENT_MUTANT_TRACE,
    private readonly errors = process.env.STATEMENT_MUTANT_ERRORS,
    private readonly hits = process.env.STATEMENT_MUTANT_HITS,
  ) {}

  /** Records that the mutant changed something (one line a change), so a survivor that never struck can be told apart. */
  hit(what: string): void {
    if (this.hits) appendFileSync(this.hits, what + "\n");
  }

  /** Runs the mutant on one message; resolves to the messages to send on, in order. */
  async apply(msg: Msg, dir: Direction, conn: string, inject: Ctx["inject"], injected = false, socket?: number, stream?: Ctx["stream"]): Promise<Msg[]> {
    if (injected) this.hit(`inject ${dir} ${msg?.method ?? "response"}`);
    const key = (d: Direction, id: unknown) => `${d}\0${conn}\0${JSON.stringify(id)}`;
    let request: Ctx["request"];
    if (msg && typeof msg === "object" && typeof msg.method === "string" && msg.id !== undefined) {
      if (this.pending.size > 100_000) this.pending.clear();
      this.pending.set(key(dir, msg.id), { method: msg.method, params: msg.params });
    } else if (msg && typeof msg === "object" && msg.id !== undefined && msg.method === undefined) {
      const other: Direction = dir === "toClient" ? "toServer" : "toClient";
      request = this.pending.get(key(other, msg.id));
    }
    const ctx: Ctx = { dir, transport: this.transport, conn, request, inject, ...(socket === undefined ? {} : { socket }), ...(stream === undefined ? {} : { stream }) };
    let out: Msg[] | undefined;
    try {
      out = this.rewriter.onMessage ? await this.rewriter.onMessage(msg, ctx) : undefined;
    } catch (e) {
      // A mutant that throws is a bug of the catalogue, not of the server: said, and the message passed on.
      process.stderr.write(`statement-mutant: the mutant threw: ${String(e)}\n`);
      if (this.errors) appendFileSync(this.errors, `${String((e as Error)?.stack ?? e)}\n`);
    }
    const sent = out ?? [msg];
    if (out !== undefined && JSON.stringify(out) !== JSON.stringify([msg])) this.hit(`${dir} ${msg?.method ?? ctx.request?.method ?? "?"}`);
    // A request the mutant made itself is answered like any other: record it too.
    for (const m of sent) {
      if (m !== msg && typeof m?.method === "string" && m.id !== undefined) this.pending.set(key(dir, m.id), { method: m.method, params: m.params });
    }
    if (this.trace) for (const m of sent) appendFileSync(this.trace, JSON.stringify({ t: Date.now(), dir, conn, msg: m }) + "\n");
    return sent;
  }
}

const boundedDelay = (ms: number | undefined) => Math.max(0, Math.min(ms ?? 0, MAX_DELAY_MS));

// ---------------------------------------------------------------- stdio

/** Relays newline-delimited JSON-RPC between this process's stdio and a spawned server's. */
export function runStdioProxy(mutant: Mutant, command: string[]): void {
  const relay = new Relay(mutant.start(), "stdio");
  const child = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const write = (dir: Direction, m: Msg) => {
    const line = JSON.stringify(m) + "\n";
    if (dir === "toServer") {
      if (child.stdin.writable) child.stdin.write(line);
    } else process.stdout.write(line);
  };
  const inject: Ctx["inject"] = (dir, m, delayMs) => {
    const d = boundedDelay(delayMs);
    const go = () => void relay.apply(m, dir, "stdio", inject, true).then((ms) => ms.forEach((x) => write(dir, x)));
    if (d === 0) go();
    else setTimeout(go, d).unref();
  };
  // Messages are sent on in arrival order, unless the mutant delays one (then later ones may pass it).
  const pump = (dir: Direction, line: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      if (dir === "toServer") child.stdin.write(line + "\n");
      else process.stdout.write(line + "\n");
      return;
    }
    const msgs = (Array.isArray(parsed) ? parsed : [parsed]) as Msg[];
    for (const m of msgs) {
      const r = relay.apply(m, dir, "stdio", inject);
      void r.then((out) => out.forEach((x) => write(dir, x)));
    }
  };
  createInterface({ input: process.stdin }).on("line", (l) => l.trim() !== "" && pump("toServer", l));
  createInterface({ input: child.stdout! }).on("line", (l) => l.trim() !== "" && pump("toClient", l));
  process.stdin.on("end", () => child.stdin.end());
  child.stdin.on("error", () => undefined);
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  for (const sig of ["SIGTERM", "SIGINT"] as const) process.on(sig, () => child.kill(sig));
}

// ---------------------------------------------------------------- HTTP

const HOP = new Set(["host", "content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"]);

function flatHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP.has(k)) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error("body too large"));
      else parts.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

const sseEvent = (m: Msg, id?: string) => `event: message\n${id !== undefined ? `id: ${id}\n` : ""}data: ${JSON.stringify(m)}\n\n`;

export interface HttpProxy {
  url: string;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 forwarding to upstream (the real server's MCP endpoint URL) through the mutant. */
export async function startHttpProxy(opts: { upstream: string; mutant: Mutant; port?: number }): Promise<HttpProxy> {
  const upstream = new URL(opts.upstream);
  const rewriter = opts.mutant.start();
  const relay = new Relay(rewriter, "http");
  /** Open SSE responses per connection, the newest last: where a message the mutant injects goes. */
  const streams = new Map<string, Set<(m: Msg) => void>>();
  /** The open standalone (GET) stream of each connection: where a message injected `on: "standalone"` goes. */
  const standalone = new Map<string, (m: Msg) => void>();
  const lastHeaders = new Map<string, Record<string, string>>();
  const sockets = new Set<import("node:net").Socket>();
  const socketIds = new WeakMap<import("node:net").Socket, number>();

  const postUpstream = (conn: string, m: Msg) => {
    const headers = { ...(lastHeaders.get(conn) ?? { "content-type": "application/json", accept: "application/json, text/event-stream" }) };
    const body = JSON.stringify(m);
    const r = http.request(upstream, { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) } }, (res) => res.resume());
    r.on("error", () => undefined);
    r.end(body);
  };
  const injectFor = (conn: string, local?: (m: Msg) => boolean): Ctx["inject"] => {
    const inject: Ctx["inject"] = (dir, m, delayMs, on) => {
      const go = async () => {
        const out = await relay.apply(m, dir, conn, inject, true);
        for (const x of out) {
          if (dir === "toServer") postUpstream(conn, x);
          else if (on === "standalone") standalone.get(conn)?.(x);
          else if (!(local && local(x))) {
            const open = [...(streams.get(conn) ?? [])];
            open.at(-1)?.(x);
          }
        }
      };
      const d = boundedDelay(delayMs);
      if (d === 0 && (local || on === "standalone")) void go();
      else setTimeout(() => void go(), d).unref();
    };
    return inject;
  };

  const server = http.createServer({ maxHeaderSize: 1024 * 1024 }, async (req, res) => {
    try {
      const raw = await readBody(req);
      const headers = flatHeaders(req.headers);
      const conn = headers["mcp-session-id"] ?? "none";
      const socket = socketIds.get(req.socket);
      let parsed: unknown;
      if (raw.length > 0) {
        try {
          parsed = JSON.parse(raw.toString("utf8"));
        } catch {
          parsed = undefined;
        }
      }
      const inMsgs = parsed === undefined ? [] : ((Array.isArray(parsed) ? parsed : [parsed]) as Msg[]);
      const out: Msg[] = [];
      for (const m of inMsgs) out.push(...(await relay.apply(m, "toServer", conn, injectFor(conn), false, socket)));
      // The client's request as it came, for the response's hook (the mutant may rewrite the view).
      const asSent = { method: req.method ?? "GET", headers: { ...headers } };
      const view = { method: req.method ?? "GET", headers, messages: out };
      const before = JSON.stringify(view);
      rewriter.onHttpRequest?.(view);
      if (JSON.stringify(view) !== before) relay.hit("http request");
      if (req.method === "POST") lastHeaders.set(conn, view.headers);
      if (parsed !== undefined && view.messages.length === 0) {
        res.writeHead(202).end();
        return;
      }
      const body =
        parsed === undefined
          ? raw
          : Buffer.from(JSON.stringify(Array.isArray(parsed) || view.messages.length > 1 ? view.messages : view.messages[0]));
      const up = http.request(upstream, { method: view.method, headers: { ...view.headers, "content-length": body.length } });
      res.on("close", () => {
        if (!res.writableFinished) up.destroy();
      });
      up.on("error", () => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.end();
      });
      up.on("response", (ur) => void relayResponse(ur, res, conn, view.messages, asSent, socket));
      up.end(body);
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
    }
  });

  async function relayResponse(ur: http.IncomingMessage, res: http.ServerResponse, conn: string, requestMessages: Msg[], request: HttpResponseView["request"], socket: number | undefined) {
    const headers = flatHeaders(ur.headers);
    const ctype = headers["content-type"] ?? "";
    const sessionConn = headers["mcp-session-id"] ?? conn;
    const view: HttpResponseView = { status: ur.statusCode ?? 500, headers, request, requestMessages, messages: [], sse: ctype.includes("text/event-stream") };
    const hook = () => {
      const before = JSON.stringify(view);
      rewriter.onHttpResponse?.(view);
      if (JSON.stringify(view) !== before) relay.hit("http response");
    };
    if (view.sse) {
      hook();
      res.writeHead(view.status, view.headers);
      res.flushHeaders();
      const send = (m: Msg) => {
        if (!res.writableEnded) res.write(sseEvent(m));
      };
      const set = streams.get(sessionConn) ?? new Set();
      streams.set(sessionConn, set.add(send));
      const stream = request.method === "GET" ? "get" : "post";
      if (stream === "get") standalone.set(sessionConn, send);
      res.on("close", () => {
        set.delete(send);
        if (standalone.get(sessionConn) === send) standalone.delete(sessionConn);
      });
      const inject = injectFor(sessionConn);
      let buf = "";
      let data: string[] = [];
      let id: string | undefined;
      let chain = Promise.resolve();
      const dispatch = (lines: string[], eid: string | undefined) => {
        chain = chain.then(async () => {
          const text = lines.join("\n");
          let m: Msg;
          try {
            m = JSON.parse(text) as Msg;
          } catch {
            if (!res.writableEnded) res.write(`${eid !== undefined ? `id: ${eid}\n` : ""}data: ${text}\n\n`);
            return;
          }
          const outs = await relay.apply(m, "toClient", sessionConn, inject, false, socket, stream);
          outs.forEach((x, i) => !res.writableEnded && res.write(sseEvent(x, i === 0 ? eid : undefined)));
        });
      };
      ur.setEncoding("utf8");
      ur.on("data", (chunk: string) => {
        buf += chunk;
        if (buf.length > MAX_BODY_BYTES) {
          ur.destroy();
          res.end();
          return;
        }
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).replace(/\r$/, "");
          buf = buf.slice(nl + 1);
          if (line === "") {
            if (data.length > 0) dispatch(data, id);
            else if (id !== undefined) res.write(`id: ${id}\n\n`);
            data = [];
            id = undefined;
          } else if (line.startsWith(":")) res.write(line + "\n\n");
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
          else if (line.startsWith("id:")) id = line.slice(3).trim();
        }
      });
      ur.on("end", () => void chain.then(() => res.end()));
      ur.on("error", () => res.end());
      return;
    }
    const parts: Buffer[] = [];
    for await (const c of ur) parts.push(c as Buffer);
    const raw = Buffer.concat(parts);
    let parsed: unknown;
    if (ctype.includes("json") && raw.length > 0) {
      try {
        parsed = JSON.parse(raw.toString("utf8"));
      } catch {
        parsed = undefined;
      }
    }
    if (parsed === undefined) {
      view.messages = [];
      hook();
      res.writeHead(view.status, view.headers).end(raw);
      return;
    }
    const extra: Msg[] = [];
    const inject = injectFor(sessionConn, (m) => (extra.push(m), true));
    for (const m of (Array.isArray(parsed) ? parsed : [parsed]) as Msg[]) view.messages.push(...(await relay.apply(m, "toClient", sessionConn, inject, false, socket, "post")));
    view.messages.push(...extra);
    hook();
    if (view.sse) {
      view.headers["content-type"] = "text/event-stream";
      res.writeHead(view.status, view.headers);
      res.end(view.messages.map((m) => sseEvent(m)).join(""));
      return;
    }
    const body = Array.isArray(parsed) || view.messages.length > 1 ? JSON.stringify(view.messages) : view.messages.length === 1 ? JSON.stringify(view.messages[0]) : "";
    if (body === "" && view.status === 200) view.status = 202;
    res.writeHead(view.status, view.headers).end(body);
  }

  let connections = 0;
  server.on("connection", (s) => {
    sockets.add(s);
    socketIds.set(s, ++connections);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------- command line

async function main(argv: string[]) {
  const dash = argv.indexOf("--");
  const opts = dash >= 0 ? argv.slice(0, dash) : argv;
  const get = (k: string) => {
    const i = opts.indexOf(k);
    return i >= 0 ? opts[i + 1] : undefined;
  };
  const name = get("--mutant") ?? "noop";
  const m = findMutant(name);
  if (!m) {
    process.stderr.write(`proxy: no mutant named ${name}\n`);
    process.exit(2);
  }
  const port = get("--http");
  if (port !== undefined) {
    const upstream = get("--upstream");
    if (!upstream) {
      process.stderr.write("proxy: --http needs --upstream <url>\n");
      process.exit(2);
    }
    const p = await startHttpProxy({ upstream, mutant: m, port: Number(port) });
    process.stderr.write(JSON.stringify({ level: "info", msg: "listening", url: p.url }) + "\n");
    return;
  }
  if (dash < 0 || dash === argv.length - 1) {
    process.stderr.write("usage: proxy.ts --mutant <name> -- <server command...> | --mutant <name> --http <port> --upstream <url>\n");
    process.exit(2);
  }
  runStdioProxy(m, argv.slice(dash + 1));
}

if (process.argv[1] && /proxy\.[tj]s$/.test(process.argv[1])) void main(process.argv.slice(2));
