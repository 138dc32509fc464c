/**
 * The runtime's StatelessHttpClient against a tiny node:http server on
 * 127.0.0.1: the `_meta` envelope, the routing headers, input_required rounds,
 * SSE answers and errors; and the TaskClient on top of it (ext-tasks descriptor).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { descriptorOf } from "./descriptors.js";
import { StatelessHttpClient, encodeHeaderValue, envelopeKeysOf, mergeCapabilities, nameSourcesOf, protocolVersionOf } from "../../runtime/stateless-client.js";
import { TaskClient } from "../../runtime/client.js";
import { TaskProtocolError } from "../../runtime/errors.js";

type Json = Record<string, unknown>;
interface Seen {
  headers: IncomingHttpHeaders;
  body: { id: number; method: string; params: Json };
}

const seen: Seen[] = [];
let server: Server;
let url: string;
let discovers = 0;
const now = new Date().toISOString();
const task = (status: string, extra: Json = {}) => ({ taskId: "t-1", status, createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, pollIntervalMs: 10, ...extra });
let polls = 0;

/** The scripted server: one JSON-RPC answer per POST. */
function answer(body: Seen["body"]): { status?: number; result?: unknown; error?: unknown; sse?: boolean } {
  const p = body.params;
  switch (body.method) {
    case "server/discover":
      discovers++;
      return { result: { supportedVersions: ["x"], capabilities: {} } };
    case "tools/call":
      if (p.name === "ask") {
        if (p.inputResponses === undefined) {
          return { result: { resultType: "input_required", inputRequests: { q1: { method: "elicitation/create", params: { message: "Go?" } } }, requestState: "state-1" } };
        }
        return { result: { resultType: "complete", content: [{ type: "text", text: `answered ${JSON.stringify(p.inputResponses)} in ${String(p.requestState)}` }] } };
      }
      if (p.name === "as-task") return { result: { resultType: "task", ...task("working") } };
      if (p.name === "stream") return { sse: true, result: { resultType: "complete", content: [{ type: "text", text: "via sse" }] } };
      return { result: { resultType: "complete", content: [{ type: "text", text: `hello ${String(p.name)}` }] } };
    case "tasks/get":
      return { result: ++polls < 2 ? { resultType: "complete", ...task("working") } : { resultType: "complete", ...task("completed", { result: { content: [{ type: "text", text: "from task" }] } }) } };
    default:
      return { status: 404, error: { code: -32601, message: "Method not found", data: { method: body.method } } };
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => {
      const body = JSON.parse(raw) as Seen["body"];
      seen.push({ headers: req.headers, body });
      const a = answer(body);
      const message = a.error !== undefined ? { jsonrpc: "2.0", id: body.id, error: a.error } : { jsonrpc: "2.0", id: body.id, result: a.result };
      if (a.sse) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } })}\n\n`);
        res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
        return;
      }
      res.writeHead(a.status ?? 200, { "content-type": "application/json" });
      res.end(JSON.stringify(message));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const anyResult = z.looseObject({});

describe("StatelessHttpClient (ext-tasks-2026-07-28 descriptor)", () => {
  it("reads the protocol version, envelope keys and header routing from the descriptor", async () => {
    const d = await descriptorOf("ext-tasks-2026-07-28");
    expect(protocolVersionOf(d)).toBe(d.spec.protocol.protocolVersion);
    expect(protocolVersionOf(d)).not.toBe("");
    expect(envelopeKeysOf(d)).toEqual({
      protocolVersion: "io.modelcontextprotocol/protocolVersion",
      clientInfo: "io.modelcontextprotocol/clientInfo",
      clientCapabilities: d.meta.clientCapabilities,
    });
    const sources = nameSourcesOf(d);
    expect(sources["tools/call"]).toEqual({ header: "mcp-name", field: "name" });
    for (const m of (d.behaviour.http as { methods: readonly string[] }).methods) expect(sources[m]).toEqual({ header: "mcp-name", field: "taskId" });
  });

  it("a task method routed by header repeats the spec's own task id field in the spec's own header", async () => {
    const d = await descriptorOf("ext-tasks-2026-07-28");
    const http = d.behaviour.http as { header: string; methods: readonly string[]; mismatchError: string };
    const renamed = { ...d, behaviour: { ...d.behaviour, taskIdField: "relayId", http: { ...http, methods: ["relays/status"], header: "X-Relay-Id" } } };
    expect(nameSourcesOf(renamed)["relays/status"]).toEqual({ header: "x-relay-id", field: "relayId" });
    const client = new StatelessHttpClient(renamed, { url });
    seen.length = 0;
    await client.send("relays/status", { relayId: "r-7" }).catch(() => undefined);
    expect(seen[0]!.headers["x-relay-id"]).toBe("r-7");
    expect(seen[0]!.headers["mcp-name"]).toBeUndefined();
  });

  it("sends one POST per request with the _meta envelope and the routing headers", async () => {
    const d = await descriptorOf("ext-tasks-2026-07-28");
    const client = new StatelessHttpClient(d, { url, clientInfo: { name: "unit", version: "1" }, capabilities: { sampling: {} }, headers: { Authorization: "Bearer x" } });
    const keys = envelopeKeysOf(d);
    seen.length = 0;
    const result = await client.request({ method: "tools/call", params: { name: "echo", _meta: { [keys.clientCapabilities]: { elicitation: {} }, extra: 1 } } }, anyResult);
    expect(result.content).toEqual([{ type: "text", text: "hello echo" }]);
    expect(seen).toHaveLength(1);
    const { headers, body } = seen[0]!;
    expect(headers["mcp-protocol-version"]).toBe(protocolVersionOf(d));
    expect(headers["mcp-method"]).toBe("tools/call");
    expect(headers["mcp-name"]).toBe("echo");
    expect(headers.authorization).toBe("Bearer x");
    expect(body.params._meta).toEqual({
      [keys.protocolVersion]: protocolVersionOf(d),
      [keys.clientInfo]: { name: "unit", version: "1" },
      [keys.clientCapabilities]: { sampling: {}, elicitation: {} },
      extra: 1,
    });
    // A name that is not plain visible ASCII travels base64-encoded.
    seen.length = 0;
    await client.request({ method: "tools/call", params: { name: "héllo" } }, anyResult);
    expect(seen[0]!.headers["mcp-name"]).toBe(encodeHeaderValue("héllo"));
    expect(encodeHeaderValue("héllo")).toBe(`=?base64?${Buffer.from("héllo").toString("base64")}?=`);
  });

  it("answers an input_required round with onInputRequest and retries with inputResponses and requestState", async () => {
    const d = await descriptorOf("ext-tasks-2026-07-28");
    const asked: string[] = [];
    const client = new StatelessHttpClient(d, { url, onInputRequest: async (request, key) => (asked.push(`${key}:${request.method}`), { action: "accept" }) });
    seen.length = 0;
    const result = await client.request({ method: "tools/call", params: { name: "ask" } }, anyResult);
    expect(asked).toEqual(["q1:elicitation/create"]);
    expect(result.content).toEqual([{ type: "text", text: 'answered {"q1":{"action":"accept"}} in state-1' }]);
    expect(seen.map((s) => s.body.params.inputResponses)).toEqual([undefined, { q1: { action: "accept" } }]);
    expect(seen[1]!.body.params.requestState).toBe("state-1");
    const without = new StatelessHttpClient(d, { url });
    await expect(without.request({ method: "tools/call", params: { name: "ask" } }, anyResult)).rejects.toMatchObject({
      code: -32603,
      message: "tools/call needs input (q1) and no onInputRequest handler is set",
    });
  });

  it("reads an SSE answer, rejects JSON-RPC errors with the HTTP status, memoises server/discover", async () => {
    const d = await descriptorOf("ext-tasks-2026-07-28");
    const client = new StatelessHttpClient(d, { url });
    expect((await client.request({ method: "tools/call", params: { name: "stream" } }, anyResult)).content).toEqual([{ type: "text", text: "via sse" }]);
    const err = await client.request({ method: "nope/nothing", params: {} }, anyResult).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskProtocolError);
    expect(err).toMatchObject({ code: -32601, message: "Method not found", httpStatus: 404, data: { method: "nope/nothing" } });
    await expect(client.request({ method: "tools/call", params: { name: "echo" } }, z.object({ missing: z.string() }))).rejects.toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^Invalid result of tools\/call: missing:/),
    });
    discovers = 0;
    await Promise.all([client.discover(), client.discover()]);
    expect(discovers).toBe(1);
  });

  it("carries the TaskClient: a flat task, then tasks/get routed by Mcp-Name until the inline result", async () => {
    const d = await descriptorOf("ext-tasks-2026-07-28");
    const conn = new StatelessHttpClient(d, { url });
    const tasks = new TaskClient(d, conn, { defaultPollFrequency: 5 });
    seen.length = 0;
    polls = 0;
    const result = await tasks.callTool({ name: "as-task", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "from task" }]);
    expect(seen.map((s) => s.body.method)).toEqual(["tools/call", "tasks/get", "tasks/get"]);
    const keys = envelopeKeysOf(d);
    for (const s of seen) expect((s.body.params._meta as Json)[keys.clientCapabilities]).toEqual({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    expect(seen[1]!.headers["mcp-name"]).toBe("t-1");
    expect(seen[1]!.headers["mcp-method"]).toBe("tasks/get");
  });

  it("merges capability objects deeply (later wins on leaves)", () => {
    expect(mergeCapabilities({ a: { b: 1, c: { d: 1 } } }, { a: { c: { e: 2 } }, f: 3 })).toEqual({ a: { b: 1, c: { d: 1, e: 2 } }, f: 3 });
  });
});
