/**
 * The HTTP shell of every built-in spec's demo server (Streamable HTTP with sessions for
 * sep-1686-draft and mcp-2025-11-25, the stateless binding for ext-tasks-2026-07-28), started as
 * `npm run demo -- <spec> --http 0` starts it, over real HTTP on 127.0.0.1: a client too slow to
 * send its headers or its body is cut within the configured time (408 with a JSON-RPC body); a body
 * over the limit is answered 413 with a JSON-RPC body; a POST whose Accept does not list both
 * application/json and text/event-stream is answered 406. Waits are bounds that fail instead of
 * hanging, not timed assertions of speed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { serveStreamableHttp } from "../runtime/transports.js";
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from "../runtime/http-listen.js";
import { TaskRuntime } from "../runtime/server.js";
import { serveStatelessHttp } from "../runtime/stateless-server.js";
import { descriptorOf } from "./runtime/descriptors.js";

const root = join(import.meta.dirname, "..");
const PV = "2026-07-28";
const LIMITS = { headersTimeoutMs: 1_500, requestTimeoutMs: 3_000, maxBodyBytes: 1024 * 1024 };
/** How long a slow client may be held at most before the test fails: the time-out and Node's check interval, with room for a loaded machine. */
const CUT_BOUND_MS = 15_000;
const BOTH = "application/json, text/event-stream";

function startDemo(spec: string, args: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "demo-server.ts"), spec, "--http", "0", ...args], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify({ http: LIMITS }) },
    });
    let stderr = "";
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (d: string) => {
      stderr += d;
      const url = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(stderr)?.[1];
      if (url !== undefined) resolve({ child, url });
    });
    child.once("exit", (code) => reject(new Error(`demo server exited (${code}):\n${stderr}`)));
  });
}

/** What a raw connection got back before the server closed it, and whether it closed it within the bound. */
interface Cut {
  closedByServer: boolean;
  received: string;
}

/**
 * Opens a raw connection, sends `head`, then one byte of `trickle` every `everyMs` (a client far slower than
 * any time-out); resolves when the server closes the connection, or after CUT_BOUND_MS with closedByServer false.
 */
function trickle(url: string, head: string, trickleText: string, everyMs = 500): Promise<Cut> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname);
    let received = "";
    let i = 0;
    let timer: ReturnType<typeof setInterval> | undefined;
    const done = (closedByServer: boolean) => {
      clearInterval(timer);
      clearTimeout(bound);
      socket.destroy();
      resolve({ closedByServer, received });
    };
    const bound = setTimeout(() => done(false), CUT_BOUND_MS);
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (received += d));
    socket.on("error", () => undefined);
    socket.on("close", () => done(true));
    socket.on("connect", () => {
      socket.write(head);
      if (trickleText !== "") timer = setInterval(() => {
        if (socket.writable) socket.write(trickleText[i++ % trickleText.length]!);
      }, everyMs);
    });
  });
}

/** The JSON-RPC body of a raw HTTP answer. */
function bodyOf(raw: string): Record<string, unknown> {
  return JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>;
}

function initialize(ext: boolean): string {
  return ext
    ? JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "server/discover",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": PV, "io.modelcontextprotocol/clientCapabilities": {} } },
      })
    : JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } });
}

const SPECS = ["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"] as const;

