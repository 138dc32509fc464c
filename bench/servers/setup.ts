/**
 * The two servers of the end-to-end bench, as factories: a task store with one
 * task made at start-up and a function making one SDK server on it (one per
 * connection or HTTP session). Used in-process and by ours.ts / sdk.ts.
 */
import { randomUUID } from "node:crypto";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

export interface Factory {
  taskId: string;
  make: () => Server | McpServer;
  /** The generated server module (ours only). */
  module?: Record<string, any>;
}

/**
 * The generated server of a spec. Rate limits are lifted (the bench polls far
 * faster than a client should), auditing and logging are off, and every
 * request has one owner, so the pre-made task is visible in every HTTP session.
 */
export async function ourServer(spec: string): Promise<Factory> {
  const S = (await import(`../../output-samples/${spec}/server.ts`)) as Record<string, any>;
  const T = (await import(`../../output-samples/${spec}/transitions.ts`)) as Record<string, any>;
  const unlimited = 1e12;
  const runtime = new S.TaskRuntime({
    audit: false,
    log: () => {},
    ownerOf: () => "bench",
    limits: { pollPerMinute: unlimited, createPerMinute: unlimited, resultPerMinute: unlimited, listPerMinute: unlimited },
  });
  const now = Date.now();
  const taskId = randomUUID();
  await runtime.store.create({
    taskId,
    owner: "bench",
    status: T.INITIAL_STATE,
    method: "tools/call",
    requestId: 1,
    createdAt: now,
    updatedAt: now,
    terminalAt: null,
    keepAlive: 3_600_000,
    pollFrequency: 1000,
    expiresAt: now + 3_600_000,
    pendingInputs: 0,
  });
  const make = () => {
    const server = new Server({ name: "bench-generated", version: "0.0.0" }, { capabilities: {} });
    runtime.install(server);
    return server;
  };
  return { taskId, make, module: S };
}

/** The baseline: the SDK's McpServer with the SDK's InMemoryTaskStore, defaults otherwise. */
export async function sdkServer(): Promise<Factory> {
  const taskStore = new InMemoryTaskStore();
  const task = await taskStore.createTask({ ttl: 3_600_000, pollInterval: 1000 }, 1, {
    method: "tools/call",
    params: { name: "bench", arguments: {} },
  } as never);
  const make = () =>
    new McpServer(
      { name: "bench-sdk", version: "0.0.0" },
      { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore },
    );
  return { taskId: task.taskId, make };
}
