import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { answerAsJson, isPlainRequest, readMessage, serveStreamableHttp, TaskStdioServerTransport } from "../../runtime/transports.js";

function lines(out: PassThrough): () => Promise<unknown> {
  let buffer = "";
  const queue: unknown[] = [];
  const waiting: Array<(v: unknown) => void> = [];
  out.setEncoding("utf8");
  out.on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      const v = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(v);
      else queue.push(v);
    }
  });
  return () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r)));
}

describe("TaskStdioServerTransport", () => {
  it("answers -32700 for invalid JSON and -32600 for non-messages, and keeps serving", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const next = lines(stdout);
    const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
    await server.connect(new TaskStdioServerTransport(stdin, stdout));
    stdin.write("{not json\n");
    expect(await next()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: invalid JSON" } });
    stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 7, nothing: true }) + "\n");
    expect(await next()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32600 } });
    stdin.write("42\r\n\n");
    expect(await next()).toMatchObject({ id: null, error: { code: -32600 } });
    stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }) + "\n");
    expect(await next()).toEqual({ jsonrpc: "2.0", id: 8, result: {} });
    await server.close();
  });

  it("refuses a line longer than the limit", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const next = lines(stdout);
    const t = new TaskStdioServerTransport(stdin, stdout, { maxLineBytes: 16 });
    await t.start();
    stdin.write("x".repeat(32));
    expect(await next()).toMatchObject({ id: null, error: { code: -32600, message: "Invalid Request: message larger than 16 characters" } });
    await t.close();
  });

  it("answers an oversized line once, skips the rest of it, and serves the next line", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const next = lines(stdout);
    const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
    await server.connect(new TaskStdioServerTransport(stdin, stdout, { maxLineBytes: 1024 }));
    // One line in many chunks, the limit crossed in the middle; then a ping.
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "y".repeat(5000) } });
    for (let i = 0; i < big.length; i += 700) stdin.write(big.slice(i, i + 700));
    stdin.write("\n" + JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) + "\n");
    expect(await next()).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await next()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    // A whole oversized line in one chunk, too.
    stdin.write(big + "\n" + JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }) + "\n");
    expect(await next()).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await next()).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    await server.close();
  });

  it("ignores a byte order mark and refuses batches with -32600", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const next = lines(stdout);
    const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
    await server.connect(new TaskStdioServerTransport(stdin, stdout));
    stdin.write("\uFEFF" + JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) + "\n");
    expect(await next()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    stdin.write(JSON.stringify([{ jsonrpc: "2.0", id: 2, method: "ping" }]) + "\n");
    expect(await next()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining("batches") } });
    stdin.write("[]\n");
    expect(await next()).toMatchObject({ id: null, error: { code: -32600 } });
    await server.close();
  });
});

describe("readMessage", () => {
  it("-32700 only for text that is no JSON; -32600 with the id where it can be read", () => {
    expect(readMessage("{")).toEqual({ error: { id: null, code: -32700, message: "Parse error: invalid JSON" } });
    expect(readMessage('{"jsonrpc":"2.0","id":"a","method":7}')).toMatchObject({ error: { id: "a", code: -32600 } });
    expect(readMessage('{"jsonrpc":"1.0","id":3,"method":"ping"}')).toMatchObject({ error: { id: 3, code: -32600 } });
    expect(readMessage('{"jsonrpc":"2.0","id":{},"method":"ping"}')).toMatchObject({ error: { id: null, code: -32600 } });
    expect(readMessage('{"jsonrpc":"2.0","id":1,"result":{},"x":1}')).toMatchObject({ error: { code: 0 } });
    expect(readMessage('\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({ message: { jsonrpc: "2.0", id: 1, method: "ping" } });
  });
});

describe("isPlainRequest", () => {
  it("takes plain requests and leaves anything unusual to the schema", () => {
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { progressToken: 1 } } })).toBe(true);
    expect(isPlainRequest({ jsonrpc: "2.0", method: "x" })).toBe(true);
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1.5, method: "x" })).toBe(false);
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1, method: "x", extra: 1 })).toBe(false);
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1, method: "x", params: [] })).toBe(false);
    expect(isPlainRequest({ jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { "io.modelcontextprotocol/related-task": {} } } })).toBe(false);
  });

  it("leaves an own __proto__ key in params or _meta to the schema, which drops it", () => {
    expect(isPlainRequest(JSON.parse('{"jsonrpc":"2.0","method":"tasks/get","params":{"__proto__":false}}'))).toBe(false);
    expect(isPlainRequest(JSON.parse('{"jsonrpc":"2.0","method":"x","params":{"_meta":{"__proto__":{"a":1}}}}'))).toBe(false);
    const read = readMessage('{"jsonrpc":"2.0","method":"tasks/get","params":{"__proto__":{"polluted":1},"taskId":"t"}}');
    expect(read).toEqual({ message: { jsonrpc: "2.0", method: "tasks/get", params: { taskId: "t" } } });
    const params = (read as { message: { params: object } }).message.params;
    expect(Object.prototype.hasOwnProperty.call(params, "__proto__")).toBe(false);
    expect((params as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** Initializes a session over Streamable HTTP and adds its id to `headers`. */
async function initialize(url: string, headers: Record<string, string>): Promise<void> {
  const init = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } } }),
  });
  headers["mcp-session-id"] = init.headers.get("mcp-session-id")!;
  await init.text();
}

