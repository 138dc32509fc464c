/** The task methods: results per mode, cancellation, deletion, listing, limits, owner binding, gates. */
import { describe, expect, it } from "vitest";
import { CANCELLED_BY_REQUEST, defineTool, type TaskRuntime } from "../../runtime/server.js";
import { capabilityMeta, deferred, fakeExtra, runtimeOf, sleep, waitFor } from "./harness.js";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const sepKey = "modelcontextprotocol.io/task";
const sepRelated = "modelcontextprotocol.io/related-task";

async function statusOf(rt: TaskRuntime, id: string): Promise<string | undefined> {
  const f = await rt.store.get(id);
  return f?.state === "live" ? f.record.status : f?.state;
}
const until = (rt: TaskRuntime, id: string, status: string) => waitFor(async () => ((await statusOf(rt, id)) === status ? true : undefined));

/** A runtime with a tool `gate` that runs until released (or fails / errors as told). */
async function gated(spec: Parameters<typeof runtimeOf>[0], options: Parameters<typeof runtimeOf>[1] = {}) {
  const rt = await runtimeOf(spec, options);
  const release = deferred<"ok" | "rpc" | "toolError">();
  let signal: AbortSignal | undefined;
  rt.addTools([
    defineTool({
      name: "gate",
      taskSupport: "optional",
      handler: async (_args, ctx) => {
        signal = ctx.signal;
        const how = await Promise.race([
          release.promise,
          new Promise<never>((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted")))),
        ]);
        if (how === "rpc") throw Object.assign(new Error("denied"), { code: -32050, data: { why: 1 } });
        return how === "toolError" ? { ...text("bad"), isError: true } : text("done");
      },
    }),
  ]);
  return { rt, release: release.resolve, signal: () => signal };
}

describe("results: error until completed (sep-1686-draft)", () => {
  it("the declared not-ready error while the task runs, then the result with the related-task meta", async () => {
    const { rt, release } = await gated("sep-1686-draft");
    const call = rt.callTool({ name: "gate", _meta: { [sepKey]: { taskId: "r1" } } }, fakeExtra());
    await until(rt, "r1", "working");
    await expect(rt.handleTaskRequest("tasks/result", { taskId: "r1" }, fakeExtra())).rejects.toMatchObject({
      errorName: "resultNotReady",
      message: "Cannot retrieve result: Task status is 'working', not 'completed'",
    });
    release("ok");
    await call;
    expect(await rt.handleTaskRequest("tasks/result", { taskId: "r1" }, fakeExtra())).toEqual({ ...text("done"), _meta: { [sepRelated]: { taskId: "r1" } } });
    expect(await rt.handleTaskRequest("tasks/get", { taskId: "r1" }, fakeExtra())).toMatchObject({ taskId: "r1", status: "completed", _meta: { [sepRelated]: { taskId: "r1" } } });
    await rt.close();
  });
});

describe("results: block until terminal (mcp-2025-11-25)", () => {
  it("waits for the task, then answers its result", async () => {
    const { rt, release } = await gated("mcp-2025-11-25", { pollFrequency: 20 });
    const { task } = (await rt.callTool({ name: "gate", task: {} }, fakeExtra())) as { task: { taskId: string } };
    let settled = false;
    const result = rt.handleTaskRequest("tasks/result", { taskId: task.taskId }, fakeExtra()).finally(() => (settled = true));
    await sleep(50);
    expect(settled).toBe(false);
    release("ok");
    expect(await result).toEqual({ ...text("done"), _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } } });
    await rt.close();
  });

  it("replays the JSON-RPC error of a failed request; a cancelled task is the declared error", async () => {
    const a = await gated("mcp-2025-11-25", { pollFrequency: 20 });
    const { task } = (await a.rt.callTool({ name: "gate", task: {} }, fakeExtra())) as { task: { taskId: string } };
    const result = a.rt.handleTaskRequest("tasks/result", { taskId: task.taskId }, fakeExtra());
    a.release("rpc");
    await expect(result).rejects.toMatchObject({ code: -32050, message: "denied", data: { why: 1 } });
    expect(await a.rt.handleTaskRequest("tasks/get", { taskId: task.taskId }, fakeExtra())).toMatchObject({ status: "failed", statusMessage: "denied" });

    const b = await gated("mcp-2025-11-25", { pollFrequency: 20 });
    const t2 = ((await b.rt.callTool({ name: "gate", task: {} }, fakeExtra())) as { task: { taskId: string } }).task;
    const blocked = b.rt.handleTaskRequest("tasks/result", { taskId: t2.taskId }, fakeExtra());
    await b.rt.handleTaskRequest("tasks/cancel", { taskId: t2.taskId }, fakeExtra());
    await expect(blocked).rejects.toMatchObject({ errorName: "taskCancelled", code: -32603 });
    await a.rt.close();
    await b.rt.close();
  });

  it("a tool error result fails the task with the tool's text (the declared outcome)", async () => {
    const { rt, release } = await gated("mcp-2025-11-25");
    const { task } = (await rt.callTool({ name: "gate", task: {} }, fakeExtra())) as { task: { taskId: string } };
    release("toolError");
    await until(rt, task.taskId, "failed");
    expect(await rt.handleTaskRequest("tasks/get", { taskId: task.taskId }, fakeExtra())).toMatchObject({ statusMessage: "Tool execution failed: bad" });
    expect(await rt.handleTaskRequest("tasks/result", { taskId: task.taskId }, fakeExtra())).toMatchObject({ isError: true });
    await rt.close();
  });
});

