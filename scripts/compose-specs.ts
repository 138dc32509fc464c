/**
 * The long run of composed specs: draws specs the way users compose them (test/helpers/spec-composer.ts)
 * from every built-in and fixture spec, and takes each valid one through validate → generate → tsc →
 * demo → conform (test/helpers/compose-run.ts). Prints one line per spec and a summary; a failure is a
 * spec that validates but whose code does not type-check, whose demo does not start, or whose demo
 * does not pass its own conform (or a refusal without located errors).
 *
 *   npx tsx scripts/compose-specs.ts [--count 500] [--seed 20261204] [--from 0] [--runs 8] [--out results.jsonl]
 */
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDraw } from "../test/helpers/compose-run.js";
import { draws } from "./compose-specs-draws.js";
import { ensureBuilt } from "./ensure-built.mjs";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const count = Number(args.get("count") ?? 500);
const seed = Number(args.get("seed") ?? 20261204);
const from = Number(args.get("from") ?? 0);
const runs = Number(args.get("runs") ?? 8);
const out = args.get("out");

// The demo runs the CLI (dist/), and the type check resolves the runtime package to its build.
ensureBuilt();

const tally: Record<string, number> = {};
const work = mkdtempSync(join(tmpdir(), "compose-specs-"));
const all = draws(from + count, seed).slice(from);
const started = Date.now();
for (const [i, d] of all.entries()) {
  const n = from + i;
  let line: string;
  let verdict: string;
  try {
    const o = await runDraw(d, join(work, String(n)), join(work, "tsc"), runs, seed);
    if (o.kind === "refused") verdict = o.located ? "refused" : "FAIL refused without a location";
    else if (o.kind === "conform") verdict = o.report.verdict === "held" ? "held" : `FAIL conform ${o.report.verdict} ${o.report.failure?.violation.rule ?? o.report.checks.filter((c) => !c.ok).map((c) => c.rule).join(",")}`;
    else verdict = `FAIL ${o.kind}`;
    const detail =
      o.kind === "refused" ? o.codes.join(",") : o.kind === "tsc" ? o.errors.join(" | ") : o.kind === "demo" ? o.why.slice(-300) : o.report.failure ? `${o.report.failure.violation.message} [${o.report.failure.sequence.join(", ")}]` : "";
    line = `${n} ${verdict} :: ${o.what}${detail ? ` :: ${detail}` : ""}`;
  } catch (e) {
    verdict = "FAIL harness";
    line = `${n} ${verdict} :: ${(e as Error).stack ?? String(e)}`;
  }
  rmSync(join(work, String(n)), { recursive: true, force: true });
  const key = verdict.startsWith("FAIL") ? verdict.split(" ").slice(0, 3).join(" ") : verdict;
  tally[key] = (tally[key] ?? 0) + 1;
  console.log(line.slice(0, 2000));
  if (out) appendFileSync(out, JSON.stringify({ n, verdict, line }) + "\n");
}
rmSync(work, { recursive: true, force: true });
console.log(`composed ${all.length} specs (seed ${seed}, from ${from}) in ${((Date.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(tally)}`);
