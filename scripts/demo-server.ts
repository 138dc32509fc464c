/**
 * The demo MCP server, built from the generated code in output-samples/<spec>/.
 *
 *   npm run --silent demo -- <spec-name> [--http <port>] [--store memory|sqlite:<file>|postgres:<url>] [--options <json>]
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
 * so tasks and their results outlive a restart. postgres:<url> (postgres://user:password@host:port/db,
 * pg 8): the PostgreSQL store, which several demo processes may share (schema "mcp_tasks", or
 * storeSchema in --options); tasks are then bound to the auth context alone, since an HTTP
 * session lives in one process.
 * --queue (with a postgres store): tool tasks' work goes through a job queue (pg-boss) on the
 * same database; this process also runs a worker unless --no-local-worker. --worker: run a worker
 * only (no MCP server), for a pool of separate worker processes. --runner-id <name>: this process's
 * name in the store's leases (a process started again under its name settles its earlier tasks at
 * once). In --options: workerConcurrency (jobs at once per process, default 4), retryTools
 * (names of tools whose work is run again when its worker is lost: { "slow_compute": 2 } = 2 retries),
 * queueName, queueSchema, pgBossModule (the file of another pg-boss to load, e.g. version 12 on Node 22),
 * startupWaitMs (how long to wait for a PostgreSQL that cannot be reached yet; default 5 minutes).
 * http: the HTTP limits (headersTimeoutMs, requestTimeoutMs, maxBodyBytes; see HttpLimits in runtime/http-listen.ts;
 * maxParamsKeys for a per-request lifecycle).
 * --auth <token>: a static bearer token that becomes the requestor's auth context
 * (tasks are bound to it); repeatable, one requestor per token. Over HTTP every request
 * must carry `Authorization: Bearer <token>` of one of them (anything else is answered
 * 401); over stdio the first token is the process's auth context.
 *
 * Tools: greet, slow_compute, failing_job, protocol_error_job, confirm_delete
 * (the acceptance contract), plus multi_input (two elicitations at once),
 * test_tool_with_task (input on the request before a task is made),
 * get_weather (the seed's example result) and crash_job (an unexpected throw).
 * Also a resource (demo://report) and a prompt (summary), so that resources/read
 * and prompts/get can be task-augmented too.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { postgresUrl } from "@mcp-task-gen/runtime/store-postgres";
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
type SqliteStoreModule = typeof import("@mcp-task-gen/runtime/store-sqlite");
type PostgresStoreModule = typeof import("@mcp-task-gen/runtime/store-postgres");
type WorkersModule = typeof import("@mcp-task-gen/runtime/workers");
type ProtocolModule = typeof import("../output-samples/sep-1686-draft/protocol.js");
// The core binding emitted for a per-request lifecycle (protocol.lifecycle per-request).
type StatelessModule = typeof import("../output-samples/ext-tasks-2026-07-28/stateless-server.js");
type StatelessRuntimeModule = typeof import("@mcp-task-gen/runtime/stateless-server");

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** A spec that cannot be served: said alone (the command line itself was well formed). */
function fail(message: string): never {
  process.stderr.write(`demo-server: ${message}\n`);
  process.exit(2);
}

function usage(message: string): never {
  process.stderr.write(`demo-server: ${message}\nusage: npm run --silent demo -- <spec-name> [--http <port>] [--store memory|sqlite:<file>|postgres:<url>] [--options <json>]\n`);
  process.exit(2);
}