describe("results: inline (ext-tasks-2026-07-28)", () => {
  it("the get method answers the detailed task with the result; the result method is not served", async () => {
    const { rt, release } = await gated("ext-tasks-2026-07-28");
    const _meta = await capabilityMeta("ext-tasks-2026-07-28");
    const created = (await rt.callTool({ name: "gate", _meta }, fakeExtra())) as { taskId: string };
    expect(await rt.handleTaskRequest("tasks/get", { taskId: created.taskId, _meta }, fakeExtra())).toMatchObject({ status: "working", resultType: "complete" });
    release("ok");
    await until(rt, created.taskId, "completed");
    const got = await rt.handleTaskRequest("tasks/get", { taskId: created.taskId, _meta }, fakeExtra());
    expect(got).toMatchObject({ status: "completed", result: text("done"), resultType: "complete" });
    await expect(rt.handleTaskRequest("tasks/result", { taskId: created.taskId, _meta }, fakeExtra())).rejects.toMatchObject({ code: -32601 });
    await expect(rt.handleTaskRequest("tasks/list", { _meta }, fakeExtra())).rejects.toMatchObject({ code: -32601 });
    await rt.close();
  });

  it("a failed task carries the error object inline and as the statusMessage", async () => {
    const { rt, release } = await gated("ext-tasks-2026-07-28");
    const _meta = await capabilityMeta("ext-tasks-2026-07-28");
    const created = (await rt.callTool({ name: "gate", _meta }, fakeExtra())) as { taskId: string };
    release("rpc");
    await until(rt, created.taskId, "failed");
    expect(await rt.handleTaskRequest("tasks/get", { taskId: created.taskId, _meta }, fakeExtra())).toMatchObject({
      statusMessage: "denied",
      error: { code: -32050, message: "denied", data: { why: 1 } },
    });
    await rt.close();
  });

  it("the task methods need the per-request capability and, over HTTP, the matching header", async () => {
    const { rt, release } = await gated("ext-tasks-2026-07-28");
    const _meta = await capabilityMeta("ext-tasks-2026-07-28");
    const created = (await rt.callTool({ name: "gate", _meta }, fakeExtra())) as { taskId: string };
    await expect(rt.handleTaskRequest("tasks/get", { taskId: created.taskId }, fakeExtra())).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
    });
    await expect(rt.handleTaskRequest("tasks/get", { taskId: created.taskId, _meta }, fakeExtra({ headers: { "mcp-name": "other" } }))).rejects.toMatchObject({
      code: -32020,
      message: "Header mismatch: Mcp-Name",
    });
    expect(await rt.handleTaskRequest("tasks/get", { taskId: created.taskId, _meta }, fakeExtra({ headers: { "mcp-name": created.taskId } }))).toMatchObject({
      status: "working",
    });
    release("ok");
    await rt.close();
  });
});

