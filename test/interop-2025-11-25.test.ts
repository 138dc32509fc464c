/**
 * mcp-2025-11-25 end to end against the real SDK (@modelcontextprotocol/sdk 1.32),
 * both ways, over stdio and Streamable HTTP on 127.0.0.1:
 *
 * 1. The SDK's client (`client.experimental.tasks`: callToolStream, getTask,
 *    getTaskResult, listTasks, cancelTask, with an elicitation handler) against
 *    our generated server (the demo server of output-samples/mcp-2025-11-25).
 * 2. Our generated client (TaskClient) against an SDK McpServer whose tools use
 *    `registerToolTask` with the SDK's InMemoryTaskStore.
 *
 * No timed assertions: waiting is bounded polling (`eventually`) or a gate the
 * test opens itself; timings are short through server options.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { CallToolResultSchema, CreateTaskResultSchema, type Task } from "@modelcontextprotocol/sdk/types.js";
import { TaskCancelledError } from "../output-samples/mcp-2025-11-25/client.js";
import { deferred, eventually, rejection } from "./seed-harness.js";
import { startOurServer, startSdkServer, type Conn, type Served } from "./interop-2025-11-25/harness.js";

const REL = "io.modelcontextprotocol/related-task";
const related = (taskId: string) => ({ [REL]: { taskId } });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// Our server: suggested polls every 50 ms, ttl 20 s when none is asked and at most 60 s,
// 3 tasks a tasks/list page, expired tasks remembered for a minute.
const OPTIONS = { pollFrequency: 50, defaultKeepAlive: 20_000, maxKeepAlive: 60_000, pageSize: 3, rememberExpiredMs: 60_000 };

type Message = { type: string; task?: Task; result?: Record<string, unknown>; error?: { code?: number; message: string } };

async function collect(stream: AsyncIterable<unknown>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of stream) out.push(m as Message);
  return out;
}

/** tools/call with params.task, sent raw (the SDK client decides itself whether callToolStream asks for a task). */
async function createTask(c: Conn, name: string, args: Record<string, unknown>, task: Record<string, unknown> = {}): Promise<Task> {
  const created = await c.client.request({ method: "tools/call", params: { name, arguments: args, task } }, CreateTaskResultSchema);
  return created.task;
}

function statusesOf(server: Served, taskId: string): string[] {
  return server
    .audit()
    .filter((e) => e.taskId === taskId && (e.type === "created" || e.type === "status"))
    .map((e) => String(e.to));
}

async function finalStatuses(server: Served, taskId: string, last: string): Promise<string[]> {
  return eventually(() => {
    const s = statusesOf(server, taskId);
    return s[s.length - 1] === last ? s : undefined;
  }, `audit of ${taskId} to end in ${last}`);
}

