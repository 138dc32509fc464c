/** What the tests that run `conform` share: the IR of a spec, and a failed report told briefly. */
import type { ConformReport } from "../../generator/conform/run.js";
import type { IR } from "../../generator/ir.js";
import { analyze } from "../../generator/pipeline.js";
import { resolveSpec } from "../../generator/specs.js";
import { ROOT } from "./cli.js";

/** The IR of a built-in spec (by name) or a spec file; throws with the diagnostics when it does not compile. */
export function irOf(spec: string): IR {
  const r = resolveSpec(spec, ROOT);
  if (!r.ok) throw new Error(r.message);
  const { ir, diagnostics } = analyze(r.source);
  if (!ir) throw new Error(diagnostics.map((d) => d.message).join("\n"));
  return ir;
}

/** A report's failure (the last 12 steps of its transcript) and failed checks, for an assertion's message. */
export function explain(r: ConformReport): string {
  return JSON.stringify({ failure: r.failure && { ...r.failure, transcript: r.failure.transcript.slice(-12) }, checks: r.checks.filter((c) => !c.ok) }, null, 1);
}
