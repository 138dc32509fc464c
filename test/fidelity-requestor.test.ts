/**
 * What a task's requestor receives later, on mcp-2025-11-25 over Streamable
 * HTTP on 127.0.0.1 (our runtime on the SDK 1.32 Server, the SDK Client on the
 * other end):
 * - the progress token lives as long as the task (creation.progressTokenLifetime
 *   task): progress the work sends after the request was answered with the task
 *   carries the original request's token and the related-task meta, and reaches
 *   the requestor's progress callback;
 * - a requestor that declared it serves elicitation/create as a task (its tasks
 *   capability) is asked with a task-augmented request, which the asking side
 *   follows to its result; a requestor that did not is asked plainly;
 * - the requestor's answers to a task's input requests carry the related-task
 *   meta (relatedTask on requests, notifications and results), added by the
 *   TaskClient to what the client's own handler answers.
 * No assertion depends on timing: waits poll until a state is reached.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { TaskClient } from "../runtime/client.js";
import type { TaskSpecDescriptor } from "../runtime/descriptor.js";
import { defineTool, TaskRuntime } from "../runtime/server.js";
import { serveStreamableHttp } from "../runtime/transports.js";
import { descriptorOf } from "./runtime/descriptors.js";
import { deferred, waitFor } from "./runtime/harness.js";

const SPEC = "mcp-2025-11-25";
const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const ask = { message: "Go?", requestedSchema: { type: "object" as const, properties: {} } };

let descriptor: TaskSpecDescriptor;
let runtime: TaskRuntime;
let served: { url: string; close: () => Promise<void> };
let relatedKey: string;
const servers: Server[] = [];
const release = deferred();

beforeAll(async () => {
  descriptor = await descriptorOf(SPEC);
  relatedKey = descriptor.meta[(descriptor.behaviour.relatedTask as { meta: string }).meta]!;
  runtime = new TaskRuntime(descriptor, { audit: false, log: (e) => { if (process.env.FIDELITY_LOG) console.error(JSON.stringify(e)); }, pollFrequency: 20 });
  const tools = [
    defineTool({
      name: "progress_job",
      taskSupport: "optional",
      handler: async (_args, ctx) => {
        // Sent after the request was answered with the task: no token given, the runtime names the original one.
        await release.promise;
        await ctx.notify({ method: "notifications/progress", params: { progress: 1, total: 2 } });
        await ctx.notify({ method: "notifications/progress", params: { progress: 2, total: 2, message: "done" } });
        return text("progressed");
      },
    }),
    defineTool({
      name: "late_progress",
      taskSupport: "optional",
      handler: async (args, ctx) => {
        // Progress reported once the work has ended (a timer the work left behind): the task is over by then.
        await ctx.notify({ method: "notifications/progress", params: { progress: 1, total: 2 } });
        setTimeout(() => void ctx.notify({ method: "notifications/progress", params: { progress: 2, total: 2 } }).catch(() => undefined), 50);
        if ((args as { fail?: boolean }).fail) throw new Error("it failed");
        return text("ended");
      },
    }),
    defineTool({
      name: "ask",
      taskSupport: "optional",
      handler: async (_args, ctx) => {
        const answer = (await ctx.elicit(ask)) as ElicitResult;
        return text(JSON.stringify({ action: answer.action, meta: answer._meta ?? null }));
      },
    }),
  ];
  served = await serveStreamableHttp(
    () => {
      const server = new Server({ name: "fidelity", version: "1" }, { capabilities: { logging: {} } });
      runtime.install(server);
      runtime.registerTools(server, tools);
      servers.push(server);
      return server;
    },
    { port: 0, host: "127.0.0.1", log: () => undefined },
  );
});

afterAll(async () => {
  release.resolve();
  await served?.close();
  await runtime?.close();
});

/** An SDK Client connected over Streamable HTTP, once the server's notifications reach it (its standalone stream is open). */
async function connect(client: Client): Promise<Client> {
  const before = servers.length;
  const seen = new Set<string>();
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === "notifications/message") seen.add(String((n.params as { data?: unknown }).data));
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  const server = await waitFor(() => servers[before], 10_000);
  let probe = 0;
  await waitFor(async () => {
    const data = `probe-${++probe}`;
    await server.notification({ method: "notifications/message", params: { level: "info", data } }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
    return seen.size > 0 ? true : undefined;
  }, 10_000);
  return client;
}

describe("the progress token lives as long as the task", () => {
  it("progress sent after the task answer carries the original token and the related-task meta, and reaches the requestor", async () => {
    const client = await connect(new Client({ name: "progress", version: "1" }, { capabilities: {} }));
    try {
      const got: Array<Record<string, unknown>> = [];
      const created = await client.request(
        { method: "tools/call", params: { name: "progress_job", arguments: {}, task: { ttl: 60_000 } } },
        z.any(),
        { onprogress: (p) => void got.push(p as Record<string, unknown>) },
      );
      const taskId = created.task.taskId as string;
      expect(got).toEqual([]);
      release.resolve();
      await waitFor(() => (got.length >= 2 ? true : undefined), 10_000);
      expect(got.map((p) => [p.progress, p.total])).toEqual([
        [1, 2],
        [2, 2],
      ]);
      for (const p of got) expect(p._meta).toEqual({ [relatedKey]: { taskId } });
      expect(await client.request({ method: "tasks/result", params: { taskId } }, z.any())).toMatchObject(text("progressed"));
    } finally {
      await client.close();
    }
  });
});