describe.each(["stdio", "http"] as const)("the SDK client against our mcp-2025-11-25 server over %s", (kind) => {
  let server: Served;
  let c: Conn;

  beforeAll(async () => {
    server = await startOurServer(kind, OPTIONS);
    c = await server.connect();
    // callToolStream asks for a task only for tools it saw in tools/list with taskSupport optional/required.
    await c.client.listTools();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("declares capabilities.tasks and lists execution.taskSupport per tool (forbidden by default)", async () => {
    expect(c.client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await c.client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(support).toMatchObject({
      greet: "forbidden",
      slow_compute: "optional",
      failing_job: "optional",
      protocol_error_job: "optional",
      confirm_delete: "required",
    });
  });

  it("callToolStream: CreateTaskResult at once (working, receiver-made id), polling, then tasks/result with related-task meta", async () => {
    const msgs = await collect(c.client.experimental.tasks.callToolStream({ name: "slow_compute", arguments: { seconds: 0.2 } }, CallToolResultSchema));
    expect(msgs[0]!.type).toBe("taskCreated");
    const task = msgs[0]!.task!;
    expect(task.taskId).toMatch(UUID);
    expect(task).toMatchObject({ status: "working", ttl: 20_000, pollInterval: 50 });
    expect(Number.isNaN(Date.parse(task.createdAt))).toBe(false);
    expect(Number.isNaN(Date.parse(task.lastUpdatedAt))).toBe(false);
    const last = msgs[msgs.length - 1]!;
    expect(last.type).toBe("result");
    expect(last.result!.content).toEqual([{ type: "text", text: "Computed for 0.2 s" }]);
    expect(last.result!._meta).toEqual(related(task.taskId));
    expect(msgs.filter((m) => m.type === "taskStatus").map((m) => m.task!.status)).toContain("completed");
    // tasks/get (sent by the SDK with a stray `task: {}` param) answers the Task without related-task meta.
    const got = await c.client.experimental.tasks.getTask(task.taskId);
    expect(got).toMatchObject({ taskId: task.taskId, status: "completed", ttl: 20_000, createdAt: task.createdAt });
    expect((got as { _meta?: Record<string, unknown> })._meta?.[REL]).toBeUndefined();
    // tasks/result may be asked again.
    expect((await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).content).toEqual(last.result!.content);
    expect(await finalStatuses(server, task.taskId, "completed")).toEqual(["working", "completed"]);
  });

  it("tasks/result blocks until the task is terminal, carrying its elicitation meanwhile (input_required round trip)", async () => {
    const answer = deferred<void>();
    const seen = c.elicitations.length;
    c.onElicit.fn = async (req) => {
      await answer.promise;
      return { action: "accept", content: { confirm: req.params.message === "Delete a.txt?" } };
    };
    try {
      const task = await createTask(c, "confirm_delete", { filename: "a.txt" });
      expect(task.status === "working" || task.status === "input_required").toBe(true);
      let settled = false;
      const result = c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema).finally(() => (settled = true));
      // The elicitation arrives on the pending tasks/result, tied to the task.
      const elicitation = await eventually(() => c.elicitations[seen], "the elicitation");
      expect(elicitation.params.message).toBe("Delete a.txt?");
      // A form elicitation says so (SDK clients refuse one without a mode).
      expect(elicitation.params.mode).toBe("form");
      expect(elicitation.params._meta).toEqual(related(task.taskId));
      expect((await c.client.experimental.tasks.getTask(task.taskId)).status).toBe("input_required");
      expect(settled).toBe(false);
      answer.resolve();
      const r = await result;
      expect(r.content).toEqual([{ type: "text", text: "Deleted a.txt" }]);
      expect(r._meta).toEqual(related(task.taskId));
      expect(await finalStatuses(server, task.taskId, "completed")).toEqual(["working", "input_required", "working", "completed"]);
      // Every change was pushed as notifications/tasks/status (the full Task, no related-task meta).
      const pushed = await eventually(() => {
        const s = c.statuses.filter((t) => t.taskId === task.taskId);
        return s.some((t) => t.status === "completed") ? s : undefined;
      }, "status notifications");
      expect(pushed.map((t) => t.status)).toEqual(["input_required", "working", "completed"]);
      expect(pushed.every((t) => (t as { _meta?: unknown })._meta === undefined && t.ttl === 20_000)).toBe(true);
    } finally {
      c.onElicit.fn = async () => ({ action: "accept", content: { confirm: true } });
    }
  });

  it("callToolStream on an interactive tool: input_required, then tasks/result delivers two elicitations at once (partial answers)", async () => {
    const seen = c.elicitations.length;
    c.onElicit.fn = async (req) => ({ action: "accept", content: { value: req.params.message.includes("name") ? "Ada" : "blue", confirm: true } });
    try {
      const msgs = await collect(c.client.experimental.tasks.callToolStream({ name: "multi_input", arguments: {} }, CallToolResultSchema, { task: {} }));
      const last = msgs[msgs.length - 1]!;
      expect(last.type).toBe("result");
      expect(last.result!.content).toEqual([{ type: "text", text: "name=Ada colour=blue" }]);
      const taskId = msgs[0]!.task!.taskId;
      const mine = c.elicitations.slice(seen);
      expect(mine).toHaveLength(2);
      for (const e of mine) expect(e.params._meta).toEqual(related(taskId));
      const confirm = await collect(c.client.experimental.tasks.callToolStream({ name: "confirm_delete", arguments: { filename: "b.txt" } }, CallToolResultSchema));
      expect(confirm.some((m) => m.type === "taskStatus" && m.task!.status === "input_required")).toBe(true);
      expect(confirm[confirm.length - 1]!.result!.content).toEqual([{ type: "text", text: "Deleted b.txt" }]);
    } finally {
      c.onElicit.fn = async () => ({ action: "accept", content: { confirm: true } });
    }
  });

  it("a JSON-RPC error of the request fails the task and tasks/result replays exactly that error", async () => {
    const msgs = await collect(c.client.experimental.tasks.callToolStream({ name: "protocol_error_job", arguments: {} }, CallToolResultSchema));
    const taskId = msgs[0]!.task!.taskId;
    // The SDK's stream only says "failed"; tasks/result has the request's own error.
    expect(msgs[msgs.length - 1]!.type).toBe("error");
    expect(await c.client.experimental.tasks.getTask(taskId)).toMatchObject({
      status: "failed",
      statusMessage: "Tool execution failed: API rate limit exceeded",
    });
    const err = await rejection(c.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema));
    expect(err).toMatchObject({ code: -32603, message: "MCP error -32603: Tool execution failed: API rate limit exceeded" });
    expect(await finalStatuses(server, taskId, "failed")).toEqual(["working", "failed"]);
  });

  it("a tool result with isError makes the task failed; tasks/result returns that result", async () => {
    const task = await createTask(c, "failing_job", { seconds: 0.05 });
    const r = await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: "text", text: "The job failed: the input data set is empty" }]);
    expect(r._meta).toEqual(related(task.taskId));
    expect(await c.client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: "failed",
      statusMessage: "Tool execution failed: The job failed: the input data set is empty",
    });
  });

  it("tasks/cancel: a running task is cancelled before the reply, which is the task; its work is aborted; a terminal task is -32602", async () => {
    const task = await createTask(c, "slow_compute", { seconds: 30 });
    const reply = await c.client.experimental.tasks.cancelTask(task.taskId);
    expect(reply).toMatchObject({ taskId: task.taskId, status: "cancelled", statusMessage: "The task was cancelled by request.", ttl: 20_000 });
    expect((reply as { _meta?: Record<string, unknown> })._meta?.[REL]).toBeUndefined();
    expect((await c.client.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
    await eventually(() => (server.stderr().includes(`"msg":"slow_compute aborted","taskId":"${task.taskId}"`) ? true : undefined), "the tool's abort");
    expect(await rejection(c.client.experimental.tasks.cancelTask(task.taskId))).toMatchObject({
      code: -32602,
      message: "MCP error -32602: Cannot cancel task: already in terminal status 'cancelled'",
    });
    // A cancelled request has no result.
    expect(await rejection(c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).toMatchObject({ code: -32603 });
    const done = await createTask(c, "slow_compute", { seconds: 0 });
    await c.client.experimental.tasks.getTaskResult(done.taskId, CallToolResultSchema);
    expect(await rejection(c.client.experimental.tasks.cancelTask(done.taskId))).toMatchObject({
      code: -32602,
      message: "MCP error -32602: Cannot cancel task: already in terminal status 'completed'",
    });
    expect(await rejection(c.client.experimental.tasks.cancelTask("no-such-task"))).toMatchObject({ code: -32602, message: "MCP error -32602: Failed to retrieve task: Task not found" });
    expect(await finalStatuses(server, task.taskId, "cancelled")).toEqual(["working", "cancelled"]);
  });

  it("notifications/cancelled for a pending tasks/result stops that wait, never the task", async () => {
    const task = await createTask(c, "slow_compute", { seconds: 0.5 });
    const ac = new AbortController();
    const waiting = c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { signal: ac.signal });
    ac.abort("the user stopped waiting");
    await rejection(waiting);
    expect((await c.client.experimental.tasks.getTask(task.taskId)).status).toBe("working");
    const r = await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(r.content).toEqual([{ type: "text", text: "Computed for 0.5 s" }]);
  });

  it("tasks/list pages the session's tasks (3 a page) with opaque cursors; a forged or altered cursor is -32602", async () => {
    const made = [];
    for (let i = 0; i < 4; i++) made.push((await createTask(c, "slow_compute", { seconds: 0 })).taskId);
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await c.client.experimental.tasks.listTasks(cursor);
      expect(page.tasks.length).toBeLessThanOrEqual(3);
      for (const t of page.tasks) expect(t.ttl === null || typeof t.ttl === "number").toBe(true);
      ids.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
      pages++;
      if (cursor !== undefined && pages === 1) {
        const altered = cursor.slice(0, -2) + (cursor.endsWith("AA") ? "BB" : "AA");
        expect(await rejection(c.client.experimental.tasks.listTasks(altered))).toMatchObject({ code: -32602, message: "MCP error -32602: Invalid cursor" });
      }
    } while (cursor !== undefined);
    expect(pages).toBeGreaterThan(1);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of made) expect(ids).toContain(id);
    expect(await rejection(c.client.experimental.tasks.listTasks("forged"))).toMatchObject({ code: -32602, message: "MCP error -32602: Invalid cursor" });
  });

  it("execution.taskSupport: a task asked of a forbidden tool and a required tool called plainly are -32601", async () => {
    const forced = await collect(c.client.experimental.tasks.callToolStream({ name: "greet", arguments: { name: "Ada" } }, CallToolResultSchema, { task: { ttl: 1000 } }));
    expect(forced).toHaveLength(1);
    expect(forced[0]!.type).toBe("error");
    expect(forced[0]!.error).toMatchObject({ code: -32601, message: "MCP error -32601: Tool 'greet' does not support task-augmented execution" });
    const plain = await rejection(c.client.request({ method: "tools/call", params: { name: "confirm_delete", arguments: { filename: "c.txt" } } }, CallToolResultSchema));
    expect(plain).toMatchObject({ code: -32601, message: "MCP error -32601: Tool 'confirm_delete' requires task-augmented execution" });
    // The forbidden tool still answers a plain call; an optional one both ways.
    expect((await c.client.callTool({ name: "greet", arguments: { name: "Ada" } })).content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
    expect((await c.client.request({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0 } } }, CallToolResultSchema)).content).toEqual([
      { type: "text", text: "Computed for 0 s" },
    ]);
  });

  it("ttl counts from creation and is capped: a requested ttl above the cap gets the cap; a task still running when it elapses is gone (expired) and stopped", async () => {
    const capped = await createTask(c, "slow_compute", { seconds: 0 }, { ttl: 10_000_000 });
    expect(capped.ttl).toBe(60_000);
    expect((await c.client.experimental.tasks.getTask(capped.taskId)).ttl).toBe(60_000);
    const short = await createTask(c, "slow_compute", { seconds: 30 }, { ttl: 300 });
    expect(short.ttl).toBe(300);
    // Counted from creation, not from the end: the task expires while it still runs.
    const err = await eventually(async () => {
      try {
        await c.client.experimental.tasks.getTask(short.taskId);
        return undefined;
      } catch (e) {
        return e as { code?: number; message: string };
      }
    }, "the task to expire");
    expect(err).toMatchObject({ code: -32602, message: "MCP error -32602: Failed to retrieve task: Task has expired" });
    await eventually(() => (server.stderr().includes(`"msg":"slow_compute aborted","taskId":"${short.taskId}"`) ? true : undefined), "the expired task's work to stop");
    expect(await rejection(c.client.experimental.tasks.getTaskResult(short.taskId, CallToolResultSchema))).toMatchObject({ code: -32602 });
  });

  it.runIf(kind === "http")("a second session sees none of the first session's tasks", async () => {
    const task = await createTask(c, "slow_compute", { seconds: 0 });
    await c.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const first = await c.client.experimental.tasks.listTasks();
    const other = await server.connect();
    const notFound = { code: -32602, message: "MCP error -32602: Failed to retrieve task: Task not found" };
    expect(await rejection(other.client.experimental.tasks.getTask(task.taskId))).toMatchObject(notFound);
    expect(await rejection(other.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).toMatchObject(notFound);
    expect(await rejection(other.client.experimental.tasks.cancelTask(task.taskId))).toMatchObject(notFound);
    expect((await other.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    if (first.nextCursor !== undefined) {
      expect(await rejection(other.client.experimental.tasks.listTasks(first.nextCursor))).toMatchObject({ code: -32602 });
    }
    // Its own tasks work as usual.
    const own = await createTask(other, "slow_compute", { seconds: 0 });
    expect((await other.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([own.taskId]);
    await other.close();
  });
});

describe.each(["stdio", "http"] as const)("our client against the SDK's McpServer (registerToolTask, InMemoryTaskStore) over %s", (kind) => {
  let sdk: Served;
  let c: Conn;

  beforeAll(async () => {
    sdk = await startSdkServer(kind);
    c = await sdk.connect();
  });
  afterAll(async () => {
    await sdk?.close();
  });

  it("create and poll: params.task is answered with { task } at once; tasks/get polls it; the result comes from tasks/result", async () => {
    const started = await c.tasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0.1 } } }, CallToolResultSchema, { keepAlive: 5_000 });
    if (!("task" in started)) throw new Error("no task was created");
    const task = started.task;
    expect(task).toMatchObject({ status: "working", ttl: 5_000, pollInterval: 50 });
    expect(task.taskId).toMatch(/^[0-9a-f]{32}$/);
    expect(["working", "completed"]).toContain((await c.tasks.getTask(task.taskId)).status);
    const seen: string[] = [];
    const result = await c.tasks.waitForTask(task.taskId, CallToolResultSchema, { onTaskStatus: (t) => void seen.push(t.status) });
    expect(result.content).toEqual([{ type: "text", text: "Computed for 0.1 s" }]);
    expect(result._meta).toEqual(related(task.taskId));
    expect(seen[seen.length - 1]).toBe("completed");
    expect((await c.tasks.getTaskResult(task.taskId)).content).toEqual(result.content);
  });

  it("callTool: tools/list's execution.taskSupport decides; a task-forbidden tool is called plainly", async () => {
    const tools = await c.tasks.listTools();
    expect(Object.fromEntries(tools.map((t) => [t.name, (t.execution as { taskSupport?: string } | undefined)?.taskSupport]))).toMatchObject({
      greet: "forbidden",
      slow_compute: "optional",
      confirm_delete: "required",
    });
    const greet = await c.tasks.callTool({ name: "greet", arguments: { name: "Ada" } });
    expect(greet).toEqual({ content: [{ type: "text", text: "Hello, Ada!" }] });
    const plain = await c.tasks.start({ method: "tools/call", params: { name: "greet", arguments: { name: "Bo" } } }, CallToolResultSchema);
    expect(plain).toEqual({ result: { content: [{ type: "text", text: "Hello, Bo!" }] } });
  });

  it("input_required: our client calls tasks/result and answers the elicitation the SDK delivers on it", async () => {
    const seen: string[] = [];
    const before = c.elicitations.length;
    const result = await c.tasks.callTool({ name: "confirm_delete", arguments: { filename: "a.txt" } }, { onTaskStatus: (t) => void seen.push(t.status) });
    expect(result.content).toEqual([{ type: "text", text: "Deleted a.txt" }]);
    expect(seen).toContain("input_required");
    const elicitation = c.elicitations[before]!;
    expect(elicitation.params.message).toBe("Delete a.txt?");
    expect(elicitation.params._meta?.[REL]).toBeDefined();
  });

  it("a tool error (isError) ends the task failed; the result still comes from tasks/result", async () => {
    const result = await c.tasks.callTool({ name: "failing_job", arguments: {} });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: "text", text: "The job failed" }]);
  });

  it("a task failed without a result: the error of tasks/result surfaces (the SDK answers -32603)", async () => {
    const err = await rejection(c.tasks.callTool({ name: "protocol_error_job", arguments: {} }));
    expect(err).toMatchObject({ code: -32603 });
  });

  it("cancel: tasks/cancel answers the cancelled task, a terminal task is -32602; aborting callTool cancels its task", async () => {
    const started = await c.tasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 30 } } }, CallToolResultSchema);
    if (!("task" in started)) throw new Error("no task was created");
    const reply = await c.tasks.cancelTask(started.task.taskId);
    expect(reply).toMatchObject({ taskId: started.task.taskId, status: "cancelled" });
    expect((await c.tasks.getTask(started.task.taskId)).status).toBe("cancelled");
    expect(await rejection(c.tasks.cancelTask(started.task.taskId))).toMatchObject({ code: -32602 });
    const ac = new AbortController();
    const err = await rejection(
      c.tasks.callTool({ name: "slow_compute", arguments: { seconds: 30 } }, { signal: ac.signal, onTaskStatus: () => ac.abort() }),
    );
    expect(err).toBeInstanceOf(TaskCancelledError);
    const cancelled = err as unknown as TaskCancelledError;
    expect(cancelled.confirmed).toBe(true);
    expect((await c.tasks.getTask(cancelled.taskId)).status).toBe("cancelled");
  });

  it("list: walks the SDK's pages (10 a page) through its cursors", async () => {
    const made: string[] = [];
    for (let i = 0; i < 12; i++) {
      const s = await c.tasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0 } } }, CallToolResultSchema);
      if ("task" in s) made.push(s.task.taskId);
    }
    const ids: string[] = [];
    let pages = 0;
    for await (const page of c.tasks.listTasks()) {
      pages++;
      ids.push(...page.tasks.map((t) => t.taskId));
    }
    expect(pages).toBeGreaterThan(1);
    for (const id of made) expect(ids).toContain(id);
    expect(await rejection(c.tasks.listTasksPage("forged"))).toMatchObject({ code: -32602 });
  });

  it("status notifications the SDK pushes reach onStatusNotification", async () => {
    const pushed: Task[] = [];
    const tasks = new (c.tasks.constructor as typeof import("../output-samples/mcp-2025-11-25/client.js").TaskClient)(c.client, {
      defaultPollFrequency: 50,
      onStatusNotification: (t) => void pushed.push(t as Task),
    });
    const started = await tasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0.05 } } }, CallToolResultSchema);
    if (!("task" in started)) throw new Error("no task was created");
    await tasks.waitForTask(started.task.taskId, CallToolResultSchema);
    await eventually(() => (pushed.some((t) => t.taskId === started.task.taskId && t.status === "completed") ? true : undefined), "a pushed status");
    expect(z.string().parse(pushed[0]!.createdAt)).toBeTruthy();
  });
});

