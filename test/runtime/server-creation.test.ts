/** Task creation per declared trigger, acknowledgement, and retention. */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { checkRuntimeVersion } from "../../runtime/descriptor.js";
import { defineTool, TaskRuntime, type TaskTool } from "../../runtime/server.js";
import { capabilityMeta, deferred, fakeExtra, runtimeOf, waitFor } from "./harness.js";
import { descriptorOf } from "./descriptors.js";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const echo = (support?: TaskTool["taskSupport"]): TaskTool =>
  defineTool({ name: "echo", ...(support === undefined ? {} : { taskSupport: support }), handler: async () => text("hi") });

describe("construction", () => {
  it("refuses a descriptor generated for another runtime version", async () => {
    const d = await descriptorOf("sep-1686-draft");
    expect(() => new TaskRuntime({ ...d, runtimeVersion: "0.0.0-other" })).toThrow(/expects runtime 0\.0\.0-other/);
    expect(() => checkRuntimeVersion(d)).not.toThrow();
  });
});

describe("creation via _meta (sep-1686-draft): acknowledged by notification, answered with the result", () => {
  const key = "modelcontextprotocol.io/task";
  const related = "modelcontextprotocol.io/related-task";

  it("creates the task with the requestor's id and retention, notifies, and answers with the related result", async () => {
    const rt = await runtimeOf("sep-1686-draft");
    rt.addTools([echo()]);
    const extra = fakeExtra();
    const answer = await rt.callTool({ name: "echo", arguments: {}, _meta: { [key]: { taskId: "a1", keepAlive: 60_000 } } }, extra);
    expect(answer).toEqual({ ...text("hi"), _meta: { [related]: { taskId: "a1" } } });
    expect(extra.sent).toEqual([{ method: "notifications/tasks/created", params: { _meta: { [related]: { taskId: "a1" } } } }]);
    const found = await rt.store.get("a1");
    expect(found?.state === "live" && found.record).toMatchObject({ status: "completed", keepAlive: 60_000, result: text("hi") });
    // Retention counted from the end: the expiry is set when the task became terminal.
    if (found?.state === "live") expect(found.record.expiresAt).toBe(found.record.terminalAt! + 60_000);
    await rt.close();
  });

  it("a request without the meta key runs plainly; a reused id is the declared duplicate error; bad metadata is -32602", async () => {
    const rt = await runtimeOf("sep-1686-draft");
    rt.addTools([echo()]);
    expect(await rt.callTool({ name: "echo", arguments: {} }, fakeExtra())).toEqual(text("hi"));
    await rt.callTool({ name: "echo", _meta: { [key]: { taskId: "dup" } } }, fakeExtra());
    await expect(rt.callTool({ name: "echo", _meta: { [key]: { taskId: "dup" } } }, fakeExtra())).rejects.toMatchObject({
      errorName: "duplicateTaskId",
      code: -32602,
      message: "Task ID already exists: dup",
    });
    await expect(rt.callTool({ name: "echo", _meta: { [key]: { taskId: "" } } }, fakeExtra())).rejects.toMatchObject({ code: -32602 });
    await expect(rt.callTool({ name: "echo", _meta: { [key]: "x" } }, fakeExtra())).rejects.toMatchObject({
      message: "Invalid task metadata: expected an object",
    });
    await expect(rt.callTool({ name: "echo", _meta: { [key]: { taskId: "k", keepAlive: -1 } } }, fakeExtra())).rejects.toMatchObject({
      message: "Invalid task metadata: keepAlive must be a non-negative number",
    });
    await rt.close();
  });

  it("a tool that returns an error result completes (the declared outcome); thrown work fails, with an error message", async () => {
    const rt = await runtimeOf("sep-1686-draft");
    rt.addTools([
      defineTool({ name: "toolError", handler: async () => ({ ...text("no"), isError: true }) }),
      defineTool({
        name: "rpcError",
        handler: async () => {
          throw Object.assign(new Error("MCP error -32042: nope"), { code: -32042 });
        },
      }),
      defineTool({
        name: "crash",
        handler: async () => {
          throw new TypeError("bug");
        },
      }),
    ]);
    const meta = (taskId: string) => ({ _meta: { [key]: { taskId } } });
    await rt.callTool({ name: "toolError", ...meta("te") }, fakeExtra());
    await expect(rt.callTool({ name: "rpcError", ...meta("re") }, fakeExtra())).rejects.toMatchObject({ code: -32042, message: "nope" });
    await expect(rt.callTool({ name: "crash", ...meta("cr") }, fakeExtra())).rejects.toMatchObject({ code: -32603, message: "Internal error" });
    const status = async (id: string) => {
      const f = await rt.store.get(id);
      return f?.state === "live" ? f.record : undefined;
    };
    expect(await status("te")).toMatchObject({ status: "completed" });
    expect(await status("re")).toMatchObject({ status: "failed", error: { code: -32042, message: "nope" } });
    // 4.3: failed with an error message, not the fallback unknown, when the work throws unexpectedly.
    expect(await status("cr")).toMatchObject({ status: "failed", error: { code: -32603, message: "Internal error" } });
    expect(await rt.handleTaskRequest("tasks/get", { taskId: "cr" }, fakeExtra())).toMatchObject({ status: "failed", error: "Internal error" });
    await rt.close();
  });
});

