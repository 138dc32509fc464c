/**
 * Task stores side by side: creates, gets and list pages per second of the
 * durable SQLite store (synchronous FULL, the default, and NORMAL) and of our
 * in-memory store, each as a ratio to the SDK 1.32 `InMemoryTaskStore`
 * measured in the same slices; and what a durable write adds to a
 * task-augmented tools/call (SDK client and server in one process, the
 * generated runtime on each store), as a ratio to the same call on the
 * in-memory store.
 *
 * The PostgreSQL store joins every comparison when MCP_TASK_GEN_PG_URL names a
 * database it may use (a schema of its own is created and dropped).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { InMemoryTaskStore as SdkStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import { fmtNum, fmtRatio, measureAsync, median, perRound, ratioOf, type Settings } from "./harness.js";
import type { Section, Table, TargetResult } from "./report.js";

/** The runtime's stores, imported as the generated code imports them (the package's build under `npm run bench`). */
import { InMemoryTaskStore, type TaskRecord, type TaskStore } from "@mcp-task-gen/runtime/store";
import { SqliteTaskStore } from "@mcp-task-gen/runtime/store-sqlite";

const SPEC = "mcp-2025-11-25";
const OWNER = "bench";
const PAGE = 10; // the SDK's fixed page size; ours is given the same
const RETENTION_MS = 3_600_000;

interface Candidate {
  name: string;
  /** What the table calls it. */
  label: string;
  open(): Promise<TaskStore>;
}

/** The stores compared with the SDK's: ours in memory, SQLite (both durability levels), PostgreSQL where configured. */
async function candidates(dir: string): Promise<Candidate[]> {
  let k = 0;
  const list: Candidate[] = [
    { name: "memory", label: "ours, in memory", open: async () => new InMemoryTaskStore() },
    { name: "sqlite-full", label: "SQLite, synchronous FULL (default)", open: () => SqliteTaskStore.open(join(dir, `full-${k++}.db`)) },
    { name: "sqlite-normal", label: "SQLite, synchronous NORMAL", open: () => SqliteTaskStore.open(join(dir, `normal-${k++}.db`), { synchronous: "normal" }) },
  ];
  // The PostgreSQL store, for a database named by MCP_TASK_GEN_PG_URL: each store opened gets a schema of its own.
  const url = process.env.MCP_TASK_GEN_PG_URL;
  if (url) {
    const pg = (await import("@mcp-task-gen/runtime/store-postgres")) as typeof import("@mcp-task-gen/runtime/store-postgres");
    list.push({
      name: "postgres",
      label: "PostgreSQL",
      open: () => pg.PostgresTaskStore.open(url, { schema: `bench_${process.pid}_${k++}` } as never),
    });
  }
  return list;
}

/** What the generated server hands a store on task creation. */
function record(): Omit<TaskRecord, "seq"> {
  const now = Date.now();
  return {
    taskId: randomUUID(),
    owner: OWNER,
    status: "working",
    method: "tools/call",
    requestId: 1,
    createdAt: now,
    updatedAt: now,
    terminalAt: null,
    keepAlive: RETENTION_MS,
    pollFrequency: 1000,
    expiresAt: now + RETENTION_MS,
    pendingInputs: 0,
  };
}

const request = { method: "tools/call", params: { name: "bench", arguments: {} } };

interface OpFigures {
  /** ops/s per round, by store name (the SDK's is "sdk"). */
  create: Map<string, number[]>;
  get: Map<string, number[]>;
  list: Map<string, number[]>;
  n: number;
}

