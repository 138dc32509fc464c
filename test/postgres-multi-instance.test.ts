/**
 * Several server processes on one PostgreSQL database, end to end: two demo
 * servers (`--store postgres:<url>`, Streamable HTTP on 127.0.0.1) and the
 * generated mcp-2025-11-25 client. A task created through one process is
 * polled, listed, has its result fetched and is cancelled through the other; the
 * cancel stops the work in the process running it, and the requestor's session
 * there is told the new status; input the work asks is carried by a result
 * stream held with the other process and answered there. With ext-tasks-2026-07-28 (input surfaced in the
 * polled task), input asked by work in one process is answered through the
 * other. With sep-1686-draft (acknowledged by notification), a task created
 * through one process is polled and has its result fetched through the other.
 * Runs against MCP_TASK_GEN_PG_URL (see
 * test/runtime/store-postgres-db.ts: without it, it fails).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import * as mcpClient from "../output-samples/mcp-2025-11-25/client.js";
import * as seedClient from "../output-samples/sep-1686-draft/client.js";
import * as extClient from "../output-samples/ext-tasks-2026-07-28/client.js";
import { StatelessHttpClient } from "../output-samples/ext-tasks-2026-07-28/stateless-client.js";
import { ROOT, run } from "./helpers/cli.js";
import { dropSchemas, freshSchema, pgUrl } from "./runtime/store-postgres-db.js";
import { eventually, httpChild } from "./seed-harness.js";

const demo = join(ROOT, "scripts", "demo-server.ts");
const children: ChildProcess[] = [];
const clients: Client[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await dropSchemas(schemas);
});

const any = z.record(z.string(), z.unknown());

function startDemo(spec: string, schema: string, options: Record<string, unknown> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", demo, spec, "--http", "0", "--store", `postgres:${pgUrl()}`], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify({ pollFrequency: 50, storeSchema: schema, ...options }) },
  });
  children.push(child);
  return Object.assign(httpChild(child, `demo server (${spec})`), { child });
}

/** A requestor's session with one server process, through the generated client. */
async function connect(url: string) {
  const client = new Client({ name: "postgres-multi-instance", version: "0.0.0" }, { capabilities: { elicitation: {} } });
  const asked: ElicitRequest["params"][] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    return { action: "accept", content: { confirm: true } };
  });
  const notifications: Record<string, unknown>[] = [];
  const tasks = new mcpClient.TaskClient(client, {
    defaultPollFrequency: 50,
    onStatusNotification: (task) => {
      notifications.push(task as unknown as Record<string, unknown>);
    },
  });
  // The client opens the session's stream (GET) after it initialized, without waiting: status notifications
  // sent before it is open are held until it is. What the connection met on the way is kept for a failure's message.
  const errors: string[] = [];
  client.onerror = (e) => void errors.push(String(e));
  let streamOpen = false;
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === "GET" && response.ok) streamOpen = true;
      return response;
    },
  });
  await client.connect(transport);
  clients.push(client);
  await eventually(() => (streamOpen ? true : undefined), "the session's stream to open").catch((e: unknown) => {
    throw new Error(`${String(e)} (${errors.join("; ") || "no error on the connection"})`);
  });
  return { tasks, notifications, asked, errors };
}

