/**
 * The ext-tasks requester library (@modelcontextprotocol/ext-tasks 0.2 on the SDK client
 * @modelcontextprotocol/client 2.4) against the generated servers (the demo server, a child
 * process) over Streamable HTTP on 127.0.0.1, in the SDK client's two protocol eras:
 *
 * - modern (version negotiation "auto" or pinned to the server's revision) against the
 *   ext-tasks-2026-07-28 server: server/discover, the Tasks extension negotiated (generation v2);
 *   tool calls and tasks/* go through the host's raw dispatch (the library needs one: the SDK
 *   client rejects task-shaped results), a fetch POST per request here with the envelope and
 *   routing headers;
 * - legacy (the SDK client's default, the 2025 initialize handshake): the per-request server
 *   refuses it with a clear error; against the mcp-2025-11-25 server it is generation v1.
 *
 * Create, poll, complete, fail, cancel and input in both. No assertion depends on timing: the
 * library polls at the server's suggested interval (50 ms).
 */
import { spawn } from "node:child_process";
import { z } from "zod";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpChild } from "./seed-harness.js";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  toolDeclarationFromMcpTool,
  TaskCancelledError,
  TaskFailedError,
  type ApplicationInputRequest,
} from "@modelcontextprotocol/ext-tasks/client";
import { taskId } from "@modelcontextprotocol/ext-tasks/core";

const root = join(import.meta.dirname, "..");
const VERSION = "2026-07-28";
const EXT = "io.modelcontextprotocol/tasks";
const OPTIONS = { pollFrequency: 50 };

let demo: ReturnType<typeof httpChild>;
let url: string;

beforeAll(async () => {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "demo-server.ts"), "ext-tasks-2026-07-28", "--http", "0"], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify(OPTIONS) },
  });
  demo = httpChild(child, "the ext-tasks demo server");
  url = await demo.url;
}, 60_000);

afterAll(() => demo?.stop());

type Json = Record<string, unknown>;
const clientInfo = { name: "ext-tasks-requester", version: "0.0.0" };
const clientCapabilities = { elicitation: { form: {} } };

/** The routing headers of a raw request: Mcp-Name from the tool name or the task id. */
function routingHeaders(request: Json): Record<string, string> {
  const params = (request.params ?? {}) as Json;
  const name = request.method === "tools/call" ? params.name : typeof params.taskId === "string" ? params.taskId : undefined;
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": String(request.method),
    ...(typeof name === "string" ? { "mcp-name": name } : {}),
  };
}

/** Reads the JSON-RPC response from a JSON or SSE body. */
async function responseOf(res: Response, id: unknown): Promise<Json> {
  const text = await res.text();
  if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) return JSON.parse(text) as Json;
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    if (!data) continue;
    const message = JSON.parse(data) as Json;
    if (message.id === id && ("result" in message || "error" in message)) return message;
  }
  throw new Error(`no response to request ${String(id)} in the event stream`);
}

let rawId = 1_000_000;
/** The host's raw dispatch the library uses for task-shaped traffic: one POST per request. */
const dispatched: Json[] = [];
async function rawDispatch(request: unknown, options: { signal?: AbortSignal; context?: { headers?: Readonly<Record<string, string>> } } = {}) {
  const req = request as Json;
  dispatched.push(req);
  const id = rawId++;
  const res = await fetch(url, {
    method: "POST",
    // The library's own headers (it names the task in Mcp-Name) win over the defaults, whatever their case.
    headers: { ...routingHeaders(req), ...Object.fromEntries(Object.entries(options.context?.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])) },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: req.method, ...(req.params === undefined ? {} : { params: req.params }) }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const message = await responseOf(res, id);
  if (message.error !== undefined) return { kind: "error" as const, error: message.error as { code: number; message: string; data?: never } };
  return { kind: "result" as const, result: message.result as never };
}

