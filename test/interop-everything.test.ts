/**
 * The generated mcp-2025-11-25 client against the reference server
 * @modelcontextprotocol/server-everything (2026.8.31, the SDK 1.32 McpServer with its
 * InMemoryTaskStore), over stdio (its bin, a child process) and Streamable HTTP on 127.0.0.1
 * (its `streamableHttp` mode, a child process), both ways:
 *
 * - our TaskClient calls its task tool (the one tools/list marks execution.taskSupport
 *   "required"): created, polled, completed with its real report; input asked through the
 *   task (input_required, the elicitation delivered with tasks/result); cancelled;
 * - its tools ask our client for elicitation and sampling, plainly and task-augmented (the
 *   "-async" tools, listed only because our client declares tasks.requests for them): our
 *   TaskRuntime installed on the client (side "client") makes the tasks and serves
 *   tasks/get and tasks/result to the server.
 *
 * The spec is generated from the current runtime into a temporary directory under .tmp/.
 * No timed assertions: the server's own pacing (1 s stages, 1 s polls) only makes it slow.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type CallToolResult,
  type CreateMessageRequest,
  type ElicitRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { freePort } from "./helpers/net.js";

type ClientModule = typeof import("../output-samples/mcp-2025-11-25/client.js");
type ServerModule = typeof import("../output-samples/mcp-2025-11-25/server.js");

const root = join(import.meta.dirname, "..");
const everything = join(root, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const REL = "io.modelcontextprotocol/related-task";

let work: string;
let gen: { client: ClientModule; server: ServerModule };

beforeAll(async () => {
  mkdirSync(join(root, ".tmp"), { recursive: true });
  work = mkdtempSync(join(root, ".tmp", "interop-everything-"));
  symlinkSync(join(root, "node_modules"), join(work, "node_modules"), "dir");
  execFileSync(process.execPath, [join(root, "bin", "mcp-task-gen.js"), "generate", "--spec", "mcp-2025-11-25", "--out", join(work, "gen"), "--quiet"], { cwd: root });
  gen = {
    client: (await import(pathToFileURL(join(work, "gen", "client.ts")).href)) as ClientModule,
    server: (await import(pathToFileURL(join(work, "gen", "server.ts")).href)) as ServerModule,
  };
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** server-everything in its Streamable HTTP mode; resolves once it listens. */
async function startHttp(): Promise<{ url: string; stderr: () => string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [everything, "streamableHttp"], {
    cwd: root,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr!.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (d: string) => {
      err += d;
      if (err.includes(`listening on port ${port}`)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited (${code}):\n${err}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stderr: () => err,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}

interface Conn {
  client: Client;
  tasks: InstanceType<ClientModule["TaskClient"]>;
  runtime: InstanceType<ServerModule["TaskRuntime"]>;
  elicitations: ElicitRequest[];
  samplings: CreateMessageRequest[];
  tools: Tool[];
  close(): Promise<void>;
}

/** Our client: the SDK Client with the generated TaskClient on it and the generated TaskRuntime as its receiver. */
async function connect(transport: Transport, stop: () => Promise<void>): Promise<Conn> {
  const client = new Client({ name: "mcp-task-gen-interop", version: "0.0.0" }, { capabilities: { elicitation: { form: {} }, sampling: {} } });
  const runtime = new gen.server.TaskRuntime({ side: "client", audit: false, log: () => undefined, pollFrequency: 50 });
  runtime.install(client);
  const elicitations: ElicitRequest[] = [];
  const samplings: CreateMessageRequest[] = [];
  client.setRequestHandler(
    ElicitRequestSchema,
    runtime.handle<ElicitRequest, Record<string, unknown>>("elicitation/create", async (req) => {
      elicitations.push(req);
      const props = Object.keys((req.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
      if (props.includes("interpretation")) return { action: "accept", content: { interpretation: "programming" } };
      return { action: "accept", content: { name: "Ada", check: true, favoriteColor: "Blue", agreeToTerms: true } };
    }) as never,
  );
  client.setRequestHandler(
    CreateMessageRequestSchema,
    runtime.handle<CreateMessageRequest, Record<string, unknown>>("sampling/createMessage", async (req) => {
      samplings.push(req);
      const first = req.params.messages[0]?.content as { text?: string } | undefined;
      return { role: "assistant", model: "echo-model", content: { type: "text", text: `echo: ${first?.text ?? ""}` }, stopReason: "endTurn" };
    }) as never,
  );
  await client.connect(transport);
  const tasks = new gen.client.TaskClient(client, { defaultPollFrequency: 50 });
  const { tools } = await client.listTools();
  return {
    client,
    tasks,
    runtime,
    elicitations,
    samplings,
    tools,
    close: async () => {
      await client.close();
      await runtime.close();
      await stop();
    },
  };
}

/** The tools tools/list marks as running as tasks (execution.taskSupport optional or required). */
const taskToolsOf = (tools: Tool[]) => tools.filter((t) => t.execution?.taskSupport === "optional" || t.execution?.taskSupport === "required").map((t) => t.name);

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

describe.each(["stdio", "http"] as const)("our mcp-2025-11-25 client ↔ server-everything over %s", (kind) => {
  let c: Conn;
  let stderr: () => string = () => "";
  /** Its task tool, as tools/list names it. */
  const taskTool = () => {
    const found = taskToolsOf(c.tools);
    if (found.length !== 1) throw new Error(`expected one task tool, tools/list shows ${JSON.stringify(found)}`);
    return found[0]!;
  };

  beforeAll(async () => {
    if (kind === "stdio") {
      let err = "";
      const transport = new StdioClientTransport({ command: process.execPath, args: [everything, "stdio"], cwd: root, env: getDefaultEnvironment(), stderr: "pipe" });
      transport.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")));
      stderr = () => err;
      c = await connect(transport, async () => undefined);
    } else {
      const served = await startHttp();
      stderr = served.stderr;
      c = await connect(new StreamableHTTPClientTransport(new URL(served.url)), served.stop);
    }
  }, 60_000);

  afterAll(async () => {
    await c?.close();
  });

  it("its task tools, as tools/list shows them: the research tool requires a task; the -async tools are listed because our client declares task-augmented elicitation and sampling", () => {
    expect(taskToolsOf(c.tools)).toEqual(["simulate-research-query"]);
    expect(c.tools.find((t) => t.name === "simulate-research-query")?.execution).toEqual({ taskSupport: "required" });
    const names = c.tools.map((t) => t.name);
    for (const n of ["trigger-elicitation-request-async", "trigger-sampling-request-async", "trigger-elicitation-request", "trigger-sampling-request"]) expect(names).toContain(n);
    expect(c.client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  });

  it("its task tool, through our TaskClient: created, polled through its stages, completed with its report", async () => {
    const seen: string[] = [];
    const started = await c.tasks.start({ method: "tools/call", params: { name: taskTool(), arguments: { topic: "tides" } } }, CallToolResultSchema);
    if (!("task" in started)) throw new Error(`no task was created: ${JSON.stringify(started)}`);
    expect(started.task).toMatchObject({ status: "working", ttl: 300_000, pollInterval: 1000 });
    const result = await c.tasks.waitForTask(started.task.taskId, CallToolResultSchema, {
      onTaskStatus: (t) => void seen.push(`${t.status}:${t.statusMessage ?? ""}`),
    });
    expect(textOf(result)).toContain("# Research Report: tides");
    expect(textOf(result)).toContain("- Stage 4: Generating report ✓");
    expect(seen.some((s) => s.startsWith("working:"))).toBe(true);
    expect((await c.tasks.getTask(started.task.taskId)).status).toBe("completed");
  });

  it("input through the task: the ambiguous query goes input_required, our client answers the elicitation it gets with tasks/result, the report uses the answer", async () => {
    const before = c.elicitations.length;
    const result = await c.tasks.callTool({ name: taskTool(), arguments: { topic: "python", ambiguous: true } });
    expect(textOf(result as CallToolResult)).toContain("# Research Report: python (programming)");
    const asked = c.elicitations.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params.message).toContain(`"python" could have multiple interpretations`);
    // The request belongs to the task: it carries the related-task meta.
    expect((asked[0]!.params._meta as Record<string, unknown> | undefined)?.[REL]).toMatchObject({ taskId: expect.any(String) });
  });

  it("cancel: tasks/cancel ends the running task cancelled", async () => {
    const started = await c.tasks.start({ method: "tools/call", params: { name: taskTool(), arguments: { topic: "cancel me" } } }, CallToolResultSchema);
    if (!("task" in started)) throw new Error("no task was created");
    const cancelled = await c.tasks.cancelTask(started.task.taskId);
    expect(cancelled).toMatchObject({ taskId: started.task.taskId, status: "cancelled" });
    expect((await c.tasks.getTask(started.task.taskId)).status).toBe("cancelled");
  });

  it("its plain elicitation and sampling requests: answered by our handlers, no task made", async () => {
    const e = await c.client.callTool({ name: "trigger-elicitation-request", arguments: {} });
    expect(textOf(e as CallToolResult)).toContain("- Name: Ada");
    const s = await c.client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 10 } });
    expect(textOf(s as CallToolResult)).toContain("echo: Resource trigger-sampling-request context: hi");
    expect(c.elicitations[c.elicitations.length - 1]!.params).not.toHaveProperty("task");
    expect(c.samplings[c.samplings.length - 1]!.params).not.toHaveProperty("task");
  });

  /** The task our client made for a task-augmented request, as the server reported it; checked against our runtime's store. */
  async function clientTask(text: string): Promise<string> {
    const taskId = /Task created: (\S+)/.exec(text)?.[1];
    if (taskId === undefined) throw new Error(`the server reports no task our client made:\n${text}`);
    const found = (await c.runtime.store.get(taskId)) as { state: string; record?: { status?: string } } | undefined;
    expect(found?.state).toBe("live");
    expect(found?.record?.status).toBe("completed");
    return taskId;
  }

  it("its task-augmented elicitation: our client makes a task, the server polls tasks/get and reads tasks/result", async () => {
    const r = await c.client.callTool({ name: "trigger-elicitation-request-async", arguments: {} }, CallToolResultSchema, { timeout: 120_000 });
    const text = textOf(r as CallToolResult);
    expect(text).toContain("[COMPLETED] User provided the requested information!");
    expect(text).toContain("- Name: Ada");
    expect(text).toContain("- Favorite Color: Blue");
    expect(text).toMatch(/Poll \d+: completed/);
    const taskId = await clientTask(text);
    // tasks/result answered with the elicitation's result, tied to the task.
    expect(text).toContain(`"${REL}": {\n      "taskId": "${taskId}"`);
  }, 120_000);

  it("its task-augmented sampling: our client makes a task and the server reads its result", async () => {
    const r = await c.client.callTool({ name: "trigger-sampling-request-async", arguments: { prompt: "tide tables", maxTokens: 20 } }, CallToolResultSchema, { timeout: 120_000 });
    const text = textOf(r as CallToolResult);
    expect(text).toContain("[COMPLETED] Async sampling completed!");
    expect(text).toContain("echo: Resource trigger-sampling-request-async context: tide tables");
    const taskId = await clientTask(text);
    expect(text).toContain(`"taskId": "${taskId}"`);
  }, 120_000);

  it("after tasks/cancel the server's own work goes on and its store refuses it: the task stays cancelled", async () => {
    const started = await c.tasks.start({ method: "tools/call", params: { name: taskTool(), arguments: { topic: "stays cancelled" } } }, CallToolResultSchema);
    if (!("task" in started)) throw new Error("no task was created");
    const id = started.task.taskId;
    await c.tasks.cancelTask(id);
    for (let i = 0; i < 500 && !stderr().includes(`Cannot update task "${id}" from terminal status "cancelled"`); i++) await new Promise((r) => setTimeout(r, 20));
    expect(stderr()).toContain(`Cannot update task "${id}" from terminal status "cancelled" to "working"`);
    expect((await c.tasks.getTask(id)).status).toBe("cancelled");
  });
});
