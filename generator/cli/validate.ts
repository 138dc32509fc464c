/** validate: a spec's diagnostics, writing nothing (no emitter is loaded). */
import { hasErrors } from "../diagnostics.js";
import { resolveSpec } from "../specs.js";
import { printDiagnostics, SpecFileError, summarize, UsageError, type Io } from "./shared.js";

export async function validateCmd(io: Io, o: { spec: string; warnAsError?: boolean; json?: boolean }): Promise<number> {
  const r = resolveSpec(o.spec, io.cwd);
  if (!r.ok && r.diagnostic && o.json) {
    io.out(JSON.stringify({ spec: o.spec, ok: false, diagnostics: [r.diagnostic] }, null, 2));
    return 1;
  }
  if (!r.ok) throw r.diagnostic ? new SpecFileError(r.diagnostic) : new UsageError(r.message);
  const { analyze } = await import("../analyze.js");
  const { diagnostics } = analyze(r.source);
  const failed = hasErrors(diagnostics, o.warnAsError);
  if (o.json) io.out(JSON.stringify({ spec: o.spec, ok: !failed, diagnostics }, null, 2));
  else {
    printDiagnostics(io, diagnostics);
    io.out(`mcp-task-gen: ${r.source.file}: ${failed ? "invalid" : "valid"} (${summarize(diagnostics)})`);
  }
  return failed ? 1 : 0;
}
