import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { isPlainRequest, serveStreamableHttp, TaskStdioServerTransport } from "../../runtime/transports.js";

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
    expect(await next()).toMatchObject({ error: { code: -32600, message: "Invalid Request: message too large" } });
    await t.close();
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
});

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
});
