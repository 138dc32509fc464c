/**
 * The worker pool (runtime/workers.ts) on PostgreSQL: completed tasks per second with 1, 2 and 4 worker
 * processes, for an I/O-bound tool (sleeps) and a CPU-bound one (spins), against the same tasks run in the
 * server's own process; and the latency from a task's creation to the start of its work on a worker at a
 * steady rate of task creations. Needs MCP_TASK_GEN_PG_URL (skipped without it).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import { PostgresTaskStore } from "@mcp-task-gen/runtime/store-postgres";
import { PgBossTaskQueue } from "@mcp-task-gen/runtime/workers";
import { fmtNum, median, type Settings } from "./harness.js";
import { ROOT } from "./messages.js";
import type { Section, Table, TargetResult } from "./report.js";
import { benchTools } from "./workers-tools.js";

type Gen = typeof import("../output-samples/mcp-2025-11-25/server.js");
const noLimits = { maxConcurrentPerRequestor: 1e9, createPerMinute: 1e9, pollPerMinute: 1e9, resultPerMinute: 1e9, listPerMinute: 1e9 };
const Ack = z.looseObject({ task: z.looseObject({ taskId: z.string() }) });
let seq = 0;

interface Pool {
  call(tool: string, ms: number): Promise<string>;
  /** Lets the workers take jobs. */
  go(): void;
  /** Waits until `n` tasks are terminal in the store. */
  until(n: number): Promise<void>;
  /** Creation time and work start of every completed task. */
  starts(): Promise<{ created: number; started: number }[]>;
  close(): Promise<void>;
}

/** A worker process; BENCH_WORKER_NODE_ARGS adds Node options to it (e.g. "--cpu-prof --cpu-prof-dir=prof" to see where its time goes). */
function startWorker(url: string, storeSchema: string, queueSchema: string, concurrency: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...(process.env.BENCH_WORKER_NODE_ARGS ?? "").split(" ").filter(Boolean), "--import", "tsx", join(ROOT, "bench", "worker-child.ts"), JSON.stringify({ url, storeSchema, queueSchema, concurrency })], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("ready")) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`bench worker exited ${code}`)));
  });
}

