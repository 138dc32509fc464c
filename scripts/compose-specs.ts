/**
 * The long run of composed specs: draws specs the way users compose them (test/helpers/spec-composer.ts)
 * from every built-in and fixture spec, and takes each valid one through validate → generate → tsc →
 * demo → conform (test/helpers/compose-run.ts). Prints one line per spec and a summary; a failure is a
 * spec that validates but whose code does not type-check, whose demo does not start, or whose demo
 * does not pass its own conform (or a refusal without located errors).
 *
 * The generated code of `--batch` specs at a time is type-checked in one program; `--jobs` demos are served
 * and conformed at once.
 *
 *   npx tsx scripts/compose-specs.ts [--count 500] [--seed 20261204] [--from 0] [--runs 8] [--batch 20] [--jobs 1] [--out results.jsonl]
 */
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDraws, type Outcome } from "../test/helpers/compose-run.js";
import { draws } from "./compose-specs-draws.js";
import { ensureBuilt } from "./ensure-built.mjs";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const count = Number(args.get("count") ?? 500);
const seed = Number(args.get("seed") ?? 20261204);
const from = Number(args.get("from") ?? 0);
const runs = Number(args.get("runs") ?? 8);
const batch = Number(args.get("batch") ?? 20);
const jobs = Number(args.get("jobs") ?? 1);
const out = args.get("out");

// The demo runs the CLI (dist/), and the type check resolves the runtime package to its build.
ensureBuilt();

const tally: Record<string, number> = {};
const work = mkdtempSync(join(tmpdir(), "compose-specs-"));
const all = draws(from + count, seed).slice(from);
const times: Record<string, number> = {};
const started = Date.now();
const verdictOf = (o: Outcome): string =>
  o.kind === "refused"
    ? o.located
      ? "refused"
      : "FAIL refused without a location"
    : o.kind === "conform"
      ? o.report.verdict === "held"
        ? "held"
        : `FAIL conform ${o.report.verdict} ${o.report.failure?.violation.rule ?? o.report.checks.filter((c) => !c.ok).map((c) => c.rule).join(",")}`
      : `FAIL ${o.kind}`;
const detailOf = (o: Outcome): string =>
  o.kind === "refused" ? o.codes.join(",") : o.kind === "tsc" ? o.errors.join(" | ") : o.kind === "demo" ? o.why.slice(-300) : o.report.failure ? `${o.report.failure.violation.message} [${o.report.failure.sequence.join(", ")}]` : "";
const record = (n: number, verdict: string, line: string) => {
  const key = verdict.startsWith("FAIL") ? verdict.split(" ").slice(0, 3).join(" ") : verdict;
  tally[key] = (tally[key] ?? 0) + 1;
  console.log(line.slice(0, 2000));
  if (out) appendFileSync(out, JSON.stringify({ n, verdict, line }) + "\n");
};
// A batch at a time, so that a harness failure loses one batch, not the run.
for (let b = 0; b < all.length; b += batch) {
  const slice = all.slice(b, b + batch);
  try {
    await runDraws(slice, (i) => join(work, String(from + b + i)), join(work, "tsc"), {
      runs,
      seed,
      batch,
      jobs,
      times,
      onOutcome: (i, o) => {
        const n = from + b + i;
        const verdict = verdictOf(o);
        const detail = detailOf(o);
        record(n, verdict, `${n} ${verdict} :: ${o.what}${detail ? ` :: ${detail}` : ""}`);
        rmSync(join(work, String(n)), { recursive: true, force: true });
      },
    });
  } catch (e) {
    record(from + b, "FAIL harness", `${from + b}..${from + b + slice.length - 1} FAIL harness :: ${(e as Error).stack ?? String(e)}`);
  }
}
rmSync(work, { recursive: true, force: true });
const secs = (Date.now() - started) / 1000;
console.log(`composed ${all.length} specs (seed ${seed}, from ${from}, batch ${batch}, jobs ${jobs}) in ${secs.toFixed(0)} s (${(secs / Math.max(1, all.length)).toFixed(2)} s a spec): ${JSON.stringify(tally)}`);
console.log(`phases (s, summed over the jobs): ${JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(v / 1000)])))}`);
