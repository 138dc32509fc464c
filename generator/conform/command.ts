/**
 * The `conform` command: reads its options, compiles the spec in memory (no
 * file is written), runs the tester and prints the report, as text or JSON.
 * Exit 0: every rule exercised held; 1: a violation (or a spec with errors); 2: usage; 3: the server could not
 * be tested (not reachable, no start-up or answer in time, or it crashed) or the runs tested nothing (no task made,
 * no outcome seen to its end), which says nothing of the rules.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { formatDiagnostic, hasErrors } from "../diagnostics.js";
import { analyze } from "../pipeline.js";
import { resolveSpec } from "../specs.js";
import { RULE_CATALOGUE } from "./rules/index.js";
import { conform, DEFAULT_OUTCOMES, type ConformReport, type OutcomeName, type Outcomes } from "./run.js";
import { DEFAULT_TIMING, type Target } from "./session.js";

export interface ConformArgs {
  spec: string;
  stdio?: string;
  url?: string;
  runs?: number;
  seed?: number;
  json?: boolean;
  outcomes?: string;
  header?: string[];
  /** The headers of another requestor (another principal), for the isolation checks of tasks bound to the auth context. */
  otherHeader?: string[];
  /** Over stdio: the command of another server process on the same task store, serving another requestor. */
  otherStdio?: string;
  maxCommands?: number;
  timeLimit?: number;
  ignore?: string[];
  /** Seconds a stdio server may take to start (its first answer). */
  startupTimeout?: number;
  /** Seconds any answer may take. */
  requestTimeout?: number;
  /** Over stdio, a new server process for every run. */
  freshProcess?: boolean;
}

/** The exit codes of `conform`. */
export const EXIT = { held: 0, violation: 1, usage: 2, untestable: 3 } as const;

export interface ConformIo {
  out: (s: string) => void;
  err: (s: string) => void;
  cwd: string;
}

export class ConformUsageError extends Error {}

/** The rules a report may name: the catalogue's. */
export const RULES: readonly string[] = RULE_CATALOGUE.map((r) => r.name);

const OUTCOME_NAMES: readonly OutcomeName[] = ["complete", "fail", "error", "input", "long", "inputs"];

