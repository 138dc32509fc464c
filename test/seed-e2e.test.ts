/**
 * sep-1686-draft end to end: the generated client (output-samples/sep-1686-draft/client.ts)
 * against the generated server scaffold (server.ts, in the demo server, in a child
 * process), over stdio and over Streamable HTTP, with the real MCP SDK.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { TaskCancelledError, toTaskError } from "../output-samples/sep-1686-draft/client.js";
import { deferred, eventually, rejection, startHttp, startStdio, type Conn, type ServerHandle } from "./seed-harness.js";

const REL = "modelcontextprotocol.io/related-task";
const related = (taskId: string | undefined) => ({ [REL]: { taskId } });

// Short timings through server options: suggested polls every 50 ms, keepAlive
// capped at 60 s (20 s when none is asked), 3 tasks per page, expired tasks
// remembered for 400 ms.
const OPTIONS = { pollFrequency: 50, maxKeepAlive: 60_000, defaultKeepAlive: 20_000, pageSize: 3, rememberExpiredMs: 400 };

function statusesOf(server: ServerHandle, taskId: string): string[] {
  return server
    .audit()
    .filter((e) => e.taskId === taskId && (e.type === "created" || e.type === "status"))
    .map((e) => String(e.to));
}

async function finalStatuses(server: ServerHandle, taskId: string, last: string): Promise<string[]> {
  return eventually(() => {
    const s = statusesOf(server, taskId);
    return s[s.length - 1] === last ? s : undefined;
  }, `audit of ${taskId} to end in ${last}`);
}

const rawRequest = (c: Conn, method: string, params: unknown) =>
  c.client.request({ method, params } as never, z.record(z.string(), z.unknown()) as never).catch((e: unknown) => {
    throw toTaskError(e);
  });

describe.each(["stdio", "http"] as const)("sep-1686-draft over %s", (kind) => {
  let server: ServerHandle;
  let c: Conn;

  beforeAll(async () => {
    server = kind === "stdio" ? await startStdio(OPTIONS) : await startHttp(OPTIONS);
    c = await server.connect();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("runs a tool as a task: created notification, submitted → working → completed, direct answer and tasks/result agree", async () => {
    const seen: string[] = [];
    const p = c.tasks.beginCallTool({ name: "greet", arguments: { name: "Ada" } }, { keepAlive: 30_000 });
    const result = await p.result({ onTaskStatus: (t) => void seen.push(t.status) });
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
    expect(await p.created).toBe(true);
    // The original request's answer relates to the task too (4.7).
    expect(result._meta).toEqual(related(p.taskId));
    const task = await c.tasks.getTask(p.taskId!);
    expect(task).toEqual({ taskId: p.taskId, status: "completed", keepAlive: 30_000, pollFrequency: 50, _meta: related(p.taskId) });
    const payload = await c.tasks.getTaskResult(p.taskId!);
    expect(payload.content).toEqual(result.content);
    expect(payload._meta).toEqual(related(p.taskId));
    // tasks/result may be called again while the task is kept (4.6).
    expect((await c.tasks.getTaskResult(p.taskId!)).content).toEqual(result.content);
    expect(await finalStatuses(server, p.taskId!, "completed")).toEqual(["submitted", "working", "completed"]);
    const audit = server.audit().filter((e) => e.taskId === p.taskId);
    expect(audit.some((e) => e.type === "result")).toBe(true);
  });

  it("keepAlive: the requested value is capped by the configured maximum, the default applies when none is asked, the granted value is reported", async () => {
    const capped = c.tasks.beginCallTool({ name: "greet", arguments: { name: "x" } }, { keepAlive: 10_000_000 });
    await capped.result();
    expect((await c.tasks.getTask(capped.taskId!)).keepAlive).toBe(60_000);
    const dflt = c.tasks.beginCallTool({ name: "greet", arguments: { name: "y" } });
    await dflt.result();
    expect((await c.tasks.getTask(dflt.taskId!)).keepAlive).toBe(20_000);
  });

  it("working: tasks/result before completion is -32602 with the 7.1 message; cancelling mid-run ends in cancelled and aborts the tool", async () => {
    const ac = new AbortController();
    const seen: string[] = [];
    const p = c.tasks.beginCallTool({ name: "slow_compute", arguments: { seconds: 30 } }, { signal: ac.signal });
    const outcome = p.result({ onTaskStatus: (t) => void seen.push(t.status) });
    await eventually(async () => ((await c.tasks.getTask(p.taskId!)).status === "working" ? true : undefined), "working");
    expect(await rejection(c.tasks.getTaskResult(p.taskId!))).toMatchObject({
      code: -32602,
      message: "Cannot retrieve result: Task status is 'working', not 'completed'",
    });
    ac.abort();
    const err = await rejection(outcome);
    expect(err).toBeInstanceOf(TaskCancelledError);
    expect((err as unknown as TaskCancelledError).confirmed).toBe(true);
    expect((await c.tasks.getTask(p.taskId!)).status).toBe("cancelled");
    expect(seen).toContain("working");
    // The user's function saw its AbortSignal fire.
    await eventually(() => (server.stderr().includes(`"msg":"slow_compute aborted","taskId":"${p.taskId}"`) ? true : undefined), "abort log");
    expect(await finalStatuses(server, p.taskId!, "cancelled")).toEqual(["submitted", "working", "cancelled"]);
  });

  it("failed: a JSON-RPC error thrown by the tool fails the task with an error message; the direct answer is that error", async () => {
    const p = c.tasks.beginCallTool({ name: "protocol_error_job", arguments: {} });
    expect(await rejection(p.result())).toMatchObject({ code: -32603, message: "Tool execution failed: API rate limit exceeded" });
    const task = await c.tasks.getTask(p.taskId!);
    expect(task).toMatchObject({ taskId: p.taskId, status: "failed", error: "Tool execution failed: API rate limit exceeded" });
    expect(await rejection(c.tasks.getTaskResult(p.taskId!))).toMatchObject({
      code: -32602,
      message: "Cannot retrieve result: Task status is 'failed', not 'completed'",
    });
    expect(await finalStatuses(server, p.taskId!, "failed")).toEqual(["submitted", "working", "failed"]);
  });

  it("a tool result with isError still completes the task (7.2)", async () => {
    const p = c.tasks.beginCallTool({ name: "failing_job", arguments: { seconds: 0.05 } });
    const result = await p.result();
    expect(result.isError).toBe(true);
    const task = await c.tasks.getTask(p.taskId!);
    expect(task.status).toBe("completed");
    expect(task.error).toBeUndefined();
    expect((await c.tasks.getTaskResult(p.taskId!)).isError).toBe(true);
  });

  it("an unexpected failure ends the task failed with an error message (4.3: unknown only when the receiver cannot tell) and answers -32603", async () => {
    const p = c.tasks.beginCallTool({ name: "crash_job", arguments: {} });
    expect(await rejection(p.result())).toMatchObject({ code: -32603, message: "Internal error" });
    expect(await c.tasks.getTask(p.taskId!)).toMatchObject({ status: "failed", error: "Internal error" });
    expect(await finalStatuses(server, p.taskId!, "failed")).toEqual(["submitted", "working", "failed"]);
  });

  it("input_required: the elicitation carries related-task meta, the task waits in input_required, then resumes and completes", async () => {
    let statusWhileAsked: string | undefined;
    c.onElicit.fn = async (req) => {
      const taskId = (req.params._meta as Record<string, { taskId: string }> | undefined)?.[REL]?.taskId;
      statusWhileAsked = taskId ? (await c.tasks.getTask(taskId)).status : "no related task";
      return { action: "accept", content: { confirm: true } };
    };
    const before = c.elicitations.length;
    const p = c.tasks.beginCallTool({ name: "confirm_delete", arguments: { filename: "a.txt" } });
    const result = await p.result();
    expect(result.content).toEqual([{ type: "text", text: "Deleted a.txt" }]);
    const asked = c.elicitations.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params._meta).toEqual(related(p.taskId));
    expect(asked[0]!.params.message).toBe("Delete a.txt?");
    expect(statusWhileAsked).toBe("input_required");
    expect(await finalStatuses(server, p.taskId!, "completed")).toEqual(["submitted", "working", "input_required", "working", "completed"]);
  });

  it("input_required holds until every pending answer arrived (the noPendingInput guard)", async () => {
    const first = deferred<void>();
    const second = deferred<void>();
    let n = 0;
    const both = deferred<void>();
    c.onElicit.fn = async (req) => {
      const mine = n++ === 0 ? first : second;
      if (n === 2) both.resolve();
      await mine.promise;
      return { action: "accept", content: { value: String(req.params.message).includes("name") ? "Ada" : "blue" } };
    };
    const p = c.tasks.beginCallTool({ name: "multi_input", arguments: {} });
    const outcome = p.result();
    await both.promise;
    expect((await c.tasks.getTask(p.taskId!)).status).toBe("input_required");
    first.resolve();
    // Wait until the server has taken the first answer: one answer still pending.
    await eventually(
      () => (server.stderr().includes(`"msg":"task input answered","taskId":"${p.taskId}","pendingInputs":1`) ? true : undefined),
      "first answer processed",
    );
    expect((await c.tasks.getTask(p.taskId!)).status).toBe("input_required");
    second.resolve();
    const result = await outcome;
    expect(result.content).toEqual([{ type: "text", text: "name=Ada colour=blue" }]);
    expect(await finalStatuses(server, p.taskId!, "completed")).toEqual(["submitted", "working", "input_required", "working", "completed"]);
  });

  it("errors of section 7.1: unknown task id, reused task id", async () => {
    const notFound = { code: -32602, message: "Failed to retrieve task: Task not found" };
    expect(await rejection(c.tasks.getTask("no-such-task"))).toMatchObject(notFound);
    expect(await rejection(c.tasks.getTaskResult("no-such-task"))).toMatchObject(notFound);
    expect(await rejection(c.tasks.deleteTask("no-such-task"))).toMatchObject(notFound);
    const p = c.tasks.beginCallTool({ name: "greet", arguments: { name: "dup" } });
    await p.result();
    const again = c.tasks.beginCallTool({ name: "greet", arguments: { name: "dup" } }, { taskId: p.taskId! });
    expect(await rejection(again.result())).toMatchObject({ code: -32602, message: `Task ID already exists: ${p.taskId}` });
  });

  it("keepAlive expiry: a finished task expires after its keepAlive (Task has expired), then is forgotten (Task not found)", async () => {
    const p = c.tasks.beginCallTool({ name: "greet", arguments: { name: "brief" } }, { keepAlive: 150 });
    await p.result();
    expect((await c.tasks.getTask(p.taskId!)).keepAlive).toBe(150);
    const expired = await eventually(async () => {
      const e = await rejection(c.tasks.getTask(p.taskId!)).catch(() => undefined);
      return e?.message === "Failed to retrieve task: Task has expired" ? e : undefined;
    }, "expiry");
    expect(expired).toMatchObject({ code: -32602 });
    expect(await rejection(c.tasks.getTaskResult(p.taskId!))).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task has expired" });
    await eventually(async () => {
      const e = await rejection(c.tasks.getTask(p.taskId!)).catch(() => undefined);
      return e?.message === "Failed to retrieve task: Task not found" ? true : undefined;
    }, "forgotten");
  });

  it("tasks/list pages through every task with opaque cursors; a forged cursor is -32602", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const p = c.tasks.beginCallTool({ name: "greet", arguments: { name: `p${i}` } });
      await p.result();
      ids.push(p.taskId!);
    }
    const pages = [];
    for await (const page of c.tasks.listTasks()) pages.push(page);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const [i, page] of pages.entries()) {
      expect(page.tasks.length).toBeLessThanOrEqual(3);
      if (i < pages.length - 1) expect(typeof page.nextCursor).toBe("string");
      else expect(page.nextCursor).toBeUndefined();
    }
    const listed = pages.flatMap((p) => p.tasks.map((t) => t.taskId));
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.filter((id) => ids.includes(id))).toEqual(ids);
    for (const t of pages.flatMap((p) => p.tasks)) expect(Object.keys(t).sort()).toEqual(expect.arrayContaining(["keepAlive", "status", "taskId"]));
    const cursor = pages[0]!.nextCursor!;
    const forged = cursor.slice(0, -2) + (cursor.endsWith("AA") ? "BB" : "AA");
    const invalid = { code: -32602, message: "Invalid cursor" };
    expect(await rejection(c.tasks.listTasksPage(forged))).toMatchObject(invalid);
    expect(await rejection(c.tasks.listTasksPage("optional-cursor-value"))).toMatchObject(invalid);
    // A cursor whose position is edited but signature kept is refused too.
    const [payload, mac] = cursor.split(".");
    const moved = Buffer.from(JSON.stringify({ v: 1, s: 0 })).toString("base64url");
    expect(payload).not.toBe(moved);
    expect(await rejection(c.tasks.listTasksPage(`${moved}.${mac}`))).toMatchObject(invalid);
  });

  it("tasks/delete removes a finished task and its result; a running task is not deletable", async () => {
    const p = c.tasks.beginCallTool({ name: "greet", arguments: { name: "del" } });
    await p.result();
    expect(await c.tasks.deleteTask(p.taskId!)).toEqual({ _meta: related(p.taskId) });
    expect(await rejection(c.tasks.getTask(p.taskId!))).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found" });
    expect(await rejection(c.tasks.getTaskResult(p.taskId!))).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found" });
    const ac = new AbortController();
    const slow = c.tasks.beginCallTool({ name: "slow_compute", arguments: { seconds: 30 } }, { signal: ac.signal });
    const outcome = slow.result().catch((e: unknown) => e);
    await slow.created;
    expect(await rejection(c.tasks.deleteTask(slow.taskId!))).toMatchObject({ code: -32012, message: "Task deletion refused" });
    ac.abort();
    expect(await outcome).toBeInstanceOf(TaskCancelledError);
    expect(server.audit().some((e) => e.type === "deleted" && e.taskId === p.taskId)).toBe(true);
  });

  it("resources/read and prompts/get can be task-augmented too", async () => {
    const r = c.tasks.beginRequest({ method: "resources/read", params: { uri: "demo://report" } }, z.any());
    expect(await r.result()).toMatchObject({ contents: [{ text: "All systems nominal." }] });
    expect((await c.tasks.getTask(r.taskId!)).status).toBe("completed");
    const g = c.tasks.beginRequest({ method: "prompts/get", params: { name: "summary" } }, z.any());
    expect(await g.result()).toMatchObject({ messages: [{ role: "user" }] });
    expect((await c.tasks.getTaskResult(g.taskId!)).messages).toBeDefined();
  });

  it("a plain request (no task meta) is answered normally and creates no task", async () => {
    const before = server.audit().filter((e) => e.type === "created").length;
    const r = await c.client.callTool({ name: "greet", arguments: { name: "plain" } });
    expect(r.content).toEqual([{ type: "text", text: "Hello, plain!" }]);
    expect(r._meta).toBeUndefined();
    expect(server.audit().filter((e) => e.type === "created").length).toBe(before);
  });

  it("malformed params get -32602 and the server keeps serving", async () => {
    expect(await rejection(rawRequest(c, "tasks/get", { taskId: 5 }))).toMatchObject({ code: -32602 });
    expect(await rejection(rawRequest(c, "tasks/get", {}))).toMatchObject({ code: -32602 });
    expect(await rejection(rawRequest(c, "tasks/result", { taskId: ["x"] }))).toMatchObject({ code: -32602 });
    expect(await rejection(rawRequest(c, "tasks/list", { cursor: 7 }))).toMatchObject({ code: -32602 });
    expect(await rejection(rawRequest(c, "tasks/delete", { taskId: null }))).toMatchObject({ code: -32602 });
    expect(await rejection(rawRequest(c, "tools/call", { name: "greet", arguments: { name: 5 } }))).toMatchObject({ code: -32602 });
    expect(await rejection(rawRequest(c, "tools/call", { name: 5 }))).toMatchObject({ code: -32602 });
    expect(
      await rejection(rawRequest(c, "tools/call", { name: "greet", arguments: { name: "m" }, _meta: { "modelcontextprotocol.io/task": { taskId: 5 } } })),
    ).toMatchObject({ code: -32602, message: "Invalid task metadata: taskId must be a non-empty string" });
    expect(
      await rejection(
        rawRequest(c, "tools/call", { name: "greet", arguments: { name: "m" }, _meta: { "modelcontextprotocol.io/task": { taskId: "k", keepAlive: "long" } } }),
      ),
    ).toMatchObject({ code: -32602 });
    expect(await rejection(rawRequest(c, "tasks/nope", {}))).toMatchObject({ code: -32601 });
    const r = await c.tasks.callTool({ name: "greet", arguments: { name: "still here" } });
    expect(r.content).toEqual([{ type: "text", text: "Hello, still here!" }]);
  });
});

describe("sep-1686-draft over http: sessions", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startHttp(OPTIONS);
  });
  afterAll(async () => {
    await server?.close();
  });

  it("two HTTP sessions are isolated: one can neither get, fetch, list nor delete the other's tasks", async () => {
    const a = await server.connect();
    const b = await server.connect();
    const p = a.tasks.beginCallTool({ name: "greet", arguments: { name: "A" } });
    await p.result();
    const notFound = { code: -32602, message: "Failed to retrieve task: Task not found" };
    expect(await rejection(b.tasks.getTask(p.taskId!))).toMatchObject(notFound);
    expect(await rejection(b.tasks.getTaskResult(p.taskId!))).toMatchObject(notFound);
    expect(await rejection(b.tasks.deleteTask(p.taskId!))).toMatchObject(notFound);
    const listedByB = [];
    for await (const page of b.tasks.listTasks()) listedByB.push(...page.tasks.map((t) => t.taskId));
    expect(listedByB).not.toContain(p.taskId);
    // A cursor issued to A is not valid for B.
    for (let i = 0; i < 4; i++) await a.tasks.callTool({ name: "greet", arguments: { name: `a${i}` } });
    const pageA = await a.tasks.listTasksPage();
    expect(pageA.nextCursor).toBeDefined();
    expect(await rejection(b.tasks.listTasksPage(pageA.nextCursor!))).toMatchObject({ code: -32602, message: "Invalid cursor" });
    // A still sees its task.
    expect((await a.tasks.getTask(p.taskId!)).status).toBe("completed");
    expect(server.audit().some((e) => e.type === "denied" && e.taskId === p.taskId && e.reason === "task of another requestor")).toBe(true);
  });
});

describe("sep-1686-draft limits (section 8)", () => {
  const LIMITS = { maxConcurrentPerRequestor: 2, createPerMinute: 5, pollPerMinute: 4, resultPerMinute: 2, listPerMinute: 2 };
  let http: ServerHandle;
  let stdio: ServerHandle;
  beforeAll(async () => {
    [http, stdio] = await Promise.all([startHttp({ ...OPTIONS, limits: LIMITS }), startStdio({ ...OPTIONS, limits: LIMITS })]);
  });
  afterAll(async () => {
    await Promise.all([http?.close(), stdio?.close()]);
  });

  it("concurrent tasks per requestor (http)", async () => {
    const c = await http.connect();
    const ac = new AbortController();
    const running = [0, 1].map(() => c.tasks.beginCallTool({ name: "slow_compute", arguments: { seconds: 30 } }, { signal: ac.signal }));
    await Promise.all(running.map((p) => p.created));
    const third = c.tasks.beginCallTool({ name: "greet", arguments: { name: "3" } });
    expect(await rejection(third.result())).toMatchObject({ code: -32011, message: "Too many concurrent tasks (limit 2)" });
    // Another session has its own budget.
    const other = await http.connect();
    expect((await other.tasks.callTool({ name: "greet", arguments: { name: "o" } })).content).toBeDefined();
    ac.abort();
    for (const p of running) await finalStatuses(http, p.taskId!, "cancelled");
    // Cancelled tasks free their slots.
    expect((await c.tasks.callTool({ name: "greet", arguments: { name: "after" } })).content).toEqual([{ type: "text", text: "Hello, after!" }]);
  });

  it("task creation rate (http)", async () => {
    const c = await http.connect();
    for (let i = 0; i < 5; i++) await c.tasks.callTool({ name: "greet", arguments: { name: `r${i}` } });
    const sixth = c.tasks.beginCallTool({ name: "greet", arguments: { name: "r5" } });
    expect(await rejection(sixth.result())).toMatchObject({ code: -32010, message: "Rate limit exceeded: task creation" });
    // Plain requests are not task creations.
    expect((await c.client.callTool({ name: "greet", arguments: { name: "plain" } })).content).toBeDefined();
  });

  it("polling, result and listing rates (http)", async () => {
    const c = await http.connect();
    const p = c.tasks.beginCallTool({ name: "greet", arguments: { name: "poll" } }, { poll: false });
    await p.result();
    for (let i = 0; i < 4; i++) await c.tasks.getTask(p.taskId!);
    expect(await rejection(c.tasks.getTask(p.taskId!))).toMatchObject({ code: -32010, message: "Rate limit exceeded: tasks/get" });
    for (let i = 0; i < 2; i++) await c.tasks.getTaskResult(p.taskId!);
    expect(await rejection(c.tasks.getTaskResult(p.taskId!))).toMatchObject({ code: -32010, message: "Rate limit exceeded: tasks/result" });
    for (let i = 0; i < 2; i++) await c.tasks.listTasksPage();
    expect(await rejection(c.tasks.listTasksPage())).toMatchObject({ code: -32010, message: "Rate limit exceeded: tasks/list" });
    expect(http.audit().some((e) => e.type === "denied" && e.reason === "poll rate limit")).toBe(true);
  });

  it("limits hold over stdio too (one session)", async () => {
    const c = await stdio.connect();
    const ac = new AbortController();
    const running = [0, 1].map(() => c.tasks.beginCallTool({ name: "slow_compute", arguments: { seconds: 30 } }, { signal: ac.signal, poll: false }));
    await Promise.all(running.map((p) => p.created));
    expect(await rejection(c.tasks.beginCallTool({ name: "greet", arguments: { name: "x" } }).result())).toMatchObject({
      code: -32011,
      message: "Too many concurrent tasks (limit 2)",
    });
    for (let i = 0; i < 4; i++) await c.tasks.getTask(running[0]!.taskId!);
    expect(await rejection(c.tasks.getTask(running[0]!.taskId!))).toMatchObject({ code: -32010, message: "Rate limit exceeded: tasks/get" });
    ac.abort();
    for (const p of running) await finalStatuses(stdio, p.taskId!, "cancelled");
  });
});

describe("sep-1686-draft on the high-level McpServer (runtime.tool wrappers, stdio)", () => {
  let server: ServerHandle;
  let c: Conn;
  beforeAll(async () => {
    server = await startStdio(OPTIONS, ["--mcp-server"]);
    c = await server.connect();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("task-augmented tool calls, task methods and the input round trip work the same", async () => {
    const p = c.tasks.beginCallTool({ name: "greet", arguments: { name: "Mcp" } });
    expect((await p.result()).content).toEqual([{ type: "text", text: "Hello, Mcp!" }]);
    expect(await p.created).toBe(true);
    expect(await c.tasks.getTask(p.taskId!)).toMatchObject({ status: "completed", _meta: related(p.taskId) });
    c.onElicit.fn = async () => ({ action: "accept", content: { confirm: false } });
    const q = c.tasks.beginCallTool({ name: "confirm_delete", arguments: {} });
    expect((await q.result()).content).toEqual([{ type: "text", text: "Kept report.txt" }]);
    expect(await finalStatuses(server, q.taskId!, "completed")).toEqual(["submitted", "working", "input_required", "working", "completed"]);
    // McpServer turns a thrown error into an isError result; the task still records the failure.
    const f = c.tasks.beginCallTool({ name: "protocol_error_job", arguments: {} });
    expect((await f.result().catch((e: unknown) => e)) as object).toBeDefined();
    expect(await c.tasks.getTask(f.taskId!)).toMatchObject({ status: "failed", error: "Tool execution failed: API rate limit exceeded" });
  });
});
