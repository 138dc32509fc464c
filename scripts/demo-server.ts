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
 * maxParamsKeys for a per-request lifecycle; allowedOrigins, the browser origins served besides loopback ones).
 * env MCP_TASK_GEN_DEMO_GENERATED=<dir>: a spec file's code generated already (into <dir>, beside a
 * node_modules that holds the SDK and the runtime): served from there, not generated again.
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
 *
 * Its parts are in scripts/demo/: the command line (args.ts), the generated code it serves
 * (generated.ts), the task store and job queue (store.ts), the tools (tools.ts), the custom
 * operations (custom.ts), --auth (auth.ts) and the transports (serve.ts).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type DemoOptions, parseArgs } from "./demo/args.js";
import { tokenAuth } from "./demo/auth.js";
import { log, type ServerModule, type StoreModule } from "./demo/common.js";
import { addCustomOperations } from "./demo/custom.js";
import { generatedDir } from "./demo/generated.js";
import { serve } from "./demo/serve.js";
import { openStore } from "./demo/store.js";
import { demoTools } from "./demo/tools.js";

async function main() {
  const { spec, http, options, mcp, store: storeChoice, auth, queue: useQueue, localWorker, workerOnly, runnerId } = parseArgs(process.argv.slice(2));
  const dir = generatedDir(spec);
  const gen = (await import(pathToFileURL(join(dir, "server.ts")).href)) as ServerModule;
  const storeMod = (await import(pathToFileURL(join(dir, "store.ts")).href)) as StoreModule;
  const { rememberExpiredMs, storeSchema, workerConcurrency, retryTools, queueName, queueSchema, pgBossModule, startupWaitMs, http: httpLimits = {}, ...serverOptions } = options as DemoOptions;
  const { store, queue, ownerOf: storeOwnerOf } = await openStore(storeMod, storeChoice, useQueue, { rememberExpiredMs, storeSchema, queueName, queueSchema, pgBossModule, startupWaitMs });
  const runtime = new gen.TaskRuntime({
    ...(serverOptions as ConstructorParameters<ServerModule["TaskRuntime"]>[0]),
    ...(storeOwnerOf === undefined ? {} : { ownerOf: storeOwnerOf }),
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
  await addCustomOperations(runtime, spec);
  const tools = demoTools(gen, runtime, retryTools);
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
  await serve({ spec, dir, gen, runtime, tools, http, httpLimits, mcp, auth });
}

main().catch((e: unknown) => {
  process.stderr.write(`demo-server: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
