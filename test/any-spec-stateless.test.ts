/**
 * A per-request spec of our own (protocol.lifecycle per-request, core 2026-07-28): it validates,
 * generates code that type-checks (tsc --strict), and the demo server generated from it works end
 * to end over stateless HTTP, through the generated client (TaskClient on the generated
 * StatelessHttpClient) and through raw JSON-RPC POSTs, and over the runtime's stateless stdio.
 *
 * test/fixtures/specs/relay.yaml: relays/status, relays/answer and relays/stop for get, update and
 * cancel; the id field `relayId`, the status field `phase` with states accepted, waiting,
 * delivered, bounced and dropped; questions inline in the status answer (`questions`, answered in
 * `replies`), the output inline (`output`, a failure in `fault`); the extension
 * `com.example/relays`; errors of its own names (noSuchRelay, capabilityMissing, routingMismatch,
 * noSuchMethod); a `percentDone` field the work sets; the relay id repeated in Mcp-Name; resources/read
 * as a relay, served through the generated addHandlers.
 *
 * No assertion depends on timing: waits poll until a state is reached (bounded only to fail
 * instead of hanging).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { TaskClient, TaskClientOptions } from "../runtime/client.js";
import type { StatelessClientOptions, StatelessHttpClient } from "../runtime/stateless-client.js";
import { checker } from "./helpers/typecheck.js";
import { eventually as until, httpChild, rejection } from "./seed-harness.js";

const root = join(import.meta.dirname, "..");
const spec = join(root, "test/fixtures/specs/relay.yaml");
const work = join(root, ".tmp", "any-spec-stateless");
const out = join(work, "relay");

const EXT = "com.example/relays";
const CAPS = "io.modelcontextprotocol/clientCapabilities";
const VERSION = "2026-07-28";

type Json = Record<string, any>;
type Relay = { relayId: string; phase: string; percentDone: number } & Json;
/** The generated client.ts and stateless-client.ts, as the test uses them. */
interface Generated {
  TaskClient: new (connection: StatelessHttpClient, options?: TaskClientOptions<Relay>) => TaskClient<Relay>;
  StatelessHttpClient: new (options: StatelessClientOptions) => StatelessHttpClient;
}

const any = z.record(z.string(), z.unknown());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The demo server on the relay spec, a child process; `args` picks the transport. */
function demo(args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "demo-server.ts"), spec, ...args], {
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify({ pollFrequency: 50 }) },
  });
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