/** Creates, gets and list pages, every candidate interleaved with the SDK's store. */
async function operations(cands: Candidate[], s: Settings): Promise<OpFigures> {
  const n = s.quick ? 500 : 2_000;
  const sdk = new SdkStore();
  const sdkIds: string[] = [];
  for (let i = 0; i < n; i++) sdkIds.push((await sdk.createTask({ ttl: RETENTION_MS, pollInterval: 1000 }, i, request as never)).taskId);
  const stores = new Map<string, { store: TaskStore; ids: string[]; seqs: number[] }>();
  for (const c of cands) {
    const store = await c.open();
    const ids: string[] = [];
    const seqs: number[] = [];
    for (let i = 0; i < n; i++) {
      const r = (await store.create(record()))!;
      ids.push(r.taskId);
      seqs.push(r.seq);
    }
    stores.set(c.name, { store, ids, seqs });
  }
  // The same pseudo-random order of existing tasks for every store.
  const pick = Array.from({ length: 4096 }, (_, i) => (Math.imul(i + 1, 2654435761) >>> 0) % (n - PAGE));
  const cursor = new Map<string, number>();
  const next = (name: string) => {
    const i = cursor.get(name) ?? 0;
    cursor.set(name, i + 1);
    return pick[i & 4095]!;
  };
  const ops = (fn: (name: string, st: { store: TaskStore; ids: string[]; seqs: number[] }) => () => Promise<unknown>, sdkFn: () => Promise<unknown>) => [
    { name: "sdk", fn: sdkFn },
    ...[...stores].map(([name, st]) => ({ name, fn: fn(name, st) })),
  ];
  const get = await measureAsync(
    ops(
      (name, st) => () => st.store.get(st.ids[next(name)]!),
      () => sdk.getTask(sdkIds[next("sdk")]!),
    ),
    s,
  );
  // A page of PAGE tasks after a random one (the SDK's cursor is a task id, ours a sequence number).
  const list = await measureAsync(
    ops(
      (name, st) => () => st.store.list(OWNER, st.seqs[next(name)]!, PAGE),
      () => sdk.listTasks(sdkIds[next("sdk")]),
    ),
    s,
  );
  // Creates last: they grow the stores.
  let requestId = n;
  const create = await measureAsync(
    ops(
      (_name, st) => () => st.store.create(record()),
      () => sdk.createTask({ ttl: RETENTION_MS, pollInterval: 1000 }, ++requestId, request as never),
    ),
    s,
  );
  sdk.cleanup();
  for (const st of stores.values()) await st.store.close();
  return { create, get, list, n };
}

