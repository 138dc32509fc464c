/**
 * One composed spec through the whole chain: validate → generate → tsc → demo (Streamable HTTP on
 * 127.0.0.1) → conform. Shared by test/spec-composer.test.ts (a fixed-seed sample) and
 * scripts/compose-specs.ts (the long run).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { conform, type ConformReport } from "../../generator/conform/run.js";
import { hasErrors } from "../../generator/diagnostics.js";
import { compile } from "../../generator/pipeline.js";
import type { IR } from "../../generator/ir.js";
import { ALL } from "./spec-composer.js";
import { dump, Rand, type Doc } from "./spec-mutants.js";
import { ROOT } from "./cli.js";
import { checker } from "./typecheck.js";

export interface Draw {
  /** A built-in spec's name or a spec file under the repository. */
  base: string;
  kinds: string[];
  choices: number[];
}

export type Outcome =
  | { kind: "refused"; what: string; located: boolean; codes: string[] }
  | { kind: "tsc"; what: string; errors: string[] }
  | { kind: "demo"; what: string; why: string }
  | { kind: "conform"; what: string; report: ConformReport };

function baseFile(base: string): string {
  return base.includes("/") ? join(ROOT, base) : join(ROOT, "spec", `${base}.yaml`);
}

/** The composed document of a draw, and what was composed. */
export function composeDraw(d: Draw): { doc: Doc; what: string } {
  const doc = parseYaml(readFileSync(baseFile(d.base), "utf8")) as Doc;
  const rand = new Rand(d.choices);
  const what = `${d.base}: ${d.kinds.map((k) => ALL[k]!(doc, rand)).join("; ")}`;
  return { doc, what };
}

/**
 * The demo of spec `file` over Streamable HTTP on 127.0.0.1: its URL, and how to stop it. `generated`: where
 * the spec's code is generated already (the demo serves it from there instead of generating it again).
 */
export async function demoUrl(file: string, generated?: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const env = generated === undefined ? process.env : { ...process.env, MCP_TASK_GEN_DEMO_GENERATED: generated };
  const child = spawn(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "scripts/demo-server.ts"), file, "--http", "0"], { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo did not start in 120 s:\n${err.slice(-2000)}`)), 120_000);
    child.stderr!.on("data", (b: Buffer) => {
      err += b.toString();
      const m = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (${code}):\n${err.slice(-2000)}`));
    });
  }).catch(async (e: Error) => {
    await stop();
    throw e;
  });
  return { url, stop };
}

const checkers = new Map<string, ReturnType<typeof checker>>();

/**
 * Type-checks the generated files of several specs in one program, spec `i`'s under `dir/gen/<i>/` (the same
 * directory for every batch of a run, so the checker reuses what did not change, and one program resolves the
 * SDK's and zod's declarations once for the whole batch): each spec's errors. The runtime's own files are the
 * same for every spec and type-checked with the samples; the semantic check covers the specs' generated files.
 */
export function typecheckBatch(dir: string, specs: ReadonlyArray<ReadonlyArray<{ path: string; contents: string }>>): string[][] {
  const gen = join(dir, "gen");
  rmSync(gen, { recursive: true, force: true });
  specs.forEach((files, i) => {
    for (const f of files) {
      mkdirSync(dirname(join(gen, String(i), f.path)), { recursive: true });
      writeFileSync(join(gen, String(i), f.path), f.contents);
    }
  });
  if (!existsSync(join(dir, "tsconfig.json"))) {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }) + "\n");
    if (!existsSync(join(dir, "node_modules"))) symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const options = JSON.parse(readFileSync(join(ROOT, "output-samples", "tsconfig.json"), "utf8")) as { compilerOptions: object };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: options.compilerOptions, include: ["gen/**/*.ts"] }));
  }
  let check = checkers.get(dir);
  if (check === undefined) checkers.set(dir, (check = checker(dir)));
  const out = specs.map((): string[] => []);
  for (const e of check()) {
    const m = /^gen\/(\d+)\/(.*)$/.exec(e.file);
    // An error outside every spec's files (the options, a declaration file) is every spec's.
    const line = (file: string) => `${file}:${e.line} ${e.code} ${e.message}`;
    if (m) out[Number(m[1])]?.push(line(`gen/${m[2]}`));
    else for (const o of out) o.push(line(e.file));
  }
  return out;
}

/** A draw composed and compiled: refused by validate, or its generated files and spec file. */
export type Compiled = { d: Draw; what: string; file: string; ir: IR; files: ReadonlyArray<{ path: string; contents: string }> };
export type Prepared = { d: Draw; what: string; refused: Outcome & { kind: "refused" } } | Compiled;