describe("client-side tasks: the SDK server task-augments elicitation/create to our client (TaskRuntime, side client)", () => {
  it("declares the client's tasks capability, answers { task } at once and serves tasks/get, tasks/result, tasks/list and tasks/cancel", async () => {
    const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
    const { ElicitRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
    const { TaskRuntime } = await import("../output-samples/mcp-2025-11-25/server.js");
    const server = new McpServer({ name: "sdk-requestor", version: "1" }, { capabilities: {} });
    const client = new Client({ name: "our-client", version: "1" }, { capabilities: { elicitation: { form: {} } } });
    const runtime = new TaskRuntime({ side: "client", audit: false, log: () => undefined, pollFrequency: 50 });
    runtime.install(client);
    const gate = deferred<void>();
    const asked: Array<string | undefined> = [];
    client.setRequestHandler(
      ElicitRequestSchema,
      runtime.handle<{ method: string; params: { message: string } }, { action: "accept"; content: { ok: boolean } }>("elicitation/create", async (req, ctx) => {
        asked.push(ctx.taskId);
        if (req.params.message === "ok?") await gate.promise;
        if (req.params.message === "slow?") await new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted"))));
        return { action: "accept" as const, content: { ok: true } };
      }) as never,
    );
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await server.connect(st);
    await client.connect(ct);
    try {
      expect(server.server.getClientCapabilities()?.tasks).toEqual({
        list: {},
        cancel: {},
        requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
      });
      const schema = { type: "object" as const, properties: { ok: { type: "boolean" as const } } };
      const stream = server.server.experimental.tasks.elicitInputStream({ mode: "form", message: "ok?", requestedSchema: schema }, { task: { ttl: 10_000 } });
      const first = (await stream.next()).value as Message;
      expect(first.type).toBe("taskCreated");
      const taskId = first.task!.taskId;
      expect(first.task).toMatchObject({ status: "working", ttl: 10_000, pollInterval: 50 });
      expect((await server.server.experimental.tasks.getTask(taskId)).status).toBe("working");
      expect((await server.server.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(taskId);
      gate.resolve();
      const rest = await collect({ [Symbol.asyncIterator]: () => stream });
      const last = rest[rest.length - 1]!;
      expect(last.type).toBe("result");
      expect(last.result).toEqual({ action: "accept", content: { ok: true }, _meta: related(taskId) });
      expect(asked[0]).toBe(taskId);
      // A plain elicitation is answered plainly.
      expect(await server.server.elicitInput({ mode: "form", message: "plain?", requestedSchema: schema })).toEqual({ action: "accept", content: { ok: true } });
      // tasks/cancel from the server: cancelled before the reply, the handler's signal fires.
      const slow = server.server.experimental.tasks.elicitInputStream({ mode: "form", message: "slow?", requestedSchema: schema }, { task: { ttl: 10_000 } });
      const created = (await slow.next()).value as Message;
      const cancelled = await server.server.experimental.tasks.cancelTask(created.task!.taskId);
      expect(cancelled).toMatchObject({ taskId: created.task!.taskId, status: "cancelled" });
      expect(await rejection(server.server.experimental.tasks.cancelTask(created.task!.taskId))).toMatchObject({ code: -32602 });
      await slow.return(undefined);
    } finally {
      await client.close();
      await server.close();
      await runtime.close();
    }
  });
});

describe("declared capability gates and requiredTaskError (our server in process, SDK client and our client)", () => {
  async function serve(options: Record<string, unknown>) {
    const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
    const gen = await import("../output-samples/mcp-2025-11-25/server.js");
    const { TaskClient } = await import("../output-samples/mcp-2025-11-25/client.js");
    const runtime = new gen.TaskRuntime({ audit: false, log: () => undefined, pollFrequency: 50, ...options });
    const server = new Server({ name: "gated", version: "1" }, { capabilities: {} });
    runtime.install(server);
    runtime.registerTools(server, [
      gen.defineTool({ name: "echo", taskSupport: "optional", inputSchema: z.object({ text: z.string() }), handler: async ({ text }) => ({ content: [{ type: "text", text }] }) }),
    ]);
    const client = new Client({ name: "c", version: "1" }, { capabilities: {} });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await server.connect(st);
    await client.connect(ct);
    return {
      client,
      tasks: new TaskClient(client, { defaultPollFrequency: 50 }),
      close: async () => {
        await client.close();
        await server.close();
        await runtime.close();
      },
    };
  }

  it("a server declaring tasks without list and cancel answers them -32601; our client does not send them", async () => {
    const s = await serve({ taskCapability: { requests: { tools: { call: {} } } } });
    try {
      expect(s.client.getServerCapabilities()?.tasks).toEqual({ requests: { tools: { call: {} } } });
      expect(await rejection(s.client.experimental.tasks.listTasks())).toMatchObject({ code: -32601 });
      expect(await rejection(s.client.experimental.tasks.cancelTask("x"))).toMatchObject({ code: -32601 });
      expect(await rejection(s.tasks.listTasksPage())).toMatchObject({ code: -32601, message: "tasks/list is not supported by the server (capability tasks.list not declared)" });
      expect(await rejection(s.tasks.cancelTask("x"))).toMatchObject({ code: -32601 });
      // Tasks themselves work.
      expect((await s.tasks.callTool({ name: "echo", arguments: { text: "hi" } })).content).toEqual([{ type: "text", text: "hi" }]);
    } finally {
      await s.close();
    }
  });

  it("a server without tasks.requests.tools.call gets plain tool calls from our client", async () => {
    const s = await serve({ taskCapability: { list: {} } });
    try {
      const started = await s.tasks.start({ method: "tools/call", params: { name: "echo", arguments: { text: "plain" } } }, CallToolResultSchema);
      expect(started).toEqual({ result: { content: [{ type: "text", text: "plain" }] } });
    } finally {
      await s.close();
    }
  });

  it("requireTask: a plain request of a method served only as a task is -32600 (the declared requiredTaskError)", async () => {
    const s = await serve({ requireTask: ["tools/call"] });
    try {
      const err = await rejection(s.client.request({ method: "tools/call", params: { name: "echo", arguments: { text: "x" } } }, CallToolResultSchema));
      expect(err).toMatchObject({ code: -32600, message: "MCP error -32600: Task augmentation required for tools/call requests" });
      expect((await s.tasks.callTool({ name: "echo", arguments: { text: "as a task" } })).content).toEqual([{ type: "text", text: "as a task" }]);
    } finally {
      await s.close();
    }
  });
});