describe("creation via a param (mcp-2025-11-25): acknowledged with { task }, the per-tool switch", () => {
  it("checks the task request against its declared type and hands it to the work", async () => {
    const rt = await runtimeOf("mcp-2025-11-25", { pollFrequency: 100 });
    let seen: unknown;
    rt.addTools([defineTool({ name: "peek", taskSupport: "optional", handler: async (_args, ctx) => ((seen = ctx.taskRequest), text("ok")) })]);
    await rt.callTool({ name: "peek", arguments: {}, task: { ttl: 5_000 } }, fakeExtra());
    await waitFor(async () => (seen === undefined ? undefined : true));
    expect(seen).toEqual({ ttl: 5_000 });
    // TaskMetadata declares ttl a number: a string is refused before any task exists.
    await expect(rt.callTool({ name: "peek", arguments: {}, task: { ttl: "soon" } }, fakeExtra())).rejects.toMatchObject({ code: -32602, message: /ttl/ });
    await rt.close();
  });

  it("answers { task } at once and runs the work in the background; retention counted from creation", async () => {
    const rt = await runtimeOf("mcp-2025-11-25", { pollFrequency: 100 });
    const release = deferred();
    rt.addTools([defineTool({ name: "slow", taskSupport: "optional", handler: async () => (await release.promise, text("done")) })]);
    const answer = (await rt.callTool({ name: "slow", arguments: {}, task: { ttl: 5_000 } }, fakeExtra())) as { task: Record<string, unknown> };
    expect(answer.task).toMatchObject({ status: "working", ttl: 5_000, pollInterval: 100 });
    expect(typeof answer.task.taskId).toBe("string");
    const id = answer.task.taskId as string;
    const live = await rt.store.get(id);
    expect(live?.state === "live" && live.record.expiresAt! - live.record.createdAt).toBe(5_000);
    release.resolve();
    await waitFor(async () => {
      const f = await rt.store.get(id);
      return f?.state === "live" && f.record.status === "completed" ? true : undefined;
    });
    await rt.close();
  });

  it("a request cancelled before its answer cancels the task it made; a cancel after the answer is not listened for", async () => {
    const rt = await runtimeOf("mcp-2025-11-25", { pollFrequency: 100 });
    const started: string[] = [];
    rt.addTools([
      defineTool({
        name: "wait",
        taskSupport: "optional",
        handler: (_args, ctx) =>
          new Promise((_resolve, reject) => {
            started.push(ctx.taskId!);
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
          }),
      }),
    ]);
    const statusOf = async (id: string) => {
      const f = await rt.store.get(id);
      return f?.state === "live" ? f.record.status : undefined;
    };
    // Cancelled while the task was being made: the SDK sends no answer, so the task must not live on unseen.
    const early = fakeExtra();
    early.abort();
    const first = (await rt.callTool({ name: "wait", arguments: {}, task: {} }, early)) as { task: { taskId: string } };
    await waitFor(async () => ((await statusOf(first.task.taskId)) === "cancelled" ? true : undefined));
    // Answered: the request is over, and its signal carries no listener for the rest of the task's life.
    const late = fakeExtra();
    const second = (await rt.callTool({ name: "wait", arguments: {}, task: {} }, late)) as { task: { taskId: string } };
    expect(getEventListeners(late.signal, "abort")).toHaveLength(0);
    late.abort();
    await waitFor(async () => (started.includes(second.task.taskId) ? true : undefined));
    expect(await statusOf(second.task.taskId)).toBe("working");
    await rt.cancel(second.task.taskId, "done");
    await rt.close();
  });

  it("a task asked of a forbidden tool, or a required tool called plainly, is the declared error", async () => {
    const rt = await runtimeOf("mcp-2025-11-25");
    rt.addTools([echo(), defineTool({ name: "must", taskSupport: "required", handler: async () => text("x") })]);
    await expect(rt.callTool({ name: "echo", task: {} }, fakeExtra())).rejects.toMatchObject({
      errorName: "taskSupportForbidden",
      code: -32601,
      message: "Tool 'echo' does not support task-augmented execution",
    });
    await expect(rt.callTool({ name: "must" }, fakeExtra())).rejects.toMatchObject({
      errorName: "taskSupportRequired",
      message: "Tool 'must' requires task-augmented execution",
    });
    expect(await rt.callTool({ name: "echo" }, fakeExtra())).toEqual(text("hi"));
    expect(rt.listTools().tools.map((t) => (t as { execution?: unknown }).execution)).toEqual([{ taskSupport: "forbidden" }, { taskSupport: "required" }]);
    await rt.close();
  });

  it("requireTask: a plain request of a method served only as a task is the declared requiredTaskError", async () => {
    const rt = await runtimeOf("mcp-2025-11-25", { requireTask: ["tools/call"] });
    rt.addTools([echo("optional")]);
    await expect(rt.callTool({ name: "echo" }, fakeExtra())).rejects.toMatchObject({
      code: -32600,
      message: "Task augmentation required for tools/call requests",
    });
    await rt.close();
  });

  it("a request whose augmentation path the declared capability lacks runs plainly", async () => {
    const rt = await runtimeOf("mcp-2025-11-25", { taskCapability: { list: {} } });
    rt.addTools([echo("optional")]);
    expect(await rt.callTool({ name: "echo", task: {} }, fakeExtra())).toEqual(text("hi"));
    await rt.close();
  });
});

