/**
 * The worker pool as an operator runs it: 2 demo servers of mcp-2025-11-25 (Streamable HTTP, the
 * PostgreSQL store, the pg-boss queue, no local worker) and 3 worker processes on one database, each
 * its own process (16 jobs at a time each: the tools sleep), and a client making tasks at a steady rate on both servers in turn: `slow_compute`
 * of 0.2 to 1.4 s, with one call in ten a `failing_job`. Every creation is one POST with a time-out
 * (10 s): an answer later than that is a client time-out. Reported: creations acknowledged, refused
 * (with the error), timed out; the time to acknowledge (p50, p99, max); the time from creation to the
 * task's end, read from the store (p50, p99, max); how long after the load every task had ended; the
 * load average. Figures only: nothing here asserts.
 *
 *   MCP_TASK_GEN_PG_URL=postgres://... tsx bench/pool.ts [--rate 30] [--seconds 60] [--timeout 10000]
 *   (also part of area "workers" of bench/run.ts)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const SPEC = "mcp-2025-11-25";
// One requestor makes every task: the rate limit is lifted, the concurrency limit kept (checked over every
// process, in the store) but above what the load holds.
const LIMITS = { createPerMinute: 1e9, pollPerMinute: 1e9, resultPerMinute: 1e9, listPerMinute: 1e9, maxConcurrentPerRequestor: 1_000 };

export interface PoolFigures {
  rate: number;
  seconds: number;
  sent: number;
  acked: number;
  refused: Record<string, number>;
  timedOut: number;
  ackP50Ms: number;
  ackP99Ms: number;
  ackMaxMs: number;
  endP50Ms: number;
  endP99Ms: number;
  endMaxMs: number;
  /** After the last creation, until the store had every acknowledged task ended (-1: not within the wait). */
  drainedMs: number;
  byStatus: Record<string, number>;
  load: number[];
  /** Processes that exited during the run. */
  exited: string[];
}