describe("cancellation", () => {
  it("mcp-2025-11-25: the cancel method stops the work and answers the task; a terminal task is the declared error", async () => {
    const { rt, signal } = await gated("mcp-2025-11-25");
    const { task } = (await rt.callTool({ name: "gate", task: {} }, fakeExtra())) as { task: { taskId: string } };
    await until(rt, task.taskId, "working");
    const answer = await rt.handleTaskRequest("tasks/cancel", { taskId: task.taskId }, fakeExtra());
    expect(answer).toMatchObject({ taskId: task.taskId, status: "cancelled", statusMessage: CANCELLED_BY_REQUEST });
    expect(answer).not.toHaveProperty("_meta");
    expect(signal()?.aborted).toBe(true);
    await expect(rt.handleTaskRequest("tasks/cancel", { taskId: task.taskId }, fakeExtra())).rejects.toMatchObject({
      errorName: "taskAlreadyTerminal",
      message: "Cannot cancel task: already in terminal status 'cancelled'",
    });
    await rt.close();
  });

  it("ext-tasks-2026-07-28: the cancel method acknowledges, and acknowledges a terminal task the same", async () => {
    const { rt, signal } = await gated("ext-tasks-2026-07-28");
    const _meta = await capabilityMeta("ext-tasks-2026-07-28");
    const created = (await rt.callTool({ name: "gate", _meta }, fakeExtra())) as { taskId: string };
    await until(rt, created.taskId, "working");
    expect(await rt.handleTaskRequest("tasks/cancel", { taskId: created.taskId, _meta }, fakeExtra())).toEqual({ resultType: "complete" });
    expect(signal()?.aborted).toBe(true);
    expect(await statusOf(rt, created.taskId)).toBe("cancelled");
    expect(await rt.handleTaskRequest("tasks/cancel", { taskId: created.taskId, _meta }, fakeExtra())).toEqual({ resultType: "complete" });
    await rt.close();
  });

  it("sep-1686-draft: cancelling the request cancels its task; delete is refused until terminal", async () => {
    const { rt, signal } = await gated("sep-1686-draft");
    const extra = fakeExtra();
    const call = rt.callTool({ name: "gate", _meta: { [sepKey]: { taskId: "c1" } } }, extra);
    await until(rt, "c1", "working");
    await expect(rt.handleTaskRequest("tasks/delete", { taskId: "c1" }, fakeExtra())).rejects.toMatchObject({ errorName: "deletionRefused", code: -32012 });
    extra.abort();
    await expect(call).rejects.toThrow();
    expect(await statusOf(rt, "c1")).toBe("cancelled");
    expect(signal()?.aborted).toBe(true);
    expect(await rt.handleTaskRequest("tasks/delete", { taskId: "c1" }, fakeExtra())).toEqual({ _meta: { [sepRelated]: { taskId: "c1" } } });
    await expect(rt.handleTaskRequest("tasks/get", { taskId: "c1" }, fakeExtra())).rejects.toMatchObject({ errorName: "taskNotFound" });
    await rt.close();
  });
});

describe("listing", () => {
  it("pages with signed cursors bound to the requestor; a forged cursor is the declared error", async () => {
    const rt = await runtimeOf("sep-1686-draft", { pageSize: 2 });
    rt.addTools([defineTool({ name: "echo", handler: async () => text("x") })]);
    for (const id of ["l1", "l2", "l3"]) await rt.callTool({ name: "echo", _meta: { [sepKey]: { taskId: id } } }, fakeExtra());
    await rt.callTool({ name: "echo", _meta: { [sepKey]: { taskId: "other" } } }, fakeExtra({ sessionId: "s2" }));
    const first = (await rt.handleTaskRequest("tasks/list", {}, fakeExtra())) as { tasks: { taskId: string }[]; nextCursor?: string };
    expect(first.tasks.map((t) => t.taskId)).toEqual(["l1", "l2"]);
    expect(typeof first.nextCursor).toBe("string");
    const second = (await rt.handleTaskRequest("tasks/list", { cursor: first.nextCursor }, fakeExtra())) as { tasks: { taskId: string }[]; nextCursor?: string };
    expect(second.tasks.map((t) => t.taskId)).toEqual(["l3"]);
    expect(second.nextCursor).toBeUndefined();
    await expect(rt.handleTaskRequest("tasks/list", { cursor: "forged.cursor" }, fakeExtra())).rejects.toMatchObject({ errorName: "invalidCursor", code: -32602 });
    await expect(rt.handleTaskRequest("tasks/list", { cursor: first.nextCursor }, fakeExtra({ sessionId: "s2" }))).rejects.toMatchObject({ errorName: "invalidCursor" });
    await expect(rt.handleTaskRequest("tasks/list", { cursor: 5 }, fakeExtra())).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid params for tasks\/list: cursor/) });
    await rt.close();
  });

  it("mcp-2025-11-25: a method gated on a capability path the runtime does not declare is -32601", async () => {
    const rt = await runtimeOf("mcp-2025-11-25", { taskCapability: { requests: { tools: { call: {} } } } });
    await expect(rt.handleTaskRequest("tasks/list", {}, fakeExtra())).rejects.toMatchObject({ code: -32601 });
    await expect(rt.handleTaskRequest("tasks/cancel", { taskId: "x" }, fakeExtra())).rejects.toMatchObject({ code: -32601 });
    await expect(rt.handleTaskRequest("tasks/get", { taskId: "x" }, fakeExtra())).rejects.toMatchObject({ errorName: "taskNotFound" });
    expect(await rt.handleTaskRequest("other/method", {}, fakeExtra())).toBeUndefined();
    await rt.close();
  });
});

