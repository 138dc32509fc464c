/**
 * An existing McpServer gains tasks in place (`@mcp-task-gen/runtime/mcp-server`), as the README's quick start
 * "tasks for an existing server" says: the SDK quickstart's weather server (test/fixtures/weather/quickstart.mjs) with the
 * README's lines added (server.mjs), run as a file over stdio and over Streamable HTTP on 127.0.0.1, against
 * the SDK 1.32 client and its experimental tasks client; then `mcp-task-gen conform` on it; then wrong uses.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js";
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema, ElicitResultSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { withTasks } from "@mcp-task-gen/runtime/mcp-server";
import { BUILTIN_FILES, builtinCopy } from "../scripts/builtin-specs.js";
import { conformOverStdio, PLAIN_CALLS, serve, type ClientKit, type Served } from "./helpers/adopt-harness.js";
import { readmeBlocks as readmeJsBlocks } from "./helpers/readme.js";
import { eventually } from "./seed-harness.js";

const root = join(import.meta.dirname, "..");
const dir = join(root, "test", "fixtures", "weather");
const QUICKSTART = join(dir, "quickstart.mjs");
const ADOPTED = join(dir, "server.mjs");
const lines = (file: string) => readFileSync(file, "utf8").split("\n");

/** The ```js blocks of the README's section "Quick start: tasks for an existing server": the lines to add, then the client. */
function readmeBlocks(): string[][] {
  return readmeJsBlocks("## Quick start: tasks for an existing server", "js").map((b) => b.replace(/\n$/, "").split("\n"));
}

describe("the README's lines on the quickstart", () => {
  it("server.mjs is quickstart.mjs with exactly the README's lines added, none changed", () => {
    const [top, inServer] = readmeBlocks();
    const added = [...top!, ...inServer!];
    const adopted = lines(ADOPTED);
    // Removing the README's lines, where they stand, gives the quickstart back line for line.
    const rest = [...adopted];
    for (const line of added) {
      const at = rest.indexOf(line);
      expect(at, `README line not in server.mjs: ${line}`).toBeGreaterThanOrEqual(0);
      rest.splice(at, 1);
    }
    expect(rest).toEqual(lines(QUICKSTART));
    expect(added.filter((l) => l.trim() !== "")).toHaveLength(3);
  });

  it("the runtime's built-in copy of mcp-2025-11-25, made by its build, is the generated code of output-samples", () => {
    for (const f of BUILTIN_FILES) {
      const sample = readFileSync(join(root, "output-samples", "mcp-2025-11-25", f), "utf8");
      expect(readFileSync(join(root, "runtime", "specs", "mcp-2025-11-25", f), "utf8"), `${f}: run npm run build (and npm run samples)`).toBe(builtinCopy(sample));
    }
  });
});

/** The SDK 1.32 client and its transports, for the harness. */
const SDK1: ClientKit<Client, Transport, []> = {
  client: () => new Client({ name: "weather-user", version: "1.0.0" }, { capabilities: {} }),
  stdio: (command, args, cwd) => new StdioClientTransport({ command, args, cwd, env: getDefaultEnvironment(), stderr: "pipe" }),
  http: (url) => new StreamableHTTPClientTransport(url),
};