describe("serveStreamableHttp", () => {
  it("serves one SDK server per session and refuses requests without one", async () => {
    const http = await serveStreamableHttp(() => new Server({ name: "t", version: "1" }, { capabilities: {} }), { log: () => undefined });
    try {
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const init = await fetch(http.url, {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } } }),
      });
      expect(init.status).toBe(200);
      const sid = init.headers.get("mcp-session-id");
      expect(sid).toBeTruthy();
      await init.text();
      const unknown = await fetch(http.url, { method: "POST", headers: { ...headers, "mcp-session-id": "nope" }, body: "{}" });
      expect(unknown.status).toBe(404);
      const none = await fetch(http.url, { method: "GET" });
      expect(none.status).toBe(400);
      expect((await fetch(http.url.replace("/mcp", "/other"), { method: "POST", body: "{}" })).status).toBe(404);
    } finally {
      await http.close();
    }
  });

  for (const json of [false, true]) {
    it(`answers malformed messages like stdio: -32600 with the id, batches refused, huge bodies 413 (${json ? "JSON answers" : "SSE answers"})`, async () => {
      const http = await serveStreamableHttp(
        () => {
          const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
          if (json) answerAsJson(server, ["ping"]);
          return server;
        },
        { log: () => undefined },
      );
      try {
        const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
        await initialize(http.url, headers);
        const post = async (body: string) => {
          const r = await fetch(http.url, { method: "POST", headers, body });
          const text = await r.text();
          const data = text.startsWith("event:") ? text.split("\n").find((l) => l.startsWith("data: "))!.slice(6) : text;
          return { status: r.status, body: data === "" ? undefined : (JSON.parse(data) as Record<string, unknown>) };
        };
        expect(await post('{"jsonrpc":"1.0","id":5,"method":"ping"}')).toMatchObject({ status: 400, body: { id: 5, error: { code: -32600 } } });
        expect(await post('{"jsonrpc":"2.0","id":"s","method":42}')).toMatchObject({ status: 400, body: { id: "s", error: { code: -32600 } } });
        expect(await post('{"jsonrpc":"2.0","id":6,"method":"ping"')).toMatchObject({ status: 400, body: { id: null, error: { code: -32700 } } });
        expect(await post('[{"jsonrpc":"2.0","id":7,"method":"ping"}]')).toMatchObject({ status: 400, body: { id: null, error: { code: -32600 } } });
        expect(await post("[]")).toMatchObject({ status: 400, body: { id: null, error: { code: -32600 } } });
        const huge = JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping", params: { pad: "z".repeat(5 * 1024 * 1024) } });
        expect(await post(huge)).toMatchObject({ status: 413, body: { id: null, error: { code: -32600 } } });
        expect(await post('\uFEFF{"jsonrpc":"2.0","id":9,"method":"ping"}')).toMatchObject({ status: 200, body: { id: 9, result: {} } });
      } finally {
        await http.close();
      }
    });
  }

  it("holds what goes on a session's stream until the client first opens it (at most 100, the oldest dropped), then sends it in order", async () => {
    const servers: Server[] = [];
    const http = await serveStreamableHttp(
      () => {
        const server = new Server({ name: "t", version: "1" }, { capabilities: { logging: {} } });
        servers.push(server);
        return server;
      },
      { log: () => undefined },
    );
    try {
      const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
      await initialize(http.url, headers);
      const server = servers[0]!;
      // Sent before the client opened its stream: 102 notifications, of which the last 100 are kept.
      for (let i = 0; i < 102; i++) await server.sendLoggingMessage({ level: "info", data: `before ${i}` });
      const stream = await fetch(http.url, { method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18" } });
      expect(stream.status).toBe(200);
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      const seen: unknown[] = [];
      let buffer = "";
      const read = async (count: number) => {
        while (seen.length < count) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the stream ended after ${seen.length} messages`);
          buffer += value;
          for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
            const data = buffer.slice(0, end).split("\n").find((l) => l.startsWith("data: "));
            buffer = buffer.slice(end + 2);
            if (data !== undefined) seen.push((JSON.parse(data.slice(6)) as { params: { data: unknown } }).params.data);
          }
        }
      };
      await read(100);
      expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => `before ${i + 2}`));
      // Once open, what is sent goes on it as it is sent.
      await server.sendLoggingMessage({ level: "info", data: "after" });
      await read(101);
      expect(seen[100]).toBe("after");
      await reader.cancel();
    } finally {
      await http.close();
    }
  });
});
