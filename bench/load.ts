/**
 * Load: many working tasks held by one server, and how it still answers. For each built-in spec,
 * the demo server (`npm run demo -- <spec>`, stdio, in-memory store) is started as a child process
 * and sent raw JSON-RPC lines: N task-augmented `slow_compute` calls that keep working for an hour,
 * then sequential liveness requests (ping; server/discover where the lifecycle is per request).
 * Reported: the child's resident set (VmRSS from /proc) before and after, per working task, and the
 * liveness round-trip percentiles while the tasks work. Figures only: nothing here asserts.
 *
 * Over Streamable HTTP too (mcp-2025-11-25 and ext-tasks-2026-07-28; sep-1686-draft answers a task's
 * request only when the task ends, an open stream per task): the same tasks created by POSTs, 50 at a
 * time, and the same liveness requests. And the cost of a large params object over HTTP: the time
 * to answer a request whose params have 5,000 or 50,000 extra keys, as ratios against the same request
 * without them, measured in the same server (medians of interleaved rounds).
 *
 * `--scaffold`: the same HTTP load on a server as users run it (see buildScaffold): `init` from this
 * checkout, installed and compiled, run by node without tsx, which the demo runs under.
 *
 *   tsx bench/load.ts [--tasks N] [--pings N] [--spec name] [--http] [--scaffold] [--keys]   (also area "load" of bench/run.ts)
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Section, Table, TargetResult } from "./report.js";

const ROOT = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const SPECS = ["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"];
const PV = "2026-07-28";
const RSS_BAR_MB = 300;
const P99_BAR_MS = 50;
// Limits out of the way: this measures holding tasks, not refusing them.
const OPTIONS = {
  maxKeepAlive: 86_400_000,
  limits: { maxConcurrentPerRequestor: 1e9, createPerMinute: 1e9, pollPerMinute: 1e9, resultPerMinute: 1e9, listPerMinute: 1e9 },
};

type Msg = Record<string, any>;

interface LoadFigures {
  spec: string;
  tasks: number;
  rssIdleMb: number;
  rssLoadedMb: number;
  perTaskKb: number;
  pingP50Ms: number;
  pingP99Ms: number;
  pingMaxMs: number;
  createSeconds: number;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

class Child {
  readonly proc: ChildProcess;
  private buf = "";
  private waiters = new Map<string | number, (m: Msg) => void>();
  /** Task creations acknowledged by notification (the request is answered only when the task ends). */
  created = 0;

  constructor(spec: string, args: string[] = [], options: Record<string, unknown> = OPTIONS, proc?: ChildProcess) {
    this.proc =
      proc ??
      spawn(process.execPath, ["--import", "tsx", join(ROOT, "scripts", "demo-server.ts"), spec, ...args], {
        cwd: ROOT,
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify(options) },
      });
    this.proc.stdout!.setEncoding("utf8");
    this.proc.stdout!.on("data", (d: string) => {
      this.buf += d;
      for (let nl = this.buf.indexOf("\n"); nl !== -1; nl = this.buf.indexOf("\n")) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        const m = JSON.parse(line) as Msg;
        if (m.method === "notifications/tasks/created") this.created++;
        const w = m.id === undefined ? undefined : this.waiters.get(m.id);
        if (w) {
          this.waiters.delete(m.id);
          w(m);
        }
      }
    });
    this.proc.stderr!.resume();
  }

  /** Resolves once serving: with the URL where it listens over HTTP. */
  ready(): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      let err = "";
      this.proc.stderr!.setEncoding("utf8");
      this.proc.stderr!.on("data", (d: string) => {
        if (err.length < 20_000) err += d;
        if (err.includes('"serving on stdio"')) resolve(undefined);
        const url = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(err)?.[1];
        if (url !== undefined) resolve(url);
      });
      this.proc.once("exit", (code) => reject(new Error(`demo server exited ${code}: ${err.slice(-1000)}`)));
    });
  }

  write(m: Msg): void {
    this.proc.stdin!.write(JSON.stringify(m) + "\n");
  }

  call(m: Msg): Promise<Msg> {
    return new Promise((resolve) => {
      this.waiters.set(m.id, resolve);
      this.write(m);
    });
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise((r) => this.proc.once("exit", r));
    this.proc.kill("SIGTERM");
    await exited;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function measureLoad(spec: string, tasks: number, pings: number): Promise<LoadFigures> {
  const ext = spec === "ext-tasks-2026-07-28";
  const meta: Msg = ext
    ? {
        "io.modelcontextprotocol/protocolVersion": PV,
        "io.modelcontextprotocol/clientInfo": { name: "load", version: "0" },
        "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
      }
    : {};
  const liveness = ext ? "server/discover" : "ping";
  const child = new Child(spec);
  try {
    await child.ready();
    if (!ext) {
      await child.call({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "load", version: "0" } } });
      child.write({ jsonrpc: "2.0", method: "notifications/initialized" });
    }
    // Warm: the code paths loaded, then the idle footprint.
    for (let i = 0; i < 50; i++) await child.call({ jsonrpc: "2.0", id: `warm-${i}`, method: liveness, params: { _meta: meta } });
    await sleep(300);
    const pid = child.proc.pid!;
    const rssIdleMb = rssMb(pid);
    const t0 = performance.now();
    const BATCH = 500;
    for (let start = 0; start < tasks; start += BATCH) {
      const pending: Promise<Msg>[] = [];
      for (let i = start; i < Math.min(tasks, start + BATCH); i++) {
        const params: Msg = { name: "slow_compute", arguments: { seconds: 3600 }, _meta: { ...meta } };
        if (spec === "sep-1686-draft") params._meta["modelcontextprotocol.io/task"] = { taskId: `load-${i}` };
        if (spec === "mcp-2025-11-25") params.task = { ttl: 86_400_000 };
        const m = { jsonrpc: "2.0", id: `t-${i}`, method: "tools/call", params };
        // The seed answers the request when the task ends: its creation is acknowledged by notification.
        if (spec === "sep-1686-draft") child.write(m);
        else pending.push(child.call(m));
      }
      const answers = await Promise.all(pending);
      const refused = answers.find((a) => "error" in a);
      if (refused) throw new Error(`${spec}: a task was refused: ${JSON.stringify(refused.error)}`);
      if (spec === "sep-1686-draft") while (child.created < Math.min(tasks, start + BATCH)) await sleep(5);
    }
    const createSeconds = (performance.now() - t0) / 1000;
    await sleep(500);
    const times: number[] = [];
    for (let i = 0; i < pings; i++) {
      const s = performance.now();
      await child.call({ jsonrpc: "2.0", id: `p-${i}`, method: liveness, params: { _meta: meta } });
      times.push(performance.now() - s);
    }
    const rssLoadedMb = rssMb(pid);
    times.sort((a, b) => a - b);
    return {
      spec,
      tasks,
      rssIdleMb,
      rssLoadedMb,
      perTaskKb: ((rssLoadedMb - rssIdleMb) * 1024) / tasks,
      pingP50Ms: quantile(times, 0.5),
      pingP99Ms: quantile(times, 0.99),
      pingMaxMs: times[times.length - 1]!,
      createSeconds,
    };
  } finally {
    await child.close();
  }
}