describe("demo server --store postgres:<url>", () => {
  it("waits for a database it cannot reach, logging each wait, then exits 1 with a clear message, the password hidden", async () => {
    const env = { MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify({ startupWaitMs: 1500 }) };
    const r = await run(process.execPath, ["--import", "tsx", demo, "mcp-2025-11-25", "--store", "postgres://mtg:hunter2@127.0.0.1:1/tasks"], { cwd: ROOT, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('"msg":"the task store\'s database is unavailable: waiting for it","database":"127.0.0.1:1/tasks","attempt":1');
    expect(r.stderr).toContain("demo-server: cannot open the task store: cannot open the PostgreSQL task store at postgres://mtg:***@127.0.0.1:1/tasks");
    expect(r.stderr).not.toContain("hunter2");
  });
});

describe("two demo servers on one PostgreSQL database (mcp-2025-11-25)", () => {
  const schema = freshSchema("e2e");
  schemas.push(schema);
  // Started by the first test (not while the tests are collected): without a database each test fails.
  let one: ReturnType<typeof startDemo> | undefined;
  let two: ReturnType<typeof startDemo> | undefined;
  const start = () => {
    if (one !== undefined) return;
    one = startDemo("mcp-2025-11-25", schema);
    two = startDemo("mcp-2025-11-25", schema);
  };
  afterAll(async () => {
    await one?.stop();
    await two?.stop();
  });

  async function taskOn(tasks: InstanceType<typeof mcpClient.TaskClient>, name: string, args: Record<string, unknown>): Promise<string> {
    const started = await tasks.start({ method: "tools/call", params: { name, arguments: args } }, any);
    if (!("task" in started)) throw new Error(`${name} answered without a task`);
    return (started.task as unknown as { taskId: string }).taskId;
  }

  it("logs the shared store, its password hidden", async () => {
    start();
    await one!.url;
    expect(one!.stderr()).toMatch(new RegExp(`"msg":"task store","store":"postgres","url":"postgres://mtg:\\*\\*\\*@127\\.0\\.0\\.1:\\d+/mtg_test","schema":"${schema}"`));
    expect(one!.stderr()).not.toContain(new URL(pgUrl()).password);
  });

  it("a task created through one process is polled, listed and has its result fetched through the other", async () => {
    start();
    const a = await connect(await one!.url);
    const b = await connect(await two!.url);
    const taskId = await taskOn(a.tasks, "slow_compute", { seconds: 0.3 });
    const seen = (await b.tasks.getTask(taskId)) as unknown as Record<string, unknown>;
    expect(seen.taskId).toBe(taskId);
    expect(["working", "completed"]).toContain(seen.status);
    // Blocks in the second process until the work in the first ends.
    const result = await b.tasks.getTaskResult(taskId);
    expect(result.content).toEqual([{ type: "text", text: "Computed for 0.3 s" }]);
    expect(await b.tasks.getTask(taskId)).toMatchObject({ taskId, status: "completed" });
    const listed: string[] = [];
    for await (const page of b.tasks.listTasks()) for (const t of page.tasks) listed.push((t as unknown as { taskId: string }).taskId);
    expect(listed).toContain(taskId);
    // And the first process answers the same.
    expect(await a.tasks.getTaskResult(taskId)).toEqual(result);
  });

  it("a task cancelled through the other process stops its work where it runs, and its requestor there is told", async () => {
    start();
    const a = await connect(await one!.url);
    const b = await connect(await two!.url);
    const taskId = await taskOn(a.tasks, "slow_compute", { seconds: 600 });
    await eventually(async () => ((await b.tasks.getTask(taskId)).status === "working" ? true : undefined), "the task to be working");
    await b.tasks.cancelTask(taskId);
    expect(await a.tasks.getTask(taskId)).toMatchObject({ taskId, status: "cancelled" });
    // The work in the first process was aborted (the demo logs it), though the cancel reached the second.
    await eventually(() => (one!.stderr().includes(`"msg":"slow_compute aborted","taskId":"${taskId}"`) ? true : undefined), "the work to stop");
    expect(two!.stderr()).not.toContain(`"msg":"slow_compute aborted","taskId":"${taskId}"`);
    // Logged right after the work was aborted (the two lines may come in two reads of the pipe).
    await eventually(() => (one!.stderr().includes(`"msg":"task stopped by a change made through another process","taskId":"${taskId}","status":"cancelled"`) ? true : undefined), "the stop to be logged");
    // The requestor's session is with the first process: the status notification comes from there.
    const told = await eventually(() => a.notifications.find((t) => t.taskId === taskId && t.status === "cancelled"), "the cancelled status notification").catch((e: unknown) => {
      throw new Error(`${String(e)}; the connection met: ${a.errors.join("; ") || "no error"}; the process running the work logged:\n${one!.stderr()}`);
    });
    expect(told).toMatchObject({ taskId, status: "cancelled" });
    expect(b.notifications.filter((t) => t.taskId === taskId)).toEqual([]);
    // Its result, through either process, is the declared answer for a cancelled task.
    await expect(b.tasks.getTaskResult(taskId)).rejects.toThrow();
  });

  it("input asked by the work in one process travels on a result stream held with the other, and the answer comes back", async () => {
    start();
    const a = await connect(await one!.url);
    const b = await connect(await two!.url);
    const taskId = await taskOn(a.tasks, "confirm_delete", { filename: "q3.csv" });
    await eventually(async () => ((await b.tasks.getTask(taskId)).status === "input_required" ? true : undefined), "the task to ask for input");
    // The requestor waits for the result through the second process: the request is asked there.
    const result = await b.tasks.getTaskResult(taskId);
    expect(result.content).toEqual([{ type: "text", text: "Deleted q3.csv" }]);
    expect(b.asked).toEqual([expect.objectContaining({ message: "Delete q3.csv?" })]);
    expect(a.asked).toEqual([]);
    expect(await a.tasks.getTask(taskId)).toMatchObject({ taskId, status: "completed" });
  });
});

describe("two demo servers on one PostgreSQL database (ext-tasks-2026-07-28)", () => {
  const schema = freshSchema("e2e");
  schemas.push(schema);
  let one: ReturnType<typeof startDemo> | undefined;
  let two: ReturnType<typeof startDemo> | undefined;
  const start = () => {
    if (one !== undefined) return;
    one = startDemo("ext-tasks-2026-07-28", schema);
    two = startDemo("ext-tasks-2026-07-28", schema);
  };
  afterAll(async () => {
    await one?.stop();
    await two?.stop();
  });
  const tasksAt = (url: string) =>
    new extClient.TaskClient(new StatelessHttpClient({ url, clientInfo: { name: "postgres-multi-instance", version: "0.0.0" }, capabilities: { elicitation: {} } }), {
      defaultPollFrequency: 50,
    });

  it("input asked by the work in one process is answered through the other, and the work goes on with the answer", async () => {
    start();
    const a = tasksAt(await one!.url);
    const b = tasksAt(await two!.url);
    const started = await a.start({ method: "tools/call", params: { name: "confirm_delete", arguments: { filename: "q3.csv" } } }, any);
    if (!("task" in started)) throw new Error("confirm_delete answered without a task");
    const taskId = (started.task as unknown as { taskId: string }).taskId;
    const waiting = await eventually(async () => {
      const t = (await b.getTask(taskId)) as unknown as Record<string, unknown>;
      return t.status === "input_required" ? t : undefined;
    }, "the input request");
    const [key] = Object.keys(waiting.inputRequests as Record<string, unknown>);
    await b.updateTask(taskId, { [key!]: { action: "accept", content: { confirm: true } } });
    const result = await b.waitForTask(taskId, any);
    expect(result.content).toEqual([{ type: "text", text: "Deleted q3.csv" }]);
    expect(await a.getTask(taskId)).toMatchObject({ taskId, status: "completed" });
  });

  it("a task cancelled through the other process stops its work where it runs", async () => {
    start();
    const a = tasksAt(await one!.url);
    const b = tasksAt(await two!.url);
    const started = await a.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 600 } } }, any);
    if (!("task" in started)) throw new Error("slow_compute answered without a task");
    const taskId = (started.task as unknown as { taskId: string }).taskId;
    await b.cancelTask(taskId);
    expect(await a.getTask(taskId)).toMatchObject({ taskId, status: "cancelled" });
    await eventually(() => (one!.stderr().includes(`"msg":"slow_compute aborted","taskId":"${taskId}"`) ? true : undefined), "the work to stop");
  });
});