/** Answers elicitations: the name "Ada", or confirm; declines when `decline`, waits for `hold` first. */
const inputs: ApplicationInputRequest[] = [];
let decline = false;
let hold: Promise<void> | undefined;
async function onInputRequest(request: ApplicationInputRequest): Promise<never> {
  inputs.push(request);
  if (hold) await hold;
  if (decline) return { action: "decline" } as never;
  if (request.kind !== "elicitation") throw new Error(`unexpected ${request.kind} request`);
  const props = Object.keys(((request.params.requestedSchema as Json | undefined)?.properties ?? {}) as Json);
  const content: Record<string, unknown> = {};
  for (const p of props) content[p] = p === "confirm" ? true : p === "name" ? "Ada" : "blue";
  return { action: "accept", content } as never;
}

async function modernSession(mode: "auto" | { pin: string }) {
  const client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const session = createTaskSessionFromClient(client, {
    endpointId: "demo",
    rawDispatch: rawDispatch as never,
    v2RequestFraming: { protocolVersion: VERSION, clientInfo, clientCapabilities },
    onInputRequest: onInputRequest as never,
  });
  return { client, session };
}

describe.each([["auto" as const], [{ pin: VERSION }]])("ext-tasks requester, modern era (versionNegotiation %j)", (mode) => {
  let client: Client;
  let session: Awaited<ReturnType<typeof modernSession>>["session"];

  beforeAll(async () => {
    ({ client, session } = await modernSession(mode));
  });
  afterAll(async () => {
    await session?.close();
    await client?.close();
  });

  it("negotiates the modern era and the Tasks extension", () => {
    expect(client.getProtocolEra()).toBe("modern");
    expect((client.getServerCapabilities() as Json).extensions).toMatchObject({ [EXT]: {} });
  });

  it("a tool the server answers at once: an immediate execution with the result", async () => {
    const execution = await session.callTool("greet", { name: "Ada" });
    expect(execution.kind).toBe("immediate");
    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "Hello, Ada!" }] });
  });

  it("create, poll, complete: a task execution settles with the tool's result", async () => {
    const execution = await session.callTool("slow_compute", { seconds: 0.2 }, { task: { preference: "require" } });
    expect(execution.kind).toBe("task");
    const seen: string[] = [];
    const { outcome } = await execution.settle({ onEvent: (e) => void (e.type === "task" && seen.push(e.task.status)) });
    expect(outcome.status).toBe("completed");
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "Computed for 0.2 s" }] });
    expect(seen[0]).toBe("working");
  });

  it("fail: a task that ends failed settles failed with the server's error", async () => {
    const execution = await session.callTool("protocol_error_job", {});
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("failed");
    const error = (outcome as { error: TaskFailedError }).error;
    expect(error).toBeInstanceOf(TaskFailedError);
    expect(error.message).toContain("Tool execution failed: API rate limit exceeded");
    expect(error.code).toBe(-32603);
  });

  it("cancel: cancelling a running task ends it cancelled on the server", async () => {
    const execution = await session.callTool("slow_compute", { seconds: 600 }, { task: { preference: "require" } });
    expect(execution.kind).toBe("task");
    const taskId = (execution as { handle: { taskId: string } }).handle.taskId;
    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("cancelled");
    expect(() => resultFromTaskOutcome(outcome)).toThrow(TaskCancelledError);
    const got = await rawDispatch({ method: "tasks/get", params: { taskId, _meta: envelope() } });
    expect(got).toMatchObject({ kind: "result", result: { taskId, status: "cancelled" } });
  });

  it("a task that asks for input (tasks/update): the library answers, the task completes", async () => {
    inputs.length = 0;
    const execution = await session.callTool("confirm_delete", { filename: "a.txt" });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "Deleted a.txt" }] });
    expect(inputs.map((i) => i.kind)).toEqual(["elicitation"]);
    expect(inputs[0]!.params?.message).toBe("Delete a.txt?");
  });

  it("a tool result with isError completes the task (the library keeps isError)", async () => {
    const execution = await session.callTool("failing_job", { seconds: 0.05 });
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("completed");
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ isError: true, content: [{ type: "text", text: "The job failed: the input data set is empty" }] });
  });

  it("an unexpected throw fails the task", async () => {
    const execution = await session.callTool("crash_job", {});
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("failed");
  });

  it("two inputs at once: both answered, the task completes with both", async () => {
    inputs.length = 0;
    const execution = await session.callTool("multi_input", {});
    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "name=blue colour=blue" }] });
    expect(inputs).toHaveLength(2);
  });

  it("detach, then resume from the serialized reference: the same task settles", async () => {
    const execution = await session.callTool("slow_compute", { seconds: 0.3 }, { task: { preference: "require" } });
    if (execution.kind !== "task") throw new Error("expected a task");
    const reference = execution.serializeReference();
    await execution.detach();
    // Another connection (as after a restart) picks the task up from the reference alone.
    const other = await modernSession(mode);
    try {
      const resumed = await other.session.resumeTask(JSON.parse(JSON.stringify(reference)));
      expect(resumed.kind).toBe("task");
      const { outcome } = await resumed.settle();
      expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "Computed for 0.3 s" }] });
    } finally {
      await other.session.close();
      await other.client.close();
    }
  });

  it("the task controller: snapshot, then result", async () => {
    const execution = await session.callTool("slow_compute", { seconds: 0.2 }, { task: { preference: "require" } });
    if (execution.kind !== "task") throw new Error("expected a task");
    await execution.detach();
    const controller = session.task(execution.handle.taskId);
    const view = await controller.snapshot();
    expect(view.taskId).toBe(execution.handle.taskId);
    const outcome = await controller.result();
    expect(outcome.status).toBe("completed");
  });

  it("retention asked best effort: the task carries the server's retention", async () => {
    const execution = await session.callTool("slow_compute", { seconds: 0.1 }, { task: { preference: "require", retentionMs: 30_000 } });
    const { outcome, lastTask } = await execution.settle();
    expect(outcome.status).toBe("completed");
    expect(lastTask?.retentionMs).toBeGreaterThan(0);
  });

  it("capabilities the library reads from the server", () => {
    expect(session.capabilities).toEqual({ inventory: "known-handles", execution: true, cancellation: true, inputResponses: true, requestedRetention: false });
  });

  it("a declined elicitation reaches the tool: it keeps the file", async () => {
    decline = true;
    try {
      const execution = await session.callTool("confirm_delete", { filename: "b.txt" });
      const { outcome } = await execution.settle();
      expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "Kept b.txt" }] });
    } finally {
      decline = false;
    }
  });

  it("cancel while the task waits for input: it ends cancelled", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    hold = held;
    try {
      const execution = await session.callTool("confirm_delete", { filename: "c.txt" });
      if (execution.kind !== "task") throw new Error("expected a task");
      const settled = execution.settle();
      await until(async () => (await rawGet(execution.handle.taskId)).status === "input_required");
      await execution.cancel();
      release();
      const { outcome } = await settled;
      expect(outcome.status).toBe("cancelled");
      expect((await rawGet(execution.handle.taskId)).status).toBe("cancelled");
    } finally {
      hold = undefined;
      release();
    }
  });

  it("an unknown task id: the controller rejects with the server's invalid-params error", async () => {
    const err = await session
      .task(taskId("no-such-task"))
      .snapshot()
      .then(
        () => undefined,
        (e: unknown) => e as { code?: number; message: string },
      );
    expect(err?.code).toBe(-32602);
  });

  it("tasks forbidden by the requestor: the library still declares the extension, the server makes a task, the library cancels it", async () => {
    const from = dispatched.length;
    const err = await session.callTool("multi_input", {}, { task: { preference: "forbid" } }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe("Task execution was forbidden but the server returned a task");
    const call = dispatched.slice(from).find((r) => r.method === "tools/call")!;
    const meta = (call.params as Json)._meta as Json;
    expect(meta["io.modelcontextprotocol/clientCapabilities"]).toMatchObject({ extensions: { [EXT]: {} } });
    await until(async () => dispatched.slice(from).some((r) => r.method === "tasks/cancel"));
    const taskId = (dispatched.slice(from).find((r) => r.method === "tasks/cancel")!.params as Json).taskId as string;
    await until(async () => (await rawGet(taskId)).status === "cancelled");
  });

  it("on another connection: a finished task resumed from its reference, a detached task cancelled by id, input answered by hand through a controller (an unknown key ignored)", async () => {
    const execution = await session.callTool("slow_compute", { seconds: 0.05 }, { task: { preference: "require" } });
    if (execution.kind !== "task") throw new Error("expected a task");
    const reference = execution.serializeReference();
    await execution.settle();
    const other = await modernSession(mode);
    try {
      const resumed = await other.session.resumeTask(reference);
      const { outcome } = await resumed.settle();
      expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "Computed for 0.05 s" }] });
      const e2 = await other.session.callTool("slow_compute", { seconds: 600 }, { task: { preference: "require" } });
      if (e2.kind !== "task") throw new Error("expected a task");
      await e2.detach();
      await other.session.cancelTask(e2.handle.taskId);
      expect((await rawGet(e2.handle.taskId)).status).toBe("cancelled");
      const e3 = await other.session.callTool("multi_input", {});
      if (e3.kind !== "task") throw new Error("expected a task");
      await e3.detach();
      await until(async () => (await rawGet(e3.handle.taskId)).status === "input_required" && Object.keys(((await rawGet(e3.handle.taskId)).inputRequests as object) ?? {}).length === 2);
      const keys = Object.keys((await rawGet(e3.handle.taskId)).inputRequests as object);
      const ctl = other.session.task(e3.handle.taskId);
      await ctl.updateJson({ [keys[0]!]: { action: "accept", content: { value: "x" } }, nope: { action: "accept", content: {} } });
      await ctl.updateJson({ [keys[1]!]: { action: "accept", content: { value: "y" } } });
      const out = await ctl.result();
      const text = (resultFromTaskOutcome(out) as { content: Array<{ text: string }> }).content[0]!.text;
      expect(["name=x colour=y", "name=y colour=x"]).toContain(text);
    } finally {
      await other.session.close();
      await other.client.close();
    }
  });

  it("the SDK client lists the tools; the library reads their declarations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("confirm_delete");
    const decl = toolDeclarationFromMcpTool(tools.find((t) => t.name === "greet")!);
    expect(decl).toMatchObject({ name: "greet", inputSchema: { type: "object" } });
  });

  it("a tool that asks for input on the request (input_required, retried), then runs as a task", async () => {
    inputs.length = 0;
    const execution = await session.callTool("test_tool_with_task", {});
    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "Hello, Ada!" }] });
    expect(inputs.map((i) => i.params?.message)).toEqual(["What is your name?"]);
  });
});

