/**
 * The statement mutants of every revision, the no-op mutant that checks the proxy is transparent,
 * and the server statements seen at the wire that no proxy can break (with the reason).
 */
import { sepMutants, sepPermitted, sepUnmutable } from "./catalogue-sep-1686.js";
import { mcp2025Mutants, mcp2025Permitted, mcp2025Unmutable } from "./catalogue-mcp-2025-11-25.js";
import { extMutants, extPermitted, extUnmutable } from "./catalogue-ext-tasks.js";
import type { Mutant, Revision, Unmutable } from "./mutant.js";

/** Passes every message unchanged: conform must hold against it. */
export const noop: Mutant = { name: "noop", statement: "", description: "passes every message unchanged", transports: ["stdio", "http"], start: () => ({}) };

export const catalogue: Record<Revision, Mutant[]> = {
  "sep-1686-draft": sepMutants,
  "mcp-2025-11-25": mcp2025Mutants,
  "ext-tasks-2026-07-28": extMutants,
};

export const unmutable: Record<Revision, Unmutable[]> = {
  "sep-1686-draft": sepUnmutable,
  "mcp-2025-11-25": mcp2025Unmutable,
  "ext-tasks-2026-07-28": extUnmutable,
};

/** Behaviours the MAY statements permit, which conform must hold against (see catalogue-ext-tasks.ts). */
export const permitted: Record<Revision, Mutant[]> = {
  "sep-1686-draft": sepPermitted,
  "mcp-2025-11-25": mcp2025Permitted,
  "ext-tasks-2026-07-28": extPermitted,
};

export const revisions = Object.keys(catalogue) as Revision[];

/** The revision a mutant is written for (the prefix of its statement id). */
export const revisionOf = (m: Mutant): Revision | undefined => revisions.find((r) => m.statement.startsWith(`${r}/`));

export function findMutant(name: string): Mutant | undefined {
  if (name === "noop") return noop;
  for (const r of revisions) {
    const m = catalogue[r].find((x) => x.name === name) ?? permitted[r].find((x) => x.name === name);
    if (m) return m;
  }
  return undefined;
}