describe("two demo servers on one PostgreSQL database (sep-1686-draft)", () => {
  const schema = freshSchema("e2e");
  schemas.push(schema);
  let one: ReturnType<typeof startDemo> | undefined;
  let two: ReturnType<typeof startDemo> | undefined;
  const start = () => {
    if (one !== undefined) return;
    one = startDemo("sep-1686-draft", schema);
    two = startDemo("sep-1686-draft", schema);
  };
  afterAll(async () => {
    await one?.stop();
    await two?.stop();
  });
  const tasksAt = async (url: string) => {
    const client = new Client({ name: "postgres-multi-instance", version: "0.0.0" }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
    return new seedClient.TaskClient(client, { defaultPollFrequency: 50 });
  };

  it("a task created through one process is polled, listed and has its result fetched through the other", async () => {
    start();
    const a = await tasksAt(await one!.url);
    const b = await tasksAt(await two!.url);
    const pending = a.beginCallTool({ name: "slow_compute", arguments: { seconds: 0.3 } });
    const own = pending.result();
    own.catch(() => undefined);
    expect(await pending.created).toBe(true);
    const taskId = pending.taskId!;
    expect((await b.getTask(taskId)) as unknown).toMatchObject({ taskId });
    // Polled through the second process until the work in the first completed, then its result fetched there.
    const result = await b.waitForTask(taskId, any);
    expect(await b.getTaskResult(taskId)).toEqual(result);
    expect(result.content).toEqual([{ type: "text", text: "Computed for 0.3 s" }]);
    expect(await own).toMatchObject({ content: result.content });
    const listed: string[] = [];
    for await (const page of b.listTasks()) for (const t of page.tasks) listed.push((t as unknown as { taskId: string }).taskId);
    expect(listed).toContain(taskId);
  });
});

describe("a killed process on a shared PostgreSQL store (mcp-2025-11-25)", () => {
  const schema = freshSchema("lease");
  schemas.push(schema);

  it("the live process ends the tasks the killed one was running, once its lease ran out, as a restart would", async () => {
    // Short leases: a process renews its own every 200 ms and is given up after 600 ms unseen.
    const one = startDemo("mcp-2025-11-25", schema, { runnerLeaseMs: 600 });
    const two = startDemo("mcp-2025-11-25", schema, { runnerLeaseMs: 600 });
    try {
      const a = await connect(await one.url);
      const b = await connect(await two.url);
      const started = await a.tasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 60 } } }, any);
      if (!("task" in started)) throw new Error("slow_compute answered without a task");
      const taskId = (started.task as unknown as { taskId: string }).taskId;
      // A task the live process runs itself is never touched: after several lease periods it still works.
      const own = await b.tasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 60 } } }, any);
      if (!("task" in own)) throw new Error("slow_compute answered without a task");
      const ownId = (own.task as unknown as { taskId: string }).taskId;
      await new Promise((r) => setTimeout(r, 1500));
      expect(((await b.tasks.getTask(taskId)) as unknown as Record<string, unknown>).status).toBe("working");
      one.child.kill("SIGKILL");
      const ended = await eventually(async () => {
        const t = (await b.tasks.getTask(taskId)) as unknown as Record<string, unknown>;
        return t.status === "working" ? undefined : t;
      }, "the killed process's task ended", 15_000);
      expect(ended).toMatchObject({ taskId, status: "failed", statusMessage: "The server restarted before the task finished" });
      expect(((await b.tasks.getTask(ownId)) as unknown as Record<string, unknown>).status).toBe("working");
      await b.tasks.cancelTask(ownId);
    } finally {
      // A process killed already has exited (with a signal, so no exit code).
      if (one.child.exitCode === null && one.child.signalCode === null) await one.stop();
      await two.stop();
    }
  }, 60_000);
});