describe("limits", () => {
  it("the creation rate and the concurrent tasks of a requestor, with the declared errors", async () => {
    const rated = await gated("mcp-2025-11-25", { limits: { createPerMinute: 1 } });
    await rated.rt.callTool({ name: "gate", task: {} }, fakeExtra());
    await expect(rated.rt.callTool({ name: "gate", task: {} }, fakeExtra())).rejects.toMatchObject({
      errorName: "rateLimited",
      code: -32010,
      message: "Rate limit exceeded: task creation",
    });
    rated.release("ok");

    const { rt, release } = await gated("mcp-2025-11-25", { limits: { maxConcurrentPerRequestor: 1 } });
    const first = (await rt.callTool({ name: "gate", task: {} }, fakeExtra())) as { task: { taskId: string } };
    await expect(rt.callTool({ name: "gate", task: {} }, fakeExtra())).rejects.toMatchObject({
      errorName: "concurrencyLimitReached",
      code: -32011,
      message: "Too many concurrent tasks (limit 1)",
    });
    // Another requestor has its own count.
    await rt.callTool({ name: "gate", task: {} }, fakeExtra({ sessionId: "s2" }));
    release("ok");
    await until(rt, first.task.taskId, "completed");
    await rt.callTool({ name: "gate", task: {} }, fakeExtra());
    await rated.rt.close();
    await rt.close();
  });

  it("the poll rate", async () => {
    const rt = await runtimeOf("sep-1686-draft", { limits: { pollPerMinute: 1 } });
    await expect(rt.handleTaskRequest("tasks/get", { taskId: "x" }, fakeExtra())).rejects.toMatchObject({ errorName: "taskNotFound" });
    await expect(rt.handleTaskRequest("tasks/get", { taskId: "x" }, fakeExtra())).rejects.toMatchObject({ message: "Rate limit exceeded: tasks/get" });
  });
});

describe("owner binding", () => {
  it("another session or another client sees the task as not found; an expired task is the declared error for its owner only", async () => {
    const audits: unknown[] = [];
    const rt = await runtimeOf("sep-1686-draft", { audit: (e) => audits.push(e) });
    rt.addTools([defineTool({ name: "echo", handler: async () => text("x") })]);
    await rt.callTool({ name: "echo", _meta: { [sepKey]: { taskId: "o1", keepAlive: 0 } } }, fakeExtra({ clientId: "alice" }));
    await rt.callTool({ name: "echo", _meta: { [sepKey]: { taskId: "o2" } } }, fakeExtra({ clientId: "alice" }));
    await expect(rt.handleTaskRequest("tasks/get", { taskId: "o2" }, fakeExtra({ clientId: "bob" }))).rejects.toMatchObject({ errorName: "taskNotFound" });
    await expect(rt.handleTaskRequest("tasks/get", { taskId: "o2" }, fakeExtra({ sessionId: "s9", clientId: "alice" }))).rejects.toMatchObject({ errorName: "taskNotFound" });
    expect(await rt.handleTaskRequest("tasks/get", { taskId: "o2" }, fakeExtra({ clientId: "alice" }))).toMatchObject({ status: "completed" });
    await waitFor(async () => ((await rt.store.get("o1"))?.state === "expired" ? true : undefined));
    await expect(rt.handleTaskRequest("tasks/get", { taskId: "o1" }, fakeExtra({ clientId: "alice" }))).rejects.toMatchObject({ errorName: "taskExpired" });
    await expect(rt.handleTaskRequest("tasks/get", { taskId: "o1" }, fakeExtra({ clientId: "bob" }))).rejects.toMatchObject({ errorName: "taskNotFound" });
    expect(rt.ownerOf(fakeExtra({ clientId: "alice" }))).toBe("session:s1|auth:alice:");
    expect(audits).toContainEqual(expect.objectContaining({ type: "denied", taskId: "o2", reason: "task of another requestor" }));
    expect(audits).toContainEqual(expect.objectContaining({ type: "created", taskId: "o1", to: "submitted" }));
    await rt.close();
  });

  it("ext-tasks-2026-07-28 binds to the auth context only", async () => {
    const rt = await runtimeOf("ext-tasks-2026-07-28");
    expect(rt.ownerOf(fakeExtra({ sessionId: "any" }))).toBe("auth:anonymous");
    expect((await runtimeOf("ext-tasks-2026-07-28", { ownerOf: () => "me" })).ownerOf(fakeExtra())).toBe("me");
  });
});