beforeAll(() => {
  mkdirSync(work, { recursive: true });
  copyFileSync(join(root, "output-samples/tsconfig.json"), join(work, "tsconfig.json"));
  const run = spawnSync(process.execPath, [join(root, "bin/mcp-task-gen.js"), "generate", "--spec", spec, "--out", out, "--quiet"], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
}, 120_000);

describe("relay.yaml: served, not refused", () => {
  it("validates with no diagnostic, warnings included", () => {
    const run = spawnSync(process.execPath, [join(root, "bin/mcp-task-gen.js"), "validate", spec, "--warn-as-error"], { encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stdout + run.stderr).toMatch(/valid \(0 errors, 0 warnings\)/);
  });

  it("tsc --strict accepts its output, the stateless server and client included", () => {
    expect(checker(work)().map((e) => `${e.file}:${e.line} ${e.message}`)).toEqual([]);
  }, 120_000);

  it("nothing declared is left unserved", async () => {
    const { UNSUPPORTED_BEHAVIOURS } = (await import(join(out, "server.ts"))) as { UNSUPPORTED_BEHAVIOURS: readonly string[] };
    expect(UNSUPPORTED_BEHAVIOURS).toEqual([]);
    const { TASK_REQUEST_METHODS, SERVER_CAPABILITIES } = (await import(join(out, "stateless-server.ts"))) as Json;
    expect(TASK_REQUEST_METHODS).toEqual(["relays/status", "relays/answer", "relays/stop"]);
    expect(SERVER_CAPABILITIES).toEqual({ tools: {}, extensions: { [EXT]: {} } });
  });
});

describe("relay.yaml over stateless HTTP", () => {
  let child: ChildProcess;
  let url: string;
  let served: ReturnType<typeof httpChild>;
  let gen: Generated;

  beforeAll(async () => {
    gen = {
      ...((await import(join(out, "client.ts"))) as Pick<Generated, "TaskClient">),
      ...((await import(join(out, "stateless-client.ts"))) as Pick<Generated, "StatelessHttpClient">),
    };
    child = demo(["--http", "0"]);
    served = httpChild(child, "the relay demo server");
    url = await served.url;
  }, 120_000);

  afterAll(() => stop(child));

  /** The generated client over the generated connection, answering input requests with `answer`. */
  function connect(answer: (request: { method: string; params?: Json }, key: string) => Promise<unknown> = async () => ({ action: "accept", content: {} })) {
    const conn = new gen.StatelessHttpClient({ url, clientInfo: { name: "any-spec-stateless", version: "0.0.0" }, capabilities: { elicitation: {} }, onInputRequest: answer });
    return { conn, relays: new gen.TaskClient(conn, { defaultPollFrequency: 50, onInputRequest: (request, key) => answer(request, key) }) };
  }

  /** One raw JSON-RPC POST; `capabilities` replaces the declared ones, `headers` add to or replace the defaults. */
  async function post(method: string, params: Json, opts: { name?: string; capabilities?: Json; headers?: Record<string, string>; id?: unknown } = {}) {
    const id = opts.id ?? Math.floor(Math.random() * 1e9);
    const body = {
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": VERSION,
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
          [CAPS]: opts.capabilities ?? { elicitation: {}, extensions: { [EXT]: {} } },
        },
      },
    };
    return send(JSON.stringify(body), {
      "mcp-method": method,
      ...(opts.name === undefined ? {} : { "mcp-name": opts.name }),
      ...(opts.headers ?? {}),
    });
  }

  async function send(body: string, headers: Record<string, string> = {}) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": VERSION, ...headers },
      body,
    });
    const text = await response.text();
    const data = text.split("\n").find((l) => l.startsWith("data:"));
    return { status: response.status, message: JSON.parse(data === undefined ? text : data.slice(5)) as Json };
  }

  const resultOf = (x: { message: Json }) => {
    if (x.message.error !== undefined) throw new Error(`unexpected error ${JSON.stringify(x.message.error)}`);
    return x.message.result as Json;
  };
  const status = async (relayId: string) => resultOf(await post("relays/status", { relayId }, { name: relayId }));
  const create = async (name: string, args: Json) => resultOf(await post("tools/call", { name, arguments: args }, { name }));

  describe("the generated client", () => {
    it("a tool call becomes a relay, polled through relays/status to its inline output; the work's percentDone reaches the client", async () => {
      const { relays } = connect();
      const seen: Relay[] = [];
      const result = await relays.callTool({ name: "slow_compute", arguments: { seconds: 0.5 } }, { onTaskStatus: (r) => void seen.push(r) });
      expect(result.content).toEqual([{ type: "text", text: "Computed for 0.5 s" }]);
      expect(seen.map((r) => r.phase)).toContain("accepted");
      expect(seen.at(-1)).toMatchObject({ phase: "delivered", percentDone: 100 });
      expect(seen.some((r) => r.percentDone > 0 && r.percentDone < 100)).toBe(true);
      expect(new Set(seen.map((r) => r.relayId)).size).toBe(1);
      expect(seen[0]).not.toHaveProperty("taskId");
      expect(seen[0]).not.toHaveProperty("status");
    });

    it("start answers the flat ticket; getTask reads it by relayId; the output is inline once delivered", async () => {
      const { relays } = connect();
      const started = await relays.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0.1 } } }, any);
      if (!("task" in started)) throw new Error("slow_compute answered without a relay");
      const ticket = started.task;
      expect(ticket).toMatchObject({ resultType: "task", phase: "accepted", percentDone: 0, keepForMs: 600_000, pollEveryMs: 50 });
      expect(await relays.waitForTask(ticket.relayId, any)).toMatchObject({ content: [{ type: "text", text: "Computed for 0.1 s" }] });
      expect(await relays.getTask(ticket.relayId)).toMatchObject({ relayId: ticket.relayId, phase: "delivered", output: { content: [{ type: "text", text: "Computed for 0.1 s" }] } });
    });

    it("the relay's questions are answered with onInputRequest through relays/answer", async () => {
      const asked: string[] = [];
      const { relays } = connect(async (request) => {
        asked.push(`${request.method}: ${String(request.params?.message)}`);
        return { action: "accept", content: { confirm: true } };
      });
      const phases: string[] = [];
      const result = await relays.callTool({ name: "confirm_delete", arguments: { filename: "a.txt" } }, { onTaskStatus: (r) => void phases.push(r.phase) });
      expect(result.content).toEqual([{ type: "text", text: "Deleted a.txt" }]);
      expect(asked).toEqual(["elicitation/create: Delete a.txt?"]);
      expect(phases).toContain("waiting");
      expect(phases.at(-1)).toBe("delivered");
    });

    it("cancelTask stops a relay through relays/stop; aborting a wait does too", async () => {
      const { relays } = connect();
      const started = await relays.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 600 } } }, any);
      if (!("task" in started)) throw new Error("no relay");
      expect(await relays.cancelTask(started.task.relayId)).toMatchObject({ resultType: "complete" });
      await until(async () => ((await relays.getTask(started.task.relayId)).phase === "dropped" ? true : undefined), "dropped");
      const again = await relays.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 600 } } }, any);
      if (!("task" in again)) throw new Error("no relay");
      const ac = new AbortController();
      const waiting = relays.waitForTask(again.task.relayId, any, { signal: ac.signal });
      ac.abort();
      expect((await rejection(waiting)).name).toBe("TaskCancelledError");
      expect((await relays.getTask(again.task.relayId)).phase).toBe("dropped");
    });

    it("a bounced relay rejects with its inline fault; an unknown relay id is the spec's own not-found error", async () => {
      const { relays } = connect();
      const started = await relays.start({ method: "tools/call", params: { name: "protocol_error_job", arguments: {} } }, any);
      if (!("task" in started)) throw new Error("no relay");
      expect(await rejection(relays.waitForTask(started.task.relayId, any))).toMatchObject({ code: -32603, message: "Tool execution failed: API rate limit exceeded" });
      expect(await relays.getTask(started.task.relayId)).toMatchObject({ phase: "bounced", fault: { code: -32603 }, note: "Tool execution failed: API rate limit exceeded" });
      // One at a time: a second call made at once could reject while the first is awaited, unhandled until then.
      for (const call of [() => relays.getTask("no-such-relay"), () => relays.cancelTask("no-such-relay"), () => relays.updateTask("no-such-relay", {})]) {
        expect(await rejection(call())).toMatchObject({ code: -32602, message: "Unknown relay" });
      }
    });
  });

  describe("raw JSON-RPC", () => {
    it("server/discover advertises the relays extension", async () => {
      const discovered = resultOf(await post("server/discover", {}));
      expect(discovered.supportedVersions).toEqual([VERSION]);
      expect(discovered.capabilities.extensions).toEqual({ [EXT]: {} });
    });

    it("tools/call answers a ticket with the spec's fields only; relays/status follows it to its inline output", async () => {
      const ticket = await create("slow_compute", { seconds: 0.5 });
      expect(ticket).toMatchObject({ resultType: "task", phase: "accepted", percentDone: 0, keepForMs: 600_000, pollEveryMs: 50 });
      expect(typeof ticket.relayId).toBe("string");
      for (const k of ["taskId", "status", "ttlMs", "pollIntervalMs", "statusMessage", "result", "error", "inputRequests"]) expect(ticket).not.toHaveProperty(k);
      const percents = new Set<number>();
      const done = await until(async () => {
        const r = await status(ticket.relayId);
        percents.add(r.percentDone);
        return r.phase === "delivered" ? r : undefined;
      }, "delivered");
      expect(done).toMatchObject({ relayId: ticket.relayId, resultType: "complete", percentDone: 100, output: { content: [{ type: "text", text: "Computed for 0.5 s" }] } });
      expect(done).not.toHaveProperty("fault");
      expect([...percents].some((p) => p > 0 && p < 100)).toBe(true);
    });

    it("questions are inline while waiting; partial replies through relays/answer keep it waiting until the last one", async () => {
      const ticket = await create("multi_input", {});
      const waiting = await until(async () => {
        const r = await status(ticket.relayId);
        return r.phase === "waiting" && Object.keys(r.questions ?? {}).length === 2 ? r : undefined;
      }, "two questions");
      expect(waiting).not.toHaveProperty("inputRequests");
      const questions = waiting.questions as Record<string, { method: string; params: { message: string } }>;
      const byMessage = Object.fromEntries(Object.entries(questions).map(([k, q]) => [q.params.message, k]));
      expect(Object.keys(byMessage).sort()).toEqual(["Your colour?", "Your name?"]);
      const reply = (key: string, value: string) => post("relays/answer", { relayId: ticket.relayId, replies: { [key]: { action: "accept", content: { value } } } }, { name: ticket.relayId });
      expect(resultOf(await reply(byMessage["Your name?"]!, "Ada"))).toMatchObject({ resultType: "complete" });
      const partial = await status(ticket.relayId);
      expect(partial.phase).toBe("waiting");
      expect(Object.keys(partial.questions)).toEqual([byMessage["Your colour?"]]);
      resultOf(await reply(byMessage["Your colour?"]!, "teal"));
      const done = await until(async () => {
        const r = await status(ticket.relayId);
        return r.phase === "delivered" ? r : undefined;
      }, "delivered");
      expect(done.output.content).toEqual([{ type: "text", text: "name=Ada colour=teal" }]);
    });

    it("relays/stop acknowledges, the relay ends dropped with a note, a second stop gets the same ack", async () => {
      const ticket = await create("slow_compute", { seconds: 600 });
      const stopRelay = () => post("relays/stop", { relayId: ticket.relayId }, { name: ticket.relayId });
      expect(resultOf(await stopRelay())).toMatchObject({ resultType: "complete" });
      const dropped = await until(async () => {
        const r = await status(ticket.relayId);
        return r.phase === "dropped" ? r : undefined;
      }, "dropped");
      expect(typeof dropped.note).toBe("string");
      expect(dropped).not.toHaveProperty("output");
      expect(resultOf(await stopRelay())).toMatchObject({ resultType: "complete" });
      await until(async () => (served.stderr().includes(`"msg":"slow_compute aborted","taskId":"${ticket.relayId}"`) ? true : undefined), "the work aborted");
    });

    it("an unknown relay id is -32602 'Unknown relay' on every relay method", async () => {
      for (const method of ["relays/status", "relays/answer", "relays/stop"]) {
        const x = await post(method, { relayId: "no-such-relay", replies: {} }, { name: "no-such-relay" });
        expect(x.message.error, method).toEqual({ code: -32602, message: "Unknown relay" });
      }
    });

    it("methods it does not have: the listed relays/list is its own error (HTTP 404), the built-in names are -32601", async () => {
      const listed = await post("relays/list", {});
      expect(listed.status).toBe(404);
      expect(listed.message.error).toEqual({ code: -32601, message: "No such method" });
      for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
        const x = await post(method, { taskId: "x", inputResponses: {} }, { name: "x" });
        expect(x.status, method).toBe(404);
        expect(x.message.error.code, method).toBe(-32601);
      }
    });

    it("the relay id must be repeated in Mcp-Name: missing or different is -32020, HTTP 400", async () => {
      const ticket = await create("slow_compute", { seconds: 600 });
      for (const name of [undefined, "another-relay"]) {
        const x = await post("relays/status", { relayId: ticket.relayId }, name === undefined ? {} : { name });
        expect(x.status).toBe(400);
        expect(x.message.error).toEqual({ code: -32020, message: "Routing header mismatch: Mcp-Name" });
      }
      resultOf(await post("relays/stop", { relayId: ticket.relayId }, { name: ticket.relayId }));
    });

    it("without the relays extension: relay methods and a relay-only tool are -32021 naming it (HTTP 400); other tools answer at once", async () => {
      const caps = { elicitation: {} };
      for (const method of ["relays/status", "relays/answer", "relays/stop"]) {
        const x = await post(method, { relayId: "r", replies: {} }, { name: "r", capabilities: caps });
        expect(x.status, method).toBe(400);
        expect(x.message.error, method).toEqual({ code: -32021, message: "This needs the relays extension", data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
      }
      const only = await post("tools/call", { name: "failing_job", arguments: {} }, { name: "failing_job", capabilities: caps });
      expect(only.status).toBe(400);
      expect(only.message.error.code).toBe(-32021);
      const plain = resultOf(await post("tools/call", { name: "slow_compute", arguments: { seconds: 0 } }, { name: "slow_compute", capabilities: caps }));
      expect(plain).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "Computed for 0 s" }] });
      expect(plain).not.toHaveProperty("relayId");
    });

    it("malformed requests: bad params are -32602 naming the spec's fields; bad JSON -32700 and a batch -32600 (HTTP 400)", async () => {
      const ticket = await create("slow_compute", { seconds: 600 });
      const noId = await post("relays/status", { taskId: ticket.relayId }, { name: ticket.relayId });
      expect(noId.message.error.code).toBe(-32602);
      expect(noId.message.error.message).toMatch(/relayId/);
      for (const replies of [undefined, 5, { q: { method: "elicitation/create" } }]) {
        const x = await post("relays/answer", { relayId: ticket.relayId, ...(replies === undefined ? {} : { replies }) }, { name: ticket.relayId, id: 41 });
        expect(x.message).toMatchObject({ id: 41, error: { code: -32602, message: expect.stringMatching(/^Invalid params for relays\/answer: replies/) } });
      }
      const notJson = await send("{not json", { "mcp-method": "relays/status" });
      expect(notJson.status).toBe(400);
      expect(notJson.message.error.code).toBe(-32700);
      const batch = await send(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "relays/status", params: { relayId: ticket.relayId } }]), { "mcp-method": "relays/status" });
      expect(batch.status).toBe(400);
      expect(batch.message.error.code).toBe(-32600);
      resultOf(await post("relays/stop", { relayId: ticket.relayId }, { name: ticket.relayId }));
    });
  });
});

