/**
 * Runs one measurement in a fresh process: spawns bench/child.ts with the job's name and arguments, and
 * reads back the JSON result it prints on the last line of stdout. The benches that measure in a child
 * import this module, never child.ts itself (which imports them).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./messages.js";

/** The mark of the line on which the child prints its result. */
export const RESULT_MARK = "BENCH-RESULT ";

/** Runs `job` in a child process; resolves to what the job returned. */
export function inChild<T>(job: string, args: unknown, opts: { exposeGc?: boolean } = {}): Promise<T> {
  const loader = process.execArgv.some((a) => a.includes("tsx")) ? process.execArgv : ["--import", "tsx"];
  const argv = [...loader, ...(opts.exposeGc ? ["--expose-gc"] : []), join(ROOT, "bench", "child.ts"), job, JSON.stringify(args)];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      err += d;
      process.stderr.write(d);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const line = out.split("\n").find((l) => l.startsWith(RESULT_MARK));
      if (code !== 0 || !line) return reject(new Error(`bench child ${job} exited ${code}: ${err.slice(-2000)}`));
      resolve(JSON.parse(line.slice(RESULT_MARK.length)) as T);
    });
  });
}
