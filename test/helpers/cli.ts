/**
 * Shared by the CLI, diagnostics and pack tests: run the real command in a
 * child process, make temp dirs that are removed afterwards, and recognise a
 * stack trace (which a user's mistake must never print).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = join(ROOT, "bin", "mcp-task-gen.js");

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command; never rejects on a non-zero exit. */
export function run(cmd: string, args: readonly string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...opts.env };
    // An undefined value unsets the variable.
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    child.on("error", (e) => (clearTimeout(timer), reject(e)));
    child.on("close", (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

let cache: string | undefined;

/**
 * The generator's no-change cache (see generator/fastpath.ts) for this test
 * process: a temp dir, so tests exercise it without writing to the project.
 */
export function cacheDir(): string {
  return (cache ??= mkdtempSync(join(tmpdir(), "mcp-task-gen-test-cache-")));
}

/** Run `node bin/mcp-task-gen.js ...args` in `cwd`. */
export function cli(args: readonly string[], cwd: string): Promise<Run> {
  return run(process.execPath, [BIN, ...args], { cwd, env: { MCP_TASK_GEN_CACHE: cacheDir() } });
}

let traces = 0;

/**
 * Like cli(), and also lists the modules the run loaded (test/helpers/trace-loads.mjs), as paths
 * relative to the package root, e.g. "dist/generator/pipeline.js": whether a run compiled, untimed.
 */
export async function cliTraced(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run & { loaded: string[] }> {
  const file = join(cacheDir(), `trace-${traces++}.txt`);
  const r = await run(process.execPath, ["--import", join(ROOT, "test", "helpers", "trace-loads.mjs"), BIN, ...args], {
    cwd,
    env: { MCP_TASK_GEN_CACHE: cacheDir(), MCP_TASK_GEN_TEST_TRACE_LOADS: file, ...env },
  });
  const loaded = existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((u) => u.startsWith("file://"))
        .map((u) => fileURLToPath(u))
        .filter((p) => p.startsWith(ROOT))
        .map((p) => p.slice(ROOT.length).split("\\").join("/"))
    : [];
  rmSync(file, { force: true });
  return { ...r, loaded: [...new Set(loaded)] };
}

/** A V8 stack frame ("    at fn (file:1:2)") or the CLI's internal-error banner. */
export const STACK_TRACE = /^\s+at .+(:\d+:\d+\)?|<anonymous>\)?|native\)?)$|internal error/m;

/** A fresh directory under the OS temp dir; `cleanup` removes every one made so far. */
export function tempDirs(prefix = "mcp-task-gen-test-") {
  const made: string[] = [];
  const removeAll = () => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    if (cache) rmSync(cache, { recursive: true, force: true });
    cache = undefined;
  };
  // Also when the worker ends without running afterAll (a run stopped early).
  process.once("exit", removeAll);
  return {
    make(): string {
      const d = mkdtempSync(join(tmpdir(), prefix));
      made.push(d);
      return d;
    },
    /** Removes the dirs, and the stamp cache of this test process. */
    cleanup(): void {
      removeAll();
    },
  };
}
