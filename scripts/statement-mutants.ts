/**
 * The statement-mutant runner: mutants written from the protocol's statements (MUST/SHOULD/MAY of each
 * revision), applied at the wire by a proxy in front of the demo server, each run through conform.
 *
 *   npm run mutants:statements -- [--only <prefix>[,<prefix>...]] [--sample N] [--seed S] [--runs N]
 *                                 [--transport stdio|http] [--report <file>] [--no-noop] [--noop-only]
 *                                 [--timeout <seconds a conform run may take, default 300>]
 *
 * First the no-op mutant on each revision in play, over both transports (conform must hold: the proxy
 * is transparent), then each mutant; prints a table per revision and a total, and writes a JSON report
 * (default .tmp/statement-mutants.json). Exits 1 when the proxy is not transparent, else 0.
 * A mutant marked `auth` runs against the demo started with `--auth token-a --auth token-b`, conform given
 * `--header "Authorization: Bearer token-a" --other-header "Authorization: Bearer token-b"`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { catalogue, noop, revisionOf, revisions, unmutable } from "./statement-mutants/catalogue.js";
import type { Mutant, Revision, Transport } from "./statement-mutants/mutant.js";
import { combine, root, runMutant, type RunResult, type Verdict } from "./statement-mutants/run.js";

function parse(argv: string[]) {
  const o = { only: "", sample: 0, seed: 1, runs: undefined as number | undefined, transport: undefined as Transport | undefined, report: join(root, ".tmp", "statement-mutants.json"), noop: true, noopOnly: false, timeout: 300 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = () => {
      const x = argv[++i];
      if (x === undefined) usage(`${a} needs a value`);
      return x;
    };
    if (a === "--only") o.only = v();
    else if (a === "--sample") o.sample = Number(v());
    else if (a === "--seed") o.seed = Number(v());
    else if (a === "--runs") o.runs = Number(v());
    else if (a === "--transport") {
      const t = v();
      if (t !== "stdio" && t !== "http") usage("--transport is stdio or http");
      o.transport = t;
    } else if (a === "--report") o.report = resolve(v());
    else if (a === "--timeout") o.timeout = Number(v());
    else if (a === "--no-noop") o.noop = false;
    else if (a === "--noop-only") o.noopOnly = true;
    else usage(`unknown option ${a}`);
  }
  if (!Number.isInteger(o.seed) || !Number.isInteger(o.sample) || o.sample < 0) usage("--seed and --sample take integers");
  if (!(o.timeout > 0 && o.timeout <= 3600)) usage("--timeout takes seconds, at most 3600");
  return o;
}

function usage(msg: string): never {
  process.stderr.write(`statement-mutants: ${msg}\n`);
  process.exit(2);
}

/** A fixed sample of n mutants for a seed (mulberry32 shuffle). */
export function sample<T>(items: T[], n: number, seed: number): T[] {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, n);
}

async function main() {
  const o = parse(process.argv.slice(2));
  const prefixes = o.only.split(",");
  let chosen: Mutant[] = revisions.flatMap((r) => catalogue[r]).filter((m) => prefixes.some((p) => m.name.startsWith(p)));
  if (o.sample > 0) chosen = sample(chosen, o.sample, o.seed);
  if (o.noopOnly) chosen = [];
  const transportsOf = (m: Mutant) => (m.transports ?? ["stdio"]).filter((t) => o.transport === undefined || t === o.transport);
  const opts = { seed: o.seed, runs: o.runs, timeoutMs: o.timeout * 1000 };
  const say = (s: string) => process.stdout.write(s + "\n");

  const noopResults: RunResult[] = [];
  if (o.noop) {
    const inPlay = o.noopOnly ? revisions : revisions.filter((r) => chosen.some((m) => revisionOf(m) === r));
    for (const r of inPlay) {
      // Both transports whatever the mutants use: a kill counts only where the proxy itself is shown transparent.
      const ts = new Set<Transport>((["stdio", "http"] as const).filter((t) => o.transport === undefined || t === o.transport));
      for (const t of ts) {
        const res = await runMutant(noop, r, t, opts);
        noopResults.push(res);
        say(`noop ${r} ${t}: exit ${res.exit} (${res.seconds} s)${res.verdict === "survived" ? "" : "  NOT TRANSPARENT " + res.violations.join("; ")}`);
      }
    }
  }

  const results: { mutant: string; statement: string; revision: Revision; description: string; verdict: Verdict; runs: RunResult[] }[] = [];
  for (const m of chosen) {
    const r = revisionOf(m)!;
    const runs: RunResult[] = [];
    for (const t of transportsOf(m)) runs.push(await runMutant(m, r, t, opts));
    const verdict = combine(runs);
    results.push({ mutant: m.name, statement: m.statement, revision: r, description: m.description, verdict, runs });
    say(`${verdict.padEnd(10)} ${m.name}  [${runs.map((x) => `${x.transport}:${x.exit} hits ${x.hits}`).join(", ")}] ${runs.reduce((s, x) => s + x.seconds, 0).toFixed(1)} s`);
  }

  const rows = revisions.map((r) => {
    const of = results.filter((x) => x.revision === r);
    const n = (v: Verdict) => of.filter((x) => x.verdict === v).length;
    return { revision: r, mutants: of.length, killed: n("killed"), survived: n("survived"), untestable: n("untestable"), error: n("error") };
  });
  const total = rows.reduce((a, b) => ({ revision: "total" as Revision, mutants: a.mutants + b.mutants, killed: a.killed + b.killed, survived: a.survived + b.survived, untestable: a.untestable + b.untestable, error: a.error + b.error }));
  say("");
  say("| revision | mutants | killed | survived | untestable | error |");
  say("|---|---:|---:|---:|---:|---:|");
  for (const x of [...rows, total]) say(`| ${x.revision} | ${x.mutants} | ${x.killed} | ${x.survived} | ${x.untestable} | ${x.error} |`);
  const survivors = results.filter((x) => x.verdict === "survived").map((x) => x.mutant);
  const struck = (x: (typeof results)[number]) => x.runs.some((r) => r.hits > 0);
  const neverStruck = results.filter((x) => x.verdict === "survived" && !struck(x)).map((x) => x.mutant);
  if (survivors.length) say(`\nsurvived (* = the bug never struck in the run: conform never made the server show it):\n  ${results.filter((x) => x.verdict === "survived").map((x) => (struck(x) ? "  " : "* ") + x.mutant).join("\n  ")}`);
  const untestable = results.filter((x) => x.verdict === "untestable" || x.verdict === "error").map((x) => `${x.mutant} (${x.verdict})`);
  if (untestable.length) say(`\nuntestable or error:\n  ${untestable.join("\n  ")}`);

  mkdirSync(dirname(o.report), { recursive: true });
  writeFileSync(o.report, JSON.stringify({ seed: o.seed, runs: o.runs ?? "conform default", only: o.only, sample: o.sample, noop: noopResults, table: [...rows, total], survivors, neverStruck, results, unmutable }, null, 2));
  say(`\nreport: ${o.report}`);
  process.exitCode = noopResults.some((x) => x.verdict !== "survived") ? 1 : 0;
}

if (process.argv[1] && /statement-mutants\.[tj]s$/.test(process.argv[1])) void main();
