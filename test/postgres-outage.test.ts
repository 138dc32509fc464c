/**
 * A PostgreSQL outage under load: 2 demo servers (queue, no local worker) and 3 workers on a cluster
 * of this file's own (scripts/pg-test-cluster.sh start, on a free port: the cluster the other test
 * files share is never touched), a client making tasks on both servers at a steady rate, and the
 * database restarted (`pg_ctl stop -m immediate` then start: a crash and its recovery) and then
 * stopped for 15 s. Afterwards every process is alive, every acknowledged task ends (completed: no
 * live work is settled as if its process had restarted), no task of a tool without retry ran twice,
 * and what clients were told during the outage is the declared, retryable error naming nothing of
 * the database. A worker started while the database is down waits for it; a second process under
 * a live runner name refuses to start. The measured times are printed (docs/stores-and-workers.md, the crash table).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as mcpClient from "../output-samples/mcp-2025-11-25/client.js";
import * as extClient from "../output-samples/ext-tasks-2026-07-28/client.js";
import { StatelessHttpClient } from "../output-samples/ext-tasks-2026-07-28/stateless-client.js";
import { ROOT } from "./helpers/cli.js";
import { httpChild } from "./seed-harness.js";

const run = promisify(execFile);
const cluster = join(ROOT, "scripts", "pg-test-cluster.sh");
const demo = join(ROOT, "scripts", "demo-server.ts");
const SPEC = "mcp-2025-11-25";
const SCHEMA = "outage";
const RESTARTED = "The server restarted before the task finished";
const any = z.record(z.string(), z.unknown());

let url = "";
let dir = "";
const children: ChildProcess[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  // Durable commits: a crash must not lose what a client or a worker was told is committed.
  const { stdout } = await run("bash", [cluster, "start"], { cwd: ROOT, timeout: 120_000, env: { ...process.env, PG_TEST_DURABLE: "1" } });
  url = /MCP_TASK_GEN_PG_URL=(\S+)/.exec(stdout)![1]!;
  dir = /MCP_TASK_GEN_PG_DIR=(\S+)/.exec(stdout)![1]!;
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await new Promise((r) => setTimeout(r, 200));
  if (dir !== "") await run("bash", [cluster, "stop", dir], { cwd: ROOT, timeout: 60_000 }).catch(() => undefined);
}, 60_000);

function spawnDemo(args: string[], spec = SPEC, schema = SCHEMA) {
  const child = spawn(process.execPath, ["--import", "tsx", demo, spec, "--store", `postgres:${url}`, ...args], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify({ pollFrequency: 200, storeSchema: schema, queueSchema: `${schema}_q`, workerConcurrency: 8 }) },
  });
  children.push(child);
  return child;
}

function startServer() {
  const child = spawnDemo(["--http", "0", "--queue", "--no-local-worker"]);
  return Object.assign(httpChild(child, "demo server"), { child });
}

/** A worker; `ready` once it takes jobs, rejected if it exits first. */
function startWorker(runnerId: string, timeoutMs = 60_000) {
  const child = spawnDemo(["--worker", "--runner-id", runnerId]);
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString("utf8")));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker ${runnerId} did not start:\n${err}`)), timeoutMs);
    const look = () => {
      if (err.includes('"msg":"worker ready"')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr!.on("data", look);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`worker ${runnerId} exited (${code}):\n${err}`));
    });
  });
  ready.catch(() => undefined);
  return { child, ready, runnerId, stderr: () => err };
}

async function connect(at: string) {
  const client = new Client({ name: "outage-test", version: "0.0.0" }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(at)));
  clients.push(client);
  return new mcpClient.TaskClient(client, { defaultPollFrequency: 200 });
}

async function rows(): Promise<{ taskId: string; status: string; statusMessage: string | null }[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query(`SELECT task_id, status, status_message, error, runner FROM "${SCHEMA}".tasks`);
    return r.rows.map((row: Record<string, string | null>) => ({
      taskId: JSON.parse(row.task_id!) as string,
      status: JSON.parse(row.status!) as string,
      statusMessage: row.status_message === null ? null : (JSON.parse(row.status_message!) as string),
      error: row.error,
      runner: row.runner,
    }));
  } finally {
    await c.end();
  }
}

const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a PostgreSQL restart and a 15 s stop under load (2 servers, 3 workers)", () => {
  it("kills no process, ends every acknowledged task, fails no live work and runs no task twice; clients see the declared retryable error", async () => {
    const servers = [startServer(), startServer()];
    const workers = [startWorker("w1"), startWorker("w2"), startWorker("w3")];
    await Promise.all(workers.map((w) => w.ready));
    const tasks = await Promise.all(servers.map(async (s) => connect(await s.url)));

    // The load: RATE creations a second for DURATION, alternating servers, each running for 0.2 to 1.4 s.
    const RATE = 10;
    const DURATION = 42_000;
    const t0 = Date.now();
    const acked: { taskId: string; at: number }[] = [];
    const refused: { code: unknown; message: string; at: number }[] = [];
    const inflight = new Set<Promise<void>>();
    let i = 0;
    const load = (async () => {
      while (Date.now() - t0 < DURATION) {
        const n = i++;
        const p = tasks[n % 2]!
          .start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0.2 + (n % 7) * 0.2 } } }, any)
          .then(
            (started) => {
              if (!("task" in started)) throw new Error("answered without a task");
              acked.push({ taskId: (started.task as unknown as { taskId: string }).taskId, at: Date.now() - t0 });
            },
            (e: unknown) => void refused.push({ code: (e as { code?: unknown }).code, message: String((e as { message?: unknown }).message ?? e), at: Date.now() - t0 }),
          )
          .finally(() => inflight.delete(p));
        inflight.add(p);
        await sleep(Math.max(0, t0 + (n + 1) * (1000 / RATE) - Date.now()));
      }
      await Promise.all([...inflight]);
    })();

    // A crash of the database and its recovery, then an outage of 15 s during which a worker starts.
    await sleep(6_000);
    const restartAt = Date.now() - t0;
    await run("bash", [cluster, "restart", dir], { cwd: ROOT, timeout: 60_000 });
    const restartedAt = Date.now() - t0;
    await sleep(6_000);
    const stopAt = Date.now() - t0;
    const stopping = run("bash", [cluster, "stop-for", dir, "15"], { cwd: ROOT, timeout: 90_000 });
    await sleep(3_000);
    const late = startWorker("w4", 90_000);
    await stopping;
    const backAt = Date.now() - t0;
    await late.ready;
    const lateReadyAt = Date.now() - t0;
    await load;
    const loadEnd = Date.now();

    // Every acknowledged task ends within 60 s of the load's end.
    const ids = new Set(acked.map((a) => a.taskId));
    let open: { taskId: string; status: string }[] = [];
    let stored: Awaited<ReturnType<typeof rows>> = [];
    while (Date.now() - loadEnd < 60_000) {
      stored = (await rows()).filter((r) => ids.has(r.taskId));
      open = stored.filter((r) => r.status === "working" || r.status === "input_required");
      if (open.length === 0 && stored.length === ids.size) break;
      await sleep(500);
    }
    const drainedMs = Date.now() - loadEnd;

    const firstAckAfter = (t: number) => acked.filter((a) => a.at >= t).reduce((m, a) => Math.min(m, a.at), Infinity);
    const runs = new Map<string, number>();
    for (const w of [...workers, late]) {
      for (const m of w.stderr().matchAll(/"msg":"slow_compute started","taskId":"([^"]+)"/g)) runs.set(m[1]!, (runs.get(m[1]!) ?? 0) + 1);
    }
    const twice = [...runs].filter(([, n]) => n > 1);
    const byStatus: Record<string, number> = {};
    for (const r of stored) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const figures = {
      created: acked.length,
      refused: refused.length,
      restart: { at: restartAt, took: restartedAt - restartAt, firstCreationAfterMs: firstAckAfter(restartedAt) - restartedAt },
      stop: { at: stopAt, backAt, firstCreationAfterMs: firstAckAfter(backAt) - backAt, lateWorkerReadyAfterMs: lateReadyAt - backAt },
      drainedMs,
      byStatus,
    };
    process.stderr.write(`postgres outage figures: ${JSON.stringify(figures)}\n`);
    // For a failure's message: what the processes logged about the tasks that did not complete.
    const about = (list: { taskId: string }[]) =>
      JSON.stringify(list.slice(0, 4)) +
      "\n" +
      list
        .slice(0, 4)
        .map((t) =>
          [...servers, ...workers, late]
            .map((p, n) => `[${n < 2 ? `server ${n + 1}` : `worker ${n - 1}`}]\n` + p.stderr().split("\n").filter((l) => l.includes(t.taskId) && !l.includes('"audit"')).join("\n"))
            .join("\n"),
        )
        .join("\n===\n");
    const logs = () => [...servers, ...workers, late].map((p) => p.stderr().split("\n").filter((l) => /"level":"error"|exited|Error/.test(l)).slice(0, 20).join("\n")).join("\n---\n");

    // Every process alive (a server killed by the database's restart would have exited).
    expect([...servers.map((s) => s.child), ...workers.map((w) => w.child), late.child].map(alive), logs()).toEqual([true, true, true, true, true, true]);
    // The load ran (how many creations got through depends on how busy the machine is).
    expect(acked.length).toBeGreaterThan(100);
    expect(open, `${JSON.stringify(figures)}\n${about(open)}`).toEqual([]);
    expect(stored.length).toBe(ids.size);
    expect(stored.filter((r) => r.statusMessage === RESTARTED)).toEqual([]);
    expect(stored.filter((r) => r.status !== "completed").length, about(stored.filter((r) => r.status !== "completed"))).toBe(0);
    expect(twice, about(twice.map(([taskId]) => ({ taskId })))).toEqual([]);
    // During the outage: the declared error, retryable, naming nothing of the database.
    for (const r of refused) {
      expect(r.code, JSON.stringify(r)).toBe(-32002);
      expect(r.message).not.toMatch(/127\.0\.0\.1|ECONN|postgres|database system|:\d{4,5}/i);
    }
    expect(refused.length).toBeGreaterThan(0);
  }, 240_000);

  it("a second process under a live runner name refuses to start", async () => {
    const first = startWorker("solo");
    await first.ready;
    const second = startWorker("solo");
    await expect(second.ready).rejects.toThrow(/exited \(1\)[\s\S]*in use/);
    expect(alive(first.child)).toBe(true);
  }, 90_000);

  it("the per-request server over stateless HTTP and a server over stdio answer their spec's declared retryable error while the database is down, and serve again once it is back", async () => {
    // ext-tasks-2026-07-28 over stateless HTTP, its work in its own process.
    const extChild = spawnDemo(["--http", "0"], "ext-tasks-2026-07-28", "outage_ext");
    const ext = httpChild(extChild, "ext demo server");
    const extTasks = new extClient.TaskClient(new StatelessHttpClient({ url: await ext.url, clientInfo: { name: "outage-test", version: "0.0.0" }, capabilities: {} }), { defaultPollFrequency: 200 });
    // mcp-2025-11-25 over stdio: the client spawns the server.
    const stdioClient = new Client({ name: "outage-test", version: "0.0.0" }, { capabilities: {} });
    let stdioErr = "";
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", demo, SPEC, "--store", `postgres:${url}`],
      cwd: ROOT,
      stderr: "pipe",
      env: { ...(process.env as Record<string, string>), MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify({ pollFrequency: 200, storeSchema: "outage_stdio" }) },
    });
    transport.stderr?.on("data", (d: Buffer) => (stdioErr += d.toString("utf8")));
    await stdioClient.connect(transport);
    clients.push(stdioClient);
    const stdioTasks = new mcpClient.TaskClient(stdioClient, { defaultPollFrequency: 200 });
    // Each spec's declared storeUnavailable error (ext declares -31012: core 2026-07-28's SDK sends -32002 as -32602).
    const declared: Record<string, number> = { "stateless HTTP (ext-tasks-2026-07-28)": -31012, "stdio (mcp-2025-11-25)": -32002 };
    const startOn = {
      "stateless HTTP (ext-tasks-2026-07-28)": () => extTasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0.1 } } }, any),
      "stdio (mcp-2025-11-25)": () => stdioTasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0.1 } } }, any),
    };
    // Served before the outage.
    for (const start of Object.values(startOn)) expect("task" in (await start())).toBe(true);

    const down = run("bash", [cluster, "stop-for", dir, "6"], { cwd: ROOT, timeout: 60_000 });
    // Down once the cluster refuses connections.
    await eventuallyTrue(async () => {
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 500 });
      try {
        await c.connect();
        await c.end();
        return false;
      } catch {
        return true;
      }
    }, 20_000);
    for (const [where, start] of Object.entries(startOn)) {
      const e = await start().then(
        () => undefined,
        (err: unknown) => err as { code?: unknown; message?: unknown; data?: unknown },
      );
      expect(e, `${where}: a creation while the database is down`).toBeDefined();
      expect(e!.code, `${where}: ${JSON.stringify({ ...e, message: String(e!.message) })}`).toBe(declared[where]);
      expect(String(e!.message), where).toMatch(/task store is unavailable for a moment/);
      expect(String(e!.message), where).not.toMatch(/127\.0\.0\.1|ECONN|postgres|database system|:\d{4,5}/i);
      expect(e!.data, where).toMatchObject({ retryable: true });
    }
    await down;
    // Back: each serves again (a retry or two while it reconnects), the processes never left.
    for (const [where, start] of Object.entries(startOn)) {
      await eventuallyTrue(async () => start().then((r) => "task" in r, () => false), 30_000, where);
    }
    expect(alive(extChild)).toBe(true);
    expect(stdioErr).not.toMatch(/unhandled|Uncaught/i);
  }, 120_000);
});

async function eventuallyTrue(check: () => Promise<boolean>, withinMs: number, what = "the condition") {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(200);
  }
  throw new Error(`${what} did not hold within ${withinMs} ms`);
}
