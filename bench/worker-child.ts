/**
 * A worker process of the worker-pool benchmark (bench/workers.ts): the generated mcp-2025-11-25 runtime on
 * the PostgreSQL store and the pg-boss queue, running the benchmark's tools. Prints "ready" on stdout
 * once connected, takes jobs from the line "go" on stdin (so that a backlog can be queued first);
 * SIGTERM stops it.
 *
 *   node --import tsx bench/worker-child.ts <json: { url, storeSchema, queueSchema, concurrency }>
 */
import { PostgresTaskStore } from "@mcp-task-gen/runtime/store-postgres";
import { PgBossTaskQueue } from "@mcp-task-gen/runtime/workers";
import { benchTools } from "./workers-tools.js";

const o = JSON.parse(process.argv[2] ?? "{}") as { url: string; storeSchema: string; queueSchema: string; concurrency: number };
const spec = "mcp-2025-11-25";
const gen = (await import(`../output-samples/${spec}/server.ts`)) as typeof import("../output-samples/mcp-2025-11-25/server.js");
const store = await PostgresTaskStore.open(o.url, { schema: o.storeSchema, poolSize: Math.max(4, o.concurrency + 2) });
const queue = await PgBossTaskQueue.open(o.url, { schema: o.queueSchema });
const runtime = new gen.TaskRuntime({ store, queue, audit: false, log: () => undefined });
runtime.addTools(benchTools(gen));
await runtime.ready;
process.stdout.write("ready\n");
await new Promise<void>((resolve) => process.stdin.on("data", (d: Buffer) => d.toString().includes("go") && resolve()));
await runtime.work({ concurrency: o.concurrency });
process.on("SIGTERM", () => void runtime.close().finally(() => process.exit(0)));
