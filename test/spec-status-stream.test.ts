/**
 * Status notifications on the per-request lifecycle (test/fixtures/specs/relay-status.yaml: relays over
 * core 2026-07-28 with `behaviour.statusNotifications`): a requestor hears each change of phase as it
 * happens, the relay as relays/status answers it, on its subscriptions/listen stream: pushed (the core
 * has no session: the stream carries its relays' changes) or by subscription to relay ids; over the
 * generated stateless handler, in process, and over the runtime's stateless stdio.
 */
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { generateSpec } from "./helpers/serve-spec.js";

const SPEC = "test/fixtures/specs/relay-status.yaml";
const EXT = "com.example/relays";
const VERSION = "2026-07-28";
const META = { "io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientCapabilities": { extensions: { [EXT]: {} } } };

type Json = Record<string, any>;
let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.reverse()) await c();
  closers = [];
});

/** The push fixture, or its subscription variant (relay ids at notifications.relayIds). */
const BY_SUBSCRIPTION = (text: string) =>
  text.replace("    delivery: push\n", "    delivery: subscription\n    subscribeMethod: subscriptions/listen\n    subscribeField: notifications.relayIds\n");

/** The generated runtime of the fixture (or its variant), with one tool that works `ms`. */
async function runtimeOf(variant: "push" | "subscription") {
  const out = await generateSpec("spec-status-stream", `relay-status-${variant}`, SPEC, variant === "push" ? undefined : BY_SUBSCRIPTION);
  const gen = (await import(join(out, "server.ts"))) as Json;
  const stateless = (await import(join(out, "stateless-server.ts"))) as Json;
  const runtime = new gen.TaskRuntime({ audit: false, log: () => undefined, pollFrequency: 20 });
  runtime.addTools([
    gen.defineTool({
      name: "slow",
      taskSupport: "optional",
      inputSchema: z.object({ ms: z.number() }),
      handler: async ({ ms }: { ms: number }, ctx: { signal: AbortSignal }) => {
        await sleep(ms, undefined, { signal: ctx.signal });
        return { content: [{ type: "text", text: "relayed" }] };
      },
    }),
  ]);
  return { runtime, stateless };
}

async function serve(variant: "push" | "subscription") {
  const { runtime, stateless } = await runtimeOf(variant);
  const handler = stateless.createStatelessHandler(runtime, { subscriptionPollMs: 20 });
  closers.push(async () => {
    await handler.close();
    await runtime.close();
  });
  let id = 0;
  const post = (method: string, params: Json, signal?: AbortSignal) =>
    handler.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        ...(signal === undefined ? {} : { signal }),
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": VERSION,
          "mcp-method": method,
          // The core routes tools/call by the tool's name; the spec routes its task methods by the relay id.
          ...(typeof params.relayId === "string" ? { "mcp-name": params.relayId } : typeof params.name === "string" ? { "mcp-name": params.name } : {}),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: { ...params, _meta: META } }),
      }),
    ) as Promise<Response>;
  /** The JSON-RPC answer of a request (from a JSON body or the last message of an event stream). */
  const call = async (method: string, params: Json): Promise<Json> => {
    const r = await post(method, params);
    const text = await r.text();
    const messages = (r.headers.get("content-type") ?? "").includes("text/event-stream")
      ? text.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)))
      : [JSON.parse(text)];
    return messages[messages.length - 1];
  };
  return { post, call };
}

/** The messages of an event stream until `stop` says so (or `ms` pass). */
async function readStream(response: Response, stop: (m: Json) => boolean, ms = 5_000): Promise<Json[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const messages: Json[] = [];
  let buffer = "";
  const end = Date.now() + ms;
  while (Date.now() < end && !messages.some(stop)) {
    const next = await Promise.race([reader.read(), sleep(Math.max(1, end - Date.now())).then(() => ({ done: true, value: undefined }))]);
    if (next.done) break;
    buffer += next.value;
    for (let i = buffer.indexOf("\n\n"); i !== -1; i = buffer.indexOf("\n\n")) {
      const data = buffer.slice(0, i).split("\n").find((l) => l.startsWith("data:"));
      buffer = buffer.slice(i + 2);
      if (data) messages.push(JSON.parse(data.slice(5)));
    }
  }
  await reader.cancel().catch(() => undefined);
  return messages;
}

describe("status notifications on the per-request lifecycle", () => {
  for (const variant of ["push", "subscription"] as const) {
    it(`${variant}: the requestor's listen stream hears each change of phase, the relay as relays/status answers it`, async () => {
      const s = await serve(variant);
      const ticket = await s.call("tools/call", { name: "slow", arguments: { ms: 300 } });
      expect(ticket).toMatchObject({ result: { resultType: "task", phase: "accepted" } });
      const relayId = ticket.result.relayId as string;
      const ac = new AbortController();
      const stream = await s.post("subscriptions/listen", { notifications: variant === "push" ? {} : { relayIds: [relayId] } }, ac.signal);
      expect(stream.headers.get("content-type")).toContain("text/event-stream");
      const messages = await readStream(stream, (m) => m.method === "notifications/relays/phase" && m.params.phase === "delivered");
      ac.abort();
      const phases = messages.filter((m) => m.method === "notifications/relays/phase");
      expect(phases.length).toBeGreaterThan(0);
      expect(phases[phases.length - 1]!.params).toMatchObject({ relayId, phase: "delivered", output: { content: [{ type: "text", text: "relayed" }] } });
      const status = await s.call("relays/status", { relayId });
      expect(status.result).toMatchObject({ relayId, phase: "delivered" });
    });
  }

  it("push over stdio: the listen stream carries each change of phase of the requestor's relays", async () => {
    const { runtime } = await runtimeOf("push");
    const { serveStatelessStdio } = (await import("@mcp-task-gen/runtime/stateless-server")) as Json;
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const served = await serveStatelessStdio(runtime, { stdin, stdout, subscriptionPollMs: 20 });
    closers.push(async () => {
      await served.close();
      await runtime.close();
    });
    const messages: Json[] = [];
    let buffer = "";
    stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (let i = buffer.indexOf("\n"); i !== -1; i = buffer.indexOf("\n")) {
        const line = buffer.slice(0, i).trim();
        buffer = buffer.slice(i + 1);
        if (line) messages.push(JSON.parse(line));
      }
    });
    const send = (id: number, method: string, params: Json) => stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: META } })}\n`);
    const seen = async (found: (m: Json) => boolean, ms = 5_000) => {
      for (const end = Date.now() + ms; Date.now() < end; await sleep(10)) {
        const m = messages.find(found);
        if (m !== undefined) return m;
      }
      throw new Error(`not seen within ${ms} ms: ${JSON.stringify(messages)}`);
    };
    send(1, "tools/call", { name: "slow", arguments: { ms: 300 } });
    const relayId = (await seen((m) => m.id === 1)).result.relayId as string;
    send(2, "subscriptions/listen", { notifications: {} });
    const done = await seen((m) => m.method === "notifications/relays/phase" && m.params.phase === "delivered");
    expect(done.params).toMatchObject({ relayId, output: { content: [{ type: "text", text: "relayed" }] }, _meta: { "io.modelcontextprotocol/subscriptionId": 2 } });
  });
});
