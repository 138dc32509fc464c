/** Input a task asks of its requestor, in the three declared ways; the SDK wiring (install, registerTools, status push). */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { defineTool, type TaskRuntime } from "../../runtime/server.js";
import { capabilityMeta, fakeExtra, runtimeOf, waitFor } from "./harness.js";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const ask = { message: "Go?", requestedSchema: { type: "object" as const, properties: {} } };
const accept = { action: "accept", content: {} };

async function statusOf(rt: TaskRuntime, id: string): Promise<string | undefined> {
  const f = await rt.store.get(id);
  return f?.state === "live" ? f.record.status : f?.state;
}

/** A tool that asks once and reports the answer's action. */
const asking = defineTool({
  name: "ask",
  taskSupport: "optional",
  handler: async (_args, ctx) => text(`answered ${(await ctx.elicit(ask)).action}`),
});

describe("input by side request (sep-1686-draft)", () => {
  it("sends the request related to the task; the task is input_required until the answer, then working", async () => {
    const rt = await runtimeOf("sep-1686-draft");
    rt.addTools([asking]);
    const seen: string[] = [];
    const extra = fakeExtra({
      answer: async () => {
        seen.push((await statusOf(rt, "i1"))!);
        return accept;
      },
    });
    const answer = await rt.callTool({ name: "ask", _meta: { "modelcontextprotocol.io/task": { taskId: "i1" } } }, extra);
    expect(answer).toMatchObject(text("answered accept"));
    expect(seen).toEqual(["input_required"]);
    expect(extra.requests).toEqual([
      { method: "elicitation/create", params: { ...ask, _meta: { "modelcontextprotocol.io/related-task": { taskId: "i1" } } } },
    ]);
    expect(await statusOf(rt, "i1")).toBe("completed");
    await rt.close();
  });

  it("a request that is no task asks plainly, without the related-task meta", async () => {
    const rt = await runtimeOf("sep-1686-draft");
    rt.addTools([asking]);
    const extra = fakeExtra({ answer: () => accept });
    expect(await rt.callTool({ name: "ask" }, extra)).toEqual(text("answered accept"));
    expect(extra.requests).toEqual([{ method: "elicitation/create", params: ask }]);
    await rt.close();
  });
});

describe("input inline, answered by the update method (ext-tasks-2026-07-28)", () => {
  it("surfaces the request in the polled task; a partial or unknown answer changes nothing; the answer resumes the task", async () => {
    const rt = await runtimeOf("ext-tasks-2026-07-28");
    rt.addTools([asking]);
    const _meta = await capabilityMeta("ext-tasks-2026-07-28", { elicitation: {} });
    const { taskId } = (await rt.callTool({ name: "ask", _meta }, fakeExtra())) as { taskId: string };
    await waitFor(async () => ((await statusOf(rt, taskId)) === "input_required" ? true : undefined));
    const polled = await rt.handleTaskRequest("tasks/get", { taskId, _meta }, fakeExtra());
    expect(polled).toMatchObject({ status: "input_required", inputRequests: { "input-1": { method: "elicitation/create", params: ask } } });
    expect(await rt.handleTaskRequest("tasks/update", { taskId, _meta, inputResponses: { "input-9": accept } }, fakeExtra())).toEqual({ resultType: "complete" });
    expect(await statusOf(rt, taskId)).toBe("input_required");
    await expect(rt.handleTaskRequest("tasks/update", { taskId, _meta, inputResponses: { "input-1": { action: 3 } } }, fakeExtra())).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid params: inputResponses\.input-1: /),
    });
    await expect(rt.handleTaskRequest("tasks/update", { taskId, _meta, inputResponses: 1 }, fakeExtra())).rejects.toMatchObject({
      message: "Invalid params for tasks/update: inputResponses: expected an object",
    });
    await rt.handleTaskRequest("tasks/update", { taskId, _meta, inputResponses: { "input-1": accept } }, fakeExtra());
    await waitFor(async () => ((await statusOf(rt, taskId)) === "completed" ? true : undefined));
    expect(await rt.handleTaskRequest("tasks/get", { taskId, _meta }, fakeExtra())).toMatchObject({ result: text("answered accept") });
    await rt.close();
  });
});

describe("in process on the SDK (mcp-2025-11-25): install, registerTools, input through the result stream, status push", () => {
  it("serves tools/list with the per-tool switch, creates a task, carries the elicitation on tasks/result, pushes statuses", async () => {
    const rt = await runtimeOf("mcp-2025-11-25", { pollFrequency: 20 });
    const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
    rt.install(server);
    rt.registerTools(server, [asking, defineTool({ name: "plain", inputSchema: z.object({ n: z.number() }), handler: async ({ n }) => text(`n=${n}`) })]);
    const client = new Client({ name: "c", version: "1" }, { capabilities: { elicitation: {} } });
    const related: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      related.push(request.params._meta);
      return { action: "accept", content: {} };
    });
    const statuses: string[] = [];
    client.fallbackNotificationHandler = async (n) => {
      if (n.method === "notifications/tasks/status") statuses.push(String((n.params as { status?: unknown }).status));
    };
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await server.connect(st);
    await client.connect(ct);
    try {
      expect(client.getServerCapabilities()).toMatchObject({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }, tools: {} });
      const listed = await client.request({ method: "tools/list", params: {} }, z.any());
      expect(listed.tools.map((t: { name: string; execution: unknown }) => [t.name, t.execution])).toEqual([
        ["ask", { taskSupport: "optional" }],
        ["plain", { taskSupport: "forbidden" }],
      ]);
      expect(await client.request({ method: "tools/call", params: { name: "plain", arguments: { n: 2 } } }, z.any())).toEqual(text("n=2"));
      await expect(client.request({ method: "tools/call", params: { name: "plain", arguments: { n: "x" } } }, z.any())).rejects.toMatchObject({ code: -32602 });
      const created = await client.request({ method: "tools/call", params: { name: "ask", arguments: {}, task: { ttl: 60_000 } } }, z.any());
      const taskId = created.task.taskId as string;
      const result = await client.request({ method: "tasks/result", params: { taskId } }, z.any());
      expect(result).toMatchObject(text("answered accept"));
      expect(related).toEqual([{ "io.modelcontextprotocol/related-task": { taskId } }]);
      await waitFor(() => (statuses.includes("completed") ? true : undefined));
      expect(statuses).toEqual(["input_required", "working", "completed"]);
      const got = await client.request({ method: "tasks/get", params: { taskId } }, z.any());
      expect(got).toMatchObject({ taskId, status: "completed", ttl: 60_000 });
      expect(got).not.toHaveProperty("_meta");
      const list = await client.request({ method: "tasks/list", params: {} }, z.any());
      expect(list.tasks.map((t: { taskId: string }) => t.taskId)).toEqual([taskId]);
      await expect(client.request({ method: "nobody/handles", params: {} }, z.any())).rejects.toMatchObject({ code: -32601 });
    } finally {
      await client.close();
      await server.close();
      await rt.close();
    }
  });

  it("side client: installed on an SDK Client, the runtime serves the task methods to the server", async () => {
    const rt = await runtimeOf("mcp-2025-11-25", { side: "client" });
    const client = new Client({ name: "c", version: "1" }, { capabilities: {} });
    rt.install(client);
    const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await server.connect(st);
    await client.connect(ct);
    try {
      expect(server.getClientCapabilities()).toMatchObject({ tasks: { list: {}, cancel: {} } });
      await expect(server.request({ method: "tasks/get", params: { taskId: "nope" } }, z.any())).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
      await server.close();
      await rt.close();
    }
  });
});
