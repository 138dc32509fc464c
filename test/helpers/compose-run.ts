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

/** The demo of spec `file` over Streamable HTTP on 127.0.0.1: its URL, and how to stop it. */
export async function demoUrl(file: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(join(ROOT, "node_modules/.bin/tsx"), [join(ROOT, "scripts/demo-server.ts"), file, "--http", "0"], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
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
 * Type-checks generated files in `dir` (the same directory for every spec of a run, so the checker reuses
 * what did not change: the SDK's and zod's declarations). The runtime's own files are the same for every
 * spec and type-checked with the samples; the semantic check covers the spec's generated files.
 */
function typecheck(dir: string, files: ReadonlyArray<{ path: string; contents: string }>): string[] {
  const gen = join(dir, "gen");
  rmSync(gen, { recursive: true, force: true });
  for (const f of files) {
    mkdirSync(dirname(join(gen, f.path)), { recursive: true });
    writeFileSync(join(gen, f.path), f.contents);
  }
  if (!existsSync(join(dir, "tsconfig.json"))) {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }) + "\n");
    if (!existsSync(join(dir, "node_modules"))) symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const options = JSON.parse(readFileSync(join(ROOT, "output-samples", "tsconfig.json"), "utf8")) as { compilerOptions: object };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: options.compilerOptions, include: ["gen/**/*.ts"] }));
  }
  let check = checkers.get(dir);
  if (check === undefined) checkers.set(dir, (check = checker(dir)));
  return check().map((e) => `${e.file}:${e.line} ${e.code} ${e.message}`);
}

/**
 * Runs draw `d` with its files in `dir`, type-checking in `tscDir` (shared by the draws of a run): the
 * outcome, never a throw for the spec's own failures.
 */
export async function runDraw(d: Draw, dir: string, tscDir: string, runs = 8, seed = 20261204): Promise<Outcome> {
  const { doc, what } = composeDraw(d);
  mkdirSync(dir, { recursive: true });
  mkdirSync(tscDir, { recursive: true });
  const file = join(dir, "spec.yaml");
  writeFileSync(file, dump(doc, false));
  const compiled = await compile({ file, text: readFileSync(file, "utf8") });
  if (compiled.ir === undefined || hasErrors(compiled.diagnostics) || compiled.files === undefined) {
    const errors = compiled.diagnostics.filter((x) => x.severity === "error");
    return { kind: "refused", what, located: errors.every((x) => x.location !== undefined), codes: [...new Set(errors.map((x) => x.code))] };
  }
  const errors = typecheck(tscDir, compiled.files);
  if (errors.length) return { kind: "tsc", what, errors: errors.slice(0, 10) };
  let server: Awaited<ReturnType<typeof demoUrl>>;
  try {
    server = await demoUrl(file);
  } catch (e) {
    return { kind: "demo", what, why: (e as Error).message };
  }
  try {
    const report = await conform({ ir: compiled.ir, target: { url: server.url }, runs, seed });
    return { kind: "conform", what, report };
  } finally {
    await server.stop();
  }
}
