/**
 * What the runtime owes the requestor beyond the task methods: input asked only of
 * capabilities it declared, notifications of a task's work tied to the task, requests
 * served plainly where the declared capability does not list them, a repeated request
 * id answered with the task it made, results inlined as the request's own answer, and
 * task polling answered as JSON over Streamable HTTP.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { defineTool, serveStreamableHttp, type AuditEvent, type TaskPeer, type TaskRuntime } from "../../runtime/server.js";
import { capabilityMeta, deferred, fakeExtra, runtimeOf, waitFor } from "./harness.js";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const ask = { message: "Go?", requestedSchema: { type: "object" as const, properties: {} } };

async function recordOf(rt: TaskRuntime, id: string): Promise<Record<string, unknown> | undefined> {
  const f = await rt.store.get(id);
  return f?.state === "live" ? (f.record as unknown as Record<string, unknown>) : undefined;
}

/** A session peer (an SDK Server as the runtime sees it) whose client declared `capabilities`. */
function peerDeclaring(capabilities: Record<string, unknown>): TaskPeer & { getClientCapabilities(): Record<string, unknown> } {
  return {
    request: async () => {
      throw new Error("no request expected");
    },
    notification: async () => undefined,
    getClientCapabilities: () => capabilities,
  };
}

const asking = defineTool({
  name: "ask",
  taskSupport: "optional",
  handler: async (_args, ctx) => text(`answered ${(await ctx.elicit(ask)).action}`),
});

describe("input is asked only of capabilities the requestor declared", () => {
  it("mcp-2025-11-25: a task's elicitation for a client without the capability fails at once, never input_required", async () => {
    const statuses: string[] = [];
    const rt = await runtimeOf("mcp-2025-11-25", { audit: (e: AuditEvent) => void (e.to !== undefined && statuses.push(e.to)) });
    rt.addTools([asking]);
    const answer = (await rt.callTool({ name: "ask", task: {} }, fakeExtra(), peerDeclaring({}))) as { task: { taskId: string } };
    const id = answer.task.taskId;
    const rec = await waitFor(async () => {
      const r = await recordOf(rt, id);
      return r?.status === "failed" ? r : undefined;
    });
    const message = "The requestor did not declare the elicitation capability (required for elicitation/create)";
    expect(rec.error).toEqual({ code: -32603, message });
    expect(rt.toWireTask(rec as never)).toMatchObject({ status: "failed", statusMessage: message });
    expect(statuses).toEqual(["working", "failed"]);
    await rt.close();
  });

  it("mcp-2025-11-25: a client that declared elicitation is asked (the task waits in input_required)", async () => {
    const rt = await runtimeOf("mcp-2025-11-25");
    rt.addTools([asking]);
    const answer = (await rt.callTool({ name: "ask", task: {} }, fakeExtra(), peerDeclaring({ elicitation: {} }))) as { task: { taskId: string } };
    await waitFor(async () => ((await recordOf(rt, answer.task.taskId))?.status === "input_required" ? true : undefined));
    await rt.close();
  });

  it("sep-1686-draft: the work's ctx.elicit rejects with a clear error and the task fails with it", async () => {
    const rt = await runtimeOf("sep-1686-draft");
    const seen = deferred<unknown>();
    rt.addTools([
      defineTool({
        name: "ask",
        handler: async (_args, ctx) => {
          await ctx.elicit(ask).catch((e: unknown) => (seen.resolve(e), Promise.reject(e)));
          return text("unreachable");
        },
      }),
    ]);
    const extra = fakeExtra({ answer: () => ({ action: "accept" }) });
    await expect(rt.callTool({ name: "ask", _meta: { "modelcontextprotocol.io/task": { taskId: "n1" } } }, extra, peerDeclaring({ sampling: {} }))).rejects.toMatchObject({
      message: "The requestor did not declare the elicitation capability (required for elicitation/create)",
    });
    expect(await seen.promise).toMatchObject({ code: -32603 });
    expect(extra.requests).toEqual([]);
    expect(await recordOf(rt, "n1")).toMatchObject({ status: "failed" });
    await rt.close();
  });

  it("ext-tasks-2026-07-28: a request whose capabilities lack elicitation gets a failed task with -32021 naming it", async () => {
    const statuses: string[] = [];
    const rt = await runtimeOf("ext-tasks-2026-07-28", { audit: (e: AuditEvent) => void (e.to !== undefined && statuses.push(e.to)) });
    rt.addTools([asking]);
    const _meta = await capabilityMeta("ext-tasks-2026-07-28");
    const { taskId } = (await rt.callTool({ name: "ask", _meta }, fakeExtra())) as { taskId: string };
    const polled = await waitFor(async () => {
      const t = (await rt.handleTaskRequest("tasks/get", { taskId, _meta }, fakeExtra())) as Record<string, unknown>;
      return t.status === "failed" ? t : undefined;
    });
    expect(polled.error).toEqual({ code: -32021, message: "Missing required client capability", data: { requiredCapabilities: { elicitation: {} } } });
    expect(statuses).not.toContain("input_required");
    await rt.close();
  });
});

