/**
 * A rule of conform: what must hold, the protocol statements it checks (ids of `spec/statements/*.yaml`) and the
 * parts of the spec it reads. Each rule is a module of `rules/`, listed in the catalogue (`rules/index.ts`); a check
 * that finds a rule broken throws the rule's violation.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { ViolationError } from "./report.js";

export interface Rule {
  /** The name reports, `--ignore` and the statements file give it. */
  readonly name: string;
  /** What must hold. */
  readonly description: string;
  /** The protocol's normative statements it checks on the wire. */
  readonly statements: readonly string[];
  /** Where it checks no statement of the protocol: what it checks instead (the spec's own declarations). */
  readonly basis?: string;
  /** The parts of the spec (paths of the format) its checks read. */
  readonly reads: readonly string[];
}

export function defineRule(rule: Rule): Rule {
  return Object.freeze({ ...rule, statements: Object.freeze([...rule.statements]), reads: Object.freeze([...rule.reads]) });
}

/** Throws the violation of `rule`: what came, and what the spec expected. */
export function fail(rule: Rule, message: string, expected?: unknown, observed?: unknown): never {
  checked(rule);
  throw new ViolationError({ rule: rule.name, message, ...(expected === undefined ? {} : { expected }), ...(observed === undefined ? {} : { observed }) });
}

/** How often each rule's check was made, for the run the caller is in (see `tallied`). */
const tallies = new AsyncLocalStorage<Record<string, number>>();

/** Runs `f` with `counts` as the tally its checks add to. */
export function tallied<T>(counts: Record<string, number>, f: () => Promise<T>): Promise<T> {
  return tallies.run(counts, f);
}

/** A check of `rule` was made (whether it held or not): counted in the tally of the run it belongs to. */
export function checked(rule: Rule): void {
  const t = tallies.getStore();
  if (t !== undefined) t[rule.name] = (t[rule.name] ?? 0) + 1;
}
