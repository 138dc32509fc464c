/**
 * The runtime's TaskClient against a scripted connection (the `request` and
 * `setNotificationHandler` of an SDK Client, answered by hand), for each
 * built-in descriptor: no code is generated.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { descriptorOf } from "./descriptors.js";
import {
  TaskCancelledError,
  TaskClient,
  TaskEndedError,
  clientCapabilityOf,
  relatedMeta,
  relatedTaskId,
  toTaskError,
  withCapability,
  type TaskLike,
} from "../../runtime/client.js";
import { TaskProtocolError } from "../../runtime/errors.js";
import type { TaskSpecDescriptor } from "../../runtime/descriptor.js";

type Params = Record<string, unknown>;
type Handler = (params: Params, options: { timeout?: number; signal?: AbortSignal }) => unknown;
interface Sent {
  method: string;
  params: Params;
  options: { timeout?: number; signal?: AbortSignal };
  at: number;
}

/** A connection answering each method with a scripted handler, checking results with the schema like the SDK. */
class FakeConnection {
  readonly sent: Sent[] = [];
  readonly handlers = new Map<string, Handler>();
  readonly listeners = new Map<string, (n: { method: string; params?: unknown }) => Promise<void>>();
  /** Requests aborted by their signal (the SDK sends notifications/cancelled for them). */
  readonly aborted: string[] = [];
  capabilities: unknown;

  on(method: string, handler: Handler): this {
    this.handlers.set(method, handler);
    return this;
  }

  /** Answers `method` with each value in turn (the last one repeats). */
  sequence(method: string, values: unknown[]): this {
    let i = 0;
    return this.on(method, () => values[Math.min(i++, values.length - 1)]);
  }

  methods(): string[] {
    return this.sent.map((s) => s.method);
  }

  async request(request: { method: string; params?: Params }, schema: z.ZodType, options: { timeout?: number; signal?: AbortSignal } = {}): Promise<unknown> {
    const params = request.params ?? {};
    this.sent.push({ method: request.method, params, options, at: Date.now() });
    const handler = this.handlers.get(request.method);
    if (handler === undefined) throw new McpError(ErrorCode.MethodNotFound, "Method not found");
    const signal = options.signal;
    const raw = await new Promise<unknown>((resolve, reject) => {
      if (signal?.aborted) return reject(new McpError(ErrorCode.RequestTimeout, String(signal.reason)));
      signal?.addEventListener(
        "abort",
        () => {
          this.aborted.push(request.method);
          reject(new McpError(ErrorCode.RequestTimeout, String(signal.reason)));
        },
        { once: true },
      );
      Promise.resolve()
        .then(() => handler(params, options))
        .then(resolve, reject);
    });
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw parsed.error;
    return parsed.data;
  }

  setNotificationHandler(schema: z.ZodObject<{ method: z.ZodLiteral<string> }>, handler: (n: { method: string; params?: unknown }) => Promise<void>): void {
    this.listeners.set(schema.shape.method.value, handler);
  }

  getServerCapabilities(): unknown {
    return this.capabilities;
  }

  async notify(method: string, params: unknown): Promise<void> {
    await this.listeners.get(method)?.({ method, params });
  }
}

const never = new Promise<never>(() => undefined);
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (t: string) => ({ content: [{ type: "text", text: t }] });

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

function gaps(sent: Sent[], method: string): number[] {
  const at = sent.filter((s) => s.method === method).map((s) => s.at);
  return at.slice(1).map((t, i) => t - at[i]!);
}

describe("TaskClient: construction", () => {
  it("refuses a descriptor generated for another runtime version", async () => {
    const d = await descriptorOf("sep-1686-draft");
    expect(() => new TaskClient({ ...d, runtimeVersion: "0.0.0-other" }, new FakeConnection())).toThrow(/expects runtime 0\.0\.0-other/);
  });

  it("maps the SDK's McpError to a TaskProtocolError with the wire message", () => {
    const e = toTaskError(new McpError(-32602, "Failed to retrieve task: Task not found", { x: 1 }));
    expect(e).toBeInstanceOf(TaskProtocolError);
    expect(e).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found", data: { x: 1 }, errorName: "remote" });
    const other = new Error("plain");
    expect(toTaskError(other)).toBe(other);
  });
});