describe("the progress token ends with the task", () => {
  it.each([
    ["completed", false],
    ["failed", true],
  ])("progress the work sends after its task %s is dropped, not sent with the token", async (_status, fail) => {
    const client = await connect(new Client({ name: "late-progress", version: "1" }, { capabilities: {} }));
    try {
      const got: Array<Record<string, unknown>> = [];
      const created = await client.request(
        { method: "tools/call", params: { name: "late_progress", arguments: { fail }, task: { ttl: 60_000 } } },
        z.any(),
        { onprogress: (p) => void got.push(p as Record<string, unknown>) },
      );
      const taskId = created.task.taskId as string;
      await waitFor(async () => {
        const t = await client.request({ method: "tasks/get", params: { taskId } }, z.any());
        return t.status === "completed" || t.status === "failed" ? t : undefined;
      }, 10_000);
      // Past the timer the work left behind.
      await new Promise((r) => setTimeout(r, 300));
      expect(got.map((p) => p.progress)).toEqual([1]);
    } finally {
      await client.close();
    }
  });
});

describe("the server asks for task-augmented elicitation where the requestor declared it", () => {
  it("a client whose tasks capability lists elicitation/create gets the request as a task, which the server follows to its answer", async () => {
    const client = new Client({ name: "tasking-client", version: "1" }, { capabilities: { elicitation: {} } });
    const made: Array<{ taskId?: string; method?: string }> = [];
    const clientRuntime = new TaskRuntime(descriptor, {
      side: "client",
      audit: (e) => void (e.type === "created" && made.push({ taskId: e.taskId, method: e.method })),
      log: () => undefined,
      pollFrequency: 20,
    });
    clientRuntime.install(client);
    const asked: Array<Record<string, unknown>> = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params as Record<string, unknown>);
      return { action: "accept", content: {} };
    });
    await connect(client);
    try {
      const created = await client.request({ method: "tools/call", params: { name: "ask", arguments: {}, task: {} } }, z.any());
      const result = await client.request({ method: "tasks/result", params: { taskId: created.task.taskId } }, z.any());
      expect(JSON.parse(result.content[0].text)).toMatchObject({ action: "accept" });
      // The request asked for a task: the requestor made one, answered by its own handler, which saw the plain request.
      expect(made).toHaveLength(1);
      expect(made[0]!.method).toBe("elicitation/create");
      expect(asked).toHaveLength(1);
      expect(asked[0]).not.toHaveProperty("task");
      const own = await clientRuntime.store.get(made[0]!.taskId!);
      expect(own?.state === "live" ? own.record.status : own?.state).toBe("completed");
    } finally {
      await client.close();
      await clientRuntime.close();
    }
  });

  it("a client without that capability is asked plainly", async () => {
    const client = new Client({ name: "plain-client", version: "1" }, { capabilities: { elicitation: {} } });
    const params: Array<Record<string, unknown>> = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      params.push(request.params as Record<string, unknown>);
      return { action: "accept", content: {} };
    });
    await connect(client);
    try {
      const created = await client.request({ method: "tools/call", params: { name: "ask", arguments: {}, task: {} } }, z.any());
      const result = await client.request({ method: "tasks/result", params: { taskId: created.task.taskId } }, z.any());
      expect(JSON.parse(result.content[0].text)).toMatchObject({ action: "accept" });
      expect(params).toHaveLength(1);
      expect(params[0]).not.toHaveProperty("task");
    } finally {
      await client.close();
    }
  });
});

describe("the requestor's answers to a task's input requests carry the related-task meta", () => {
  it("the TaskClient adds it to what the client's own elicitation handler answers", async () => {
    const client = new Client({ name: "answering-client", version: "1" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: {} }));
    new TaskClient(descriptor, client as never);
    await connect(client);
    try {
      const created = await client.request({ method: "tools/call", params: { name: "ask", arguments: {}, task: {} } }, z.any());
      const taskId = created.task.taskId as string;
      const result = await client.request({ method: "tasks/result", params: { taskId } }, z.any());
      expect(JSON.parse(result.content[0].text)).toEqual({ action: "accept", meta: { [relatedKey]: { taskId } } });
    } finally {
      await client.close();
    }
  });
});

describe("the related-task meta on answers, for a spec whose input travels as side requests (sep-1686-draft)", () => {
  it("the answer to the task's elicitation, sent on the request's own stream, carries the meta too", async () => {
    const seed = await descriptorOf("sep-1686-draft");
    const key = seed.meta[(seed.behaviour.relatedTask as { meta: string }).meta]!;
    const taskKey = seed.meta[seed.behaviour.creation.meta!]!;
    const seedRuntime = new TaskRuntime(seed, { audit: false, log: () => undefined, pollFrequency: 20 });
    const seedServed = await serveStreamableHttp(
      () => {
        const server = new Server({ name: "fidelity-seed", version: "1" }, { capabilities: {} });
        seedRuntime.install(server);
        seedRuntime.registerTools(server, [
          defineTool({
            name: "ask",
            handler: async (_args, ctx) => {
              const answer = (await ctx.elicit(ask)) as ElicitResult;
              return text(JSON.stringify({ action: answer.action, meta: answer._meta ?? null }));
            },
          }),
        ]);
        return server;
      },
      { port: 0, host: "127.0.0.1", log: () => undefined },
    );
    const client = new Client({ name: "seed-client", version: "1" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: {} }));
    new TaskClient(seed, client as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(seedServed.url)));
    try {
      const result = await client.request({ method: "tools/call", params: { name: "ask", arguments: {}, _meta: { [taskKey]: { taskId: "seed-1" } } } }, z.any());
      expect(JSON.parse(result.content[0].text)).toEqual({ action: "accept", meta: { [key]: { taskId: "seed-1" } } });
    } finally {
      await client.close();
      await seedServed.close();
      await seedRuntime.close();
    }
  });
});