function parseArgs(argv: string[]) {
  let spec: string | undefined;
  let http: number | undefined;
  let options: string | undefined = process.env.MCP_TASK_GEN_DEMO_OPTIONS;
  let mcp = false;
  const auth: string[] = [];
  let queue = false;
  let localWorker = true;
  let workerOnly = false;
  let runnerId: string | undefined;
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
    else if (a === "--auth" || a.startsWith("--auth=")) auth.push(parseAuth(a === "--auth" ? argv[++i] : a.slice("--auth=".length)));
    else if (a === "--queue") queue = true;
    else if (a === "--no-local-worker") localWorker = false;
    else if (a === "--worker") workerOnly = queue = true;
    else if (a === "--runner-id") {
      runnerId = argv[++i];
      if (runnerId === undefined || !/^[\w.:-]{1,100}$/.test(runnerId)) usage("--runner-id needs a name (letters, digits, . : - _)");
    } else if (a.startsWith("-")) usage(`unknown option ${a}`);
    else if (spec === undefined) spec = a;
    else usage(`unexpected argument ${a}`);
  }
  if (spec === undefined) usage("which spec? e.g. sep-1686-draft");
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(spec) && !/\.(ya?ml|json)$/i.test(spec)) usage(`not a spec name nor a spec file (.yaml, .yml, .json): ${spec}`);
  let parsed: Record<string, unknown> = {};
  if (options) {
    try {
      parsed = JSON.parse(options) as Record<string, unknown>;
    } catch {
      usage("--options is not valid JSON");
    }
  }
  if (queue && store.kind !== "postgres") usage("--queue and --worker need --store postgres:<url> (servers and workers share the tasks)");
  return { spec, http, options: parsed, mcp, store, auth, queue, localWorker, workerOnly, runnerId };
}

/** --auth <token>: a bearer token (visible ASCII, no spaces). */
function parseAuth(v: string | undefined): string {
  if (v === undefined || !/^[\x21-\x7e]+$/.test(v)) usage("--auth needs a bearer token (visible ASCII characters, no spaces)");
  return v;
}

/** The auth context a bearer token stands for: the client id is a digest of it, so the store never holds the token. */
function tokenAuth(token: string): AuthInfo {
  return { token, clientId: `bearer-${createHash("sha256").update(token).digest("hex").slice(0, 16)}`, scopes: [] };
}

/** Whether a request carries `Authorization: Bearer <token>` (compared in constant time). */
function bearerMatches(header: string | string[] | null | undefined, token: string): boolean {
  const v = Array.isArray(header) ? header[0] : header;
  const m = v === undefined || v === null ? null : /^Bearer +(\S+)\s*$/i.exec(v);
  if (!m) return false;
  const a = Buffer.from(m[1]!);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

type StoreChoice = { kind: "memory" } | { kind: "sqlite"; file: string } | { kind: "postgres"; url: string };

/** --store memory | sqlite:<file> | postgres:<url> (the URL itself, postgres://... or postgresql://..., also does). */
function parseStore(v: string | undefined): StoreChoice {
  if (v === undefined) usage("--store needs memory, sqlite:<file> or postgres:<url>");
  if (v === "memory") return { kind: "memory" };
  if (v.startsWith("sqlite:")) {
    const file = v.slice("sqlite:".length);
    if (file === "") usage("--store sqlite: needs a file, e.g. --store sqlite:./tasks.db");
    return { kind: "sqlite", file };
  }
  if (v.startsWith("postgres:") || v.startsWith("postgresql:")) {
    const url = postgresUrl(v) ?? "";
    if (!/^postgres(ql)?:\/\/./.test(url)) usage("--store postgres: needs a connection URL, e.g. --store postgres:postgres://user:password@127.0.0.1:5432/tasks");
    return { kind: "postgres", url };
  }
  usage(`--store takes memory, sqlite:<file> or postgres:<url>, got ${v}`);
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

/**
 * Generates a spec file into a directory beside this checkout's node_modules (linked in, so the
 * generated code finds the SDK), the way a user's project would hold it; exits 2 on an invalid spec.
 * The directory is the same for every start of the same spec file from this checkout, so a start whose
 * output is current writes nothing (generate's no-change fast path answers in milliseconds) and the
 * TypeScript loader finds its compiled files in its cache: a start takes as long as importing the server.
 */
function generateInto(specFile: string): string {
  const key = createHash("sha256").update(`${root}\0${resolve(specFile)}`).digest("hex").slice(0, 16);
  const dir = join(tmpdir(), `mcp-task-gen-demo-${key}`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, "node_modules"))) {
    try {
      symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
    } catch (e) {
      // Another demo of the same spec made it at the same time.
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }) + "\n");
  const out = join(dir, "gen");
  const run = spawnSync(process.execPath, [join(root, "bin", "mcp-task-gen.js"), "generate", "--spec", resolve(specFile), "--out", out, "--quiet"], { cwd: dir, encoding: "utf8" });
  if (run.status !== 0) {
    process.stderr.write(run.stderr);
    fail(`the spec ${specFile} did not generate (exit ${run.status ?? "?"}): fix what is reported above`);
  }
  return out;
}

