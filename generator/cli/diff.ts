/**
 * diff: what changed between two specs, breaking or compatible for clients and for servers. Spec errors
 * print their diagnostics and exit 1; an unknown spec is a usage error (exit 2).
 */
import type { Diagnostic } from "../diagnostics.js";
import type { IR } from "../ir.js";
import { resolveSpec } from "../specs.js";
import { printDiagnostics, summarize, UsageError, type Io } from "./shared.js";

export async function diffCmd(io: Io, o: { old: string; new: string; json: boolean; failOn: "breaking" | "any" | "none" }): Promise<number> {
  const { analyze } = await import("../analyze.js");
  const { diffSpecs, diffFails, renderDiffJson, renderDiffMarkdown } = await import("../diff/index.js");
  const irs: IR[] = [];
  let failed = false;
  for (const spec of [o.old, o.new]) {
    const r = resolveSpec(spec, io.cwd);
    if (!r.ok) {
      const unreadable = (r as { diagnostic?: Diagnostic }).diagnostic;
      if (!unreadable) throw new UsageError(r.message);
      printDiagnostics(io, [unreadable]);
      failed = true;
      continue;
    }
    const { diagnostics, ir } = analyze(r.source);
    if (!ir) {
      printDiagnostics(io, diagnostics);
      io.err(`mcp-task-gen: ${spec}: ${summarize(diagnostics)}; cannot diff it`);
      failed = true;
    } else irs.push(ir);
  }
  if (failed) return 1;
  const d = diffSpecs(irs[0], irs[1]);
  io.out((o.json ? renderDiffJson(d) : renderDiffMarkdown(d)).trimEnd());
  return diffFails(d, o.failOn) ? 1 : 0;
}