describe.each(SPECS)("the HTTP shell of the %s demo", (spec) => {
  const ext = spec === "ext-tasks-2026-07-28";
  let demo: { child: ChildProcess; url: string };
  const base = (): Record<string, string> => ({ "content-type": "application/json", ...(ext ? { "mcp-protocol-version": PV, "mcp-method": "server/discover" } : {}) });

  beforeAll(async () => {
    demo = await startDemo(spec);
  });
  afterAll(async () => {
    if (demo?.child.exitCode === null) {
      const exited = new Promise((r) => demo.child.once("exit", r));
      demo.child.kill("SIGTERM");
      await exited;
    }
  });

  it("cuts a body trickled slower than the request time-out, answering 408 with a JSON-RPC error", async () => {
    const body = initialize(ext);
    const head = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: ${BOTH}\r\ncontent-length: ${body.length}\r\n${ext ? `mcp-protocol-version: ${PV}\r\nmcp-method: server/discover\r\n` : ""}\r\n`;
    const cut = await trickle(demo.url, head, body);
    expect(cut.closedByServer).toBe(true);
    expect(cut.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(cut.received)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  });

  it("cuts headers trickled slower than the headers time-out, answering 408 with a JSON-RPC error", async () => {
    const cut = await trickle(demo.url, "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n", "x-slow: abcdefghijklmnopqrstuvwxyz\r\n");
    expect(cut.closedByServer).toBe(true);
    expect(cut.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(cut.received)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  });

  it("answers a body over the configured limit 413 with a JSON-RPC error, and keeps serving", async () => {
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { pad: "z".repeat(20 * 1024 * 1024) } });
    const r = await fetch(demo.url, { method: "POST", headers: { ...base(), accept: BOTH }, body: huge });
    expect(r.status).toBe(413);
    expect(await r.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid Request: body larger than ${LIMITS.maxBodyBytes} bytes` } });
    const ok = await fetch(demo.url, { method: "POST", headers: { ...base(), accept: BOTH }, body: initialize(ext) });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it("answers a POST whose Accept does not list both answer types 406, with or without a session", async () => {
    let sid: string | undefined;
    if (!ext) {
      const init = await fetch(demo.url, { method: "POST", headers: { ...base(), accept: BOTH }, body: initialize(false) });
      sid = init.headers.get("mcp-session-id") ?? undefined;
      await init.text();
      expect(sid).toBeTruthy();
    }
    const sessions: Record<string, string>[] = sid === undefined ? [{}] : [{}, { "mcp-session-id": sid }];
    for (const session of sessions) {
      for (const accept of ["*/*", "application/json", "text/event-stream", "text/html"]) {
        // A task poll is answered as JSON over a session: it needs both all the same.
        const body = ext || Object.keys(session).length === 0 ? initialize(ext) : JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { taskId: "nope" } });
        const r = await fetch(demo.url, { method: "POST", headers: { ...base(), ...session, accept }, body });
        expect({ accept, status: r.status }).toEqual({ accept, status: 406 });
        expect(await r.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("Not Acceptable") } });
      }
    }
    // No Accept header at all (fetch would send */*: a raw request).
    const cut = await trickle(demo.url, `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${initialize(ext).length}\r\n\r\n${initialize(ext)}`, "");
    expect(cut.received).toMatch(/^HTTP\/1\.1 406 /);
  });

  // mcp-2025-11-25 transport: the Origin of every request is validated against DNS rebinding, 403 for an invalid one.
  it("answers a request from a foreign Origin 403 with a JSON-RPC error, and serves one without an Origin or from a loopback origin", async () => {
    const post = (origin?: string, session: Record<string, string> = {}) =>
      fetch(demo.url, { method: "POST", headers: { ...base(), ...session, accept: BOTH, ...(origin === undefined ? {} : { origin }) }, body: initialize(ext) });
    for (const origin of ["https://dns-rebinding.invalid", "http://evil.example:80", "null", `http://localhost.evil.example:${new URL(demo.url).port}`]) {
      const r = await post(origin);
      expect({ origin, status: r.status }).toEqual({ origin, status: 403 });
      expect(await r.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("allowedOrigins") } });
    }
    for (const origin of [undefined, "http://localhost:6274", "http://127.0.0.1:6274", "http://[::1]:3000", new URL(demo.url).origin]) {
      const r = await post(origin);
      expect({ origin, status: r.status }).toEqual({ origin, status: 200 });
      const sid = r.headers.get("mcp-session-id");
      await r.text();
      // Within a session too: a GET (the standalone stream) from a foreign origin is refused.
      if (sid !== null && origin === undefined) {
        const g = await fetch(demo.url, { headers: { accept: "text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25", origin: "https://dns-rebinding.invalid" } });
        expect(g.status).toBe(403);
        await g.text();
      }
    }
  });
});

/** Sends raw requests on one keep-alive connection, one at a time; each resolves with the head of its answer. */
function keepAliveConnection(url: string): { send(request: string): Promise<string>; closedAt(): number | undefined; close(): void } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let closedAt: number | undefined;
  let buffer = "";
  let waiting: ((head: string) => void) | undefined;
  socket.setEncoding("utf8");
  socket.on("error", () => undefined);
  socket.on("close", () => {
    closedAt = Date.now();
    waiting?.(buffer);
  });
  socket.on("data", (d: string) => {
    buffer += d;
    const end = buffer.indexOf("\r\n\r\n");
    if (end !== -1 && waiting) {
      const w = waiting;
      waiting = undefined;
      w(buffer.slice(0, end));
      buffer = "";
    }
  });
  return {
    send: (request) =>
      new Promise((resolve) => {
        if (closedAt !== undefined) return resolve("");
        // What is left of the previous answer (its body) is not this one's.
        buffer = "";
        waiting = resolve;
        socket.write(request);
      }),
    closedAt: () => closedAt,
    close: () => socket.destroy(),
  };
}