/** A server (SDK Client and Server linked in this process) on a fresh schema; with `workers`, its work goes to that many worker processes. */
async function pool(gen: Gen, url: string, workers: number, concurrency: number): Promise<Pool> {
  const id = `bw_${process.pid}_${seq++}`;
  const storeSchema = id;
  const queueSchema = `${id}_q`;
  const store = await PostgresTaskStore.open(url, { schema: storeSchema, poolSize: 10 });
  const queue = workers > 0 ? await PgBossTaskQueue.open(url, { schema: queueSchema }) : undefined;
  const runtime = new gen.TaskRuntime({ store, ...(queue ? { queue } : {}), limits: noLimits, audit: false, log: () => undefined });
  await runtime.ready;
  const server = new Server({ name: "bench", version: "0.0.0" }, { capabilities: {} });
  runtime.install(server);
  runtime.registerTools(server, benchTools(gen));
  const client = new Client({ name: "bench-client", version: "0.0.0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  const children = await Promise.all(Array.from({ length: workers }, () => startWorker(url, storeSchema, queueSchema, concurrency)));
  const pgm = (await import("pg")).default;
  const sql = new pgm.Client({ connectionString: url });
  await sql.connect();
  return {
    go: () => {
      for (const c of children) c.stdin!.write("go\n");
    },
    call: async (tool, ms) => (await client.request({ method: "tools/call", params: { name: tool, arguments: { ms }, task: { ttl: 3_600_000 } } }, Ack)).task.taskId,
    until: async (n) => {
      for (;;) {
        const r = await sql.query(`SELECT count(*)::int AS n FROM "${storeSchema}".tasks WHERE terminal_at IS NOT NULL`);
        if ((r.rows[0] as { n: number }).n >= n) return;
        await new Promise((res) => setTimeout(res, 10));
      }
    },
    starts: async () => {
      const r = await sql.query(`SELECT created_at, result FROM "${storeSchema}".tasks WHERE result IS NOT NULL`);
      return (r.rows as { created_at: string; result: string }[]).map((row) => {
        const result = JSON.parse(row.result) as { content: { text: string }[] };
        return { created: Number(row.created_at), started: Number(result.content[0]!.text) };
      });
    },
    close: async () => {
      await Promise.all(children.map((c) => new Promise((r) => (c.once("exit", r), c.kill("SIGTERM")))));
      await client.close();
      await runtime.close();
      await sql.query(`DROP SCHEMA IF EXISTS "${storeSchema}" CASCADE`);
      await sql.query(`DROP SCHEMA IF EXISTS "${queueSchema}" CASCADE`);
      await sql.end();
    },
  };
}

/** Creates `n` tasks, 16 at a time. */
async function create(p: Pool, tool: string, ms: number, n: number): Promise<void> {
  const inFlight: Promise<string>[] = [];
  for (let i = 0; i < n; i++) {
    inFlight.push(p.call(tool, ms));
    if (inFlight.length >= 16) await Promise.all(inFlight.splice(0));
  }
  await Promise.all(inFlight);
}

/**
 * Completed tasks per second. With workers: `n` tasks queued first, then the workers let go, timed until
 * all are done (what the workers drain). In the server's process: created as fast as it takes them, timed
 * until all are done (the work starts as each is created).
 */
async function throughput(p: Pool, tool: string, ms: number, n: number, workers: number): Promise<{ perSecond: number; busy: number | undefined }> {
  if (workers > 0) await create(p, tool, ms, n);
  const c0 = cpuTicks();
  const t0 = performance.now();
  if (workers > 0) p.go();
  else await create(p, tool, ms, n);
  await p.until(n);
  const perSecond = n / ((performance.now() - t0) / 1000);
  const c1 = cpuTicks();
  return { perSecond, busy: c0 && c1 && c1.total > c0.total ? (c1.busy - c0.busy) / (c1.total - c0.total) : undefined };
}

/** The machine's CPU time, busy and in all (Linux's /proc/stat, in ticks), to tell how much of the cores a run used. */
function cpuTicks(): { busy: number; total: number } | undefined {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - f[3]! - (f[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

function pct(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

export async function runWorkers(s: Settings): Promise<Section> {
  const url = process.env.MCP_TASK_GEN_PG_URL;
  const section: Section = {
    id: "workers",
    title: "Worker pool (pg-boss on PostgreSQL)",
    method: "",
    tables: [],
    targets: [],
    notes: [],
    figures: {},
  };
  if (!url) {
    section.method = "Measured when MCP_TASK_GEN_PG_URL names a database (not set in this run).";
    section.targets.push(
      { target: "I/O-bound throughput, 2 workers ÷ 1", bar: "≥ 1.8×", measured: "–", status: "not measured yet", why: "no database" },
      { target: "p99 creation-to-start at 100 tasks/s", bar: "≤ 50 ms", measured: "–", status: "not measured yet", why: "no database" },
    );
    return section;
  }
  const spec = "mcp-2025-11-25";
  const gen = (await import(`../output-samples/${spec}/server.ts`)) as Gen;
  const kinds = [
    { tool: "io", label: "I/O-bound (sleeps 100 ms)", ms: 100, concurrency: 8, n: s.quick ? 48 : 320 },
    { tool: "cpu", label: "CPU-bound (spins 20 ms)", ms: 20, concurrency: 1, n: s.quick ? 20 : 160 },
  ];
  const table: Table = {
    title: "Completed tasks per second (each worker process takes 8 I/O-bound or 1 CPU-bound job at a time)",
    columns: ["tool", "in the server's process", "1 worker", "2 workers", "4 workers", "2 ÷ 1", "4 ÷ 1"],
    rows: [],
  };
  const busyTable: Table = {
    title: "The machine's CPU busy while the pool drains (all cores: 100% is every core busy)",
    columns: ["tool", "in the server's process", "1 worker", "2 workers", "4 workers"],
    rows: [],
  };
  const pctOf = (x: number | undefined) => (x === undefined ? "–" : `${Math.round(x * 100)}%`);
  for (const k of kinds) {
    const rate: Record<string, number> = {};
    const busy: Record<string, number | undefined> = {};
    for (const w of [0, 1, 2, 4]) {
      const p = await pool(gen, url, w, k.concurrency);
      try {
        ({ perSecond: rate[w]!, busy: busy[w] } = await throughput(p, k.tool, k.ms, k.n, w));
      } finally {
        await p.close();
      }
    }
    busyTable.rows.push([k.label, pctOf(busy[0]), pctOf(busy[1]), pctOf(busy[2]), pctOf(busy[4])]);
    table.rows.push([k.label, fmtNum(rate[0]), fmtNum(rate[1]), fmtNum(rate[2]), fmtNum(rate[4]), `${(rate[2]! / rate[1]!).toFixed(2)}×`, `${(rate[4]! / rate[1]!).toFixed(2)}×`]);
    for (const w of [0, 1, 2, 4]) section.figures[`${k.tool}_${w}_per_s`] = rate[w]!;
    section.figures[`${k.tool}_2_over_1`] = rate[2]! / rate[1]!;
    section.figures[`${k.tool}_4_over_1`] = rate[4]! / rate[1]!;
  }
  section.tables.push(table, busyTable);

  // Latency at steady rates: 2 workers, a 5 ms I/O-bound job.
  const seconds = s.quick ? 2 : 10;
  const latencyRows: string[][] = [];
  for (const perSecond of [20, 100]) {
    const p = await pool(gen, url, 2, 8);
    let lat: number[];
    try {
      p.go();
      await create(p, "io", 1, 8);
      await p.until(8);
      const n = seconds * perSecond;
      const t0 = performance.now();
      const calls: Promise<string>[] = [];
      for (let i = 0; i < n; i++) {
        const wait = t0 + (i * 1000) / perSecond - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        calls.push(p.call("io", 5));
      }
      await Promise.all(calls);
      await p.until(8 + n);
      // The warm-up tasks are left out: they ran before the steady rate started.
      lat = (await p.starts()).sort((a, b) => a.created - b.created).slice(8).map((x) => x.started - x.created);
    } finally {
      await p.close();
    }
    const p50 = median(lat);
    const p99 = pct(lat, 0.99);
    latencyRows.push([`${perSecond}/s`, String(lat.length), `${p50} ms`, `${p99} ms`, `${Math.max(...lat)} ms`]);
    section.figures[`latency_${perSecond}_p50_ms`] = p50;
    section.figures[`latency_${perSecond}_p99_ms`] = p99;
  }
  section.tables.push({
    title: `Creation to start of the work on a worker, at a steady rate for ${seconds} s (2 workers)`,
    columns: ["rate", "tasks", "p50", "p99", "max"],
    rows: latencyRows,
  });
  // The pool as an operator runs it: separate server and worker processes, a client at a steady rate.
  // Five processes to start and a minute of load: left out of the quick run (a smoke test in CI).
  const op = s.quick ? undefined : await (await import("./pool.js")).measurePool(url, 30, 60);
  const ms = (x: number) => `${Math.round(x)} ms`;
  if (op) section.tables.push({
    title: `2 servers and 3 workers (separate processes, 16 jobs each) under ${op.rate} creations a second for ${op.seconds} s (\`bench/pool.ts\`)`,
    columns: ["sent", "acknowledged", "refused", "client time-outs (10 s)", "acknowledged in p50 / p99 / max", "creation to end p50 / p99 / max", "all ended after the load", "load average at the end"],
    rows: [
      [
        String(op.sent),
        String(op.acked),
        Object.entries(op.refused).map(([k, v]) => `${v} × ${k}`).join("; ") || "0",
        String(op.timedOut),
        `${ms(op.ackP50Ms)} / ${ms(op.ackP99Ms)} / ${ms(op.ackMaxMs)}`,
        `${ms(op.endP50Ms)} / ${ms(op.endP99Ms)} / ${ms(op.endMaxMs)}`,
        op.drainedMs < 0 ? "not within 120 s" : `${(op.drainedMs / 1000).toFixed(1)} s`,
        op.load.join(", "),
      ],
    ],
  });
  if (op) section.figures.pool_timeouts = op.timedOut;
  if (op) section.figures.pool_ack_p99_ms = Math.round(op.ackP99Ms);
  const p99 = section.figures.latency_100_p99_ms!;
  const io21 = section.figures.io_2_over_1!;
  section.targets.push(
    { target: "I/O-bound throughput, 2 workers ÷ 1", bar: "≥ 1.8×", measured: `${io21.toFixed(2)}×`, status: io21 >= 1.8 ? "met" : "missed" },
    { target: "p99 creation-to-start at 100 tasks/s", bar: "≤ 50 ms", measured: `${p99} ms`, status: p99 <= 50 ? "met" : "missed" },
    op === undefined
      ? { target: "2 servers and 3 workers at 30 creations/s: no client time-out, every task ended", bar: "0 time-outs", measured: "–", status: "not measured yet", why: "not in a quick run" }
      : {
          target: `2 servers and 3 workers at ${op.rate} creations/s: no client time-out, every task ended`,
          bar: "0 time-outs",
          measured: `${op.timedOut} time-outs, ${op.acked} of ${op.sent} acknowledged, ${op.drainedMs < 0 ? "not all ended" : "all ended"}`,
          status: op.timedOut === 0 && op.acked === op.sent && op.drainedMs >= 0 && op.exited.length === 0 ? "met" : "missed",
        },
  );
  section.method =
    "Each configuration on a fresh schema of MCP_TASK_GEN_PG_URL: the generated mcp-2025-11-25 runtime as the server in the bench process (SDK Client and Server linked in process, tasks created through tools/call), its work on the pg-boss queue, and 1, 2 or 4 worker processes (`bench/worker-child.ts`); or, for the first column, no queue (the server's process runs the work, with no limit on how many at once). " +
    "Throughput with workers: the tasks are created first (16 at a time), then the workers are let go and timed until the store has them all ended (what the pool drains; a worker process starts with its connections open). In the server's process: created as fast as the server acknowledges them, timed from the first creation until all ended (creation is then the limit). " +
    "Latency: a task created every 50 ms, then every 10 ms; each job records when its work started, read against the task's creation time (both on this machine's clock), so it includes the task's insert, the enqueue and its notification, the fetch and the claim of the task.";
  return section;
}