/** tools/call as a task (acknowledged at once, the work a no-op), SDK client to the generated runtime in one process. */
async function augmentedCalls(cands: Candidate[], s: Settings): Promise<Map<string, number[]>> {
  const gen = (await import(`../output-samples/${SPEC}/server.ts`)) as typeof import("../output-samples/mcp-2025-11-25/server.js");
  const noLimits = { maxConcurrentPerRequestor: 1e9, createPerMinute: 1e9, pollPerMinute: 1e9, resultPerMinute: 1e9, listPerMinute: 1e9 };
  const endpoints: { name: string; call: () => Promise<unknown>; close: () => Promise<void> }[] = [];
  const Ack = z.looseObject({ task: z.looseObject({ taskId: z.string() }) });
  for (const c of cands) {
    const store = await c.open();
    const runtime = new gen.TaskRuntime({ store, limits: noLimits, audit: false, log: () => undefined });
    await runtime.ready;
    const server = new Server({ name: "bench", version: "0.0.0" }, { capabilities: {} });
    runtime.install(server);
    runtime.registerTools(server, [gen.defineTool({ name: "noop", taskSupport: "optional", handler: async () => ({ content: [] }) })]);
    const client = new Client({ name: "bench-client", version: "0.0.0" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    const params = { name: "noop", arguments: {}, task: { ttl: RETENTION_MS } };
    endpoints.push({
      name: c.name,
      call: () => client.request({ method: "tools/call", params }, Ack),
      close: async () => {
        await client.close();
        await runtime.close();
      },
    });
  }
  // Slices long enough for a few fsyncs each.
  const per = await measureAsync(
    endpoints.map((e) => ({ name: e.name, fn: e.call })),
    s,
    s.quick ? 30 : 120,
  );
  for (const e of endpoints) await e.close();
  return per;
}

/**
 * The PostgreSQL store's creations beside what the same cluster does for a plain single-row INSERT and a plain
 * pg-boss `send`, in one interleaved run: creates/s of each, and the store's as a ratio to the plain INSERT.
 */
async function postgresBaselines(url: string, s: Settings): Promise<Map<string, number[]>> {
  const pgStore = (await import("@mcp-task-gen/runtime/store-postgres")) as typeof import("@mcp-task-gen/runtime/store-postgres");
  const pg = ((await import("pg")) as unknown as { default: typeof import("pg") }).default;
  const { default: PgBoss } = (await import("pg-boss")) as unknown as { default: new (o: Record<string, unknown>) => { start(): Promise<unknown>; stop(o?: Record<string, unknown>): Promise<void>; createQueue(n: string): Promise<void>; send(n: string, d: object): Promise<string | null>; on(e: string, f: (e: unknown) => void): void } };
  const tag = `bench_${process.pid}_base`;
  const store = await pgStore.PostgresTaskStore.open(url, { schema: `${tag}_store` } as never);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  await pool.query(`CREATE TABLE ${tag}_plain (id TEXT PRIMARY KEY, body TEXT NOT NULL)`);
  const boss = new PgBoss({ connectionString: url, schema: `${tag}_boss`, supervise: false, schedule: false });
  boss.on("error", () => undefined);
  await boss.start();
  await boss.createQueue("bench");
  const body = JSON.stringify(record());
  let k = 0;
  try {
    return await measureAsync(
      [
        { name: "store-create", fn: () => store.create(record()) },
        // Many requestors with a few unfinished tasks each, under a limit none of them reaches.
        { name: "store-bounded", fn: () => store.createBounded!({ ...record(), owner: `requestor-${k++ % 1000}` }, 100) },
        { name: "insert", fn: () => pool.query(`INSERT INTO ${tag}_plain (id, body) VALUES ($1, $2)`, [randomUUID(), body]) },
        { name: "boss-send", fn: () => boss.send("bench", { taskId: randomUUID() }) },
      ],
      s,
    );
  } finally {
    await boss.stop({ graceful: false, close: true } as never).catch(() => undefined);
    await pool.query(`DROP TABLE ${tag}_plain; DROP SCHEMA IF EXISTS ${tag}_boss CASCADE; DROP SCHEMA IF EXISTS ${tag}_store CASCADE`).catch(() => undefined);
    await pool.end();
    await store.close();
  }
}

export async function runStores(s: Settings): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), "mtg-bench-stores-"));
  try {
    const cands = await candidates(dir);
    const ops = await operations(cands, s);
    const calls = await augmentedCalls(cands, s);
    const url = process.env.MCP_TASK_GEN_PG_URL;
    const baselines = url ? await postgresBaselines(url, s) : undefined;
    return section(cands, ops, calls, baselines);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function section(cands: Candidate[], ops: OpFigures, calls: Map<string, number[]>, baselines?: Map<string, number[]>): Section {
  const figures: Record<string, number> = {};
  const rows: string[][] = [];
  const ratio = (m: Map<string, number[]>, name: string) => ratioOf(perRound(m.get(name)!, m.get("sdk")!));
  rows.push([
    "SDK `InMemoryTaskStore` (baseline)",
    fmtNum(median(ops.create.get("sdk")!)),
    fmtNum(median(ops.get.get("sdk")!)),
    fmtNum(median(ops.list.get("sdk")!)),
    "1×",
    "1×",
    "1×",
  ]);
  for (const c of cands) {
    const cr = ratio(ops.create, c.name);
    const gr = ratio(ops.get, c.name);
    const lr = ratio(ops.list, c.name);
    figures[`create:${c.name}/sdk`] = cr.median;
    figures[`get:${c.name}/sdk`] = gr.median;
    figures[`list:${c.name}/sdk`] = lr.median;
    rows.push([c.label, fmtNum(median(ops.create.get(c.name)!)), fmtNum(median(ops.get.get(c.name)!)), fmtNum(median(ops.list.get(c.name)!)), fmtRatio(cr), fmtRatio(gr), fmtRatio(lr)]);
  }
  const callRows: string[][] = [];
  const memCalls = calls.get("memory")!;
  callRows.push(["ours, in memory (baseline)", fmtNum(median(memCalls)), `${fmtNum(1e6 / median(memCalls))} µs`, "1×"]);
  const slowdown: Record<string, ReturnType<typeof ratioOf>> = {};
  for (const c of cands) {
    if (c.name === "memory") continue;
    // Latency ratio: the in-memory store's calls per second over this store's (per round).
    const r = ratioOf(perRound(memCalls, calls.get(c.name)!));
    slowdown[c.name] = r;
    figures[`taskCall:${c.name}/memory`] = r.median;
    const mine = calls.get(c.name)!;
    callRows.push([c.label, fmtNum(median(mine)), `${fmtNum(1e6 / median(mine))} µs`, fmtRatio(r)]);
  }
  const tables: Table[] = [
    {
      title: `Store operations per second, ${fmtNum(ops.n)} tasks in each store, each store as a ratio to the SDK's`,
      columns: ["store", "create/s", "get/s", "list page/s", "create ÷ SDK", "get ÷ SDK", "list ÷ SDK"],
      rows,
      note: `A list page is ${PAGE} tasks after a random one; the SDK's \`listTasks\` filters and copies every key per page (O(n)), ours reads an index (O(page)).`,
    },
    {
      title: "A task-augmented tools/call, acknowledged (one task created per call), per store",
      columns: ["store", "calls/s", "latency per call", "latency ÷ in-memory"],
      rows: callRows,
      note:
        "SDK Client and Server linked in one process (InMemoryTransport), the generated runtime (mcp-2025-11-25) on each store; one call at a time. " +
        "The acknowledgement waits for the create to be committed (with FULL, fsynced); the no-op work's two status writes follow in the background and share the disk with the next call. " +
        "On PostgreSQL the create is one round trip, the creation rate's token taken in the same statement; the acknowledgement shows the task as the process last wrote it, with no read back.",
    },
  ];
  const pgTargets: TargetResult[] = [];
  if (baselines) {
    const insert = baselines.get("insert")!;
    const label: Record<string, string> = {
      "store-create": "PostgreSQL store, `create` (one statement: the schema's `create_task`)",
      "store-bounded": "PostgreSQL store, `createBounded` (the same, under the owner's lock and count; 1,000 requestors, limit 100)",
      insert: "plain single-row INSERT (baseline)",
      "boss-send": "plain pg-boss `send`",
    };
    const baseRows = [...baselines].map(([name, per]) => {
      const r = ratioOf(perRound(per, insert));
      figures[`pg:${name}/s`] = median(per);
      figures[`pg:${name}/insert`] = r.median;
      return [label[name]!, fmtNum(median(per)), name === "insert" ? "1×" : fmtRatio(r)];
    });
    tables.push({
      title: "PostgreSQL: a task's creation beside a plain INSERT and a plain pg-boss send on the same cluster, one at a time",
      columns: ["operation", "per second", "÷ plain INSERT"],
      rows: baseRows,
      note: "Each on a pool of its own connections to MCP_TASK_GEN_PG_URL, in interleaved slices; the ratio is the median of the per-round ratios.",
    });
    const creates = median(baselines.get("store-bounded")!);
    const memCall = median(memCalls);
    const pgCall = slowdown.postgres;
    pgTargets.push(
      { target: "PostgreSQL task creations per second (`createBounded`, what the runtime calls)", bar: "≥ 2,000/s", measured: `${fmtNum(creates)}/s`, status: creates >= 2000 ? "met" : "missed" },
      { target: "task-augmented call latency, PostgreSQL ÷ in-memory", bar: "≤ 10×", measured: pgCall ? fmtRatio(pgCall) : "–", status: pgCall && pgCall.median <= 10 ? "met" : "missed", why: `in-memory ${fmtNum(memCall)} calls/s` },
    );
  }
  const full = slowdown["sqlite-full"];
  const normal = slowdown["sqlite-normal"];
  const targets: TargetResult[] = [
    {
      target: "SQLite (FULL) get ÷ SDK in-memory get",
      bar: "report",
      measured: fmtRatio(ratio(ops.get, "sqlite-full")),
      status: "n/a",
      why: "a get is one indexed SELECT and a JSON.parse of the nested values; the SDK's is a Map lookup",
    },
    {
      target: "task-augmented call latency, SQLite FULL ÷ in-memory",
      bar: "report",
      measured: fmtRatio(full),
      status: "n/a",
      why: "every create and status change is a commit, fsynced before it resolves (WAL, synchronous FULL): the disk's flush latency dominates",
    },
    {
      target: "task-augmented call latency, SQLite NORMAL ÷ in-memory",
      bar: "report",
      measured: fmtRatio(normal),
      status: "n/a",
      why: "commits reach the WAL without an fsync (it comes at checkpoints): a process crash loses nothing acknowledged, a power loss may",
    },
  ];
  return {
    id: "stores",
    title: "Task stores (durable and in memory)",
    method:
      `In the bench process. **Operations**: each store is filled with ${fmtNum(ops.n)} tasks (the records the generated server writes, a random UUID and a one-hour retention each; ` +
      "the SDK's with `createTask({ ttl, pollInterval }, requestId, request)`), then gets of random existing tasks, list pages after a random task, and creates " +
      "(last, since they grow the stores) run in interleaved slices, every store in each round, each ratio the median of the per-round ratios to the SDK's store. " +
      "The SQLite files are on the local disk (a temporary directory). **Task-augmented call**: see the second table. " +
      (process.env.MCP_TASK_GEN_PG_URL ? "The PostgreSQL store ran against MCP_TASK_GEN_PG_URL." : "The PostgreSQL store is measured when MCP_TASK_GEN_PG_URL names a database (not set in this run)."),
    tables,
    targets: [...targets, ...pgTargets],
    notes: ["Ratios above 1× mean faster than the baseline for throughput; for latency, above 1× means slower than the in-memory store."],
    figures,
  };
}
