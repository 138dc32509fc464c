/**
 * Runs conform against the demo server of a revision behind the mutating proxy with one mutant, over
 * stdio or Streamable HTTP, and turns conform's exit code into a verdict: killed (1, a violation),
 * survived (0, held), untestable (3, or no answer in time), error (anything else).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHttpProxy } from "./proxy.js";
import { AUTH_TOKENS, type Mutant, type Revision, type Transport } from "./mutant.js";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tsx = join(root, "node_modules", ".bin", "tsx");
const cli = join(root, "bin", "mcp-task-gen.js");
const proxyScript = join(root, "scripts", "statement-mutants", "proxy.ts");
const demoScript = join(root, "scripts", "demo-server.ts");

export type Verdict = "killed" | "survived" | "untestable" | "error";

export interface RunOptions {
  seed: number;
  /** conform's --runs; conform's default when undefined. */
  runs?: number;
  /** The longest a conform run may take before it counts as untestable. */
  timeoutMs?: number;
  /** A file the proxy appends every message to. */
  trace?: string;
}

export interface RunResult {
  mutant: string;
  statement: string;
  revision: Revision;
  transport: Transport;
  exit: number | null;
  verdict: Verdict;
  /** What conform reported broken (its rule names and messages, shortened), when it said so. */
  violations: string[];
  /** How many messages or HTTP exchanges the mutant changed: 0 means the bug never struck in the run. */
  hits: number;
  seconds: number;
}

/**
 * Where the proxy of one run records a mutant that threw (then the verdict is error, not a kill) and each change the
 * mutant made: files of that run alone, so that runs of one process may go on at the same time.
 */
let runsStarted = 0;
const runFiles = () => {
  const n = ++runsStarted;
  return { errorsFile: join(root, ".tmp", `statement-mutant-errors-${process.pid}-${n}.txt`), hitsFile: join(root, ".tmp", `statement-mutant-hits-${process.pid}-${n}.txt`) };
};

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export const verdictOf = (exit: number | null): Verdict =>
  exit === 1 ? "killed" : exit === 0 ? "survived" : exit === 3 || exit === null ? "untestable" : "error";

/** Ends a process group this module started. */
function stop(child: ChildProcess) {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    child.kill("SIGTERM");
  }
  const t = setTimeout(() => {
    try {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }, 3000);
  t.unref();
}

function runConform(args: string[], opts: RunOptions, { errorsFile, hitsFile }: ReturnType<typeof runFiles>): Promise<{ exit: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn("nice", ["-n", "10", process.execPath, cli, "conform", ...args], {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, STATEMENT_MUTANT_ERRORS: errorsFile, STATEMENT_MUTANT_HITS: hitsFile, ...(opts.trace ? { STATEMENT_MUTANT_TRACE: opts.trace } : {}) },
    });
    let stdout = "";
    child.stdout!.on("data", (c: Buffer) => (stdout.length < 4_000_000 ? (stdout += c.toString("utf8")) : undefined));
    child.stderr!.resume();
    const timer = setTimeout(() => stop(child), opts.timeoutMs ?? 300_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ exit: code, stdout });
    });
  });
}

/** The violations conform's JSON report names (rule and message), best effort. */
function violationsOf(stdout: string): string[] {
  try {
    const j = JSON.parse(stdout) as Record<string, unknown>;
    const out: string[] = [];
    const f = j.failure as { kind?: string; violation?: { rule?: string; message?: string } } | undefined;
    if (f?.violation) out.push(`${f.violation.rule}: ${f.violation.message}`);
    for (const c of Array.isArray(j.checks) ? j.checks : []) {
      const o = c as Record<string, unknown>;
      if (o.ok === false || o.passed === false || o.status === "fail" || o.verdict === "violation") out.push(`${String(o.rule ?? o.name ?? "")}: ${String(o.message ?? "")}`);
    }
    return out.map((x) => x.slice(0, 300)).slice(0, 5);
  } catch {
    return stdout.trim() ? [stdout.trim().split("\n").slice(0, 3).join(" | ").slice(0, 300)] : [];
  }
}