describe("TaskClient: sep-1686-draft (requestor task id in _meta, created notification, tasks/result once completed)", () => {
  const spec = "sep-1686-draft" as const;
  const seedTask = (taskId: string, status: string, extra: Params = {}) => ({ taskId, status, keepAlive: 60_000, ...extra });

  async function setup() {
    const d = await descriptorOf(spec);
    const conn = new FakeConnection();
    const tasks = new TaskClient<{ taskId: string; status: string }>(d, conn, { defaultPollFrequency: 5 });
    const key = d.meta.relatedTask!;
    const taskKey = d.meta.task!;
    // The server acknowledges every task-augmented tools/call by notification and never answers directly.
    conn.on("tools/call", (params) => {
      const taskId = ((params._meta as Params)[taskKey] as { taskId: string }).taskId;
      setTimeout(() => void conn.notify("notifications/tasks/created", { _meta: { [key]: { taskId } } }), 1);
      return never;
    });
    return { d, conn, tasks, key, taskKey };
  }

  it("polls until terminal at the suggested interval, then fetches the result with tasks/result", async () => {
    const { conn, tasks, key, taskKey } = await setup();
    conn.sequence("tasks/get", [
      seedTask("t1", "submitted", { pollFrequency: 40 }),
      seedTask("t1", "working", { pollFrequency: 40 }),
      seedTask("t1", "completed"),
    ]);
    conn.on("tasks/result", () => text("done"));
    const seen: string[] = [];
    const pending = tasks.beginCallTool({ name: "slow", arguments: {} }, { taskId: "t1", keepAlive: 5_000, onTaskStatus: (t) => void seen.push(t.status) });
    expect(pending.taskId).toBe("t1");
    const result = await pending.result();
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual(["submitted", "working", "completed"]);
    const call = conn.sent[0]!;
    expect(call.method).toBe("tools/call");
    expect((call.params._meta as Params)[taskKey]).toEqual({ taskId: "t1", keepAlive: 5_000 });
    expect(call.options.timeout).toBe(86_400_000);
    // Task methods carry the related-task meta.
    for (const s of conn.sent.filter((s) => s.method.startsWith("tasks/"))) expect(s.params).toEqual({ taskId: "t1", _meta: { [key]: { taskId: "t1" } } });
    for (const gap of gaps(conn.sent, "tasks/get")) expect(gap).toBeGreaterThanOrEqual(35);
    expect(conn.methods()).toEqual(["tools/call", "tasks/get", "tasks/get", "tasks/get", "tasks/result"]);
  });

  it("uses the direct answer when it comes first (no acknowledgement)", async () => {
    const { conn, tasks } = await setup();
    conn.on("tools/call", () => text("at once"));
    const result = await tasks.callTool({ name: "quick", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "at once" }]);
    expect(conn.methods()).toEqual(["tools/call"]);
  });

  it("a failed task: the direct answer's error wins the race; waitForTask ends with TaskEndedError", async () => {
    const { conn, tasks, taskKey, key } = await setup();
    conn.on("tools/call", async (params) => {
      const taskId = ((params._meta as Params)[taskKey] as { taskId: string }).taskId;
      await conn.notify("notifications/tasks/created", { _meta: { [key]: { taskId } } });
      await delay(30);
      throw new McpError(-32603, "boom");
    });
    conn.sequence("tasks/get", [seedTask("t2", "failed", { error: "boom" })]);
    expect(await rejection(tasks.beginCallTool({ name: "x" }, { taskId: "t2" }).result())).toMatchObject({ name: "TaskProtocolError", code: -32603, message: "boom" });
    const err = await rejection(tasks.waitForTask("t2", CallToolResultSchema));
    expect(err).toBeInstanceOf(TaskEndedError);
    expect((err as TaskEndedError).message).toBe("task t2 ended failed: boom");
    expect((err as TaskEndedError<{ status: string }>).task.status).toBe("failed");
  });

  it("aborting the signal cancels the request (no cancel method) and confirms by polling", async () => {
    const { conn, tasks } = await setup();
    const ac = new AbortController();
    let cancelled = false;
    conn.on("tasks/get", () => seedTask("t3", cancelled ? "cancelled" : "working", { pollFrequency: 10 }));
    const pending = tasks.beginCallTool({ name: "slow" }, { taskId: "t3", signal: ac.signal });
    await pending.created;
    setTimeout(() => {
      cancelled = true;
      ac.abort("user");
    }, 30);
    const err = await rejection(pending.result());
    expect(err).toBeInstanceOf(TaskCancelledError);
    expect(err).toMatchObject({ taskId: "t3", confirmed: true });
    expect(conn.aborted).toContain("tools/call");
    expect(conn.methods()).not.toContain("tasks/cancel");
  });

  it("rejects with the server's error as a TaskProtocolError, and checks the task it gets", async () => {
    const { conn, tasks } = await setup();
    conn.on("tasks/get", () => {
      throw new McpError(-32602, "Failed to retrieve task: Task not found");
    });
    expect(await rejection(tasks.getTask("nope"))).toMatchObject({ name: "TaskProtocolError", code: -32602, message: "Failed to retrieve task: Task not found" });
    conn.on("tasks/get", () => ({ taskId: "t", status: "bogus", keepAlive: null }));
    expect(await rejection(tasks.getTask("t"))).toBeInstanceOf(z.ZodError);
  });

  it("lists, deletes, and refuses what the spec lacks", async () => {
    const { conn, tasks, key } = await setup();
    conn.on("tasks/list", (p) => (p.cursor === undefined ? { tasks: [seedTask("a", "working")], nextCursor: "c2" } : { tasks: [seedTask("b", "completed")] }));
    conn.on("tasks/delete", () => ({ _meta: { [key]: { taskId: "a" } } }));
    const pages = [];
    for await (const page of tasks.listTasks()) pages.push(page.tasks.map((t) => t.taskId));
    expect(pages).toEqual([["a"], ["b"]]);
    conn.on("tasks/list", () => ({ tasks: [{ taskId: 1 }] }));
    expect(await rejection(tasks.listTasksPage())).toBeInstanceOf(z.ZodError);
    expect(await tasks.deleteTask("a")).toEqual({ _meta: { [key]: { taskId: "a" } } });
    expect(await rejection(tasks.cancelTask("a"))).toMatchObject({ code: -32603, message: expect.stringMatching(/^cancelTask is not supported/) });
    expect(await rejection(tasks.updateTask("a", {}))).toMatchObject({ code: -32603, message: expect.stringMatching(/^updateTask is not supported/) });
    expect(await rejection(tasks.start({ method: "tools/call" }, CallToolResultSchema))).toMatchObject({ message: expect.stringMatching(/^start is not supported/) });
  });

  it("the related-task helpers read the spec's key", async () => {
    const d = await descriptorOf(spec);
    const key = d.meta.relatedTask!;
    expect(relatedMeta(d, "t")).toEqual({ [key]: { taskId: "t" } });
    expect(relatedTaskId(d, { params: { _meta: { [key]: { taskId: "t" } } } })).toBe("t");
    expect(clientCapabilityOf(d)).toBeUndefined();
    expect(() => withCapability(d, {})).toThrow(/declares no client capability/);
  });
});

