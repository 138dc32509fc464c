/** The command line of bench/run.ts. */
import { join, resolve } from "node:path";
import { ROOT } from "./messages.js";

export const AREAS = ["validators", "transitions", "generator", "store", "stores", "e2e", "load", "workers"] as const;
export type Area = (typeof AREAS)[number];

/** Where a run writes its report unless --out says: a quick run's rough figures never replace the committed BENCHMARKS.md. */
export function defaultOut(quick: boolean): string {
  return quick ? join(ROOT, "bench", "results", "quick.md") : join(ROOT, "BENCHMARKS.md");
}

export function parseArgs(argv: readonly string[]) {
  const o = { quick: false, out: undefined as string | undefined, json: undefined as string | undefined, only: [...AREAS] as Area[] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--quick") o.quick = true;
    else if (a === "--out") o.out = resolve(val());
    else if (a === "--json") o.json = resolve(val());
    else if (a === "--only") {
      const list = val().split(",").map((x) => x.trim()) as Area[];
      for (const x of list) if (!AREAS.includes(x)) throw new Error(`unknown area '${x}' (areas: ${AREAS.join(", ")})`);
      o.only = list;
    } else if (a === "--help" || a === "-h") {
      process.stdout.write("usage: tsx bench/run.ts [--quick] [--out FILE.md] [--json FILE.json] [--only " + AREAS.join(",") + "]\n");
      process.exit(0);
    } else throw new Error(`unknown argument '${a}'`);
  }
  return { ...o, out: o.out ?? defaultOut(o.quick) };
}