/** Composes draw `d` into `dir/spec.yaml` and compiles it in memory. */
export async function prepareDraw(d: Draw, dir: string): Promise<Prepared> {
  const { doc, what } = composeDraw(d);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "spec.yaml");
  writeFileSync(file, dump(doc, false));
  const compiled = await compile({ file, text: readFileSync(file, "utf8") });
  if (compiled.ir === undefined || hasErrors(compiled.diagnostics) || compiled.files === undefined) {
    const errors = compiled.diagnostics.filter((x) => x.severity === "error");
    return { d, what, refused: { kind: "refused", what, located: errors.every((x) => x.location !== undefined), codes: [...new Set(errors.map((x) => x.code))] } };
  }
  return { d, what, file, ir: compiled.ir, files: compiled.files };
}

/** A compiled draw whose code type-checked: its demo (Streamable HTTP on 127.0.0.1) against its own conform. */
export async function serveDraw(p: Compiled, runs: number, seed: number, times: Record<string, number> = {}, regenerate = false): Promise<Outcome> {
  let at = Date.now();
  const lap = (phase: string) => {
    const now = Date.now();
    times[phase] = (times[phase] ?? 0) + now - at;
    at = now;
  };
  // The code the chain compiled and type-checked, beside a node_modules that holds the SDK and the runtime.
  const dir = dirname(p.file);
  const gen = join(dir, "gen");
  for (const f of p.files) {
    mkdirSync(dirname(join(gen, f.path)), { recursive: true });
    writeFileSync(join(gen, f.path), f.contents);
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }) + "\n");
  if (!existsSync(join(dir, "node_modules"))) symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  let server: Awaited<ReturnType<typeof demoUrl>>;
  try {
    server = await demoUrl(p.file, regenerate ? undefined : gen);
    lap("demo");
  } catch (e) {
    return { kind: "demo", what: p.what, why: (e as Error).message };
  }
  try {
    const report = await conform({ ir: p.ir, target: { url: server.url }, runs, seed });
    lap("conform");
    return { kind: "conform", what: p.what, report };
  } finally {
    await server.stop();
    lap("stop");
  }
}

/**
 * Runs draws through the chain, `batch` at a time: each is composed and compiled, the generated code of those
 * that validate is type-checked in one program (in `tscDir`, shared by the batches of a run), and each whose
 * code type-checks is served by its demo and conformed, `jobs` at once. Each draw's files are in `dirOf(i)`.
 * `onOutcome` hears each draw's outcome (in the order they end); `times` adds up the milliseconds of each
 * phase (compile, tsc, demo, conform, stop). The demo serves the code the chain type-checked, unless
 * `regenerate`: then it generates the spec file again on start, as `npm run demo -- spec.yaml` does.
 */
export async function runDraws(
  ds: readonly Draw[],
  dirOf: (i: number) => string,
  tscDir: string,
  opts: { runs?: number; seed?: number; batch?: number; jobs?: number; times?: Record<string, number>; onOutcome?: (i: number, o: Outcome) => void; regenerate?: boolean } = {},
): Promise<Outcome[]> {
  const { runs = 8, seed = 20261204, batch = 20, jobs = 1, times = {}, onOutcome, regenerate = false } = opts;
  mkdirSync(tscDir, { recursive: true });
  const out: Outcome[] = [];
  const done = (i: number, o: Outcome) => {
    out[i] = o;
    onOutcome?.(i, o);
  };
  for (let from = 0; from < ds.length; from += batch) {
    let at = Date.now();
    const prepared: Prepared[] = [];
    for (let i = from; i < Math.min(ds.length, from + batch); i++) prepared.push(await prepareDraw(ds[i]!, dirOf(i)));
    times.compile = (times.compile ?? 0) + Date.now() - at;
    at = Date.now();
    const valid = prepared.flatMap((p, k) => ("refused" in p ? [] : [{ p, i: from + k }]));
    const errors = typecheckBatch(tscDir, valid.map(({ p }) => p.files));
    times.tsc = (times.tsc ?? 0) + Date.now() - at;
    prepared.forEach((p, k) => {
      if ("refused" in p) done(from + k, p.refused);
    });
    const queue: Array<{ p: Compiled; i: number }> = [];
    valid.forEach((v, k) => {
      if (errors[k]!.length) done(v.i, { kind: "tsc", what: v.p.what, errors: errors[k]!.slice(0, 10) });
      else queue.push(v);
    });
    await Promise.all(
      Array.from({ length: Math.max(1, jobs) }, async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) done(next.i, await serveDraw(next.p, runs, seed, times, regenerate));
      }),
    );
  }
  return out;
}

/**
 * Runs draw `d` with its files in `dir`, type-checking in `tscDir` (shared by the draws of a run): the
 * outcome, never a throw for the spec's own failures. `times` adds up the milliseconds of each phase
 * (compile, tsc, demo, conform, stop).
 */
export async function runDraw(d: Draw, dir: string, tscDir: string, runs = 8, seed = 20261204, times: Record<string, number> = {}): Promise<Outcome> {
  const [o] = await runDraws([d], () => dir, tscDir, { runs, seed, times });
  return o!;
}