describe("a task's progress ends with it", () => {
  it("mcp-2025-11-25: progress the work reports after its task was cancelled is not sent", async () => {
    let release: () => void = () => undefined;
    const late = defineTool({
      name: "late",
      taskSupport: "optional",
      handler: async (_args, ctx) => {
        await ctx.notify({ method: "notifications/progress", params: { progress: 1, total: 3 } });
        await new Promise<void>((resolve) => (release = resolve));
        // The work has not looked at its signal yet: it reports on, as work does.
        await ctx.notify({ method: "notifications/progress", params: { progress: 2, total: 3 } });
        return text("done");
      },
    });
    const rt = await runtimeOf("mcp-2025-11-25");
    rt.addTools([late]);
    const extra = fakeExtra();
    const answer = (await rt.callTool({ name: "late", task: {}, _meta: { progressToken: "tok" } }, extra)) as { task: { taskId: string } };
    await waitFor(() => extra.sent.find((n) => n.method === "notifications/progress"));
    await rt.handleTaskRequest("tasks/cancel", { taskId: answer.task.taskId }, extra);
    release();
    await new Promise((r) => setTimeout(r, 100));
    const progress = extra.sent.filter((n) => n.method === "notifications/progress");
    expect(progress.map((n) => (n.params as { progress: number }).progress)).toEqual([1]);
    await rt.close();
  });
});

describe("notifications a task's work sends carry the related-task meta where the spec declares it", () => {
  const progress = defineTool({
    name: "progress",
    taskSupport: "optional",
    handler: async (_args, ctx) => {
      await ctx.notify({ method: "notifications/progress", params: { progressToken: 7, progress: 1, total: 2 } });
      return text("done");
    },
  });

  it("sep-1686-draft: on the request's own stream, with the task's related-task key", async () => {
    const rt = await runtimeOf("sep-1686-draft");
    rt.addTools([progress]);
    const extra = fakeExtra();
    await rt.callTool({ name: "progress", _meta: { "modelcontextprotocol.io/task": { taskId: "p1" } } }, extra);
    expect(extra.sent.find((n) => n.method === "notifications/progress")).toEqual({
      method: "notifications/progress",
      params: { progressToken: 7, progress: 1, total: 2, _meta: { "modelcontextprotocol.io/related-task": { taskId: "p1" } } },
    });
    await rt.close();
  });

  it("mcp-2025-11-25: after the request was answered with the task, with io.modelcontextprotocol/related-task", async () => {
    const rt = await runtimeOf("mcp-2025-11-25");
    rt.addTools([progress]);
    const extra = fakeExtra();
    const answer = (await rt.callTool({ name: "progress", task: {} }, extra)) as { task: { taskId: string } };
    const sent = await waitFor(() => extra.sent.find((n) => n.method === "notifications/progress"));
    expect(sent.params).toEqual({ progressToken: 7, progress: 1, total: 2, _meta: { "io.modelcontextprotocol/related-task": { taskId: answer.task.taskId } } });
    await rt.close();
  });

  it("a plain request's notification is sent as it is", async () => {
    const rt = await runtimeOf("mcp-2025-11-25");
    rt.addTools([progress]);
    const extra = fakeExtra();
    await rt.callTool({ name: "progress" }, extra);
    expect(extra.sent).toEqual([{ method: "notifications/progress", params: { progressToken: 7, progress: 1, total: 2 } }]);
    await rt.close();
  });
});