/** A Streamable HTTP requestor of one demo server: one session where the spec has sessions. */
class HttpRequestor {
  private readonly headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };

  constructor(
    private readonly url: string,
    private readonly ext: boolean,
  ) {
    if (ext) this.headers["mcp-protocol-version"] = PV;
  }

  async open(): Promise<void> {
    if (this.ext) return;
    const r = await fetch(this.url, {
      method: "POST",
      headers: this.headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "load", version: "0" } } }),
    });
    this.headers["mcp-session-id"] = r.headers.get("mcp-session-id")!;
    await r.text();
    await (await fetch(this.url, { method: "POST", headers: this.headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })).text();
  }

  /** The request's answer (the first JSON-RPC answer of an SSE stream). */
  async call(m: Msg, name?: string): Promise<Msg> {
    const headers = { ...this.headers };
    if (this.ext) {
      headers["mcp-method"] = m.method;
      if (name !== undefined) headers["mcp-name"] = name;
    }
    const r = await fetch(this.url, { method: "POST", headers, body: JSON.stringify(m) });
    const text = await r.text();
    if ((r.headers.get("content-type") ?? "").includes("text/event-stream")) {
      for (const line of text.split("\n")) {
        if (!line.startsWith("data: ")) continue;
        const msg = JSON.parse(line.slice(6)) as Msg;
        if ("result" in msg || "error" in msg) return msg;
      }
      throw new Error(`no answer in the stream: ${text.slice(0, 200)}`);
    }
    return JSON.parse(text) as Msg;
  }
}