describe("a requestor's concurrency limit on a shared PostgreSQL store (mcp-2025-11-25)", () => {
  const schema = freshSchema("limit");
  schemas.push(schema);

  it("counts the requestor's unfinished tasks in every process: the limit holds over both, and an ended task frees a slot", async () => {
    const limits = { maxConcurrentPerRequestor: 2 };
    const one = startDemo("mcp-2025-11-25", schema, { limits });
    const two = startDemo("mcp-2025-11-25", schema, { limits });
    try {
      const a = await connect(await one.url);
      const b = await connect(await two.url);
      const start = (tasks: typeof a.tasks) => tasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 60 } } }, any);
      const first = await start(a.tasks);
      await start(b.tasks);
      // Each process runs one task: neither is at the limit by its own count, both are by the store's.
      const refused = await start(a.tasks).then(
        () => undefined,
        (e: unknown) => e as { code?: number; message?: string },
      );
      expect(refused).toMatchObject({ code: -32011 });
      expect(refused?.message).toContain("Too many concurrent tasks (limit 2)");
      await expect(start(b.tasks)).rejects.toMatchObject({ code: -32011 });
      if (!("task" in first)) throw new Error("slow_compute answered without a task");
      await b.tasks.cancelTask((first.task as unknown as { taskId: string }).taskId);
      const third = await start(b.tasks);
      expect("task" in third).toBe(true);
      expect(one.stderr()).toContain('"reason":"concurrent task limit"');
    } finally {
      await one.stop();
      await two.stop();
    }
  }, 60_000);
});
