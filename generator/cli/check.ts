/**
 * check: whether an output folder holds exactly what generate would write (for CI), and the handler files
 * are in step with the contract; else the drift, and the command that fixes it.
 */
import { join, relative, resolve } from "node:path";
import { hasErrors } from "../diagnostics.js";
import { print, probe } from "../fastpath.js";
import { conflictMessage, drift, plan } from "../fsout.js";
import { DEFAULT_OUT, DEFAULT_SPEC } from "../specs.js";
import { readConfig } from "./config.js";
import { compileSpec, printDiagnostics, summarize, type Io } from "./shared.js";

/** check, then the handler files when `handlers` names them (both are reported; either failing fails). */
export async function checkCmd(io: Io, o: { spec: string; out: string; handlers?: string; warnAsError?: boolean }): Promise<number> {
  const code = await checkOutput(io, o);
  if (o.handlers === undefined || code > 1) return code;
  const handlers = await (await import("../project.js")).checkHandlers(io, { spec: o.spec, out: o.out, handlers: o.handlers });
  return Math.max(code, handlers);
}

/** check with the configuration's targets (their handler files included), or the defaults without one. */
export async function checkConfigCmd(io: Io, o: { warnAsError?: boolean }): Promise<number> {
  const cfg = await readConfig(io.cwd);
  if (cfg && "error" in cfg) {
    io.err(cfg.error);
    return 1;
  }
  if (cfg === undefined) return checkCmd(io, { spec: DEFAULT_SPEC, out: DEFAULT_OUT, warnAsError: o.warnAsError });
  io.out(`mcp-task-gen: using ${cfg.file}`);
  let code = 0;
  for (const t of cfg.targets) code = Math.max(code, await checkCmd(io, { ...t, warnAsError: o.warnAsError }));
  return code;
}

async function checkOutput(io: Io, o: { spec: string; out: string; handlers?: string; warnAsError?: boolean }): Promise<number> {
  const fast = probe(io, "check", o, { warnAsError: o.warnAsError });
  if (fast) {
    print(io, fast);
    return 0;
  }
  const { result } = await compileSpec(io, o.spec);
  printDiagnostics(io, result!.diagnostics);
  if (!result!.files || hasErrors(result!.diagnostics, o.warnAsError)) {
    io.err(`mcp-task-gen: ${o.spec}: ${summarize(result!.diagnostics)}`);
    return 1;
  }
  const outDir = resolve(io.cwd, o.out);
  const d = drift(outDir, result!.files);
  const shown = relative(io.cwd, outDir) || ".";
  if (d.missing.length + d.changed.length + d.extra.length === 0) {
    io.out(`mcp-task-gen: ${shown}/ is up to date with ${o.spec} (${result!.files.length} files)`);
    return 0;
  }
  for (const f of d.missing) io.err(`  missing   ${join(shown, f)}`);
  for (const f of d.changed) io.err(`  changed   ${join(shown, f)}`);
  for (const f of d.extra) io.err(`  extra     ${join(shown, f)}`);
  // What generate would refuse to touch: said as generate says it, so that the command given works.
  const conflicts = plan(outDir, result!.files).actions.filter((a): a is Extract<typeof a, { kind: "conflict" }> => a.kind === "conflict");
  for (const c of conflicts) io.err(`mcp-task-gen: ${conflictMessage(c, shown)}`);
  const force = conflicts.some((c) => c.reason !== "not-generated") ? " --force" : "";
  // The handler files are kept in step by the same command (a stub per new member), as `generate` with them does.
  const handlers = o.handlers === undefined ? "" : ` --handlers ${relative(io.cwd, resolve(io.cwd, o.handlers)) || "."}`;
  io.err(
    `mcp-task-gen: ${shown}/ is stale (${d.missing.length} missing, ${d.changed.length} changed, ${d.extra.length} extra); run: npx mcp-task-gen generate --spec ${o.spec} --out ${shown}${handlers}${force}`,
  );
  return 1;
}
