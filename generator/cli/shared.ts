/**
 * What the commands share: the output channels, the two kinds of a user's mistake (a usage error, exit 2;
 * an unreadable spec file, exit 1), how diagnostics are printed, and the compile of a spec.
 */
import { formatDiagnostic, type Diagnostic } from "../diagnostics.js";
import { recorder, stdIo } from "../fastpath.js";
import type { SourceFile } from "../source.js";
import type { CompileResult } from "../output.js";
import { resolveSpec } from "../specs.js";

/** The CLI's output channels. */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  cwd: string;
  color: boolean;
}

export const defaultIo = (): Io => stdIo();

/** A target of generate or check: a spec, an output folder, the user-owned handler files if any. */
export type TargetT = { spec: string; out: string; handlers?: string };

/** A mistake on the command line: reported, exit 2. */
export class UsageError extends Error {}

/** A spec file that cannot be read: reported as a diagnostic (MTG001), exit 1. */
export class SpecFileError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

export function resolveOrThrow(spec: string, cwd: string) {
  const r = resolveSpec(spec, cwd);
  if (!r.ok) throw r.diagnostic ? new SpecFileError(r.diagnostic) : new UsageError(r.message);
  return r;
}

/** How many diagnostics a run prints; the rest are counted (validate --json gives them all). */
export const MAX_PRINTED_DIAGNOSTICS = 50;

export function printDiagnostics(io: Io, diags: readonly Diagnostic[]) {
  for (const d of diags.slice(0, MAX_PRINTED_DIAGNOSTICS)) io.err(formatDiagnostic(d, { color: io.color }));
  const more = diags.length - MAX_PRINTED_DIAGNOSTICS;
  if (more > 0) io.err(`mcp-task-gen: ${more} more diagnostic${more === 1 ? "" : "s"} not shown; fix these first, or run validate --json for all of them`);
}

export function summarize(diags: readonly Diagnostic[]): string {
  const e = diags.filter((d) => d.severity === "error").length;
  const w = diags.length - e;
  return `${e} error${e === 1 ? "" : "s"}, ${w} warning${w === 1 ? "" : "s"}`;
}

export async function compileSpec(io: Io, spec: string): Promise<{ result?: CompileResult; name: string; source: SourceFile }> {
  const r = resolveOrThrow(spec, io.cwd);
  // What this spec compiles to, for the fast path of later runs (whatever this run then does with it).
  const record = recorder(io.cwd, r.source);
  // A built-in spec's text (or a copy of it) compiles from the analysis the build stored (precompiled.ts),
  // without loading the YAML parser, the checks or zod; any other text from the spec itself.
  const { precompiledAnalysis } = await import("../precompiled.js");
  const analysis = precompiledAnalysis(r.source);
  const result = analysis ? await (await import("../output.js")).emitAnalysed(analysis) : await (await import("../pipeline.js")).compile(r.source);
  record(result);
  return { result, name: spec, source: r.source };
}

/** A command's exit code; a user's mistake (a usage error, an unreadable spec file) is reported, never thrown. */
export async function settle(io: Io, p: Promise<number>): Promise<number> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`mcp-task-gen: ${e.message}`);
      return 2;
    }
    if (e instanceof SpecFileError) {
      printDiagnostics(io, [e.diagnostic]);
      return 1;
    }
    throw e;
  }
}
