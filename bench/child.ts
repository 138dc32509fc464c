/**
 * Runs one measurement in a fresh process (isolated JIT and heap state, and
 * `--expose-gc` where heap sizes are measured) and prints its JSON result on
 * the last line of stdout. The process is started by inChild (bench/in-child.ts).
 *
 *   node [tsx loader] [--expose-gc] bench/child.ts <job> <json args>
 */
import { join } from "node:path";
import { RESULT_MARK } from "./in-child.js";

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