async function rawGet(taskId: string): Promise<Json> {
  const r = await rawDispatch({ method: "tasks/get", params: { taskId, _meta: envelope() } });
  if (r.kind !== "result") throw new Error(`tasks/get ${taskId}: ${JSON.stringify(r.error)}`);
  return r.result as Json;
}

/** Polls until `check` holds (bounded, so a broken server fails instead of hanging). */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("condition never held");
}

function envelope(): Json {
  return {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientInfo": clientInfo,
    "io.modelcontextprotocol/clientCapabilities": { ...clientCapabilities, extensions: { [EXT]: {} } },
  };
}

describe("ext-tasks requester, legacy era (the SDK client's default initialize handshake)", () => {
  it("the per-request server refuses the handshake with a clear error; no session is made", async () => {
    const client = new Client(clientInfo, { capabilities: clientCapabilities });
    const err = await client.connect(new StreamableHTTPClientTransport(new URL(url))).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    await client.close();
    expect(err).toBeInstanceOf(Error);
    expect(String(err?.message)).toMatch(/protocol version|unsupported|initialize/i);
  });
});

describe("ext-tasks requester, legacy era against the mcp-2025-11-25 demo server (generation v1)", () => {
  let legacy: ReturnType<typeof httpChild>;
  let legacyUrl: string;
  let client: Client;
  let session: ReturnType<typeof createTaskSessionFromClient>;

  beforeAll(async () => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "demo-server.ts"), "mcp-2025-11-25", "--http", "0"], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify(OPTIONS) },
    });
    legacy = httpChild(child, "the mcp-2025-11-25 demo server");
    legacyUrl = await legacy.url;
    client = new Client(clientInfo, { capabilities: clientCapabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(legacyUrl)));
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, toolDeclarationFromMcpTool(t)]));
    session = createTaskSessionFromClient(client, { endpointId: "legacy", onInputRequest: onInputRequest as never, tools: { currentTool: (n) => byName.get(n) } });
  }, 60_000);

  afterAll(async () => {
    await session?.close();
    await client?.close();
    await legacy?.stop();
  });

  it("negotiates the legacy era and generation v1", () => {
    expect(client.getProtocolEra()).toBe("legacy");
    expect(client.getServerCapabilities()?.tasks).toMatchObject({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    expect(session.capabilities).toEqual({ inventory: "server-list", execution: true, cancellation: true, inputResponses: false, requestedRetention: true });
  });

  it("create, poll, complete", async () => {
    const execution = await session.callTool("slow_compute", { seconds: 0.2 }, { task: { preference: "require" } });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "Computed for 0.2 s" }] });
  });

  it("fail: the failed task's message", async () => {
    const execution = await session.callTool("protocol_error_job", {}, { task: { preference: "require" } });
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("failed");
    expect((outcome as { error: TaskFailedError }).error.message).toBe("Tool execution failed: API rate limit exceeded");
  });

  it("cancel: the task ends cancelled on the server", async () => {
    const execution = await session.callTool("slow_compute", { seconds: 600 }, { task: { preference: "require" } });
    if (execution.kind !== "task") throw new Error("expected a task");
    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("cancelled");
    expect((await session.task(execution.handle.taskId).snapshot()).status).toBe("cancelled");
  });

  it("a tool the server forbids as a task is called plainly (the declaration says so)", async () => {
    const execution = await session.callTool("greet", { name: "Ada" });
    expect(execution.kind).toBe("immediate");
    expect(resultFromTaskOutcome((await execution.settle()).outcome)).toMatchObject({ content: [{ type: "text", text: "Hello, Ada!" }] });
  });

  it("input: the library only polls tasks/get while input_required; once the host calls tasks/result, the queued elicitation reaches it and the task completes", async () => {
    inputs.length = 0;
    const execution = await session.callTool("confirm_delete", { filename: "l.txt" }, { task: { preference: "require" } });
    if (execution.kind !== "task") throw new Error("expected a task");
    let pending: Promise<unknown> | undefined;
    const { outcome } = await execution.settle({
      onEvent: (e) => {
        if (e.type === "task" && e.task.status === "input_required" && pending === undefined) {
          expect(inputs).toHaveLength(0);
          // What the spec asks of the requestor, done by the host because the library does not.
          pending = client.request({ method: "tasks/result", params: { taskId: e.task.taskId } }, z.looseObject({}));
        }
      },
    });
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ content: [{ type: "text", text: "Deleted l.txt" }] });
    expect(await pending).toMatchObject({ content: [{ type: "text", text: "Deleted l.txt" }] });
    expect(inputs.map((i) => i.params?.message)).toEqual(["Delete l.txt?"]);
  });

  it("lists the tasks of this session", async () => {
    const page = await session.listTasks();
    expect(page.tasks.length).toBeGreaterThanOrEqual(4);
    expect(new Set(page.tasks.map((t) => t.status))).toEqual(new Set(["completed", "failed", "cancelled"]));
  });
});
