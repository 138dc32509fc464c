/**
 * Runs one measurement in a fresh process (isolated JIT and heap state, and
 * `--expose-gc` where heap sizes are measured) and prints its JSON result on
 * the last line of stdout.
 *
 *   node [tsx loader] [--expose-gc] bench/child.ts <job> <json args>
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./messages.js";

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

async function runJob(job: string, args: any): Promise<unknown> {
  switch (job) {
    case "validators":
      return (await import("./validators.js")).validatorsForSpec(args.spec, args.settings);
    case "transitions":
      return (await import("./transitions.js")).transitionsForSpec(args.spec, args.settings);
    case "store":
      return (await import("./store.js")).storeJob(args.settings);
    default:
      throw new Error(`unknown bench job ${job}`);
  }
}

if (process.argv[1] && process.argv[1].endsWith(join("bench", "child.ts"))) {
  const [job, args] = process.argv.slice(2);
  runJob(job, JSON.parse(args ?? "{}")).then(
    (r) => {
      process.stdout.write(`${RESULT_MARK}${JSON.stringify(r)}\n`);
      process.exit(0);
    },
    (e) => {
      process.stderr.write(`bench child ${job}: ${e?.stack ?? e}\n`);
      process.exit(1);
    },
  );
}