const pct = (xs: number[], q: number) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function start(args: string[], schema: string, url: string, what: string, ready: RegExp): { child: ChildProcess; ready: Promise<string> } {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "scripts", "demo-server.ts"), SPEC, "--store", `postgres:${url}`, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify({ pollFrequency: 500, storeSchema: schema, queueSchema: `${schema}_q`, workerConcurrency: 16, limits: LIMITS }) },
  });
  let err = "";
  const readyP = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${err.slice(-2000)}`)), 90_000);
    child.stderr!.on("data", (d: Buffer) => {
      if (err.length < 100_000) err += d.toString("utf8");
      const m = ready.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] ?? "");
      }
    });
    child.once("exit", (code) => reject(new Error(`${what} exited (${code}):\n${err.slice(-2000)}`)));
  });
  readyP.catch(() => undefined);
  return { child, ready: readyP };
}

/** One session on a server: initialize, then task-augmented tools/call POSTs. */
async function session(url: string): Promise<(name: string, args: Record<string, unknown>, timeoutMs: number) => Promise<Record<string, any>>> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const r = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "pool", version: "0" } } }),
  });
  headers["mcp-session-id"] = r.headers.get("mcp-session-id")!;
  await r.text();
  await (await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })).text();
  let id = 1;
  return async (name, args, timeoutMs) => {
    const res = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: id++, method: "tools/call", params: { name, arguments: args, task: { ttl: 3_600_000 } } }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    for (const line of text.split("\n")) {
      const body = line.startsWith("data: ") ? line.slice(6) : line.startsWith("{") ? line : "";
      if (body === "") continue;
      const msg = JSON.parse(body) as Record<string, any>;
      if ("result" in msg || "error" in msg) return msg;
    }
    throw new Error(`no answer (HTTP ${res.status}): ${text.slice(0, 200)}`);
  };
}

export async function measurePool(url: string, rate: number, seconds: number, timeoutMs = 10_000): Promise<PoolFigures> {
  const schema = `pool_${process.pid}_${Date.now() % 100_000}`;
  const children: { what: string; child: ChildProcess }[] = [];
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const servers = [0, 1].map((i) => start(["--http", "0", "--queue", "--no-local-worker"], schema, url, `server ${i + 1}`, /"msg":"listening"[^\n]*"url":"([^"]+)"/));
    servers.forEach((s, i) => children.push({ what: `server ${i + 1}`, child: s.child }));
    const urls = await Promise.all(servers.map((s) => s.ready));
    const workers = [1, 2, 3].map((i) => start(["--worker", "--runner-id", `${schema}-w${i}`], schema, url, `worker ${i}`, /"msg":"(worker ready)"/));
    workers.forEach((w, i) => children.push({ what: `worker ${i + 1}`, child: w.child }));
    await Promise.all(workers.map((w) => w.ready));
    const calls = await Promise.all(urls.map(session));

    const acked: { taskId: string; ackMs: number }[] = [];
    const refused: Record<string, number> = {};
    let timedOut = 0;
    const inflight = new Set<Promise<void>>();
    const n = rate * seconds;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const wait = t0 + (i * 1000) / rate - performance.now();
      if (wait > 0) await sleep(wait);
      const [name, args] = i % 10 === 9 ? ["failing_job", {}] : ["slow_compute", { seconds: 0.2 + (i % 7) * 0.2 }];
      const s0 = performance.now();
      const p = calls[i % 2]!(name as string, args, timeoutMs).then(
        (m) => {
          const taskId = m.result?.task?.taskId;
          if (typeof taskId === "string") acked.push({ taskId, ackMs: performance.now() - s0 });
          else {
            const key = m.error ? `${m.error.code} ${m.error.message}` : "answered without a task";
            refused[key] = (refused[key] ?? 0) + 1;
          }
        },
        (e: unknown) => {
          if ((e as Error).name === "TimeoutError") timedOut++;
          else refused[String((e as Error).message).slice(0, 120)] = (refused[String((e as Error).message).slice(0, 120)] ?? 0) + 1;
        },
      );
      const tracked = p.finally(() => inflight.delete(tracked));
      inflight.add(tracked);
    }
    await Promise.all([...inflight]);
    const loadEnd = performance.now();
    const load = loadavg().map((x) => Math.round(x * 100) / 100);

    // Until the store has every acknowledged task ended (bounded: 120 s).
    const ids = new Set(acked.map((a) => a.taskId));
    let ended: { status: string; ms: number }[] = [];
    let drainedMs = -1;
    const byStatus: Record<string, number> = {};
    while (performance.now() - loadEnd < 120_000) {
      const r = await db.query(`SELECT task_id, status, created_at, terminal_at FROM "${schema}".tasks`);
      const mine = r.rows.filter((row: Record<string, string>) => ids.has(JSON.parse(row.task_id!) as string));
      ended = mine.filter((row: Record<string, string | null>) => row.terminal_at !== null).map((row: Record<string, string>) => ({ status: JSON.parse(row.status!) as string, ms: Number(row.terminal_at) - Number(row.created_at) }));
      if (ended.length === ids.size) {
        drainedMs = performance.now() - loadEnd;
        break;
      }
      await sleep(250);
    }
    for (const e of ended) byStatus[e.status] = (byStatus[e.status] ?? 0) + 1;
    const acks = acked.map((a) => a.ackMs);
    const ends = ended.map((e) => e.ms);
    return {
      rate,
      seconds,
      sent: n,
      acked: acked.length,
      refused,
      timedOut,
      ackP50Ms: pct(acks, 0.5),
      ackP99Ms: pct(acks, 0.99),
      ackMaxMs: Math.max(...acks),
      endP50Ms: pct(ends, 0.5),
      endP99Ms: pct(ends, 0.99),
      endMaxMs: Math.max(...ends),
      drainedMs,
      byStatus,
      load,
      exited: children.filter((c) => c.child.exitCode !== null || c.child.signalCode !== null).map((c) => c.what),
    };
  } finally {
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGTERM");
    await sleep(1_000);
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_q" CASCADE`).catch(() => undefined);
    await db.end();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const argv = process.argv.slice(2);
  const arg = (name: string, d: number) => {
    const i = argv.indexOf(name);
    return i === -1 ? d : Number(argv[i + 1]);
  };
  const url = process.env.MCP_TASK_GEN_PG_URL;
  if (!url) {
    process.stderr.write("pool: set MCP_TASK_GEN_PG_URL (eval \"$(scripts/pg-test-cluster.sh start)\" starts a throwaway cluster)\n");
    process.exit(2);
  }
  measurePool(url, arg("--rate", 30), arg("--seconds", 60), arg("--timeout", 10_000)).then(
    (f) => process.stdout.write(`${JSON.stringify(f)}\n`),
    (e) => {
      process.stderr.write(`pool: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