describe("TaskClient: mcp-2025-11-25 (params.task, { task } at once, blocking tasks/result, tasks/cancel)", () => {
  const spec = "mcp-2025-11-25" as const;
  const now = new Date().toISOString();
  const task = (taskId: string, status: string, extra: Params = {}) => ({ taskId, status, createdAt: now, lastUpdatedAt: now, ttl: 60_000, ...extra });
  const fullCaps = { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };

  async function setup(tools: Params[] = [{ name: "slow", execution: { taskSupport: "optional" } }]) {
    const d = await descriptorOf(spec);
    const conn = new FakeConnection();
    conn.capabilities = fullCaps;
    conn.on("tools/list", () => ({ tools: tools.map((t) => ({ inputSchema: { type: "object" }, ...t })) }));
    conn.on("tools/call", (p) => (p.task !== undefined ? { task: task("t1", "working", { pollInterval: 30 }) } : text("direct")));
    const statuses: string[] = [];
    const tasks = new TaskClient<{ taskId: string; status: string }>(d, conn, { defaultPollFrequency: 5, requestTimeout: 123_456, onStatusNotification: (t) => void statuses.push(t.status) });
    return { d, conn, tasks, statuses };
  }

  it("asks for a task where the capability and the tool allow it, polls, then reads tasks/result", async () => {
    const { conn, tasks } = await setup();
    conn.sequence("tasks/get", [task("t1", "working", { pollInterval: 30 }), task("t1", "completed")]);
    conn.on("tasks/result", () => text("done"));
    const seen: string[] = [];
    const result = await tasks.callTool({ name: "slow", arguments: {} }, { keepAlive: 5_000, onTaskStatus: (t) => void seen.push(t.status) });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual(["working", "working", "completed"]);
    expect(conn.methods()).toEqual(["tools/list", "tools/call", "tasks/get", "tasks/get", "tasks/result"]);
    expect(conn.sent[1]!.params.task).toEqual({ ttl: 5_000 });
    expect(conn.sent[2]!.params).toEqual({ taskId: "t1" });
    for (const gap of gaps(conn.sent, "tasks/get")) expect(gap).toBeGreaterThanOrEqual(25);
    // The blocking result method waits as long as a request may.
    expect(conn.sent[4]!.options.timeout).toBe(123_456);
  });

  it("sends no task where the tool forbids it or the server lacks the capability", async () => {
    const { conn, tasks } = await setup([{ name: "quick", execution: { taskSupport: "forbidden" } }]);
    expect((await tasks.callTool({ name: "quick" })).content).toEqual([{ type: "text", text: "direct" }]);
    expect(conn.sent.find((s) => s.method === "tools/call")!.params.task).toBeUndefined();
    conn.capabilities = { tasks: { list: {} } };
    conn.sent.length = 0;
    await tasks.callTool({ name: "slow" });
    expect(conn.methods()).toEqual(["tools/call"]);
    expect(conn.sent[0]!.params.task).toBeUndefined();
  });

  it("a failed task replays the request's JSON-RPC error from tasks/result", async () => {
    const { conn, tasks } = await setup();
    conn.sequence("tasks/get", [task("t1", "failed", { statusMessage: "bad" })]);
    conn.on("tasks/result", () => {
      throw new McpError(-32603, "Tool execution failed");
    });
    expect(await rejection(tasks.callTool({ name: "slow" }))).toMatchObject({ name: "TaskProtocolError", code: -32603, message: "Tool execution failed" });
  });

  it("input_required: waits on the blocking result method (its input requests travel there)", async () => {
    const { conn, tasks } = await setup();
    conn.sequence("tasks/get", [task("t1", "input_required")]);
    conn.on("tasks/result", async () => (await delay(20), text("answered")));
    expect((await tasks.callTool({ name: "slow" })).content).toEqual([{ type: "text", text: "answered" }]);
    expect(conn.methods().slice(-2)).toEqual(["tasks/get", "tasks/result"]);
  });

  it("aborting the signal while polling cancels with tasks/cancel and confirms", async () => {
    const { conn, tasks } = await setup();
    let cancelled = false;
    conn.on("tasks/get", () => task("t1", cancelled ? "cancelled" : "working", { pollInterval: 20 }));
    conn.on("tasks/cancel", (p) => ((cancelled = true), task(p.taskId as string, "cancelled")));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await rejection(tasks.callTool({ name: "slow" }, { signal: ac.signal }));
    expect(err).toBeInstanceOf(TaskCancelledError);
    expect(err).toMatchObject({ taskId: "t1", confirmed: true });
    expect(conn.methods()).toContain("tasks/cancel");
    expect(conn.sent.find((s) => s.method === "tasks/cancel")!.params).toEqual({ taskId: "t1" });
  });

  it("a pushed status wakes the poller at once and reaches onStatusNotification", async () => {
    const { conn, tasks, statuses } = await setup();
    let done = false;
    conn.on("tasks/get", () => (done ? task("t1", "completed") : task("t1", "working", { pollInterval: 60_000 })));
    conn.on("tasks/result", () => text("pushed"));
    const started = Date.now();
    const result = tasks.callTool({ name: "slow" });
    await delay(30);
    done = true;
    await conn.notify("notifications/tasks/status", task("t1", "completed"));
    expect((await result).content).toEqual([{ type: "text", text: "pushed" }]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(statuses).toEqual(["completed"]);
    // A malformed push is ignored.
    await conn.notify("notifications/tasks/status", { taskId: "t1" });
    expect(statuses).toEqual(["completed"]);
  });

  it("gated methods are refused without sending when the server lacks their capability", async () => {
    const { conn, tasks } = await setup();
    conn.capabilities = { tasks: { requests: { tools: { call: {} } } } };
    expect(await rejection(tasks.listTasksPage())).toMatchObject({ code: -32601, message: "tasks/list is not supported by the server (capability tasks.list not declared)" });
    expect(await rejection(tasks.cancelTask("t1"))).toMatchObject({ code: -32601 });
    expect(conn.sent).toEqual([]);
    conn.capabilities = fullCaps;
    conn.on("tasks/list", () => ({ tasks: [task("a", "working")] }));
    expect((await tasks.listTasksPage()).tasks.map((t) => t.taskId)).toEqual(["a"]);
    expect(await rejection(tasks.deleteTask("a"))).toMatchObject({ code: -32603, message: expect.stringMatching(/^deleteTask is not supported/) });
    expect(() => tasks.beginCallTool({ name: "slow" })).toThrow("not supported by this generated client yet: creation.ack result");
  });
});

describe("TaskClient: ext-tasks-2026-07-28 (client capability opt-in, flat task, inline results, tasks/update)", () => {
  const spec = "ext-tasks-2026-07-28" as const;
  const now = new Date().toISOString();
  const task = (taskId: string, status: string, extra: Params = {}) => ({ taskId, status, createdAt: now, lastUpdatedAt: now, ttlMs: 60_000, ...extra });
  const elicit = { method: "elicitation/create", params: { message: "Name?", requestedSchema: { type: "object", properties: {} } } };

  async function setup(options: ConstructorParameters<typeof TaskClient>[2] = {}) {
    const d = await descriptorOf(spec);
    const conn = new FakeConnection();
    conn.on("tools/call", (p) => (p.arguments !== undefined && (p.arguments as Params).direct ? { resultType: "complete", ...text("direct") } : { resultType: "task", ...task("t1", "working", { pollIntervalMs: 20 }) }));
    const tasks = new TaskClient<{ taskId: string; status: string }>(d, conn, { defaultPollFrequency: 5, ...options });
    const capKey = d.meta.clientCapabilities!;
    return { d, conn, tasks, capKey };
  }

  it("declares the capability, answers input requests with tasks/update, and returns the inline result", async () => {
    const asked: string[] = [];
    const { conn, tasks, capKey } = await setup({
      onInputRequest: async (request, key, taskId) => (asked.push(`${taskId}:${key}:${request.method}`), { action: "accept", content: { name: "Ada" } }),
    });
    let answered = false;
    conn.on("tasks/get", () => (answered ? task("t1", "completed", { result: text("Hello Ada") }) : task("t1", "input_required", { inputRequests: { k1: elicit } })));
    conn.on("tasks/update", () => ((answered = true), { resultType: "complete" }));
    const result = await tasks.callTool({ name: "greet", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "Hello Ada" }]);
    expect(asked).toEqual(["t1:k1:elicitation/create"]);
    expect(conn.methods()).toEqual(["tools/call", "tasks/get", "tasks/update", "tasks/get"]);
    const capability = { extensions: { "io.modelcontextprotocol/tasks": {} } };
    for (const s of conn.sent) expect((s.params._meta as Params)[capKey]).toEqual(capability);
    const update = conn.sent[2]!.params;
    expect(update.taskId).toBe("t1");
    expect(update.inputResponses).toEqual({ k1: { action: "accept", content: { name: "Ada" } } });
  });

  it("merges the capability into what a request already declares", async () => {
    const { d, capKey } = await setup();
    expect(clientCapabilityOf(d)).toEqual({ extensions: { "io.modelcontextprotocol/tasks": {} } });
    expect(withCapability(d, { [capKey]: { sampling: {} }, other: 1 })).toEqual({
      [capKey]: { sampling: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
      other: 1,
    });
  });

  it("a task answering a request that cannot become one (resources/read) is invalid: refused, never polled", async () => {
    const { conn, tasks } = await setup();
    conn.on("resources/read", () => ({ resultType: "task", ...task("r1", "working", { pollIntervalMs: 20 }) }));
    conn.on("tasks/get", () => task("r1", "completed", { result: { contents: [] } }));
    expect(await rejection(tasks.readResource({ uri: "file:///a" }))).toMatchObject({
      name: "TaskProtocolError",
      message: "invalid answer: the server answered resources/read with a task, but only tools/call may become a task (spec ext-tasks-2026-07-28)",
    });
    expect(conn.methods()).toEqual(["resources/read"]);
  });

  it("a direct answer (resultType complete) is the result, without polling", async () => {
    const { conn, tasks } = await setup();
    const result = await tasks.callTool({ name: "greet", arguments: { direct: true } });
    expect(result.content).toEqual([{ type: "text", text: "direct" }]);
    expect(conn.methods()).toEqual(["tools/call"]);
  });

  it("a failed task rejects with its inline error object; input without a handler is an error", async () => {
    const { conn, tasks } = await setup();
    conn.on("tasks/get", () => task("t1", "failed", { error: { code: -32603, message: "Tool execution failed", data: { why: 1 } } }));
    expect(await rejection(tasks.callTool({ name: "x" }))).toMatchObject({ name: "TaskProtocolError", code: -32603, message: "Tool execution failed", data: { why: 1 } });
    conn.on("tasks/get", () => task("t1", "input_required", { inputRequests: { k1: elicit } }));
    expect(await rejection(tasks.callTool({ name: "x" }))).toMatchObject({ code: -32603, message: "task t1 needs input (k1) and no onInputRequest handler is set" });
  });

  it("aborting cancels with tasks/cancel (an ack) and confirms by polling", async () => {
    const { conn, tasks, capKey } = await setup();
    let cancelled = false;
    conn.on("tasks/get", () => task("t1", cancelled ? "cancelled" : "working", { pollIntervalMs: 20 }));
    conn.on("tasks/cancel", () => ((cancelled = true), { resultType: "complete" }));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await rejection(tasks.callTool({ name: "slow" }, { signal: ac.signal }));
    expect(err).toBeInstanceOf(TaskCancelledError);
    expect(err).toMatchObject({ confirmed: true });
    const cancel = conn.sent.find((s) => s.method === "tasks/cancel")!;
    expect(cancel.params.taskId).toBe("t1");
    expect((cancel.params._meta as Params)[capKey]).toBeDefined();
  });

  it("the methods the spec lacks reject naming what is missing", async () => {
    const { d, tasks } = await setup();
    expect(await rejection(tasks.getTaskResult("t1"))).toMatchObject({ code: -32603, message: `getTaskResult is not supported: the spec ${d.spec.id} declares no result method (results inline)` });
    expect(await rejection(tasks.listTasksPage())).toMatchObject({ message: expect.stringMatching(/^listTasksPage is not supported/) });
    expect(await rejection(tasks.listTasks().next())).toMatchObject({ message: expect.stringMatching(/^listTasks is not supported/) });
    expect(await rejection(tasks.deleteTask("t1"))).toMatchObject({ message: expect.stringMatching(/^deleteTask is not supported/) });
    expect(() => relatedMeta(d, "t1")).toThrow(/no related-task/);
    expect(relatedTaskId(d, { params: { _meta: {} } })).toBeUndefined();
  });

  it("works on a connection without notifications (the stateless one)", async () => {
    const d: TaskSpecDescriptor = await descriptorOf(spec);
    const conn = { request: new FakeConnection().request } as unknown as FakeConnection;
    expect(() => new TaskClient(d, conn)).not.toThrow();
    const seed = await descriptorOf("sep-1686-draft");
    expect(() => new TaskClient(seed, { request: async () => ({}) })).toThrow(/cannot receive notifications/);
  });
});