describe.each(["sep-1686-draft", "mcp-2025-11-25"] as const)("standalone GET streams of the %s demo", (spec) => {
  let demo: { child: ChildProcess; url: string };
  beforeAll(async () => {
    demo = await startDemo(spec);
  });
  afterAll(async () => {
    if (demo?.child.exitCode === null) {
      const exited = new Promise((r) => demo.child.once("exit", r));
      demo.child.kill("SIGTERM");
      await exited;
    }
  });

  it("opens on a keep-alive connection reused 2.5 s after the advertised idle time-out: the server keeps it open longer than it says", async () => {
    const conn = keepAliveConnection(demo.url);
    try {
      const init = initialize(false);
      const head = await conn.send(
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: ${BOTH}\r\ncontent-length: ${init.length}\r\n\r\n${init}`,
      );
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      const advertised = Number(/keep-alive: timeout=(\d+)/i.exec(head)?.[1]);
      expect(advertised).toBeGreaterThan(0);
      const sid = /mcp-session-id: ([^\r\n]+)/i.exec(head)?.[1];
      expect(sid).toBeTruthy();
      // Idle well past the advertised time (Node itself closes about a second after it, a race under load).
      await new Promise((r) => setTimeout(r, advertised * 1000 + 2500));
      expect(conn.closedAt()).toBeUndefined();
      const get = await conn.send(`GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\nmcp-session-id: ${sid}\r\n\r\n`);
      expect(get).toMatch(/^HTTP\/1\.1 200 /);
      expect(get).toMatch(/content-type: text\/event-stream/i);
    } finally {
      conn.close();
    }
  });
});

describe("the params key limit of the stateless binding (ext-tasks-2026-07-28)", () => {
  let demo: { child: ChildProcess; url: string };
  beforeAll(async () => {
    demo = await startDemo("ext-tasks-2026-07-28");
  });
  afterAll(async () => {
    if (demo?.child.exitCode === null) {
      const exited = new Promise((r) => demo.child.once("exit", r));
      demo.child.kill("SIGTERM");
      await exited;
    }
  });
  const call = async (keys: number, where: "params" | "arguments" | "_meta") => {
    const many = Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, i]));
    const meta = { "io.modelcontextprotocol/protocolVersion": PV, "io.modelcontextprotocol/clientCapabilities": {} };
    const params =
      where === "params"
        ? { name: "greet", arguments: { name: "Ada" }, _meta: meta, ...many }
        : where === "arguments"
          ? { name: "greet", arguments: { name: "Ada", ...many }, _meta: meta }
          : { name: "greet", arguments: { name: "Ada" }, _meta: { ...meta, ...many } };
    const r = await fetch(demo.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": PV, "mcp-method": "tools/call", "mcp-name": "greet" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params }),
    });
    return { status: r.status, body: (await r.json()) as Record<string, unknown> };
  };

  it("refuses params of 50,000 keys with -32602 before serving them, wherever the keys are, and serves 5,000", async () => {
    for (const where of ["params", "arguments", "_meta"] as const) {
      expect(await call(50_000, where)).toEqual({
        status: 400,
        body: { jsonrpc: "2.0", id: 7, error: { code: -32602, message: "Invalid params: more than 10000 keys in params and the objects directly in it (the server's limit)" } },
      });
      expect(await call(5_000, where)).toMatchObject({ status: 200, body: { id: 7, result: { content: [{ type: "text", text: "Hello, Ada!" }] } } });
    }
  });
});

describe("the HTTP limits' defaults", () => {
  it("cut headers at 10 s and a whole request at 20 s, and take a body of 4 MiB, unless configured", async () => {
    expect([DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES]).toEqual([10_000, 20_000, 4 * 1024 * 1024]);
    const plain = await serveStreamableHttp(() => new Server({ name: "t", version: "1" }, { capabilities: {} }), { log: () => undefined });
    const set = await serveStreamableHttp(() => new Server({ name: "t", version: "1" }, { capabilities: {} }), { log: () => undefined, headersTimeoutMs: 2_000, requestTimeoutMs: 5_000 });
    try {
      expect([plain.server.headersTimeout, plain.server.requestTimeout]).toEqual([10_000, 20_000]);
      expect([set.server.headersTimeout, set.server.requestTimeout]).toEqual([2_000, 5_000]);
    } finally {
      await plain.close();
      await set.close();
    }
  });
});

describe("authentication on the ext-tasks-2026-07-28 demo (--auth)", () => {
  let demo: { child: ChildProcess; url: string };
  beforeAll(async () => {
    demo = await startDemo("ext-tasks-2026-07-28", ["--auth", "token-a"]);
  });
  afterAll(async () => {
    if (demo?.child.exitCode === null) {
      const exited = new Promise((r) => demo.child.once("exit", r));
      demo.child.kill("SIGTERM");
      await exited;
    }
  });
  const discover = (authorization?: string) =>
    fetch(demo.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": PV, "mcp-method": "server/discover", ...(authorization === undefined ? {} : { authorization }) },
      body: initialize(true),
    });

  // ext-tasks-2026-07-28/core.authorization-status-codes (401 when authorization is required or the token is
  // invalid), with the Bearer challenge of RFC 6750 §3 the authorization page refers to; core 2026-07-28's error
  // codes: -32000..-32019 is legacy (new code SHOULD NOT use it), -32020..-32099 holds only the codes it defines.
  it("answers a request without a token, or with a wrong one, 401 with a WWW-Authenticate challenge and a code outside the reserved range", async () => {
    for (const [authorization, challenge] of [
      [undefined, /^Bearer$/],
      ["Bearer token-b", /^Bearer error="invalid_token"$/],
    ] as const) {
      const r = await discover(authorization);
      expect({ authorization, status: r.status }).toEqual({ authorization, status: 401 });
      expect(r.headers.get("www-authenticate")).toMatch(challenge);
      const body = (await r.json()) as { id: unknown; error: { code: number; message: string } };
      expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { message: "Unauthorized" } });
      expect(body.error.code < -32768 || body.error.code > -32000).toBe(true);
    }
    const ok = await discover("Bearer token-a");
    expect(ok.status).toBe(200);
    await ok.text();
  });
});

describe("authentication refused by serveStatelessHttp's authenticate", () => {
  // ext-tasks-2026-07-28/core.authorization-status-codes: 403 for insufficient scope; the challenge names the
  // protected resource metadata where configured (RFC 9728 §5.1), as authorization server discovery asks.
  it("answers 403 with an insufficient_scope challenge where the refusal says so, naming the resource metadata", async () => {
    const runtime = new TaskRuntime(await descriptorOf("ext-tasks-2026-07-28"), { audit: false, log: () => undefined } as never);
    const resourceMetadataUrl = "http://127.0.0.1/.well-known/oauth-protected-resource";
    const served = await serveStatelessHttp(runtime, {
      log: () => undefined,
      resourceMetadataUrl,
      authenticate: (request) => {
        throw Object.assign(new Error("refused"), { code: request.headers.get("authorization") === "Bearer narrow" ? "insufficient_scope" : "invalid_token" });
      },
    });
    try {
      const post = (authorization?: string) =>
        fetch(served.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: BOTH, "mcp-protocol-version": PV, "mcp-method": "server/discover", ...(authorization === undefined ? {} : { authorization }) },
          body: initialize(true),
        });
      const narrow = await post("Bearer narrow");
      expect(narrow.status).toBe(403);
      expect(narrow.headers.get("www-authenticate")).toBe(`Bearer error="insufficient_scope", resource_metadata="${resourceMetadataUrl}"`);
      expect(await narrow.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { message: expect.stringContaining("insufficient scope") } });
      const none = await post();
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${resourceMetadataUrl}"`);
      await none.text();
    } finally {
      await served.close();
      await runtime.close();
    }
  });
});

