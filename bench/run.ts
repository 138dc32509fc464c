/**
 * `npm run bench`: measure, write BENCHMARKS.md (and optionally a JSON twin).
 *
 *   tsx bench/run.ts [--quick] [--out FILE.md] [--json FILE.json] [--only a,b]
 *
 * A full run writes BENCHMARKS.md; a quick one bench/results/quick.md (rough figures stay out of the committed report).
 *
 * Areas: validators, transitions, generator, store, stores (SQLite and the
 * in-memory stores; PostgreSQL when MCP_TASK_GEN_PG_URL is set), e2e, load. `--quick` is a smoke
 * run (a few hundred ms per case) for CI; its figures are rough. Nothing here
 * asserts on a timing: a missed target is reported, never thrown.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { builtinSpecs } from "../generator/specs.js";
import { AREAS, parseArgs, type Area } from "./args.js";
import { settingsFor } from "./harness.js";
import { ROOT } from "./messages.js";
import { machine, markdown, type Report, type Section } from "./report.js";

const TITLES: Record<Area, string> = {
  validators: "Validators",
  transitions: "Transitions",
  generator: "The generator",
  store: "Task store",
  stores: "Task stores (durable and in memory)",
  e2e: "End to end",
  load: "Load",
  workers: "Worker pool (pg-boss on PostgreSQL)",
};

async function area(name: Area, specs: string[], quick: boolean): Promise<Section> {
  const s = settingsFor(quick);
  switch (name) {
    case "validators":
      return (await import("./validators.js")).runValidators(specs, s);
    case "transitions":
      return (await import("./transitions.js")).runTransitions(specs, s);
    case "generator":
      return (await import("./generator.js")).runGenerator(specs, s);
    case "store":
      return (await import("./store.js")).runStore(s);
    case "stores":
      return (await import("./stores.js")).runStores(s);
    case "e2e":
      return (await import("./e2e.js")).runE2e(s);
    case "load":
      return (await import("./load.js")).runLoad(quick);
    case "workers":
      return (await import("./workers.js")).runWorkers(s);
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const specs = builtinSpecs();
  const report: Report = {
    generatedAt: new Date().toISOString(),
    quick: o.quick,
    command: `npm ci && npm run bench${o.quick ? " -- --quick" : ""}    # = npm run build && tsx bench/run.ts${o.quick ? " --quick" : ""}`,
    machine: machine(),
    durationMs: 0,
    sections: [],
  };
  const failed: string[] = [];
  for (const name of o.only) {
    const a0 = performance.now();
    process.stderr.write(`bench: ${name}...\n`);
    let section: Section;
    try {
      section = await area(name, specs, o.quick);
    } catch (e) {
      // One broken area must not cost the others' figures: report it, and fail the run at the end.
      const msg = String((e as Error)?.message ?? e).split("\n").slice(0, 6).join(" ");
      process.stderr.write(`bench: ${name} FAILED: ${(e as Error)?.stack ?? e}\n`);
      failed.push(name);
      section = {
        id: name,
        title: TITLES[name],
        method: `**Not measured: this area failed in this run.** ${msg}`,
        tables: [],
        targets: [{ target: `${TITLES[name]}: every comparison`, bar: "–", measured: "–", status: "not measured yet", why: `the bench failed: ${msg.slice(0, 300)}` }],
        notes: [],
        figures: {},
      };
    }
    section.ms = performance.now() - a0;
    process.stderr.write(`bench: ${name} done in ${(section.ms / 1000).toFixed(1)} s\n`);
    report.sections.push(section);
  }
  report.durationMs = performance.now() - t0;
  report.machine.loadEnd = (await import("node:os")).loadavg().map((x) => Math.round(x * 100) / 100);
  mkdirSync(dirname(o.out), { recursive: true });
  writeFileSync(o.out, markdown(report));
  if (o.json) writeFileSync(o.json, JSON.stringify(report, null, 2) + "\n");
  process.stderr.write(`bench: wrote ${relative(process.cwd(), o.out) || o.out}${o.json ? ` and ${relative(process.cwd(), o.json)}` : ""} in ${(report.durationMs / 1000).toFixed(1)} s\n`);
  if (failed.length) throw new Error(`these areas failed: ${failed.join(", ")} (see above; the report marks them not measured)`);
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`bench: ${e?.stack ?? e}\n`);
    process.exit(1);
  },
);
