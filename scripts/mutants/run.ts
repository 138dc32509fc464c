/**
 * Runs `conform` against each mutant of the catalogue: the demo server of the mutant's spec over Streamable
 * HTTP on 127.0.0.1, the mutant's proxy in front of it, conform in this process. A mutant is killed when
 * conform breaks one of the rules the mutant names (a time-out is not a kill); caught by another rule is
 * reported apart; could-not-test when the control (the same proxy passing everything on) fails or the
 * server could not be reached.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { analyze } from "../../generator/pipeline.js";
import { resolveSpec } from "../../generator/specs.js";
import { conform, type ConformReport } from "../../generator/conform/run.js";
import type { IR } from "../../generator/ir.js";
import { startProxy } from "./proxy.js";
import type { Mutant } from "./catalogue.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const TSX = join(ROOT, "node_modules/.bin/tsx");
const DEMO = join(ROOT, "scripts/demo-server.ts");

export type Verdict = "killed" | "other-rule" | "survived" | "could-not-test";

export interface MutantResult {
  name: string;
  spec: string;
  rules: string[];
  verdict: Verdict;
  /** The rule conform reported broken, if any. */
  caughtBy?: string;
  message?: string;
  durationMs: number;
}

/** The spec argument of a mutant: a built-in name, or a fixture spec file. */
export function specPath(spec: string): string {
  return /^(sep-|mcp-|ext-)/.test(spec) ? spec : join(ROOT, "test/fixtures/specs", `${spec}.yaml`);
}

const irs = new Map<string, IR>();
export function irOf(spec: string): IR {
  let ir = irs.get(spec);
  if (ir) return ir;
  const r = resolveSpec(specPath(spec), ROOT);
  if (!r.ok) throw new Error(r.message);
  const a = analyze(r.source);
  if (!a.ir) throw new Error(`${spec}: does not compile`);
  irs.set(spec, (ir = a.ir));
  return ir;
}

export interface Demo {
  url: string;
  stop(): Promise<void>;
}

/** The demo server of a spec over HTTP on a free port. */
export async function startDemo(spec: string, options?: Record<string, unknown>): Promise<Demo> {
  const child: ChildProcess = spawn(TSX, [DEMO, specPath(spec), "--http", "0", ...(options ? ["--options", JSON.stringify(options)] : [])], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo ${spec} did not start in 90 s:\n${err}`)), 90_000);
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString("utf8");
      if (err.length > 100_000) err = err.slice(-50_000);
      const m = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`demo ${spec} exited (${code}):\n${err}`));
    });
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Whether a report's failure is the time it waited rather than a rule's verdict. */
function timedOut(r: ConformReport): boolean {
  return r.failure !== undefined && /no answer within the time allowed|no answer in time/.test(`${r.failure.violation.message} ${JSON.stringify(r.failure.violation.observed ?? "")}`);
}

function brokenRule(r: ConformReport): string | undefined {
  if (r.failure) return r.failure.violation.rule;
  return r.checks.find((c) => !c.ok)?.rule;
}

export function classify(m: Pick<Mutant, "rules">, r: ConformReport): { verdict: Verdict; caughtBy?: string; message?: string } {
  if (r.ok) return { verdict: "survived" };
  const rules = new Set([...(r.failure ? [r.failure.violation.rule] : []), ...r.checks.filter((c) => !c.ok).map((c) => c.rule)]);
  const message = r.failure?.violation.message ?? r.checks.find((c) => !c.ok)?.message;
  const hit = [...rules].find((x) => m.rules.includes(x));
  if (hit !== undefined && !(r.failure && hit === r.failure.violation.rule && timedOut(r))) return { verdict: "killed", caughtBy: hit, ...(message ? { message } : {}) };
  const broken = brokenRule(r);
  if (broken === "tester" || broken === "http" || timedOut(r)) return { verdict: "could-not-test", ...(broken ? { caughtBy: broken } : {}), ...(message ? { message } : {}) };
  return { verdict: "other-rule", ...(broken ? { caughtBy: broken } : {}), ...(message ? { message } : {}) };
}

export interface RunOptions {
  runs?: number;
  seed?: number;
}

/** conform through a proxy with `hooks` in front of `demo`. */
export async function conformThrough(spec: string, demo: Demo, m: Pick<Mutant, "onRequest" | "onMessage" | "onHttp" | "forwardHeaders">, opts: RunOptions): Promise<ConformReport> {
  const proxy = await startProxy(demo.url, m);
  try {
    return await conform({ ir: irOf(spec), target: { url: proxy.url }, runs: opts.runs ?? 20, seed: opts.seed ?? 20261204, timeLimitMs: 240_000 });
  } finally {
    await proxy.close();
  }
}

export async function runMutant(m: Mutant, demo: Demo, opts: RunOptions): Promise<MutantResult> {
  const started = Date.now();
  const r = await conformThrough(m.spec, demo, m, opts);
  return { name: m.name, spec: m.spec, rules: m.rules, ...classify(m, r), durationMs: Date.now() - started };
}

/** Demo groups: one server per spec and demo options. */
export function groups(ms: readonly Mutant[]): Array<{ spec: string; demo?: Record<string, unknown>; mutants: Mutant[] }> {
  const out = new Map<string, { spec: string; demo?: Record<string, unknown>; mutants: Mutant[] }>();
  for (const m of ms) {
    const k = `${m.spec} ${JSON.stringify(m.demo ?? {})}`;
    const g = out.get(k) ?? { spec: m.spec, ...(m.demo ? { demo: m.demo } : {}), mutants: [] };
    g.mutants.push(m);
    out.set(k, g);
  }
  return [...out.values()];
}