function metaOf(ext: boolean): Msg {
  return ext
    ? {
        "io.modelcontextprotocol/protocolVersion": PV,
        "io.modelcontextprotocol/clientInfo": { name: "load", version: "0" },
        "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
      }
    : {};
}

/** What holds the tasks: the demo (under tsx) by default, or a built scaffold project and its tool. */
interface HttpTarget {
  start: () => Child;
  tool: { name: string; arguments: Record<string, unknown> };
}

const demoTarget = (spec: string): HttpTarget => ({
  start: () => new Child(spec, ["--http", "0"]),
  tool: { name: "slow_compute", arguments: { seconds: 3600 } },
});

/**
 * A server as its users run it: `mcp-task-gen init <dir> --spec <spec> --transport http` from this
 * checkout, installed (`npm install`, the runtime package from the tarball init vendors), compiled by its
 * own `npm run build` and started with `node dist/src/server.js`: no tsx, the runtime's build. The limits
 * are raised as the demo's are (one line of src/server.ts); the tasks are the scaffold's `echo` tool with
 * a 10-minute delay. Returns the project's folder; the caller removes its parent.
 */
export function buildScaffold(spec: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), "mtg-load-")), "srv");
  const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "ignore", "inherit"] });
  run(process.execPath, [join(ROOT, "bin", "mcp-task-gen.js"), "init", dir, "--spec", spec, "--transport", "http"], ROOT);
  const server = join(dir, "src", "server.ts");
  const line = "new TaskRuntime(await runtimeOptions(process.env.TASK_STORE ?? DEFAULT_STORE))";
  const text = readFileSync(server, "utf8");
  if (!text.includes(line)) throw new Error(`${server}: the line that makes the runtime changed; update buildScaffold`);
  writeFileSync(server, text.replace(line, `new TaskRuntime({ ...(await runtimeOptions(process.env.TASK_STORE ?? DEFAULT_STORE)), ...${JSON.stringify(OPTIONS)} })`));
  run("npm", ["install", "--no-audit", "--no-fund"], dir);
  run("npm", ["run", "build"], dir);
  return dir;
}

const scaffoldTarget = (dir: string): HttpTarget => ({
  start: () =>
    new Child("", [], {}, spawn(process.execPath, ["dist/src/server.js"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, PORT: "0", TASK_STORE: "memory" } })),
  tool: { name: "echo", arguments: { message: "load", delayMs: 600_000 } },
});

/** measureLoad over Streamable HTTP (mcp-2025-11-25 and ext-tasks-2026-07-28), on the demo or `target`. */
export async function measureLoadHttp(spec: string, tasks: number, pings: number, target: HttpTarget = demoTarget(spec)): Promise<LoadFigures> {
  const ext = spec === "ext-tasks-2026-07-28";
  const meta = metaOf(ext);
  const liveness = ext ? "server/discover" : "ping";
  const child = target.start();
  try {
    const req = new HttpRequestor((await child.ready())!, ext);
    await req.open();
    for (let i = 0; i < 50; i++) await req.call({ jsonrpc: "2.0", id: `warm-${i}`, method: liveness, params: { _meta: meta } });
    await sleep(300);
    const pid = child.proc.pid!;
    const rssIdleMb = rssMb(pid);
    const t0 = performance.now();
    let next = 0;
    const creator = async () => {
      for (let i = next++; i < tasks; i = next++) {
        const params: Msg = { ...target.tool, _meta: { ...meta } };
        if (!ext) params.task = { ttl: 86_400_000 };
        const a = await req.call({ jsonrpc: "2.0", id: `t-${i}`, method: "tools/call", params }, target.tool.name);
        if (!("result" in a)) throw new Error(`${spec}: a task was refused: ${JSON.stringify(a)}`);
      }
    };
    await Promise.all(Array.from({ length: 50 }, creator));
    const createSeconds = (performance.now() - t0) / 1000;
    await sleep(500);
    const times: number[] = [];
    for (let i = 0; i < pings; i++) {
      const s = performance.now();
      await req.call({ jsonrpc: "2.0", id: `p-${i}`, method: liveness, params: { _meta: meta } });
      times.push(performance.now() - s);
    }
    const rssLoadedMb = rssMb(pid);
    times.sort((a, b) => a - b);
    return {
      spec,
      tasks,
      rssIdleMb,
      rssLoadedMb,
      perTaskKb: ((rssLoadedMb - rssIdleMb) * 1024) / tasks,
      pingP50Ms: quantile(times, 0.5),
      pingP99Ms: quantile(times, 0.99),
      pingMaxMs: times[times.length - 1]!,
      createSeconds,
    };
  } finally {
    await child.close();
  }
}