describe("creation via the per-request client capability (ext-tasks-2026-07-28): the flat task", () => {
  it("answers the flat task marked resultType task; a plain request is marked complete", async () => {
    const rt = await runtimeOf("ext-tasks-2026-07-28");
    rt.addTools([echo()]);
    const _meta = await capabilityMeta("ext-tasks-2026-07-28");
    const answer = (await rt.callTool({ name: "echo", arguments: {}, _meta }, fakeExtra())) as Record<string, unknown>;
    expect(answer).toMatchObject({ resultType: "task", status: "working", ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(Object.keys(answer)[0]).toBe("resultType");
    expect(await rt.callTool({ name: "echo", arguments: {} }, fakeExtra())).toEqual({ ...text("hi"), resultType: "complete" });
    await rt.close();
  });

  it("a tool that requires a task, called without the capability, is refused naming the capability", async () => {
    const rt = await runtimeOf("ext-tasks-2026-07-28");
    rt.addTools([echo("required")]);
    await expect(rt.callTool({ name: "echo" }, fakeExtra())).rejects.toMatchObject({
      code: -32021,
      message: "Missing required client capability",
      data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
    });
    await rt.close();
  });
});

describe("retention granted", () => {
  it("the default when none is asked, capped by the maximum; null is unlimited only without a cap", async () => {
    const rt = await runtimeOf("sep-1686-draft");
    const b = rt.behaviour.retention;
    if (b === false) throw new Error("the seed declares retention");
    expect(rt.grant(undefined)).toBe(b.default);
    expect(rt.grant(1e12)).toBe(b.max);
    expect(rt.grant(1.9)).toBe(1);
    expect(rt.grant(null)).toBe(b.max);
    const uncapped = await runtimeOf("sep-1686-draft", { maxKeepAlive: null, defaultKeepAlive: null });
    expect(uncapped.grant(null)).toBeNull();
    expect(uncapped.grant(undefined)).toBeNull();
    expect(uncapped.grant(1e12)).toBe(1e12);
  });

  it("where null does not mean unlimited, asking for null asks for the most there is", async () => {
    const d = await descriptorOf("mcp-2025-11-25");
    const declared = d.behaviour.retention;
    if (declared === false) throw new Error("mcp-2025-11-25 declares retention");
    const strict = { ...d, behaviour: { ...d.behaviour, retention: { ...declared, nullMeansUnlimited: false } } };
    const rt = new TaskRuntime(strict, { audit: false, maxKeepAlive: 1234 });
    expect(rt.grant(null)).toBe(1234);
  });
});