/** `--outcomes`: a JSON file or inline JSON mapping outcome names to `{ name, arguments }` (null: none). */
export function readOutcomes(value: string | undefined, cwd: string): Outcomes {
  if (value === undefined) return DEFAULT_OUTCOMES;
  let text = value;
  if (!value.trimStart().startsWith("{")) {
    try {
      text = readFileSync(resolve(cwd, value), "utf8");
    } catch (e) {
      throw new ConformUsageError(`--outcomes: cannot read ${value}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConformUsageError(`--outcomes: not JSON: ${(e as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new ConformUsageError("--outcomes: expected an object of outcome → { name, arguments }");
  const out: Outcomes = { ...DEFAULT_OUTCOMES };
  for (const [k, v] of Object.entries(parsed)) {
    if (!OUTCOME_NAMES.includes(k as OutcomeName)) throw new ConformUsageError(`--outcomes: unknown outcome '${k}' (expected ${OUTCOME_NAMES.join(", ")})`);
    if (v === null) {
      delete out[k as OutcomeName];
      continue;
    }
    const r = v as { name?: unknown; arguments?: unknown };
    if (typeof r !== "object" || typeof r.name !== "string" || (r.arguments !== undefined && (typeof r.arguments !== "object" || r.arguments === null || Array.isArray(r.arguments)))) {
      throw new ConformUsageError(`--outcomes: '${k}' must be { "name": "<tool>", "arguments": { ... } } or null`);
    }
    out[k as OutcomeName] = { name: r.name, ...(r.arguments === undefined ? {} : { arguments: r.arguments as Record<string, unknown> }) };
  }
  return out;
}

function target(a: ConformArgs): Target {
  if ((a.stdio === undefined) === (a.url === undefined)) throw new ConformUsageError("conform needs exactly one of --stdio \"<command>\" or --url <http-url>");
  if (a.stdio !== undefined) {
    if (a.otherHeader !== undefined) throw new ConformUsageError("--other-header needs --url: over stdio the process is one requestor (--other-stdio names another)");
    return { stdio: a.stdio, ...(a.otherStdio === undefined ? {} : { other: a.otherStdio }) };
  }
  if (a.otherStdio !== undefined) throw new ConformUsageError("--other-stdio needs --stdio (over HTTP, --other-header gives another requestor)");
  let url: URL;
  try {
    url = new URL(a.url!);
  } catch {
    throw new ConformUsageError(`--url: not a URL: ${a.url}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConformUsageError(`--url: expected http: or https:, got ${url.protocol}`);
  const parse = (option: string, given: string[]): Record<string, string> => {
    const headers: Record<string, string> = {};
    for (const h of given) {
      const i = h.indexOf(":");
      if (i <= 0) throw new ConformUsageError(`${option}: expected "Name: value", got ${JSON.stringify(h)}`);
      headers[h.slice(0, i).trim()] = h.slice(i + 1).trim();
    }
    return headers;
  };
  const headers = parse("--header", a.header ?? []);
  return { url: url.href, headers, ...(a.otherHeader === undefined ? {} : { otherHeaders: parse("--other-header", a.otherHeader) }) };
}

export function formatReport(r: ConformReport): string {
  const lines: string[] = [];
  const verdict = r.verdict === "held" ? "every rule exercised held" : r.verdict === "violation" ? "VIOLATION" : r.failure?.kind === "nothing-tested" ? "NOTHING TESTED" : `COULD NOT TEST (${r.failure?.kind ?? "?"})`;
  lines.push(`conform ${r.spec}: ${verdict} (${r.runs} runs, ${r.commands} commands, seed ${r.seed}, ${(r.durationMs / 1000).toFixed(1)} s)`);
  for (const c of r.checks) lines.push(`  ${c.ok ? "ok  " : "FAIL"} ${c.rule}: ${c.message}`);
  const ex = Object.entries(r.exercised).sort(([a], [b]) => a.localeCompare(b));
  if (ex.length) lines.push(`  exercised: ${ex.map(([k, v]) => `${k} ×${v}`).join(", ")}`);
  for (const s of r.skipped) lines.push(`  not exercised: ${s}`);
  const rules = Object.entries(r.rules);
  const checked = rules.filter(([, n]) => n > 0);
  if (checked.length) lines.push(`  rules checked: ${checked.map(([k, n]) => `${k} ×${n}`).join(", ")}`);
  const never = rules.filter(([, n]) => n === 0).map(([k]) => k);
  if (never.length) lines.push(`  rules never exercised (they say nothing of this server): ${never.join(", ")}`);
  for (const [rule, d] of Object.entries(r.deviations)) {
    lines.push(`  deviation (ignored): ${rule} ×${d.count}: ${d.first.message}${d.first.observed === undefined ? "" : `; observed ${JSON.stringify(d.first.observed).slice(0, 200)}`}`);
  }
  if (r.failure) {
    const f = r.failure;
    lines.push("", f.kind === "violation" ? `rule broken: ${f.violation.rule}` : f.kind === "nothing-tested" ? "nothing tested" : `could not test: ${f.kind}`, `  ${f.violation.message}`);
    if (f.kind === "nothing-tested") return lines.join("\n");
    if (f.violation.expected !== undefined) lines.push(`  expected: ${JSON.stringify(f.violation.expected)}`);
    if (f.violation.observed !== undefined) lines.push(`  observed: ${JSON.stringify(f.violation.observed)}`);
    const what = f.kind === "violation" ? (f.shrunk ? "shortest sequence" : "failing sequence") : f.kind === "crash" ? "the sequence it crashed in" : "the sequence it stopped in";
    lines.push(`${what} (${f.sequence.length} commands): ${f.sequence.join(", ")}`);
    lines.push("messages of that sequence:");
    for (const m of f.transcript.slice(-40)) lines.push(`  ${m.dir} ${typeof m.message === "string" ? m.message : JSON.stringify(m.message)}`.slice(0, 400));
    lines.push(`replay: add --seed ${r.seed}`);
  }
  return lines.join("\n");
}

export async function conformCmd(io: ConformIo, a: ConformArgs): Promise<number> {
  const t = target(a);
  if (a.runs !== undefined && (!Number.isInteger(a.runs) || a.runs < 1)) throw new ConformUsageError(`--runs: expected a positive whole number, got ${a.runs}`);
  const unknownRule = (a.ignore ?? []).find((r) => !RULES.includes(r));
  if (unknownRule !== undefined) throw new ConformUsageError(`--ignore: unknown rule '${unknownRule}' (rules: ${RULES.join(", ")})`);
  if (a.seed !== undefined && !Number.isInteger(a.seed)) throw new ConformUsageError(`--seed: expected a whole number, got ${a.seed}`);
  const seconds = (name: string, v: number | undefined, dflt: number): number => {
    if (v === undefined) return dflt;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) throw new ConformUsageError(`--${name}: expected a number of seconds above 0, got ${v}`);
    return Math.round(v * 1000);
  };
  const timing = { startupMs: seconds("startup-timeout", a.startupTimeout, DEFAULT_TIMING.startupMs), requestMs: seconds("request-timeout", a.requestTimeout, DEFAULT_TIMING.requestMs) };
  if (a.freshProcess && a.stdio === undefined) throw new ConformUsageError("--fresh-process applies to --stdio only");
  const outcomes = readOutcomes(a.outcomes, io.cwd);
  const r = resolveSpec(a.spec, io.cwd);
  if (!r.ok) {
    if (r.diagnostic) {
      io.err(formatDiagnostic(r.diagnostic));
      return 1;
    }
    throw new ConformUsageError(r.message);
  }
  const { diagnostics, ir } = analyze(r.source);
  if (hasErrors(diagnostics) || ir === undefined) {
    for (const d of diagnostics) io.err(formatDiagnostic(d));
    io.err("mcp-task-gen conform: the spec has errors; fix them first (mcp-task-gen validate)");
    return 1;
  }
  const report = await conform({
    ir,
    target: t,
    outcomes,
    ...(a.runs === undefined ? {} : { runs: a.runs }),
    ...(a.seed === undefined ? {} : { seed: a.seed }),
    ...(a.maxCommands === undefined ? {} : { maxCommands: a.maxCommands }),
    ...(a.timeLimit === undefined ? {} : { timeLimitMs: a.timeLimit * 1000 }),
    ...(a.ignore === undefined ? {} : { ignore: a.ignore }),
    timing,
    ...(a.freshProcess ? { freshProcess: true } : {}),
  });
  if (a.json) io.out(JSON.stringify(report, null, 2));
  else (report.ok ? io.out : io.err)(formatReport(report));
  return EXIT[report.verdict];
}