/** The servers the params-keys cost is measured on: ext-tasks-2026-07-28 also with its key limit lifted. */
const KEY_RUNS: [string, Record<string, unknown>][] = [
  ["sep-1686-draft", {}],
  ["mcp-2025-11-25", {}],
  ["ext-tasks-2026-07-28", {}],
  ["ext-tasks-2026-07-28", { http: { maxParamsKeys: 1e9 } }],
];

interface KeysFigures {
  /** spec, with "(limit raised)" where the server's params key limit was lifted. */
  label: string;
  baselineMs: number;
  ms5k: number;
  ms50k: number;
  /** How the 50,000-key request was answered: a result, or the error code. */
  answer50k: string;
}

/**
 * The time to answer a tools/call of `greet` (answered at once) whose params carry 5,000 or 50,000
 * extra keys, and the same call without them (the baseline), in one server over HTTP: `rounds`
 * interleaved rounds, medians.
 */
export async function measureParamsKeys(spec: string, rounds: number, options: Record<string, unknown> = {}): Promise<KeysFigures> {
  const ext = spec === "ext-tasks-2026-07-28";
  const meta = metaOf(ext);
  const child = new Child(spec, ["--http", "0"], { ...OPTIONS, ...options });
  try {
    const req = new HttpRequestor((await child.ready())!, ext);
    await req.open();
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    const extra = { 0: {}, 5000: many(5000), 50000: many(50000) };
    const call = (keys: 0 | 5000 | 50000, id: string) =>
      req.call({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "greet", arguments: { name: "Ada" }, _meta: meta, ...extra[keys] } }, "greet");
    for (let i = 0; i < 3; i++) for (const k of [0, 5000, 50000] as const) await call(k, `warm-${k}-${i}`);
    const times: Record<number, number[]> = { 0: [], 5000: [], 50000: [] };
    let answer50k = "";
    for (let r = 0; r < rounds; r++) {
      for (const k of [0, 5000, 50000] as const) {
        const s = performance.now();
        const a = await call(k, `r-${k}-${r}`);
        times[k]!.push(performance.now() - s);
        if (k === 50000) answer50k = "result" in a ? "result" : `error ${a.error?.code}`;
        else if (!("result" in a)) throw new Error(`${spec}: ${k} keys refused: ${JSON.stringify(a).slice(0, 300)}`);
      }
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    return { label: spec, baselineMs: median(times[0]!), ms5k: median(times[5000]!), ms50k: median(times[50000]!), answer50k };
  } finally {
    await child.close();
  }
}

const f1 = (n: number) => (Math.round(n * 10) / 10).toFixed(1);
const f2 = (n: number) => (Math.round(n * 100) / 100).toFixed(2);