describe("a repeated request id makes no second task", () => {
  it("mcp-2025-11-25: the same id in the same session is answered with the task it made, while that task lives", async () => {
    const rt = await runtimeOf("mcp-2025-11-25");
    let runs = 0;
    const gate = deferred();
    rt.addTools([defineTool({ name: "once", taskSupport: "optional", handler: async () => (runs++, await gate.promise, text("done")) })]);
    const call = (sessionId: string, requestId: number) => rt.callTool({ name: "once", task: {} }, { ...fakeExtra({ sessionId }), requestId }) as Promise<{ task: { taskId: string } }>;
    const first = await call("s1", 42);
    const replay = await call("s1", 42);
    expect(replay.task.taskId).toBe(first.task.taskId);
    // Another session's id 42 is another request.
    const other = await call("s2", 42);
    expect(other.task.taskId).not.toBe(first.task.taskId);
    gate.resolve();
    await waitFor(async () => ((await recordOf(rt, first.task.taskId))?.status === "completed" ? true : undefined));
    expect((await call("s1", 42)).task).toMatchObject({ taskId: first.task.taskId, status: "completed" });
    expect(runs).toBe(2);
    await rt.close();
  });

  it("ext-tasks-2026-07-28 (no session): request ids are not unique, so each request is its own", async () => {
    const rt = await runtimeOf("ext-tasks-2026-07-28");
    rt.addTools([defineTool({ name: "t", handler: async () => text("done") })]);
    const _meta = await capabilityMeta("ext-tasks-2026-07-28");
    const extra = () => ({ ...fakeExtra(), sessionId: undefined, requestId: 1 });
    const a = (await rt.callTool({ name: "t", _meta }, extra())) as { taskId: string };
    const b = (await rt.callTool({ name: "t", _meta }, extra())) as { taskId: string };
    expect(a.taskId).not.toBe(b.taskId);
    await rt.close();
  });
});

describe("results inlined in the task are the request's own answer", () => {
  it("ext-tasks-2026-07-28: the inlined result carries resultType complete", async () => {
    const rt = await runtimeOf("ext-tasks-2026-07-28");
    rt.addTools([defineTool({ name: "t", handler: async () => text("done") })]);
    const _meta = await capabilityMeta("ext-tasks-2026-07-28");
    const { taskId } = (await rt.callTool({ name: "t", _meta }, fakeExtra())) as { taskId: string };
    const done = await waitFor(async () => {
      const t = (await rt.handleTaskRequest("tasks/get", { taskId, _meta }, fakeExtra())) as Record<string, unknown>;
      return t.status === "completed" ? t : undefined;
    });
    expect(done.result).toEqual({ ...text("done"), resultType: "complete" });
    await rt.close();
  });
});

