/**
 * What the checks of every section share: the spec, where findings go, the
 * names the spec declares, and how a reference or a required key is checked.
 */
import type { Code } from "../diagnostics.js";
import { closest, type Spec } from "../format.js";

export type Path = (string | number)[];

export type Report = (code: Code, severity: "error" | "warning", message: string, path: Path, key?: boolean) => void;

export interface Ctx {
  spec: Spec;
  report: Report;
  /** The type generated from `states`. */
  statusType: string;
  typeNames: Set<string>;
  /** The declared types and the status type. */
  allTypes: Set<string>;
  stateNames: Set<string>;
  methodNames: Set<string>;
  errorNames: Set<string>;
  metaNames: Set<string>;
  guardNames: Set<string>;
}

export function context(spec: Spec, report: Report): Ctx {
  const statusType = spec.statusType ?? "TaskStatus";
  const typeNames = new Set(Object.keys(spec.types));
  return {
    spec,
    report,
    statusType,
    typeNames,
    allTypes: new Set([...typeNames, statusType]),
    stateNames: new Set(Object.keys(spec.states)),
    methodNames: new Set(Object.keys(spec.methods)),
    errorNames: new Set(Object.keys(spec.errors)),
    metaNames: new Set(Object.keys(spec.meta)),
    guardNames: new Set(Object.keys(spec.guards ?? {})),
  };
}

/** ", did you mean 'x'?" for the closest candidate, or nothing. */
export function suggest(word: string, candidates: Iterable<string>): string {
  const g = closest(word, candidates);
  return g ? `, did you mean '${g}'?` : "";
}

/** Reports a name that must be a declared method, error, state or meta entry and is not. */
export function refs(ctx: Ctx) {
  const { report, methodNames, errorNames, stateNames, metaNames } = ctx;
  return (kind: "method" | "error" | "state" | "meta", name: string | undefined | false, path: Path) => {
    if (name === undefined || name === false) return;
    const [set, code, section] =
      kind === "method"
        ? ([methodNames, "MTG022", "methods"] as const)
        : kind === "error"
          ? ([errorNames, "MTG023", "errors"] as const)
          : kind === "state"
            ? ([stateNames, "MTG021", "states"] as const)
            : ([metaNames, "MTG024", "meta"] as const);
    if (!set.has(name)) report(code, "error", `undefined ${kind} '${name}'${suggest(name, set)}; declare it under \`${section}\``, path);
  };
}

/** Reports a key that a declared behaviour needs and lacks. */
export function needs(ctx: Ctx) {
  const { report } = ctx;
  return (cond: boolean, what: string, path: Path, because: string) => {
    if (!cond) report("MTG060", "error", `missing \`${what}\`: ${because}`, path, true);
  };
}
