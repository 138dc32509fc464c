/**
 * generate: compile a spec and write its output, touching no file mcp-task-gen did not write and no
 * generated file edited by hand (unless --force); then the user-owned handler files when a target names
 * them, and what the spec's change means for them.
 */
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { hasErrors } from "../diagnostics.js";
import { print, probe, probeHandlers, rememberedSpec, rememberSpec } from "../fastpath.js";
import { apply, conflictMessage, forceable, plan } from "../fsout.js";
import type { SourceFile } from "../source.js";
import { MANIFEST_FILE, sha256 as sha256Of } from "../manifest.js";
import type { CompileResult } from "../output.js";
import { builtinSpecs, resolveSpec } from "../specs.js";
import { checkInstalledRuntime, warnMissingDependencies } from "./dependencies.js";
import { compileSpec, printDiagnostics, summarize, type Io } from "./shared.js";

export interface GenerateOpts {
  spec: string;
  out: string;
  dryRun?: boolean;
  force?: boolean;
  warnAsError?: boolean;
  quiet?: boolean;
}

export async function generate(io: Io, o: GenerateOpts): Promise<number> {
  // Known to be up to date: print what the full run would, compile nothing (fastpath.ts).
  const fast = o.dryRun ? undefined : probe(io, "generate", o, { warnAsError: o.warnAsError });
  if (fast) {
    print(io, fast);
    return 0;
  }
  const { result, source } = await compileSpec(io, o.spec);
  printDiagnostics(io, result!.diagnostics);
  if (!result!.files || hasErrors(result!.diagnostics, o.warnAsError)) {
    io.err(`mcp-task-gen: ${o.spec}: ${summarize(result!.diagnostics)}; nothing written`);
    return 1;
  }
  // The spec the output was generated from, if remembered (or a built-in spec whose text it was, as after
  // `init`): what changed for the handlers is said below.
  const previous = o.dryRun ? undefined : (rememberedSpec(io.cwd, resolve(io.cwd, o.out)) ?? builtinOfOutput(resolve(io.cwd, o.out), io.cwd));
  const outDir = resolve(io.cwd, o.out);
  const generatedFrom = previous === undefined ? manifestSpec(outDir) : undefined;
  const shown = relative(io.cwd, outDir) || ".";
  const p = plan(outDir, result!.files);
  // --force resolves hand edits of generated files, never files that mcp-task-gen did not write.
  // An edited file that is no longer generated is left in place with a warning; it does not block the run.
  const conflicts = p.actions.filter(
    (a) => a.kind === "conflict" && a.reason !== "edited-stale" && !(o.force && forceable(a)),
  );
  if (conflicts.length > 0) {
    for (const c of conflicts) io.err(`mcp-task-gen: error: ${conflictMessage(c as Extract<typeof c, { kind: "conflict" }>, shown)}`);
    io.err(`mcp-task-gen: ${conflicts.length} file(s) in the way; nothing written`);
    return 1;
  }
  const verb = (a: (typeof p.actions)[number]) =>
    a.kind === "write"
      ? a.reason === "new"
        ? "create"
        : "update"
      : a.kind === "delete"
        ? "delete"
        : a.kind === "conflict"
          ? a.reason === "edited-stale"
            ? o.force
              ? "delete"
              : "keep"
            : "overwrite"
          : "unchanged";
  const kept = o.force ? [] : p.actions.filter((a) => a.kind === "conflict" && a.reason === "edited-stale");
  for (const c of kept) io.err(`mcp-task-gen: warning: ${conflictMessage(c as Extract<typeof c, { kind: "conflict" }>, shown)}`);
  if (o.dryRun) {
    for (const a of p.actions) io.out(`  ${verb(a).padEnd(9)} ${join(shown, a.path)}`);
    io.out(`mcp-task-gen: dry run, nothing written (${o.spec} → ${shown}/)`);
    return 0;
  }
  const done = apply(p, { force: o.force });
  if (!o.quiet) for (const a of done) io.out(`  ${verb(a).padEnd(9)} ${join(shown, a.path)}`);
  const unchanged = p.actions.filter((a) => a.kind === "unchanged").length;
  const deleted = done.filter((a) => verb(a) === "delete").length;
  io.out(
    `mcp-task-gen: ${o.spec} → ${shown}/: ${done.length - deleted} written, ${unchanged} unchanged${
      deleted > 0 ? `, ${deleted} deleted` : ""
    } (${result!.files.length} files)`,
  );
  if (done.length > 0) {
    await warnMissingDependencies(io, outDir, result!.files);
    checkInstalledRuntime(io, outDir);
  }
  rememberSpec(io.cwd, result!.files.find((f) => f.path === MANIFEST_FILE)!.contents, source);
  if (done.length > 0 && previous !== undefined && previous.text !== source.text) await printRegenNotes(io, previous, result!);
  else if (done.length > 0 && previous === undefined && generatedFrom !== undefined && generatedFrom.sha256 !== sha256Of(source.text)) {
    io.out(`mcp-task-gen: ${shown}/ was generated from spec ${generatedFrom.name} (another text); what changed, for the handlers too: npx mcp-task-gen diff <that spec> ${o.spec}`);
  }
  return 0;
}