describe("a request the declared capability does not list is served plainly (SDK Server)", () => {
  it("mcp-2025-11-25 without tasks.requests.tools.call: tools/call with params.task gets the tool's result", async () => {
    const rt = await runtimeOf("mcp-2025-11-25", { taskCapability: { list: {}, cancel: {} } });
    const server = new Server({ name: "s", version: "1" }, { capabilities: {} });
    rt.install(server);
    rt.registerTools(server, [defineTool({ name: "t", taskSupport: "optional", handler: async () => text("plain") })]);
    const client = new Client({ name: "c", version: "1" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const answer = await client.request({ method: "tools/call", params: { name: "t", arguments: {}, task: {} } }, z.record(z.string(), z.unknown()));
      expect(answer).toEqual(text("plain"));
      expect(await rt.handleTaskRequest("tasks/list", {}, fakeExtra())).toEqual({ tasks: [] });
    } finally {
      await client.close();
      await server.close();
      await rt.close();
    }
  });
});

describe("serveStreamableHttp answers task polling as JSON", () => {
  it("mcp-2025-11-25: tasks/get and tasks/list come back as application/json; a task-making tools/call still streams", async () => {
    const rt = await runtimeOf("mcp-2025-11-25");
    const tool = defineTool({ name: "t", taskSupport: "optional", handler: async () => text("done") });
    const http = await serveStreamableHttp(
      () => {
        const server = new Server({ name: "s", version: "1" }, { capabilities: {} });
        rt.install(server);
        rt.registerTools(server, [tool]);
        return server;
      },
      { log: () => undefined },
    );
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const post = (id: number, method: string, params: Record<string, unknown>) =>
      fetch(http.url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });
    try {
      const init = await post(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } });
      headers["mcp-session-id"] = init.headers.get("mcp-session-id")!;
      headers["mcp-protocol-version"] = "2025-11-25";
      await init.text();
      await fetch(http.url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
      const call = await post(2, "tools/call", { name: "t", arguments: {}, task: {} });
      expect(call.headers.get("content-type")).toBe("text/event-stream");
      const created = /data: (.*)/.exec(await call.text())![1]!;
      const taskId = (JSON.parse(created) as { result: { task: { taskId: string } } }).result.task.taskId;
      const got = await post(3, "tasks/get", { taskId });
      expect(got.headers.get("content-type")).toBe("application/json");
      expect(got.headers.get("mcp-session-id")).toBe(headers["mcp-session-id"]);
      expect(await got.json()).toMatchObject({ jsonrpc: "2.0", id: 3, result: { taskId } });
      const listed = await post(4, "tasks/list", {});
      expect(listed.headers.get("content-type")).toBe("application/json");
      expect(((await listed.json()) as { result: { tasks: unknown[] } }).result.tasks).toHaveLength(1);
      const missing = await post(5, "tasks/get", { taskId: "nope" });
      expect(missing.headers.get("content-type")).toBe("application/json");
      expect(await missing.json()).toMatchObject({ id: 5, error: { code: -32602 } });
    } finally {
      await http.close();
      await rt.close();
    }
  });
});

describe("a binding that replaces the runtime's ownerOf or cancel", () => {
  it("binds tasks by the replaced ownerOf, and cancels through the replaced cancel", async () => {
    const rt = await runtimeOf("mcp-2025-11-25");
    rt.addTools([defineTool({ name: "t", taskSupport: "optional", handler: async (_a, ctx) => (await new Promise((r) => ctx.signal.addEventListener("abort", r)), text("stopped")) })]);
    const ownerOf = rt.ownerOf.bind(rt);
    rt.ownerOf = (extra) => `bound:${ownerOf(extra)}`;
    const cancels: string[] = [];
    const cancel = rt.cancel.bind(rt);
    rt.cancel = (taskId, reason) => (cancels.push(taskId), cancel(taskId, reason));
    const answer = (await rt.callTool({ name: "t", task: {} }, fakeExtra({ sessionId: "s1" }))) as { task: { taskId: string } };
    const id = answer.task.taskId;
    expect((await recordOf(rt, id))?.owner).toMatch(/^bound:/);
    // The task methods look the task up by the same key, and tasks/cancel goes through the replaced cancel.
    await rt.handleTaskRequest("tasks/cancel", { taskId: id }, fakeExtra({ sessionId: "s1" }));
    expect(cancels).toEqual([id]);
    expect((await recordOf(rt, id))?.status).toBe("cancelled");
    await rt.close();
  });
});
