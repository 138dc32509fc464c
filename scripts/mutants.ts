/**
 * npm run mutants [-- --only <text>] [--runs 20] [--seed N] [--json <file>]
 *
 * Runs conform against every mutant of the catalogue (scripts/mutants/catalogue.ts) and prints killed /
 * caught by another rule / survived / could not test, per mutant, per spec and per rule. Each demo group
 * first runs a control: the same proxy passing everything on, which must hold every rule.
 */
import { writeFileSync } from "node:fs";
import { CATALOGUE } from "./mutants/catalogue.js";
import { conformThrough, groups, runMutant, startDemo, type MutantResult } from "./mutants/run.js";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

const USAGE = `npm run mutants [-- options]
  --only <text>   only the mutants whose name contains <text> (e.g. lean/, jobs/resume)
  --runs <n>      conform runs per mutant (default 20)
  --seed <n>      conform's seed (default 20261204)
  --json <file>   also write the results as JSON
`;

async function main(): Promise<void> {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    process.stdout.write(USAGE);
    return;
  }
  const only = arg("--only");
  const runs = Number(arg("--runs") ?? 20);
  const seed = Number(arg("--seed") ?? 20261204);
  const json = arg("--json");
  const chosen = CATALOGUE.filter((m) => only === undefined || m.name.includes(only));
  const results: MutantResult[] = [];
  const controls: Array<{ spec: string; demo?: unknown; ok: boolean; rule?: string; message?: string }> = [];
  for (const g of groups(chosen)) {
    const demo = await startDemo(g.spec, g.demo);
    try {
      const control = await conformThrough(g.spec, demo, {}, { runs, seed });
      controls.push({ spec: g.spec, ...(g.demo ? { demo: g.demo } : {}), ok: control.ok, ...(control.failure ? { rule: control.failure.violation.rule, message: control.failure.violation.message } : {}) });
      process.stdout.write(`control ${g.spec} ${JSON.stringify(g.demo ?? {})}: ${control.ok ? "all rules held" : `FAILED ${control.failure?.violation.rule ?? ""}: ${control.failure?.violation.message ?? JSON.stringify(control.checks.filter((c) => !c.ok))}`}\n`);
      for (const m of g.mutants) {
        const r = control.ok ? await runMutant(m, demo, { runs, seed }) : { name: m.name, spec: m.spec, rules: m.rules, verdict: "could-not-test" as const, message: "the control failed", durationMs: 0 };
        results.push(r);
        process.stdout.write(`${r.verdict.padEnd(15)} ${m.name.padEnd(58)} ${m.rules.join("|").padEnd(28)} ${r.caughtBy ?? ""} ${(r.durationMs / 1000).toFixed(1)} s${r.verdict === "killed" ? "" : `  ${(r.message ?? "").slice(0, 160)}`}\n`);
      }
    } finally {
      await demo.stop();
    }
  }
  const table = (key: (r: MutantResult) => string[]) => {
    const rows = new Map<string, Record<string, number>>();
    for (const r of results) {
      for (const k of key(r)) {
        const row = rows.get(k) ?? { total: 0, killed: 0, "other-rule": 0, survived: 0, "could-not-test": 0 };
        row.total!++;
        row[r.verdict]!++;
        rows.set(k, row);
      }
    }
    return [...rows].sort(([a], [b]) => a.localeCompare(b));
  };
  const print = (title: string, rows: Array<[string, Record<string, number>]>) => {
    process.stdout.write(`\n| ${title} | mutants | killed | other rule | survived | could not test |\n| --- | --- | --- | --- | --- | --- |\n`);
    for (const [k, v] of rows) process.stdout.write(`| ${k} | ${v.total} | ${v.killed} | ${v["other-rule"]} | ${v.survived} | ${v["could-not-test"]} |\n`);
  };
  print("spec", table((r) => [r.spec]));
  print("rule", table((r) => r.rules));
  const killed = results.filter((r) => r.verdict === "killed").length;
  process.stdout.write(`\nkilled ${killed}/${results.length} (${((100 * killed) / Math.max(1, results.length)).toFixed(1)}%), --runs ${runs}, seed ${seed}\n`);
  for (const r of results.filter((x) => x.verdict !== "killed")) process.stdout.write(`  ${r.verdict}: ${r.name}${r.caughtBy ? ` (${r.caughtBy})` : ""}\n`);
  if (json) writeFileSync(json, JSON.stringify({ runs, seed, controls, results }, null, 2));
  process.exit(controls.every((c) => c.ok) ? 0 : 1);
}

main().catch((e: unknown) => {
  process.stderr.write(`mutants: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