/**
 * Answers of the spec's declared result types, from its IR (loaded only for a spec with custom
 * operations): the smallest value of the type, with the fields it shares with the params copied from
 * them and a field of the task type holding the task; an open type also echoes the method, params and task.
 */
async function customAnswers(spec: string): Promise<{ value: (method: string, params: Record<string, unknown>, task: unknown) => unknown }> {
  const { analyze } = await import("../generator/pipeline.js");
  const { resolveSpec } = await import("../generator/specs.js");
  const { minimalValue } = await import("../generator/conform/schemas.js");
  const r = resolveSpec(spec, process.cwd());
  const ir = r.ok ? analyze(r.source).ir : undefined;
  if (ir === undefined) usage(`the spec ${spec} did not compile`);
  type T = NonNullable<(typeof ir.methods)[number]["result"]>;
  const resolveRef = (t: T): T => {
    for (let i = 0; t.kind === "ref" && i < 16; i++) {
      const name: string = t.name;
      const d = ir.types.find((x) => x.name === name);
      if (d === undefined) break;
      t = d.type;
    }
    return t;
  };
  const taskType = ir.behaviour.taskType;
  return {
    value(method, params, task) {
      const decl = ir.methods.find((m) => m.method === method);
      if (decl?.result === undefined) return {};
      const base = minimalValue(ir, decl.result);
      const shape = resolveRef(decl.result);
      if (shape.kind !== "object" || typeof base !== "object" || base === null) return base;
      // An open result type has room for an echo of the call: what the server's code was asked, and the task.
      const out: Record<string, unknown> = shape.open ? { operation: method, params, ...(task === undefined ? {} : { task }) } : {};
      Object.assign(out, base as Record<string, unknown>);
      for (const f of shape.fields) {
        if (f.type.kind === "ref" && f.type.name === taskType && task !== undefined) out[f.name] = task;
        else if (Object.prototype.hasOwnProperty.call(params, f.name)) out[f.name] = params[f.name];
      }
      return out;
    },
  };
}

const log = (msg: string, extra: Record<string, unknown> = {}) => process.stderr.write(JSON.stringify({ level: "info", msg, ...extra }) + "\n");

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