/** Starts the demo server of a revision over HTTP on a free port; resolves with its URL. */
function startDemoHttp(revision: Revision, auth = false): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const tokens = auth ? AUTH_TOKENS.flatMap((t) => ["--auth", t]) : [];
    const child = spawn("nice", ["-n", "10", tsx, demoScript, revision, "--http", "0", ...tokens], { cwd: root, detached: true, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    const timer = setTimeout(() => {
      stop(child);
      reject(new Error(`the demo server of ${revision} gave no URL in 120 s: ${err.slice(-500)}`));
    }, 120_000);
    child.stderr!.on("data", (c: Buffer) => {
      if (err.length < 100_000) err += c.toString("utf8");
      const m = /"url":"([^"]+)"/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo server of ${revision} ended (${code}): ${err.slice(-500)}`));
    });
  });
}

/** One conform run against the demo of `revision` behind the proxy applying `mutant` on `transport`. */
export async function runMutant(mutant: Mutant, revision: Revision, transport: Transport, opts: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const files = runFiles();
  const { errorsFile, hitsFile } = files;
  mkdirSync(dirname(errorsFile), { recursive: true });
  rmSync(errorsFile, { force: true });
  rmSync(hitsFile, { force: true });
  const common = ["--spec", revision, "--seed", String(opts.seed), "--json", ...(opts.runs !== undefined ? ["--runs", String(opts.runs)] : [])];
  let res: { exit: number | null; stdout: string };
  if (transport === "stdio") {
    const command = [tsx, proxyScript, "--mutant", mutant.name, "--", tsx, demoScript, revision].map(shq).join(" ");
    res = await runConform([...common, "--stdio", command], opts, files);
  } else {
    let demo: { url: string; child: ChildProcess } | undefined;
    try {
      demo = await startDemoHttp(revision, mutant.auth === true);
    } catch (e) {
      return { mutant: mutant.name, statement: mutant.statement, revision, transport, exit: null, verdict: "error", violations: [String(e)], hits: 0, seconds: 0 };
    }
    // The in-process proxy reads its files from the environment when it starts; the environment is then put back.
    const keys = ["STATEMENT_MUTANT_TRACE", "STATEMENT_MUTANT_ERRORS", "STATEMENT_MUTANT_HITS"] as const;
    const prev = keys.map((k) => process.env[k]);
    const set = (k: string, v: string | undefined) => (v === undefined ? delete process.env[k] : (process.env[k] = v));
    set("STATEMENT_MUTANT_TRACE", opts.trace);
    set("STATEMENT_MUTANT_ERRORS", errorsFile);
    set("STATEMENT_MUTANT_HITS", hitsFile);
    const proxy = await startHttpProxy({ upstream: demo.url, mutant });
    keys.forEach((k, i) => set(k, prev[i]));
    try {
      const principals = mutant.auth ? ["--header", `Authorization: Bearer ${AUTH_TOKENS[0]}`, "--other-header", `Authorization: Bearer ${AUTH_TOKENS[1]}`] : [];
      res = await runConform([...common, "--url", proxy.url, ...principals], opts, files);
    } finally {
      await proxy.close();
      stop(demo.child);
    }
  }
  const hits = existsSync(hitsFile) ? readFileSync(hitsFile, "utf8").split("\n").filter(Boolean).length : 0;
  const thrown = existsSync(errorsFile) ? readFileSync(errorsFile, "utf8").split("\n")[0]! : undefined;
  rmSync(errorsFile, { force: true });
  rmSync(hitsFile, { force: true });
  return {
    mutant: mutant.name,
    statement: mutant.statement,
    revision,
    transport,
    exit: res.exit,
    verdict: thrown ? "error" : verdictOf(res.exit),
    violations: thrown ? [`the mutant threw: ${thrown}`] : res.exit === 1 ? violationsOf(res.stdout) : [],
    hits,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}

/** A mutant's verdict over its transports: killed on any, else untestable on any, else error on any, else survived. */
export function combine(results: RunResult[]): Verdict {
  for (const v of ["killed", "untestable", "error"] as const) if (results.some((r) => r.verdict === v)) return v;
  return "survived";
}
