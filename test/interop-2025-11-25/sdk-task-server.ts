/**
 * The SDK's own task implementation as a server, for the interop tests of
 * mcp-2025-11-25: an McpServer (@modelcontextprotocol/sdk 1.32) whose tools are
 * registered with `experimental.tasks.registerToolTask`, tasks kept in the SDK's
 * InMemoryTaskStore and messages in its InMemoryTaskMessageQueue.
 *
 *   tsx test/interop-2025-11-25/sdk-task-server.ts [--http <port>]
 *
 * stdio by default; --http serves Streamable HTTP (one McpServer per session,
 * one store for all) and logs {"msg":"listening","url":...} on stderr.
 * Env SDK_TASK_SERVER_POLL: the pollInterval its tasks suggest (default 50 ms).
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { ElicitResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const pollInterval = Number(process.env.SDK_TASK_SERVER_POLL ?? 50);
const taskStore = new InMemoryTaskStore();
const taskMessageQueue = new InMemoryTaskMessageQueue();
const log = (msg: string, extra: Record<string, unknown> = {}) => process.stderr.write(JSON.stringify({ level: "info", msg, ...extra }) + "\n");
const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function makeServer(): McpServer {
  const server = new McpServer(
    { name: "sdk-task-server", version: "1.32.2" },
    { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore, taskMessageQueue },
  );
  // The SDK only ever calls createTask; getTask and getTaskResult are required by its type.
  const unused = {
    async getTask(): Promise<never> {
      throw new Error("not called by the SDK");
    },
    async getTaskResult(): Promise<never> {
      throw new Error("not called by the SDK");
    },
  };
  server.registerTool("greet", { description: "Greets at once (task-forbidden).", inputSchema: { name: z.string() } }, async ({ name }) => text(`Hello, ${name}!`));
  server.experimental.tasks.registerToolTask(
    "slow_compute",
    { description: "Sleeps, then answers.", inputSchema: { seconds: z.number() }, execution: { taskSupport: "optional" } },
    {
      ...unused,
      async createTask({ seconds }, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl, pollInterval });
        void (async () => {
          await sleep(seconds * 1000);
          // Throws once the task was cancelled meanwhile (the SDK keeps it cancelled).
          await extra.taskStore.storeTaskResult(task.taskId, "completed", text(`Computed for ${seconds} s`)).catch(() => log("slow_compute result dropped", { taskId: task.taskId }));
        })();
        return { task };
      },
    },
  );
  server.experimental.tasks.registerToolTask(
    "failing_job",
    { description: "A tool error (isError).", inputSchema: {}, execution: { taskSupport: "optional" } },
    {
      ...unused,
      async createTask(_args, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl, pollInterval });
        setTimeout(() => void extra.taskStore.storeTaskResult(task.taskId, "failed", { ...text("The job failed"), isError: true }).catch(() => undefined), 50);
        return { task };
      },
    },
  );
  server.experimental.tasks.registerToolTask(
    "protocol_error_job",
    { description: "Fails without a result.", inputSchema: {}, execution: { taskSupport: "optional" } },
    {
      ...unused,
      async createTask(_args, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl, pollInterval });
        setTimeout(() => void extra.taskStore.updateTaskStatus(task.taskId, "failed", "Tool execution failed: API rate limit exceeded").catch(() => undefined), 50);
        return { task };
      },
    },
  );
  server.experimental.tasks.registerToolTask(
    "confirm_delete",
    { description: "Asks for confirmation (one elicitation) through tasks/result.", inputSchema: { filename: z.string() } },
    {
      ...unused,
      async createTask({ filename }, extra) {
        const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl, pollInterval });
        void (async () => {
          // relatedTask (left out of the option type) is what queues the request for tasks/result
          // and moves the task to input_required; the SDK's own example does the same.
          const answer = await extra.sendRequest(
            {
              method: "elicitation/create",
              params: { mode: "form", message: `Delete ${filename}?`, requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] } },
            },
            ElicitResultSchema,
            { relatedTask: { taskId: task.taskId } } as never,
          );
          const yes = answer.action === "accept" && answer.content?.confirm === true;
          await extra.taskStore.storeTaskResult(task.taskId, "completed", text(yes ? `Deleted ${filename}` : `Kept ${filename}`));
        })().catch((e: unknown) => log("confirm_delete failed", { error: String(e) }));
        return { task };
      },
    },
  );
  return server;
}

async function main(): Promise<void> {
  const i = process.argv.indexOf("--http");
  if (i < 0) {
    await makeServer().connect(new StdioServerTransport());
    log("serving on stdio");
    return;
  }
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      const sid = req.headers["mcp-session-id"];
      let transport = typeof sid === "string" ? sessions.get(sid) : undefined;
      if (!transport) {
        if (typeof sid === "string") {
          res.writeHead(404).end();
          return;
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, created),
        });
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        await makeServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res);
    })().catch((e: unknown) => {
      log("request failed", { error: String(e) });
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(Number(process.argv[i + 1] ?? 0), "127.0.0.1", resolve));
  const addr = http.address();
  log("listening", { url: `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}/mcp` });
  process.on("SIGTERM", () => {
    http.closeAllConnections();
    http.close(() => process.exit(0));
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`sdk-task-server: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