describe("allowedOrigins of the HTTP serve functions", () => {
  const post = (url: string, origin: string, body: string, extra: Record<string, string> = {}) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: BOTH, origin, ...extra }, body });

  it("serves a listed origin, refuses any other, and takes no Host name for the same origin (a rebinding page has it)", async () => {
    const served = await serveStreamableHttp(() => new Server({ name: "s", version: "1" }, { capabilities: {} }), { allowedOrigins: ["https://app.example.com"], log: () => undefined });
    const runtime = new TaskRuntime(await descriptorOf("ext-tasks-2026-07-28"), { audit: false, log: () => undefined } as never);
    const stateless = await serveStatelessHttp(runtime, { allowedOrigins: ["https://app.example.com/"], log: () => undefined });
    try {
      const targets: Array<{ url: string; body: string; extra: Record<string, string> }> = [
        { url: served.url, body: initialize(false), extra: {} },
        { url: stateless.url, body: initialize(true), extra: { "mcp-protocol-version": PV, "mcp-method": "server/discover" } },
      ];
      for (const { url, body, extra } of targets) {
        const ok = await post(url, "https://app.example.com", body, extra);
        expect(ok.status).toBe(200);
        await ok.text();
        const other = await post(url, "https://other.example.com", body, extra);
        expect(other.status).toBe(403);
        await other.text();
        // A page of a DNS name rebound to this server: its Origin is its Host's, and still refused.
        const { port } = new URL(url);
        const raw = await trickle(
          url,
          `POST /mcp HTTP/1.1\r\nhost: rebound.example:${port}\r\norigin: http://rebound.example:${port}\r\ncontent-type: application/json\r\naccept: ${BOTH}\r\nconnection: close\r\n${Object.entries(extra).map(([k, v]) => `${k}: ${v}\r\n`).join("")}content-length: ${body.length}\r\n\r\n${body}`,
          "",
        );
        expect(raw.received).toMatch(/^HTTP\/1\.1 403 /);
      }
    } finally {
      await served.close();
      await stateless.close();
      await runtime.close();
    }
  });
});