async function main() {
  const { spec, http, options, mcp, store: storeChoice, auth, queue: useQueue, localWorker, workerOnly, runnerId } = parseArgs(process.argv.slice(2));
  const dir = /\.(ya?ml|json)$/i.test(spec) ? generateInto(spec) : join(root, "output-samples", spec);
  if (!existsSync(join(dir, "server.ts"))) {
    const specs = readdirSync(join(root, "output-samples"), { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(join(root, "output-samples", e.name, "server.ts")));
    fail(`no generated server in output-samples/${spec}/: a built-in spec (${specs.map((e) => e.name).join(", ")}) or a spec file (.yaml, .yml, .json); after changing the generator, npm run samples`);
  }
  const gen = (await import(pathToFileURL(join(dir, "server.ts")).href)) as ServerModule;
  const storeMod = (await import(pathToFileURL(join(dir, "store.ts")).href)) as StoreModule;
  const { rememberExpiredMs, storeSchema, workerConcurrency, retryTools, queueName, queueSchema, pgBossModule, startupWaitMs, http: httpLimits = {}, ...serverOptions } = options as {
    http?: { headersTimeoutMs?: number; requestTimeoutMs?: number; maxBodyBytes?: number; maxParamsKeys?: number };
    rememberExpiredMs?: number;
    startupWaitMs?: number;
    storeSchema?: string;
    workerConcurrency?: number;
    retryTools?: Record<string, number>;
    queueName?: string;
    queueSchema?: string;
    pgBossModule?: string;
  };
  const storeOptions = rememberExpiredMs === undefined ? {} : { rememberExpiredMs };
  let store:
    | InstanceType<StoreModule["InMemoryTaskStore"]>
    | Awaited<ReturnType<SqliteStoreModule["SqliteTaskStore"]["open"]>>
    | Awaited<ReturnType<PostgresStoreModule["PostgresTaskStore"]["open"]>>;
  if (storeChoice.kind === "postgres") {
    const postgres = (await import("@mcp-task-gen/runtime/store-postgres")) as PostgresStoreModule;
    try {
      store = await postgres.PostgresTaskStore.open(storeChoice.url, {
        ...storeOptions,
        ...(storeSchema === undefined ? {} : { schema: storeSchema }),
        ...(startupWaitMs === undefined ? {} : { startupWaitMs }),
      });
    } catch (e) {
      process.stderr.write(`demo-server: cannot open the task store: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    }
    log("task store", { store: "postgres", url: postgres.redactUrl(storeChoice.url), schema: store.schema });
    // Several processes serve these tasks and a session lives in one of them: bind to the auth context alone.
    (serverOptions as { ownerOf?: unknown }).ownerOf = (extra: { authInfo?: { clientId: string; extra?: Record<string, unknown> } }) =>
      extra.authInfo ? `auth:${extra.authInfo.clientId}:${typeof extra.authInfo.extra?.sub === "string" ? extra.authInfo.extra.sub : ""}` : "auth:anonymous";
  } else if (storeChoice.kind === "sqlite") {
    const sqlite = (await import("@mcp-task-gen/runtime/store-sqlite")) as SqliteStoreModule;
    try {
      store = await sqlite.SqliteTaskStore.open(storeChoice.file, storeOptions);
    } catch (e) {
      process.stderr.write(`demo-server: cannot open the task store: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    }
    log("task store", { store: "sqlite", file: storeChoice.file, ...store.durability });
  } else store = new storeMod.InMemoryTaskStore(storeOptions);
  let queue: Awaited<ReturnType<WorkersModule["PgBossTaskQueue"]["open"]>> | undefined;
  if (useQueue && storeChoice.kind === "postgres") {
    const workers = (await import("@mcp-task-gen/runtime/workers")) as WorkersModule;
    try {
      // Another pg-boss than the one installed here (the tests run pg-boss 12 on Node 22 this way).
      const driver = pgBossModule === undefined ? undefined : ((await import(pathToFileURL(resolve(pgBossModule)).href)) as { PgBoss: unknown }).PgBoss;
      queue = await workers.PgBossTaskQueue.open(storeChoice.url, {
        ...(driver === undefined ? {} : { driver: driver as never }),
        ...(queueName === undefined ? {} : { name: queueName }),
        ...(queueSchema === undefined ? {} : { schema: queueSchema }),
        pollingIntervalSeconds: 1,
        ...(startupWaitMs === undefined ? {} : { startupWaitMs }),
        onError: (e) => log("queue error", { error: String(e) }),
      });
    } catch (e) {
      process.stderr.write(`demo-server: cannot open the job queue: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    }
  }
  const runtime = new gen.TaskRuntime({
    ...(serverOptions as ConstructorParameters<ServerModule["TaskRuntime"]>[0]),
    store,
    ...(queue === undefined ? {} : { queue }),
    ...(runnerId === undefined ? {} : { runnerId }),
  });
  if (auth.length > 0) {
    // --auth: a request without an auth context of its own (stdio) carries the first token's.
    const tokenContext = tokenAuth(auth[0]!);
    const ownerOf = runtime.ownerOf.bind(runtime);
    runtime.ownerOf = (extra) => ownerOf(extra.authInfo === undefined ? { ...extra, authInfo: tokenContext } : extra);
  }
  // On a durable store, the tasks a killed server left unfinished end before anything is served.
  await runtime.ready;
  // The spec's custom operations: the demo answers each with a value of its declared result type, carrying
  // what it was asked and the task it names where the type has room for them (so any spec's custom
  // operations can be tried on it).
  if (runtime.plan.custom.length > 0) {
    const answers = await customAnswers(spec);
    const idField = runtime.plan.idField;
    for (const method of runtime.plan.custom) {
      runtime.addOperations({
        [method]: async (params, ctx) => {
          const id = params[idField];
          const task = typeof id === "string" ? await ctx.task(id) : undefined;
          const rich = answers.value(method, params, task);
          const fits = (v: unknown) => runtime.descriptor.validateResult?.(method, v).success !== false;
          return (fits(rich) ? rich : answers.value(method, {}, undefined)) as never;
        },
      });
    }
  }
  // The task's own numeric fields (e.g. progress), which slow_compute sets as it goes.
  const numericFields = Object.entries(runtime.descriptor.taskExtras)
    .filter(([, v]) => typeof v === "number")
    .map(([k]) => k);

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
      description: "Sleeps for the given seconds, then answers; cancellable; reports progress where asked.",
      ...asTask,
      // label: a free-form tag the conformance suite sends along.
      inputSchema: z.object({ seconds: z.number().min(0).max(3600), label: z.string().optional() }),
      handler: async ({ seconds }, ctx) => {
        // One line per run: a task's runs can be counted across processes.
        log("slow_compute started", { taskId: ctx.taskId ?? null });
        try {
          // In steps: between them the task honours a transition that holds it (e.g. a pause), and
          // reports its progress in the task's own numeric fields where the spec declares some.
          const steps = Math.max(1, Math.min(100, Math.ceil(seconds * 10)));
          for (let i = 1; i <= steps; i++) {
            await ctx.whenRunning();
            await sleep((seconds * 1000) / steps, ctx.signal);
            if (numericFields.length > 0) await ctx.setFields(Object.fromEntries(numericFields.map((f) => [f, Math.round((100 * i) / steps)])));
            // Progress only where the requestor asked for it (a token that is still valid).
            if (ctx.progressToken !== undefined) await ctx.notify({ method: "notifications/progress", params: { progressToken: ctx.progressToken, progress: i, total: steps } });
          }
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

  // Tools declared safe to run again on another worker when theirs is lost.
  for (const t of tools) {
    const attempts = retryTools?.[t.name];
    if (typeof attempts === "number") (t as { retry?: unknown }).retry = { attempts };
  }
  if (queue !== undefined && (workerOnly || localWorker)) {
    runtime.addTools(tools as never);
    await runtime.work({ concurrency: workerConcurrency ?? 4 });
    log("worker ready", { spec, runner: runtime.runner });
  }
  if (workerOnly) {
    const stop = () => void runtime.close().finally(() => process.exit(0));
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    return;
  }

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
      // On the runtime's stdio transport, which answers malformed lines (-32700, -32600) instead of dropping them.
      const { serveStatelessStdio } = (await import("@mcp-task-gen/runtime/stateless-server")) as StatelessRuntimeModule;
      // SIGTERM/SIGINT close it: open task subscriptions get their closing response first.
      stopOnSignals(await serveStatelessStdio(runtime as never, { serverInfo, instructions }), runtime);
      log("serving on stdio", { spec });
      return;
    }
    const authenticate = (request: Request) => {
      const token = auth.find((t) => bearerMatches(request.headers.get("authorization"), t));
      if (token === undefined) throw new Error("missing or wrong bearer token");
      return tokenAuth(token);
    };
    const served = await stateless.serveStatelessHttp(runtime as never, {
      ...httpLimits,
      port: http,
      host: "127.0.0.1",
      serverInfo,
      instructions,
      ...(auth.length === 0 ? {} : { authenticate }),
    });
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
    const served = await gen.serveStreamableHttp(createServer, { ...httpLimits, port: http, host: "127.0.0.1" });
    if (auth.length > 0) requireBearer(served.server, auth);
    log("listening", { spec, url: served.url });
    stopOnSignals(served, runtime);
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`demo-server: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

/**
 * --auth over Streamable HTTP: a request without one of the bearer tokens is answered 401; one with it
 * reaches the SDK transport with that token's auth context (the SDK reads `req.auth`).
 */
function requireBearer(server: HttpServer, tokens: string[]): void {
  const handlers = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse) => {
    const token = tokens.find((t) => bearerMatches(req.headers.authorization, t));
    if (token === undefined) {
      res
        .writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer realm="mcp-task-gen-demo"' })
        .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Unauthorized" } }));
      return;
    }
    req.auth = tokenAuth(token);
    for (const h of handlers) h.call(server, req, res);
  });
}

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
