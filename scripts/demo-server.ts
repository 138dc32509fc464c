/**
 * The demo MCP server, built from the generated code in output-samples/<spec>/.
 *
 *   npm run --silent demo -- <spec-name> [--http <port>] [--store memory|sqlite:<file>] [--options <json>]
 *
 * stdio (default): nothing but JSON-RPC on stdout, logs and audit lines on stderr.
 * --http <port>: Streamable HTTP at http://127.0.0.1:<port>/mcp (port 0 picks a free
 * port; the URL is logged on stderr as {"level":"info","msg":"listening","url":...}).
 * --mcp-server: build it on the high-level McpServer instead of the low-level Server.
 * --options / env MCP_TASK_GEN_DEMO_OPTIONS: JSON TaskServerOptions overrides
 * (maxKeepAlive, defaultKeepAlive, pollFrequency, pageSize, limits, deletableStatuses)
 * plus rememberExpiredMs for the store; tests use it for short timings.
 * --store: where tasks live. memory (default): gone when the process stops.
 * sqlite:<file>: the SQLite store on <file> (created if missing; better-sqlite3 12),
 * so tasks and their results outlive a restart. postgres:<url> is reserved.
 *
 * Tools: greet, slow_compute, failing_job, protocol_error_job, confirm_delete
 * (the acceptance contract), plus multi_input (two elicitations at once),
 * test_tool_with_task (input on the request before a task is made),
 * get_weather (the seed's example result) and crash_job (an unexpected throw).
 * Also a resource (demo://report) and a prompt (summary), so that resources/read
 * and prompts/get can be task-augmented too.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

type ServerModule = typeof import("../output-samples/sep-1686-draft/server.js");
type StoreModule = typeof import("../output-samples/sep-1686-draft/store.js");
type SqliteStoreModule = typeof import("../output-samples/sep-1686-draft/runtime/store-sqlite.js");
type ProtocolModule = typeof import("../output-samples/sep-1686-draft/protocol.js");
// The core binding emitted for a per-request lifecycle (protocol.lifecycle per-request).
type StatelessModule = typeof import("../output-samples/ext-tasks-2026-07-28/stateless-server.js");

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function usage(message: string): never {
  process.stderr.write(`demo-server: ${message}\nusage: npm run --silent demo -- <spec-name> [--http <port>] [--store memory|sqlite:<file>] [--options <json>]\n`);
  process.exit(2);
}

function parseArgs(argv: string[]) {
  let spec: string | undefined;
  let http: number | undefined;
  let options: string | undefined = process.env.MCP_TASK_GEN_DEMO_OPTIONS;
  let mcp = false;
  let store: StoreChoice = { kind: "memory" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--http") {
      const v = argv[++i];
      if (v === undefined || !/^\d+$/.test(v) || Number(v) > 65535) usage(`--http needs a port number, got ${v ?? "nothing"}`);
      http = Number(v);
    } else if (a === "--options") {
      options = argv[++i];
      if (options === undefined) usage("--options needs a JSON object");
    } else if (a === "--store") store = parseStore(argv[++i]);
    else if (a.startsWith("--store=")) store = parseStore(a.slice("--store=".length));
    else if (a === "--mcp-server") mcp = true;
    else if (a.startsWith("-")) usage(`unknown option ${a}`);
    else if (spec === undefined) spec = a;
    else usage(`unexpected argument ${a}`);
  }
  if (spec === undefined) usage("which spec? e.g. sep-1686-draft");
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(spec)) usage(`not a spec name: ${spec}`);
  let parsed: Record<string, unknown> = {};
  if (options) {
    try {
      parsed = JSON.parse(options) as Record<string, unknown>;
    } catch {
      usage("--options is not valid JSON");
    }
  }
  return { spec, http, options: parsed, mcp, store };
}

type StoreChoice = { kind: "memory" } | { kind: "sqlite"; file: string };

/** --store memory | sqlite:<file> (postgres:<url> is not available yet). */
function parseStore(v: string | undefined): StoreChoice {
  if (v === undefined) usage("--store needs memory or sqlite:<file>");
  if (v === "memory") return { kind: "memory" };
  if (v.startsWith("sqlite:")) {
    const file = v.slice("sqlite:".length);
    if (file === "") usage("--store sqlite: needs a file, e.g. --store sqlite:./tasks.db");
    return { kind: "sqlite", file };
  }
  if (v.startsWith("postgres:") || v.startsWith("postgresql:")) usage("--store postgres: is not available yet; use memory or sqlite:<file>");
  usage(`--store takes memory or sqlite:<file>, got ${v}`);
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason ?? new Error("aborted"));
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason ?? new Error("aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });

const log = (msg: string, extra: Record<string, unknown> = {}) => process.stderr.write(JSON.stringify({ level: "info", msg, ...extra }) + "\n");

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

async function main() {
  const { spec, http, options, mcp, store: storeChoice } = parseArgs(process.argv.slice(2));
  const dir = join(root, "output-samples", spec);
  if (!existsSync(join(dir, "server.ts"))) usage(`no generated server in output-samples/${spec}/ (run npm run samples)`);
  const gen = (await import(pathToFileURL(join(dir, "server.ts")).href)) as ServerModule;
  const storeMod = (await import(pathToFileURL(join(dir, "store.ts")).href)) as StoreModule;
  const { rememberExpiredMs, ...serverOptions } = options as { rememberExpiredMs?: number };
  const storeOptions = rememberExpiredMs === undefined ? {} : { rememberExpiredMs };
  let store: InstanceType<StoreModule["InMemoryTaskStore"]> | Awaited<ReturnType<SqliteStoreModule["SqliteTaskStore"]["open"]>>;
  if (storeChoice.kind === "sqlite") {
    const sqlite = (await import(pathToFileURL(join(dir, "runtime", "store-sqlite.ts")).href)) as SqliteStoreModule;
    try {
      store = await sqlite.SqliteTaskStore.open(storeChoice.file, storeOptions);
    } catch (e) {
      process.stderr.write(`demo-server: cannot open the task store: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    }
    log("task store", { store: "sqlite", file: storeChoice.file, ...store.durability });
  } else store = new storeMod.InMemoryTaskStore(storeOptions);
  const runtime = new gen.TaskRuntime({
    ...(serverOptions as ConstructorParameters<ServerModule["TaskRuntime"]>[0]),
    store,
  });

  // Where the revision declares a per-tool switch (execution.taskSupport: mcp-2025-11-25), greet keeps
  // its default (forbidden), the others may run as tasks and confirm_delete must; elsewhere the switch
  // is not on the wire and every tool may run as a task.
  const toolSwitch = (runtime.behaviour.creation as { toolSwitch: unknown }).toolSwitch !== false;
  const asTask = { taskSupport: "optional" as const };
  // Where the receiver alone decides (creation.decidedBy receiver: ext-tasks-2026-07-28), the demo
  // decides per tool: greet answers at once, slow_compute runs as a task when the requestor allows one, and
  // the jobs that need a task (input, long work) refuse a requestor that does not allow one.
  const serverDecides = (runtime.behaviour.creation as { decidedBy: string }).decidedBy === "receiver";
  const mustTask = serverDecides ? { taskSupport: "required" as const } : asTask;
  const tools = [
    gen.defineTool({
      name: "greet",
      description: "Greets someone at once.",
      ...(serverDecides ? { taskSupport: "forbidden" as const } : {}),
      inputSchema: z.object({ name: z.string() }),
      handler: async ({ name }) => text(`Hello, ${name}!`),
    }),
    gen.defineTool({
      name: "slow_compute",
      description: "Sleeps for the given seconds, then answers; cancellable.",
      ...asTask,
      // label: a free-form tag the conformance suite sends along.
      inputSchema: z.object({ seconds: z.number().min(0).max(3600), label: z.string().optional() }),
      handler: async ({ seconds }, ctx) => {
        try {
          await sleep(seconds * 1000, ctx.signal);
        } catch (e) {
          log("slow_compute aborted", { taskId: ctx.taskId ?? null });
          throw e;
        }
        return text(`Computed for ${seconds} s`);
      },
    }),
    gen.defineTool({
      name: "failing_job",
      description: "Returns a tool error (isError) after about a second.",
      ...mustTask,
      inputSchema: z.object({ seconds: z.number().min(0).max(60).optional() }),
      handler: async ({ seconds }, ctx) => {
        await sleep((seconds ?? 1) * 1000, ctx.signal);
        return { ...text("The job failed: the input data set is empty"), isError: true };
      },
    }),
    gen.defineTool({
      name: "protocol_error_job",
      description: "Fails with a JSON-RPC error.",
      ...mustTask,
      inputSchema: z.object({}),
      handler: async () => {
        throw new McpError(ErrorCode.InternalError, "Tool execution failed: API rate limit exceeded");
      },
    }),
    gen.defineTool({
      name: "confirm_delete",
      description: "Asks the requestor to confirm (one elicitation), then answers.",
      taskSupport: toolSwitch || serverDecides ? ("required" as const) : ("optional" as const),
      inputSchema: z.object({ filename: z.string().optional() }),
      handler: async ({ filename }, ctx) => {
        const file = filename ?? "report.txt";
        const answer = await ctx.elicit({
          mode: "form",
          message: `Delete ${file}?`,
          requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
        });
        const yes = answer.action === "accept" && answer.content?.confirm === true;
        return text(yes ? `Deleted ${file}` : `Kept ${file}`);
      },
    }),
    gen.defineTool({
      name: "get_weather",
      description: "The weather report of the seed's example (section 3.3).",
      ...asTask,
      inputSchema: z.object({ location: z.string().optional() }),
      handler: async () => ({
        ...text("Current weather in New York:\nTemperature: 72°F\nConditions: Partly cloudy"),
        isError: false,
      }),
    }),
    gen.defineTool({
      name: "crash_job",
      ...asTask,
      description: "Fails unexpectedly (a plain exception, not a JSON-RPC error): the task ends in the unexpected-failure status.",
      inputSchema: z.object({}),
      handler: async () => {
        throw new TypeError("simulated bug: cannot read properties of undefined");
      },
    }),
    gen.defineTool({
      name: "multi_input",
      description: "Asks two elicitations at once, then answers with both.",
      ...mustTask,
      inputSchema: z.object({}),
      handler: async (_args, ctx) => {
        const ask = (what: string) =>
          ctx.elicit({
            mode: "form",
            message: `Your ${what}?`,
            requestedSchema: { type: "object", properties: { value: { type: "string" } }, required: ["value"] },
          });
        const [a, b] = await Promise.all([ask("name"), ask("colour")]);
        return text(`name=${String(a.content?.value ?? a.content?.name)} colour=${String(b.content?.value ?? b.content?.name)}`);
      },
    }),
    gen.defineTool({
      name: "test_tool_with_task",
      description: "Asks for a name on the request itself (before any task), then greets it as a task.",
      ...mustTask,
      inputSchema: z.object({ name: z.string().optional() }),
      prepare: async (args, ctx) => {
        const answer = await ctx.elicit({
          mode: "form",
          message: "What is your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        });
        const name = answer.action === "accept" ? answer.content?.name : undefined;
        return { ...args, name: typeof name === "string" ? name : "stranger" };
      },
      handler: async ({ name }) => text(`Hello, ${name ?? "stranger"}!`),
    }),
  ];

  // --mcp-server: the same tools on the high-level McpServer, made task-augmentable with runtime.tool().
  const createMcpServer = () => {
    const server = new McpServer({ name: "mcp-task-gen-demo", version: "0.1.0" });
    runtime.install(server);
    for (const t of tools) {
      const shape = (t.inputSchema as unknown as z.ZodObject).shape;
      server.registerTool(
        t.name,
        { description: t.description ?? t.name, inputSchema: shape },
        runtime.tool((args, ctx) => (t.handler as (a: unknown, c: typeof ctx) => ReturnType<typeof t.handler>)(args, ctx)) as never,
      );
    }
    return server;
  };

  const createServer = () => {
    if (mcp) return createMcpServer();
    const server = new Server(
      { name: "mcp-task-gen-demo", version: "0.1.0" },
      { capabilities: { resources: {}, prompts: {} }, instructions: `Demo of the generated ${spec} task support.` },
    );
    runtime.install(server);
    runtime.registerTools(server, tools);
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: [{ uri: "demo://report", name: "report", mimeType: "text/plain" }],
    }));
    server.setRequestHandler(
      ReadResourceRequestSchema,
      runtime.handle("resources/read", async (req) => {
        if (req.params.uri !== "demo://report") throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${req.params.uri}`);
        return { contents: [{ uri: "demo://report", mimeType: "text/plain", text: "All systems nominal." }] };
      }),
    );
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [{ name: "summary", description: "A summary prompt" }] }));
    server.setRequestHandler(
      GetPromptRequestSchema,
      runtime.handle("prompts/get", async (req) => {
        if (req.params.name !== "summary") throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`);
        return { messages: [{ role: "user" as const, content: { type: "text" as const, text: "Summarise the report." } }] };
      }),
    );
    return server;
  };

  // A per-request lifecycle (core 2026-07-28) is served by the emitted stateless binding
  // on @modelcontextprotocol/server 2.x: no initialize, no session, one POST per request.
  const protocolMod = (await import(pathToFileURL(join(dir, "protocol.ts")).href)) as ProtocolModule;
  if ((protocolMod.SPEC.protocol as { lifecycle?: string }).lifecycle === "per-request") {
    const stateless = (await import(pathToFileURL(join(dir, "stateless-server.ts")).href)) as StatelessModule;
    runtime.addTools(tools as never);
    const serverInfo = { name: "mcp-task-gen-demo", version: "0.1.0" };
    const instructions = `Demo of the generated ${spec} task support.`;
    if (http === undefined) {
      const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
      await serveStdio(stateless.statelessServerFactory(runtime as never, { serverInfo, instructions }));
      log("serving on stdio", { spec });
      return;
    }
    const served = await stateless.serveStatelessHttp(runtime as never, { port: http, host: "127.0.0.1", serverInfo, instructions });
    log("listening", { spec, url: served.url });
    stopOnSignals(served, runtime);
    return;
  }

  if (http === undefined) {
    const server = createServer();
    const transport = new gen.TaskStdioServerTransport();
    const low = server instanceof McpServer ? server.server : server;
    low.onclose = () => {
      void runtime.close().finally(() => process.exit(0));
    };
    await server.connect(transport);
    log("serving on stdio", { spec });
  } else {
    const served = await gen.serveStreamableHttp(createServer, { port: http, host: "127.0.0.1" });
    log("listening", { spec, url: served.url });
    stopOnSignals(served, runtime);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`demo-server: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

/** On SIGINT/SIGTERM: stop listening, close the runtime, exit. */
function stopOnSignals(served: { close(): Promise<unknown> }, runtime: { close(): Promise<unknown> }): void {
  const stop = () => {
    void served
      .close()
      .then(() => runtime.close())
      .finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