/** The spec an output's manifest names (its name and the sha256 of its text), if it has a manifest. */
function manifestSpec(outDir: string): { name: string; sha256: string } | undefined {
  try {
    const m = JSON.parse(readFileSync(join(outDir, MANIFEST_FILE), "utf8")) as { spec?: { name?: unknown; sha256?: unknown } };
    return typeof m.spec?.name === "string" && typeof m.spec.sha256 === "string" ? { name: m.spec.name, sha256: m.spec.sha256 } : undefined;
  } catch {
    return undefined;
  }
}

/** The built-in spec an output was generated from, when its manifest names one with this very text. */
function builtinOfOutput(outDir: string, cwd: string): SourceFile | undefined {
  const m = manifestSpec(outDir);
  if (m === undefined || !builtinSpecs().includes(m.name)) return undefined;
  const r = resolveSpec(m.name, cwd);
  return r.ok && sha256Of(r.source.text) === m.sha256 ? r.source : undefined;
}

/**
 * What the spec's change means for the server's own code (generator/regen-notes.ts): one line per change of
 * the handler contract, the work-set fields or the states, and what the handlers must do.
 */
async function printRegenNotes(io: Io, previous: SourceFile, result: CompileResult): Promise<void> {
  const { analyze } = await import("../analyze.js");
  const old = analyze(previous).ir;
  if (old === undefined || result.ir === undefined) return;
  const { regenNotes } = await import("../regen-notes.js");
  const notes = regenNotes(old, result.ir);
  for (const n of notes) io.out(`  ${n.kind.padEnd(9)} ${n.change}: ${n.todo}`);
  if (notes.length > 0) io.out(`mcp-task-gen: ${notes.length} change${notes.length === 1 ? "" : "s"} for the handlers (all changes: npx mcp-task-gen diff <old spec> <new spec>)`);
}

/** Brings a target's user-owned handler files in step with its contract (project.ts), unless known to be. */
export async function syncHandlers(io: Io, t: { spec: string; out: string; handlers: string }, opts: { dryRun?: boolean; quiet?: boolean } = {}): Promise<number> {
  const fast = await probeHandlers(io, t);
  if (fast) {
    print(io, fast);
    return 0;
  }
  return (await import("../project.js")).syncHandlers(io, t, opts);
}

/** generate, then the handler files when --handlers names them. */
export async function generateCmd(io: Io, o: GenerateOpts & { handlers?: string }): Promise<number> {
  const { handlers, ...g } = o;
  const code = await generate(io, g);
  return code === 0 && handlers !== undefined ? syncHandlers(io, { spec: g.spec, out: g.out, handlers }, { dryRun: g.dryRun, quiet: g.quiet }) : code;
}