describe.each(["stdio", "http"] as const)("the adopted quickstart over %s, with the SDK 1.32 client", (kind) => {
  let before: Served<Client, []>;
  let after: Served<Client, []>;
  let was: Client;
  let now: Client;

  beforeAll(async () => {
    [before, after] = await Promise.all([serve(SDK1, QUICKSTART, kind), serve(SDK1, ADOPTED, kind)]);
    [was, now] = await Promise.all([before.connect(), after.connect()]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([before?.close(), after?.close()]);
  });

  it("lists the same tools as before, the adopted one with execution.taskSupport optional; tools.listChanged kept, tasks declared", async () => {
    const [old, listed] = [(await was.listTools()).tools, (await now.listTools()).tools];
    expect(listed.map((t) => t.name)).toEqual(old.map((t) => t.name));
    for (const t of listed) {
      const o = old.find((x) => x.name === t.name)!;
      expect(t).toEqual(t.name === "slow_tool" ? { ...o, execution: { taskSupport: "optional" } } : o);
    }
    expect(was.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    expect(now.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
  });

  it("answers plain calls exactly as before: results, invalid arguments as isError results, unknown tools", async () => {
    for (const call of PLAIN_CALLS) {
      const [old, got] = await Promise.all([was.callTool(call), now.callTool(call)]);
      expect(got, JSON.stringify(call)).toEqual(old);
    }
    expect(await now.callTool(PLAIN_CALLS[2]!)).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("Invalid arguments for tool get_alerts") }] });
  });

  it("runs the adopted tool as a task: created, progress, completed, its result through tasks/result", async () => {
    const progress: number[] = [];
    const messages: Array<{ type: string; task?: { taskId: string; status: string }; result?: unknown }> = [];
    const stream = now.experimental.tasks.callToolStream({ name: "slow_tool", arguments: { seconds: 0.3 } }, CallToolResultSchema, {
      onprogress: (p) => void progress.push(p.progress),
    });
    for await (const m of stream) messages.push(m as never);
    expect(messages[0]).toMatchObject({ type: "taskCreated", task: { status: "working" } });
    expect(messages.at(-1)).toMatchObject({ type: "result", result: { content: [{ type: "text", text: "Waited 0.3 seconds" }] } });
    expect(progress).toEqual([1, 2, 3]);
    const taskId = messages[0]!.task!.taskId;
    expect(await now.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: "completed" });
    expect((await now.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).content).toEqual([{ type: "text", text: "Waited 0.3 seconds" }]);
    expect((await now.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(taskId);
  });

  it("cancels a running task: tasks/cancel answers it cancelled, and its work stops at its next check of extra.signal", async () => {
    let progress = 0;
    const { task } = await now.request(
      { method: "tools/call", params: { name: "slow_tool", arguments: { seconds: 30 }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
      { onprogress: () => void progress++ },
    );
    await eventually(() => (progress >= 2 ? true : undefined), "progress of the running task");
    expect((await now.experimental.tasks.getTask(task.taskId)).status).toBe("working");
    expect(await now.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    const seen = progress;
    // The tool reports every 100 ms unless extra.signal fired: a stopped loop reports nothing more (one may be on its way).
    await new Promise((r) => setTimeout(r, 500));
    expect(progress - seen).toBeLessThanOrEqual(1);
    expect(after.stderr()).not.toContain("progress after the task was cancelled");
    expect((await now.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
  });

  it("fails a task whose arguments are invalid with McpServer's isError result; refuses a task of a plain tool with -32601", async () => {
    const { task } = await now.request({ method: "tools/call", params: { name: "slow_tool", arguments: { seconds: "x" }, task: {} } }, CreateTaskResultSchema);
    const failed = await eventually(async () => {
      const t = await now.experimental.tasks.getTask(task.taskId);
      return t.status === "failed" ? t : undefined;
    }, "the task to fail");
    expect(failed.statusMessage).toContain("Invalid arguments for tool slow_tool");
    const old = await was.callTool({ name: "slow_tool", arguments: { seconds: "x" } });
    expect(await now.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).toMatchObject({ isError: true, content: old.content });
    await expect(now.request({ method: "tools/call", params: { name: "get_alerts", arguments: { state: "CA" }, task: {} } }, CreateTaskResultSchema)).rejects.toMatchObject({ code: -32601 });
  });
});

describe("the README's first task call", () => {
  it("runs slow_tool on server.mjs as a task with the SDK's client, as the README's try-task.mjs", async () => {
    const work = join(root, ".tmp", "mcp-server-adopt");
    mkdirSync(work, { recursive: true });
    const script = join(work, "try-task.mjs");
    writeFileSync(script, `${readmeBlocks()[2]!.join("\n")}\n`);
    const run = await promisify(execFile)(process.execPath, [script, ADOPTED], { cwd: root, timeout: 60_000 });
    const out = run.stdout.split("\n");
    expect(out[0]).toBe("taskCreated working");
    expect(out).toContain("progress 20/20");
    expect(out).toContain("taskStatus completed");
    expect(out.at(-2)).toMatch(/^result \{.*"content":\[\{"type":"text","text":"Waited 2 seconds"\}\]\}$/);
  }, 90_000);
});

describe("conform on the adopted quickstart", () => {
  it("passes mcp-2025-11-25 over stdio with the slow tool mapped to the outcomes", async () => {
    const report = await conformOverStdio(ADOPTED);
    expect(report).toMatch(/every rule exercised held/);
    expect(report).toMatch(/exercised: .*cancel of running work/);
  }, 150_000);
});

describe("in process: wrong uses fail at start saying what to do; tools registered or adopted through withTasks", () => {
  const weather = () => {
    const server = new McpServer({ name: "weather", version: "1.0.0" });
    server.registerTool("get_alerts", { inputSchema: { state: z.string() } }, async ({ state }) => ({ content: [{ type: "text", text: state }] }));
    return server;
  };

  it("after connect, twice, unknown or repeated names, beside the SDK's own task store", async () => {
    const connected = weather();
    await connected.connect(InMemoryTransport.createLinkedPair()[1]);
    expect(() => withTasks(connected)).toThrow(/before server\.connect/);
    const once = weather();
    const tasks = withTasks(once, { audit: false });
    expect(() => withTasks(once)).toThrow(/already called on this McpServer/);
    expect(() => tasks.adopt("slow_tool")).toThrow(/no tool slow_tool is registered.*after server\.registerTool/);
    expect(() => tasks.registerTool("get_alerts", {}, async () => ({ content: [] }))).toThrow(/already registered.*tasks\.adopt\("get_alerts"\)/);
    tasks.adopt("get_alerts");
    expect(() => tasks.adopt("get_alerts")).toThrow(/adopt it once/);
    // The low-level binding refuses to take over an McpServer's tools, and names the way that keeps them.
    expect(() => tasks.runtime.registerTools(weather().server, [])).toThrow(/answers tools\/call already.*withTasks/);
    const sdkTasks = new McpServer({ name: "w", version: "1" }, { taskStore: new InMemoryTaskStore() });
    expect(() => withTasks(sdkTasks)).toThrow(/SDK's own task store/);
    await tasks.runtime.close();
  });

  it("a tool registered through withTasks gets the task's context and announces itself (listChanged) like any McpServer tool; an adopted one asks for input through its task", async () => {
    const server = weather();
    const tasks = withTasks(server, { audit: false });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "c", version: "1" }, { capabilities: { elicitation: { form: {} } } });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    await client.connect(clientSide);
    const registered = tasks.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }, extra) => ({ content: [{ type: "text", text: `${text} ${extra.task.taskId ?? "plain"}` }] }));
    await eventually(() => (changed > 0 ? true : undefined), "tools/list_changed");
    expect((await client.listTools()).tools.find((t) => t.name === "echo")?.execution).toEqual({ taskSupport: "optional" });
    expect(await client.callTool({ name: "echo", arguments: { text: "hi" } })).toEqual({ content: [{ type: "text", text: "hi plain" }] });
    const { task } = await client.request({ method: "tools/call", params: { name: "echo", arguments: { text: "hi" }, task: {} } }, CreateTaskResultSchema);
    expect(await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).toMatchObject({ content: [{ type: "text", text: `hi ${task.taskId}` }] });
    // Renamed, it runs as a task under its new name; removed, it is unknown, as any McpServer tool.
    registered.update({ name: "echo2" });
    const renamed = await client.request({ method: "tools/call", params: { name: "echo2", arguments: { text: "hi" }, task: {} } }, CreateTaskResultSchema);
    expect(await client.experimental.tasks.getTaskResult(renamed.task.taskId, CallToolResultSchema)).toMatchObject({ content: [{ type: "text", text: `hi ${renamed.task.taskId}` }] });
    // An unchanged callback that asks through extra.sendRequest: the task waits in input_required, the question travels on tasks/result.
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: "accept", content: { ok: true } };
    });
    server.registerTool("confirm", {}, async (extra) => {
      const answer = await extra.sendRequest({ method: "elicitation/create", params: { mode: "form", message: "Go?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } } }, ElicitResultSchema);
      return { content: [{ type: "text", text: answer.action }] };
    });
    tasks.adopt("confirm");
    const confirm = await client.request({ method: "tools/call", params: { name: "confirm", task: {} } }, CreateTaskResultSchema);
    await eventually(async () => ((await client.experimental.tasks.getTask(confirm.task.taskId)).status === "input_required" ? true : undefined), "input_required");
    expect(asked).toBe(0);
    expect(await client.experimental.tasks.getTaskResult(confirm.task.taskId, CallToolResultSchema)).toMatchObject({ content: [{ type: "text", text: "accept" }] });
    expect(asked).toBe(1);
    tasks.adopt("get_alerts").remove();
    expect(await client.callTool({ name: "get_alerts", arguments: { state: "CA" } })).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("Tool get_alerts not found") }] });
    await client.close();
    await tasks.runtime.close();
  });
});