describe("relay.yaml over the stateless stdio transport", () => {
  let child: ChildProcess;
  const messages: Json[] = [];
  let nextId = 1;

  beforeAll(async () => {
    child = demo([]);
    let stderr = "";
    child.stderr!.setEncoding("utf8");
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.trim() !== "") messages.push(JSON.parse(line) as Json);
    });
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on("data", (d: string) => {
        stderr += d;
        if (stderr.includes('"msg":"serving on stdio"')) resolve();
      });
      child.once("exit", (code) => reject(new Error(`demo server exited (${code}):\n${stderr}`)));
    });
  }, 120_000);

  afterAll(() => stop(child));

  const answerTo = (id: number) => until(async () => messages.find((m) => m.id === id && !("method" in m)), `the answer to ${id}`);
  async function request(method: string, params: Json): Promise<Json> {
    const id = nextId++;
    const meta = { "io.modelcontextprotocol/protocolVersion": VERSION, [CAPS]: { elicitation: {}, extensions: { [EXT]: {} } } };
    child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }) + "\n");
    return answerTo(id);
  }

  it("a relay is made, answered and polled to its inline output under the spec's names", async () => {
    const ticket = (await request("tools/call", { name: "confirm_delete", arguments: { filename: "b.txt" } })).result as Json;
    expect(ticket).toMatchObject({ resultType: "task", phase: "accepted" });
    const waiting = await until(async () => {
      const r = (await request("relays/status", { relayId: ticket.relayId })).result as Json;
      return r.phase === "waiting" ? r : undefined;
    }, "waiting");
    const [key] = Object.keys(waiting.questions);
    expect((await request("relays/answer", { relayId: ticket.relayId, replies: { [key!]: { action: "accept", content: { confirm: true } } } })).result).toMatchObject({ resultType: "complete" });
    const done = await until(async () => {
      const r = (await request("relays/status", { relayId: ticket.relayId })).result as Json;
      return r.phase === "delivered" ? r : undefined;
    }, "delivered");
    expect(done.output.content).toEqual([{ type: "text", text: "Deleted b.txt" }]);
  });

  it("relays/stop, an unknown id, the listed relays/list and malformed lines get the spec's answers", async () => {
    const ticket = (await request("tools/call", { name: "slow_compute", arguments: { seconds: 600 } })).result as Json;
    expect((await request("relays/stop", { relayId: ticket.relayId })).result).toMatchObject({ resultType: "complete" });
    await until(async () => (((await request("relays/status", { relayId: ticket.relayId })).result as Json).phase === "dropped" ? true : undefined), "dropped");
    expect((await request("relays/status", { relayId: "no-such-relay" })).error).toEqual({ code: -32602, message: "Unknown relay" });
    expect((await request("relays/list", {})).error).toEqual({ code: -32601, message: "No such method" });
    expect((await request("relays/answer", { relayId: ticket.relayId, replies: 5 })).error).toMatchObject({ code: -32602 });
    const before = messages.length;
    child.stdin!.write("{not json\n");
    const parseError = await until(async () => messages.slice(before).find((m) => m.error !== undefined), "the parse error");
    expect(parseError).toMatchObject({ id: null, error: { code: -32700 } });
  });
});