export async function runLoad(quick: boolean, specs: readonly string[] = SPECS): Promise<Section> {
  const tasks = quick ? 500 : 10_000;
  const pings = quick ? 100 : 2_000;
  const results: LoadFigures[] = [];
  for (const spec of specs) {
    process.stderr.write(`bench: load ${spec} (${tasks} tasks)...\n`);
    results.push(await measureLoad(spec, tasks, pings));
  }
  const table: Table = {
    title: `${tasks} working tasks held by the demo server over stdio (in-memory store)`,
    columns: ["spec", "RSS idle (MB)", "RSS with the tasks (MB)", "per working task (KB)", "liveness p50 (ms)", "p99 (ms)", "max (ms)", "creating them (s)"],
    rows: results.map((r) => [r.spec, f1(r.rssIdleMb), f1(r.rssLoadedMb), f1(r.perTaskKb), f2(r.pingP50Ms), f2(r.pingP99Ms), f2(r.pingMaxMs), f1(r.createSeconds)]),
  };
  const targets: TargetResult[] = [];
  if (!quick) {
    for (const r of results) {
      targets.push({
        target: `RSS with ${r.tasks} working tasks (${r.spec})`,
        bar: `< ${RSS_BAR_MB} MB`,
        measured: `${f1(r.rssLoadedMb)} MB`,
        status: r.rssLoadedMb < RSS_BAR_MB ? "met" : "missed",
      });
      targets.push({
        target: `liveness p99 over stdio with ${r.tasks} working tasks (${r.spec})`,
        bar: `< ${P99_BAR_MS} ms`,
        measured: `${f2(r.pingP99Ms)} ms`,
        status: r.pingP99Ms < P99_BAR_MS ? "met" : "missed",
      });
    }
  }
  const figures: Record<string, number> = {};
  for (const r of results) {
    figures[`load.${r.spec}.rssMb`] = Math.round(r.rssLoadedMb * 10) / 10;
    figures[`load.${r.spec}.perTaskKb`] = Math.round(r.perTaskKb * 10) / 10;
    figures[`load.${r.spec}.pingP99Ms`] = Math.round(r.pingP99Ms * 100) / 100;
  }
  return {
    id: "load",
    title: "Load",
    method:
      `The demo server of each spec (\`npm run demo -- <spec>\`, stdio, in-memory store, limits raised) in a child process, ` +
      `driven with raw JSON-RPC lines: ${tasks} task-augmented \`slow_compute\` calls that keep working for an hour ` +
      `(sent 500 at a time), then ${pings} sequential liveness requests (ping; \`server/discover\` for the per-request lifecycle) ` +
      `while the tasks work. RSS is the child's VmRSS (/proc) after 50 warm-up requests and again after the liveness requests. ` +
      "`tsx bench/load.ts` runs it alone.",
    tables: [table],
    targets,
    notes: [],
    figures,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const argv = process.argv.slice(2);
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const tasks = Number(arg("--tasks") ?? 10_000);
  const pings = Number(arg("--pings") ?? 2_000);
  const specs = arg("--spec") ? [arg("--spec")!] : SPECS;
  const http = argv.includes("--http");
  (async () => {
    if (argv.includes("--keys")) {
      for (const [spec, options] of KEY_RUNS) {
        if (!specs.includes(spec)) continue;
        const k = await measureParamsKeys(spec, Number(arg("--rounds") ?? 15), options);
        process.stdout.write(
          `${spec}${options.http ? " (key limit raised)" : ""}: baseline ${f1(k.baselineMs)} ms; 5,000 keys ${f1(k.ms5k)} ms (${f1(k.ms5k / k.baselineMs)}x); ` +
            `50,000 keys ${f1(k.ms50k)} ms (${f1(k.ms50k / k.baselineMs)}x, ${k.answer50k}); 50,000 / 5,000 = ${f1(k.ms50k / k.ms5k)}\n`,
        );
      }
      return;
    }
    const scaffold = argv.includes("--scaffold");
    for (const spec of specs) {
      if ((http || scaffold) && spec === "sep-1686-draft") continue;
      let r: LoadFigures;
      if (scaffold) {
        process.stderr.write(`load: building a scaffold of ${spec} (init, npm install, npm run build)...\n`);
        const dir = buildScaffold(spec);
        try {
          r = await measureLoadHttp(spec, tasks, pings, scaffoldTarget(dir));
        } finally {
          rmSync(join(dir, ".."), { recursive: true, force: true });
        }
      } else r = await (http ? measureLoadHttp : measureLoad)(spec, tasks, pings);
      process.stdout.write(
        `${spec}${scaffold ? " (HTTP, built scaffold)" : http ? " (HTTP)" : ""}: ${tasks} working tasks; RSS ${f1(r.rssIdleMb)} -> ${f1(r.rssLoadedMb)} MB (${f1(r.perTaskKb)} KB/task); ` +
          `liveness p50 ${f2(r.pingP50Ms)} ms, p99 ${f2(r.pingP99Ms)} ms, max ${f2(r.pingMaxMs)} ms; created in ${f1(r.createSeconds)} s\n`,
      );
    }
  })().catch((e) => {
    process.stderr.write(`load: ${e?.stack ?? e}\n`);
    process.exit(1);
  });
}
