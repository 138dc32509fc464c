/** What conform is given and what it reports: the options, the outcomes it makes work of, the verdict. */
import type { IR } from "../ir.js";
import type { Target, Timing } from "./session.js";
import type { TranscriptEntry } from "./wire.js";

/** A tool call that makes work of one outcome on the server under test. */
export interface ToolRecipe {
  name: string;
  arguments?: Record<string, unknown>;
}

/** How the tester makes work that completes, fails, errs, needs input or runs long. */
export interface Outcomes {
  complete?: ToolRecipe;
  fail?: ToolRecipe;
  error?: ToolRecipe;
  input?: ToolRecipe;
  long?: ToolRecipe;
  /** Work that asks for two inputs at once: made once per invocation, not drawn. */
  inputs?: ToolRecipe;
}

export type OutcomeName = keyof Outcomes;

/** The tools of the project's own demo server and of an `init` scaffold. */
export const DEFAULT_OUTCOMES: Outcomes = {
  complete: { name: "slow_compute", arguments: { seconds: 0.2 } },
  fail: { name: "failing_job", arguments: { seconds: 0.2 } },
  error: { name: "protocol_error_job", arguments: {} },
  input: { name: "confirm_delete", arguments: {} },
  long: { name: "slow_compute", arguments: { seconds: 30 } },
  inputs: { name: "multi_input", arguments: {} },
};

export interface ConformOptions {
  ir: IR;
  target: Target;
  runs?: number;
  seed?: number;
  maxCommands?: number;
  outcomes?: Outcomes;
  /** Wall-clock bound of the whole run, shrinking included (ms). */
  timeLimitMs?: number;
  /** Rules whose violations are counted as known deviations instead of failing the run. */
  ignore?: readonly string[];
  /** Called as each run ends (for a progress line). */
  onRun?: (n: number) => void;
  /** How long to wait for a start-up and for an answer. */
  timing?: Timing;
  /** Over stdio, start the server afresh for every run rather than open a new session on one process. */
  freshProcess?: boolean;
}

export interface Violation {
  rule: string;
  message: string;
  expected?: unknown;
  observed?: unknown;
}

/**
 * What a run of conform found: every rule held; a rule broken; or the server could not be tested (it
 * could not be reached or started, an answer did not come in time, or it crashed), which says nothing
 * of the rules.
 */
export type Verdict = "held" | "violation" | "untestable";

export interface ConformReport {
  ok: boolean;
  verdict: Verdict;
  spec: string;
  seed: number;
  runs: number;
  /** Commands executed (all runs, shrinking included). */
  commands: number;
  /** What each kind of command did, and what was not exercised and why. */
  exercised: Record<string, number>;
  skipped: string[];
  /** How often each rule of the catalogue was checked (0: never exercised by this run). */
  rules: Record<string, number>;
  /** Violations of the rules given to `ignore`: how often, and the first one. */
  deviations: Record<string, { count: number; first: Violation }>;
  /** Checks made once per run of `conform` (handshake, transport rules). */
  checks: Array<{ rule: string; ok: boolean; message: string }>;
  failure?: {
    /**
     * A rule broken, or why the server could not be tested (`unreachable`, `timeout`, `crash`), or that the runs
     * tested nothing (`nothing-tested`: no task was made, or none of the spec's outcomes was seen to its end).
     */
    kind: "violation" | "unreachable" | "timeout" | "crash" | "nothing-tested";
    violation: Violation;
    /** The shortest command sequence found that shows it (as it first failed where shrinking could not go on). */
    sequence: string[];
    shrunk: boolean;
    /** The messages of that sequence, both ways. */
    transcript: TranscriptEntry[];
  };
  durationMs: number;
  /** Server processes started (stdio). */
  serverStarts?: number;
}

/** The server could not be tested further: an answer did not come in time (no rule says how soon). */
export class CannotTestError extends Error {
  constructor(
    readonly kind: "unreachable" | "timeout",
    readonly reason: string,
  ) {
    super(reason);
  }
}

export class ViolationError extends Error {
  constructor(readonly violation: Violation) {
    super(`${violation.rule}: ${violation.message}`);
  }
}