describe("relay.yaml: resources served through the generated addHandlers", () => {
  type Served = { url: string; close(): Promise<void> };
  let served: Served;
  let release: () => void = () => undefined;
  const read: string[] = [];

  beforeAll(async () => {
    const { TaskRuntime } = (await import(join(out, "server.ts"))) as { TaskRuntime: new (o: Json) => unknown };
    const { addHandlers } = (await import(join(out, "handlers.ts"))) as { addHandlers: (runtime: unknown, handlers: Json) => unknown };
    const { serveStatelessHttp } = (await import(join(out, "stateless-server.ts"))) as {
      serveStatelessHttp: (runtime: unknown, options: Json) => Promise<Served>;
    };
    const runtime = new TaskRuntime({ audit: false, log: () => undefined, pollFrequency: 20 });
    const handlers = {
      tools: [],
      listResources: async () => ({ resources: [{ uri: "relay://log", name: "log" }] }),
      // Holds until the test releases it, so that the relay is seen before it ends.
      readResource: async (request: { params: { uri: string } }) => {
        read.push(request.params.uri);
        if (request.params.uri !== "relay://log") throw new Error(`no resource ${request.params.uri}`);
        await new Promise<void>((r) => (release = r));
        return { contents: [{ uri: "relay://log", mimeType: "text/plain", text: "all relays delivered" }] };
      },
    };
    served = await serveStatelessHttp(addHandlers(runtime, handlers), { port: 0, host: "127.0.0.1", serverInfo: { name: "relay-resources", version: "0" } });
  });
  afterAll(() => served?.close());

  async function post(method: string, params: Json, name?: string, capabilities: Json = { extensions: { [EXT]: {} } }): Promise<Json> {
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method,
      params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" }, [CAPS]: capabilities } },
    };
    const response = await fetch(served.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-method": method,
        ...(name === undefined ? {} : { "mcp-name": name }),
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const data = text.split("\n").find((l) => l.startsWith("data:"));
    return JSON.parse(data === undefined ? text : data.slice(5)) as Json;
  }

  it("declares resources, lists them, and runs a resources/read as a relay polled to its inline output", async () => {
    const discovered = await post("server/discover", {});
    expect(discovered.result?.capabilities).toMatchObject({ resources: {}, extensions: { [EXT]: {} } });
    expect((await post("resources/list", {})).result).toMatchObject({ resources: [{ uri: "relay://log", name: "log" }] });
    const ticket = (await post("resources/read", { uri: "relay://log" }, "relay://log")).result as Json;
    expect(ticket).toMatchObject({ resultType: "task", phase: "accepted" });
    const status = (relayId: string) => post("relays/status", { relayId }, relayId);
    expect(((await status(ticket.relayId)).result as Json).phase).toBe("accepted");
    await until(async () => (read.length > 0 ? true : undefined), "the read to start");
    release();
    const done = await until(async () => {
      const r = (await status(ticket.relayId)).result as Json;
      return r.phase === "delivered" ? r : undefined;
    }, "delivered");
    expect(done.output).toMatchObject({ contents: [{ uri: "relay://log", text: "all relays delivered" }] });
  });

  it("a requestor without the extension is answered directly", async () => {
    const pending = post("resources/read", { uri: "relay://log" }, "relay://log", {});
    await until(async () => (read.length > 1 ? true : undefined), "the second read to start");
    release();
    expect((await pending).result).toMatchObject({ resultType: "complete", contents: [{ text: "all relays delivered" }] });
  });
});
