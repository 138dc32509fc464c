/**
 * The thin shell: arguments, config, the disk, exit codes.
 * Exit codes: 0 ok, 1 spec errors or drift, 2 usage errors.
 *
 * The compiler (pipeline.js: YAML, checks, Handlebars, prettier) is loaded only
 * when a target needs compiling: a target that is up to date is answered by
 * the no-change fast path (fastpath.ts) first. The plain forms of generate,
 * check and the default command also run without yargs (runCommand), as
 * bin/mcp-task-gen.js parses them (fastpath.ts parseCommand).
 */
import { existsSync, readFileSync, watch as fsWatch, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { CODES, formatDiagnostic, hasErrors, type Diagnostic } from "./diagnostics.js";
import { findConfig, print, probe, probeHandlers, recorder, rememberedSpec, rememberSpec, stdIo, type Command } from "./fastpath.js";
import type { SourceFile } from "./load.js";
import { MANIFEST_FILE, sha256 as sha256Of } from "./manifest.js";
import { apply, conflictMessage, drift, forceable, plan } from "./fsout.js";
import type { CompileResult } from "./pipeline.js";
import { builtinSpecs, DEFAULT_OUT, DEFAULT_SPEC, INIT_DEFAULT_SPEC, resolveSpec } from "./specs.js";
import { GENERATOR_VERSION, RUNTIME_PACKAGE, RUNTIME_VERSION } from "./version.js";

export { DEFAULT_OUT };

class UsageError extends Error {}

/** A spec file that cannot be read: reported as a diagnostic (MTG001), exit 1. */
class SpecFileError extends Error {
  constructor(readonly diagnostic: Diagnostic) {
    super(diagnostic.message);
  }
}

function resolveOrThrow(spec: string, cwd: string) {
  const r = resolveSpec(spec, cwd);
  if (!r.ok) throw r.diagnostic ? new SpecFileError(r.diagnostic) : new UsageError(r.message);
  return r;
}

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  cwd: string;
  color: boolean;
}

const defaultIo = (): Io => stdIo();

// ---------------------------------------------------------------------------
// Config
// ---------------------------------------------------------------------------

async function configSchemas() {
  const { z } = await import("zod");
  const Target = z.strictObject({
    spec: z.string().min(1).default(DEFAULT_SPEC),
    out: z.string().min(1).default(DEFAULT_OUT),
    /** User-owned handler files kept in step with the generated contract (see generator/project.ts). */
    handlers: z.string().min(1).optional(),
  });
  const Targets = z.strictObject({ targets: z.array(Target).min(1) });
  return { Target, Targets };
}
type TargetT = { spec: string; out: string; handlers?: string };

// fastpath.ts reads the configuration the same way (readConfigPlain) and leaves anything not plainly valid to this.
export async function readConfig(cwd: string): Promise<{ targets: TargetT[]; file: string } | { error: string } | undefined> {
  const found = findConfig(cwd);
  if (found === undefined) return undefined;
  const file = found.file;
  let raw: unknown;
  let text: string | undefined;
  if ("raw" in found) raw = found.raw;
  else {
    try {
      text = readFileSync(found.path, "utf8");
      raw = file.endsWith(".json") ? JSON.parse(text) : (await import("yaml")).parse(text);
    } catch (e) {
      const where = text === undefined ? "1:1" : syntaxErrorAt(text, e as Error);
      // The parser's own words, without the excerpt the YAML parser appends (the location says where).
      const why = (e as Error).message
        .split(/:?\n\n/)[0]!
        .replace(/\s+/g, " ")
        // The location is given in front, once.
        .replace(/ (in JSON )?at position \d+( \(line \d+ column \d+\))?$| at line \d+, column \d+$/, "");
      return { error: `${file}:${where} error MTG090 cannot parse the configuration: ${why}; fix the ${file.endsWith(".json") ? "JSON" : "YAML"} syntax here` };
    }
  }
  // Validate against the form the file means, so the message names the faulty key.
  const { Target, Targets } = await configSchemas();
  const form = raw !== null && typeof raw === "object" && "targets" in raw ? Targets : Target;
  const parsed = form.safeParse(raw ?? {});
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    const unknownKey = i.code === "unrecognized_keys" ? String(i.keys[0]) : undefined;
    let what = i.message.replace(/^Invalid input: /, "");
    if (unknownKey !== undefined) {
      const { closest } = await import("./format.js");
      const guess = closest(unknownKey, ["spec", "out", "handlers", "targets"]);
      what = `unknown key '${unknownKey}'${guess === undefined ? "" : `, did you mean '${guess}'?`}`;
    }
    // Where the configuration's keys are: package.json's section lives under its key (read again only now).
    const base: readonly PropertyKey[] = "raw" in found ? ["mcp-task-gen"] : [];
    if ("raw" in found) {
      try {
        text = readFileSync(join(cwd, "package.json"), "utf8");
      } catch {
        text = undefined;
      }
    }
    const where = text === undefined ? "1:1" : await nodeAt(text, [...base, ...i.path], unknownKey);
    return {
      error: `${file.replace(/#.*$/, "")}:${where} error MTG090 invalid configuration${base.length > 0 ? ` (${file})` : ""} at '${i.path.join(".") || "(root)"}': ${what}; expected { "spec": "<name|path>", "out": "<dir>", "handlers"?: "<dir>" } or { "targets": [ { "spec": ..., "out": ... } ] }`,
    };
  }
  const targets = "targets" in parsed.data ? parsed.data.targets : [parsed.data];
  return { targets, file };
}

/** "line:col" (1-based) of a character offset. */
function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

/** Where a configuration file stops parsing (else its start). */
function syntaxErrorAt(text: string, e: Error & { linePos?: { line: number; col: number }[] }): string {
  const pos = e.linePos?.[0];
  if (pos !== undefined) return `${pos.line}:${pos.col}`;
  const at = /at position (\d+)/.exec(e.message);
  const bad = at ? Number(at[1]) : firstJsonError(text);
  return bad === undefined ? "1:1" : lineCol(text, bad);
}

/**
 * The offset of the first character that makes `text` no JSON, or undefined when it is JSON (the
 * JSON.parse of Node 20 names no position).
 */
export function firstJsonError(text: string): number | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => (text.startsWith(word, i) ? (i += word.length) : fail());
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "x")) fail();
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      ws();
      if (text[i] === close) return void i++;
      for (;;) {
        if (c === "{") {
          ws();
          if (text[i] !== '"') fail();
          string();
          ws();
          if (text[i] !== ":") fail();
          i++;
        }
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === close) return void i++;
        else fail();
      }
    }
    if (c === '"') return string();
    if (c === "t") return void literal("true");
    if (c === "f") return void literal("false");
    if (c === "n") return void literal("null");
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) fail();
    i += m![0].length;
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value();
    ws();
    return i < text.length ? i : undefined;
  } catch (at) {
    return typeof at === "number" ? Math.min(at, text.length) : undefined;
  }
}

/** Where the value at `path` of a configuration file starts (or its key `key`), else the file's start. */
async function nodeAt(text: string, path: readonly PropertyKey[], key: string | undefined): Promise<string> {
  const { parseDocument, isMap, isScalar } = await import("yaml");
  const doc = parseDocument(text);
  const node = path.length === 0 ? doc.contents : doc.getIn(path as unknown[], true);
  let offset = (node as { range?: [number, number, number] } | null | undefined)?.range?.[0];
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
    offset = (pair?.key as { range?: [number, number, number] } | undefined)?.range?.[0] ?? offset;
  }
  return offset === undefined ? "1:1" : lineCol(text, offset);
}

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

/** How many diagnostics a run prints; the rest are counted (validate --json gives them all). */
export const MAX_PRINTED_DIAGNOSTICS = 50;

function printDiagnostics(io: Io, diags: readonly Diagnostic[]) {
  for (const d of diags.slice(0, MAX_PRINTED_DIAGNOSTICS)) io.err(formatDiagnostic(d, { color: io.color }));
  const more = diags.length - MAX_PRINTED_DIAGNOSTICS;
  if (more > 0) io.err(`mcp-task-gen: ${more} more diagnostic${more === 1 ? "" : "s"} not shown; fix these first, or run validate --json for all of them`);
}

async function compileSpec(io: Io, spec: string): Promise<{ result?: CompileResult; name: string; source: SourceFile }> {
  const r = resolveOrThrow(spec, io.cwd);
  // What this spec compiles to, for the fast path of later runs (whatever this run then does with it).
  const record = recorder(io.cwd, r.source);
  const { compile } = await import("./pipeline.js");
  const result = await compile(r.source);
  record(result);
  return { result, name: spec, source: r.source };
}

function summarize(diags: readonly Diagnostic[]): string {
  const e = diags.filter((d) => d.severity === "error").length;
  const w = diags.length - e;
  return `${e} error${e === 1 ? "" : "s"}, ${w} warning${w === 1 ? "" : "s"}`;
}

interface GenerateOpts {
  spec: string;
  out: string;
  dryRun?: boolean;
  force?: boolean;
  warnAsError?: boolean;
  quiet?: boolean;
}

async function generate(io: Io, o: GenerateOpts): Promise<number> {
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
  const { analyze } = await import("./pipeline.js");
  const old = analyze(previous).ir;
  if (old === undefined || result.ir === undefined) return;
  const { regenNotes } = await import("./regen-notes.js");
  const notes = regenNotes(old, result.ir);
  for (const n of notes) io.out(`  ${n.kind.padEnd(9)} ${n.change}: ${n.todo}`);
  if (notes.length > 0) io.out(`mcp-task-gen: ${notes.length} change${notes.length === 1 ? "" : "s"} for the handlers (all changes: npx mcp-task-gen diff <old spec> <new spec>)`);
}

/**
 * The runtime package the generated code imports, as Node would find it from the output folder: a warning
 * with the command to run when it is missing or of another version than the code was generated for (the
 * runtime refuses to start with such code, saying the same).
 */
function checkInstalledRuntime(io: Io, outDir: string): void {
  const install = `npm install ${RUNTIME_PACKAGE}@${RUNTIME_VERSION}`;
  for (let dir = resolve(outDir); ; dir = dirname(dir)) {
    const file = join(dir, "node_modules", ...RUNTIME_PACKAGE.split("/"), "package.json");
    if (existsSync(file)) {
      let version: unknown;
      try {
        version = (JSON.parse(readFileSync(file, "utf8")) as { version?: unknown }).version;
      } catch {
        version = undefined;
      }
      if (version !== RUNTIME_VERSION) {
        io.err(`mcp-task-gen: warning: the generated code is for ${RUNTIME_PACKAGE} ${RUNTIME_VERSION}, but ${relative(io.cwd, file) || file} is version ${String(version)}; run: ${install}`);
      }
      return;
    }
    if (dirname(dir) === dir) break;
  }
  io.err(`mcp-task-gen: warning: the generated code imports the task runtime, ${RUNTIME_PACKAGE}, which is not installed where it can find it; run: ${install}`);
}

/**
 * A warning for each package the generated code imports that the project's package.json (the nearest
 * above the output) does not list, with the command that adds it: a spec of another lifecycle brings
 * another SDK package, and without it the output does not compile.
 */
async function warnMissingDependencies(io: Io, outDir: string, files: readonly { path: string; contents: string }[]): Promise<void> {
  let dir = outDir;
  let pkgFile: string | undefined;
  for (;;) {
    if (existsSync(join(dir, "package.json"))) {
      pkgFile = join(dir, "package.json");
      break;
    }
    const up = dirname(dir);
    if (up === dir) return;
    dir = up;
  }
  let pkg: { name?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
  try {
    pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  } catch {
    return; // not ours to complain about
  }
  const { importedPackages, ownPackage } = await import("./init.js");
  const own = ownPackage();
  if (pkg.name === own.name) return; // this repository's own samples
  const listed = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
  const shownPkg = relative(io.cwd, pkgFile) || "package.json";
  for (const name of importedPackages(files)) {
    if (listed.has(name)) continue;
    const range = own.dependencies?.[name] ?? own.devDependencies?.[name];
    io.err(`mcp-task-gen: warning: the generated code imports ${name}, which ${shownPkg} does not list; run: npm install ${range === undefined ? name : `${name}@${range}`}`);
  }
}

/** Brings a target's user-owned handler files in step with its contract (project.ts), unless known to be. */
async function syncHandlers(io: Io, t: { spec: string; out: string; handlers: string }, opts: { dryRun?: boolean; quiet?: boolean } = {}): Promise<number> {
  const fast = await probeHandlers(io, t);
  if (fast) {
    print(io, fast);
    return 0;
  }
  return (await import("./project.js")).syncHandlers(io, t, opts);
}

/** check, then the handler files when `handlers` names them (both are reported; either failing fails). */
async function checkCmd(io: Io, o: { spec: string; out: string; handlers?: string; warnAsError?: boolean }): Promise<number> {
  const code = await checkOutput(io, o);
  if (o.handlers === undefined || code > 1) return code;
  const handlers = await (await import("./project.js")).checkHandlers(io, { spec: o.spec, out: o.out, handlers: o.handlers });
  return Math.max(code, handlers);
}

/** check with the configuration's targets (their handler files included), or the defaults without one. */
async function checkConfigCmd(io: Io, o: { warnAsError?: boolean }): Promise<number> {
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

async function validateCmd(io: Io, o: { spec: string; warnAsError?: boolean; json?: boolean }): Promise<number> {
  const r = resolveSpec(o.spec, io.cwd);
  if (!r.ok && r.diagnostic && o.json) {
    io.out(JSON.stringify({ spec: o.spec, ok: false, diagnostics: [r.diagnostic] }, null, 2));
    return 1;
  }
  if (!r.ok) throw r.diagnostic ? new SpecFileError(r.diagnostic) : new UsageError(r.message);
  const { analyze } = await import("./pipeline.js");
  const { diagnostics } = analyze(r.source);
  const failed = hasErrors(diagnostics, o.warnAsError);
  if (o.json) io.out(JSON.stringify({ spec: o.spec, ok: !failed, diagnostics }, null, 2));
  else {
    printDiagnostics(io, diagnostics);
    io.out(`mcp-task-gen: ${r.source.file}: ${failed ? "invalid" : "valid"} (${summarize(diagnostics)})`);
  }
  return failed ? 1 : 0;
}

/** The default command: the config file's targets, else the default spec into ./mcp-tasks/. */
async function configCmd(io: Io, a: { force?: boolean; warnAsError?: boolean; watch?: boolean }): Promise<number> {
  const cfg = await readConfig(io.cwd);
  if (cfg && "error" in cfg) {
    io.err(cfg.error);
    return 1;
  }
  const targets = cfg ? cfg.targets : [{ spec: DEFAULT_SPEC, out: DEFAULT_OUT }];
  if (cfg) io.out(`mcp-task-gen: using ${cfg.file}`);
  if (a.watch) return watchTargets(io, targets, { force: a.force, warnAsError: a.warnAsError });
  let code = 0;
  for (const t of targets) {
    const c = await generate(io, { spec: t.spec, out: t.out, force: a.force, warnAsError: a.warnAsError });
    // A target with user-owned handler files: keep them in step with the contract (generator/project.ts).
    code = Math.max(code, c === 0 && t.handlers ? await syncHandlers(io, { ...t, handlers: t.handlers }) : c);
  }
  return code;
}

/**
 * generate --watch: the targets the command line names. With neither --spec nor --out, a project's
 * configuration names them (all its targets, their handler folders included); with --spec alone, the
 * configuration's targets of that spec; without a configuration, the defaults.
 */
async function watchGenerateCmd(io: Io, o: Omit<GenerateOpts, "spec" | "out"> & { spec?: string; out?: string; handlers?: string }): Promise<number> {
  const explicit = (): TargetT => ({ spec: o.spec ?? DEFAULT_SPEC, out: o.out ?? DEFAULT_OUT, ...(o.handlers === undefined ? {} : { handlers: o.handlers }) });
  if (o.out !== undefined) return watchTargets(io, [explicit()], o);
  const cfg = await readConfig(io.cwd);
  if (cfg && "error" in cfg) {
    io.err(cfg.error);
    return 1;
  }
  if (cfg === undefined) return watchTargets(io, [explicit()], o);
  const targets = cfg.targets
    .filter((t) => o.spec === undefined || t.spec === o.spec)
    .map((t) => (o.handlers === undefined ? t : { ...t, handlers: o.handlers }));
  if (targets.length === 0) {
    throw new UsageError(`${cfg.file} has no target of spec ${o.spec} (its specs: ${cfg.targets.map((t) => t.spec).join(", ")}); name the output folder with --out`);
  }
  io.out(`mcp-task-gen: using ${cfg.file}`);
  return watchTargets(io, targets, o);
}

/** generate, then the handler files when --handlers names them. */
function generateCmd(io: Io, o: GenerateOpts & { handlers?: string; watch?: boolean }): Promise<number> {
  const { handlers, watch, ...g } = o;
  if (handlers !== undefined && !watch) {
    return generate(io, g).then(async (c) =>
      c === 0 ? syncHandlers(io, { spec: g.spec, out: g.out, handlers }, { dryRun: g.dryRun, quiet: g.quiet }) : c,
    );
  }
  return watch ? watchCmd(io, g, handlers) : generate(io, g);
}

/** A command's exit code; a user's mistake (a usage error, an unreadable spec file) is reported, never thrown. */
async function settle(io: Io, p: Promise<number>): Promise<number> {
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

/**
 * Runs a command in one of the plain forms that fastpath.ts's parseCommand
 * reads, exactly as main() runs it after yargs parsed the same arguments.
 */
export function runCommand(cmd: Command, io: Io = defaultIo()): Promise<number> {
  switch (cmd.kind) {
    case "config":
      return settle(io, configCmd(io, { force: cmd.force, warnAsError: cmd.warnAsError }));
    case "generate":
      return settle(
        io,
        generateCmd(io, { ...cmd.target, force: cmd.force, quiet: cmd.quiet, warnAsError: cmd.warnAsError, dryRun: false, watch: false }),
      );
    case "check":
      return settle(io, checkCmd(io, { spec: cmd.target.spec, out: cmd.target.out, warnAsError: cmd.warnAsError }));
  }
}

/** Regenerates whenever the spec file changes, and keeps the handler files in step when `handlers` names them. */
function watchCmd(io: Io, o: GenerateOpts, handlers?: string): Promise<number> {
  return watchTargets(io, [{ spec: o.spec, out: o.out, ...(handlers === undefined ? {} : { handlers }) }], o);
}

/**
 * Generates every target, then regenerates the targets of a spec file whenever it changes (their handler
 * files kept in step where `handlers` names them). Never returns: the watch ends with the process.
 */
async function watchTargets(io: Io, targets: readonly TargetT[], o: Omit<GenerateOpts, "spec" | "out">): Promise<number> {
  const round = async (t: TargetT) => {
    const code = await generate(io, { ...o, spec: t.spec, out: t.out });
    return code === 0 && t.handlers !== undefined ? syncHandlers(io, { spec: t.spec, out: t.out, handlers: t.handlers }, { dryRun: o.dryRun, quiet: o.quiet }) : code;
  };
  // The targets of each spec file, by its path.
  const bySpec = new Map<string, { shown: string; targets: TargetT[] }>();
  for (const t of targets) {
    const r = resolveOrThrow(t.spec, io.cwd);
    const path = resolve(io.cwd, r.source.file);
    const entry = bySpec.get(path) ?? { shown: r.source.file, targets: [] };
    entry.targets.push(t);
    bySpec.set(path, entry);
  }
  for (const t of targets) await round(t);
  io.out(`mcp-task-gen: watching ${[...bySpec.values()].map((e) => e.shown).join(", ")} (Ctrl-C to stop)`);
  let running = Promise.resolve(0);
  // The folders, not the files: an editor that saves by writing a new file and renaming it over the old
  // one (sed -i, "safe write") replaces the file a watch on it would follow.
  const folders = new Map<string, string[]>();
  for (const path of bySpec.keys()) folders.set(dirname(path), [...(folders.get(dirname(path)) ?? []), path]);
  for (const [folder, paths] of folders) {
    const timers = new Map<string, NodeJS.Timeout>();
    fsWatch(folder, (_event, changed) => {
      for (const path of paths) {
        if (changed !== null && changed.toString() !== basename(path)) continue;
        clearTimeout(timers.get(path));
        timers.set(
          path,
          setTimeout(() => {
            if (!existsSync(path)) return; // between the removal and the rename: the rename comes next
            for (const t of bySpec.get(path)!.targets) running = running.then(() => round(t).catch((e) => (io.err(String(e)), 1)));
          }, 100),
        );
      }
    });
  }
  return new Promise<number>(() => {});
}

// ---------------------------------------------------------------------------
// Entry
// ---------------------------------------------------------------------------

/** A few command lines per command, for its --help; the general help shows the first of each. */
const EXAMPLES: Record<string, [string, string][]> = {
  $0: [
    ["$0", "Generate the configuration's targets (mcp-task-gen.config.json, or package.json#mcp-task-gen)"],
    ["$0 --force", "The same, overwriting generated files edited by hand"],
  ],
  generate: [
    ["$0 generate --spec mcp-2025-11-25 --out src/tasks", "A built-in spec into src/tasks/"],
    ["$0 generate --spec ./my-tasks.yaml --out src/tasks --dry-run", "Your spec: list what would be written"],
    ["$0 generate --spec ./my-tasks.yaml --out src/tasks --handlers src/handlers --watch", "Regenerate on every save, keeping your handlers in step"],
  ],
  check: [
    ["$0 check", "In CI: the configuration's targets and handler files are up to date"],
    ["$0 check --spec ./my-tasks.yaml --out src/tasks", "One output folder"],
  ],
  validate: [
    ["$0 validate ./my-tasks.yaml", "Report a spec's mistakes, file:line:col"],
    ["$0 validate ./my-tasks.yaml --json --warn-as-error", "As JSON, failing on warnings too"],
  ],
  diff: [
    ["$0 diff mcp-2025-11-25 ext-tasks-2026-07-28", "What changed between two revisions, as Markdown"],
    ["$0 diff ./old.yaml ./my-tasks.yaml --json --fail-on any", "As JSON; exit 1 on any change"],
  ],
  init: [
    ["$0 init my-server", `A stdio MCP server for ${INIT_DEFAULT_SPEC}, the revision most clients speak`],
    ["$0 init my-server --spec ./my-tasks.yaml --transport http", "Your spec, over Streamable HTTP"],
  ],
  "list-specs": [["$0 list-specs", "The built-in specs"]],
  schema: [
    ["$0 schema --out mcp-task-spec.schema.json", "For your editor's YAML support"],
    ["$0 schema", "Print it"],
  ],
  codes: [["$0 codes", "Every diagnostic code, with a line on what it means"]],
  conform: [
    ["$0 conform --spec mcp-2025-11-25 --stdio 'node server.js'", "Test a stdio server against a spec"],
    ["$0 conform --spec ./my-tasks.yaml --url http://127.0.0.1:3000/mcp --runs 50", "An HTTP server, more runs"],
  ],
};

const COMMANDS = ["generate", "check", "validate", "list-specs", "schema", "codes", "diff", "init", "conform"];

/** The commands the parser declares (yargs keeps them in its command instance), else the list above. */
function commandsOf(parser: unknown): string[] {
  try {
    const names = (parser as { getInternalMethods(): { getCommandInstance(): { getCommands(): string[] } } })
      .getInternalMethods()
      .getCommandInstance()
      .getCommands();
    if (Array.isArray(names) && names.length > 0) return names;
  } catch {
    // another yargs: the list is the fallback
  }
  return COMMANDS;
}

/** The commands and options, for a guess at a misspelt one. */
const WORDS = [
  ...COMMANDS,
  ...["spec", "out", "handlers", "dry-run", "watch", "force", "quiet", "warn-as-error", "json", "fail-on", "transport", "name", "allow-nonempty"],
  ...["stdio", "url", "runs", "seed", "outcomes", "header", "other-header", "other-stdio", "max-commands", "time-limit", "ignore"],
  ...["startup-timeout", "request-timeout", "fresh-process"],
];

/** yargs' "Unknown argument: x" with a close guess, as the spec checks give one. */
async function withGuess(message: string): Promise<string> {
  const unknown = /^Unknown arguments?: (\S+?)(,|\n|$)/.exec(message);
  if (unknown === null) return message;
  const { closest } = await import("./format.js");
  const guess = closest(unknown[1]!, WORDS);
  // A word of another command (`--quiet` without `generate`): no misspelling to guess.
  if (guess === unknown[1]) return message.replace(unknown[0]!, `${unknown[0]!.replace(/[,\n]$/, "")} (an option of another command: see 'npx mcp-task-gen <command> --help')${unknown[2] ?? ""}`);
  return guess === undefined ? message : message.replace(unknown[0]!, `${unknown[0]!.replace(/[,\n]$/, "")}; did you mean '${guess}'?${unknown[2] ?? ""}`);
}

export async function main(argv?: string[], io: Io = defaultIo()): Promise<number> {
  const { default: yargs } = await import("yargs");
  argv ??= (await import("yargs/helpers")).hideBin(process.argv);
  let exit = 0;
  const run = (p: Promise<number>) =>
    settle(io, p).then((code) => {
      exit = code;
    });
  const specOpt = { type: "string", requiresArg: true, describe: "A built-in spec name or a path to a spec file (YAML or JSON)" } as const;
  const outOpt = { type: "string", requiresArg: true, describe: "The output directory" } as const;
  const common = {
    "warn-as-error": { type: "boolean", describe: "Treat warnings as errors", default: false },
  } as const;
  const parser = yargs(argv)
    .scriptName("mcp-task-gen")
    .usage(
      "$0 [command]\n\nCompiles a declarative MCP Tasks spec into types, zod validators, guards, a transition table and docs.\nWith no command: generate from mcp-task-gen.config.{json,yaml} (or package.json#mcp-task-gen) if present, else the built-in spec " +
        `${DEFAULT_SPEC} into ./${DEFAULT_OUT}/.`,
    )
    .command(
      "$0",
      "Generate from the config file, or the default spec into ./mcp-tasks/",
      (y) =>
        y.options({
          force: { type: "boolean", default: false, describe: "Overwrite generated files edited by hand (never files mcp-task-gen did not write)" },
          watch: { type: "boolean", default: false, describe: "Then regenerate a target whenever its spec file changes" },
          ...common,
        }).example([...EXAMPLES.$0!, ...Object.entries(EXAMPLES).flatMap(([c, e]) => (c === "$0" ? [] : [e[0]!]))]),
      (a) => run(configCmd(io, { force: a.force, warnAsError: a["warn-as-error"], watch: a.watch })),
    )
    .command(
      "generate",
      "Generate the output of a spec",
      (y) =>
        y.options({
          spec: { ...specOpt, describe: `${specOpt.describe} (default: ${DEFAULT_SPEC}; with --watch, the configuration's targets)` },
          out: { ...outOpt, describe: `The output directory (default: ${DEFAULT_OUT}; with --watch, the configuration's)` },
          "dry-run": { type: "boolean", default: false, describe: "Show what would be written, write nothing" },
          watch: {
            type: "boolean",
            default: false,
            describe: "Regenerate whenever the spec file changes; with no --spec or --out, the configuration's targets (and handler folders)",
          },
          force: { type: "boolean", default: false, describe: "Overwrite generated files edited by hand (never files mcp-task-gen did not write)" },
          quiet: { type: "boolean", default: false, describe: "Print only the summary line (and what a spec change means for the handlers)" },
          handlers: {
            type: "string",
            requiresArg: true,
            describe: "A directory of user-owned handler files to keep in step with the generated contract (stubs for new members, markers on removed ones)",
          },
          ...common,
        }).example(EXAMPLES.generate!),
      (a) => {
        const rest = { dryRun: a["dry-run"], force: a.force, quiet: a.quiet, warnAsError: a["warn-as-error"] };
        return run(
          a.watch
            ? watchGenerateCmd(io, { ...rest, ...(a.spec === undefined ? {} : { spec: a.spec }), ...(a.out === undefined ? {} : { out: a.out }), ...(a.handlers === undefined ? {} : { handlers: a.handlers }) })
            : generateCmd(io, { ...rest, spec: a.spec ?? DEFAULT_SPEC, out: a.out ?? DEFAULT_OUT, handlers: a.handlers, watch: false }),
        );
      },
    )
    .command(
      "check",
      "Exit 0 when a directory holds exactly what generate would write (for CI), else list the drift and exit 1",
      (y) =>
        y.options({
          spec: { ...specOpt, describe: `${specOpt.describe} (default: the configuration's targets, else ${DEFAULT_SPEC})` },
          out: { ...outOpt, describe: `The output directory (default: the configuration's, else ${DEFAULT_OUT})` },
          handlers: { type: "string", requiresArg: true, describe: "Also check that the user-owned handler files in this folder are in step with the contract" },
          ...common,
        }).example(EXAMPLES.check!),
      (a) =>
        run(
          a.spec === undefined && a.out === undefined && a.handlers === undefined
            ? checkConfigCmd(io, { warnAsError: a["warn-as-error"] })
            : checkCmd(io, { spec: a.spec ?? DEFAULT_SPEC, out: a.out ?? DEFAULT_OUT, ...(a.handlers === undefined ? {} : { handlers: a.handlers }), warnAsError: a["warn-as-error"] }),
        ),
    )
    .command(
      "validate <spec>",
      "Check a spec and report its diagnostics, writing nothing",
      (y) =>
        y
          .positional("spec", { ...specOpt, demandOption: true })
          .options({ json: { type: "boolean", default: false, describe: "Print the diagnostics as JSON" }, ...common })
          .example(EXAMPLES.validate!),
      (a) => run(validateCmd(io, { spec: a.spec as string, json: a.json, warnAsError: a["warn-as-error"] })),
    )
    .command(
      "diff <old> <new>",
      "Compare two specs: what changed, breaking or compatible for clients and for servers (Markdown, or --json); exit 1 on breaking changes",
      (y) =>
        y
          .positional("old", { ...specOpt, demandOption: true })
          .positional("new", { ...specOpt, demandOption: true })
          .options({
            json: { type: "boolean", default: false, describe: "Print the diff as JSON (format mcp-task-gen.diff/1)" },
            "fail-on": {
              choices: ["breaking", "any", "none"] as const,
              default: "breaking" as const,
              describe: "Exit 1 when a change is breaking for either side (breaking), on any change (any), or never (none)",
            },
          })
          .example(EXAMPLES.diff!),
      (a) =>
        run(
          (async () => {
            // Self-contained: spec errors print their diagnostics and exit 1; an unknown spec is a usage error (exit 2).
            const { analyze } = await import("./pipeline.js");
            const { diffSpecs, diffFails, renderDiffJson, renderDiffMarkdown } = await import("./diff/index.js");
            const irs = [];
            let failed = false;
            for (const spec of [a.old as string, a.new as string]) {
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
            io.out((a.json ? renderDiffJson(d) : renderDiffMarkdown(d)).trimEnd());
            return diffFails(d, a["fail-on"]) ? 1 : 0;
          })(),
        ),
    )
    .command(
      "init <dir>",
      "Scaffold a ready MCP server project: the generated code in src/tasks/, your handlers in src/handlers/, a server entry point, a test, a README",
      (y) =>
        y
          .positional("dir", { type: "string", describe: "The project directory (new or empty)", demandOption: true })
          .options({
            spec: { ...specOpt, default: INIT_DEFAULT_SPEC },
            transport: {
              choices: ["stdio", "http"] as const,
              describe: "The server's transport: stdio, or Streamable HTTP (default: stdio; http for a spec with a per-request lifecycle)",
            },
            name: { type: "string", requiresArg: true, describe: "The package name (default: from the directory name)" },
            "allow-nonempty": {
              type: "boolean",
              default: false,
              describe: "Scaffold into a non-empty directory: only missing files are written, existing ones are kept",
            },
          })
          .example(EXAMPLES.init!),
      (a) =>
        run(
          (async () => {
            // Self-contained: the scaffold and its disk side live in generator/init.ts and generator/project.ts.
            const { initCommand, ProjectUsageError } = await import("./project.js");
            try {
              return await initCommand(io, {
                dir: a.dir as string,
                spec: a.spec,
                ...(a.transport === undefined ? {} : { transport: a.transport }),
                ...(a.name === undefined ? {} : { name: a.name }),
                allowNonEmpty: a["allow-nonempty"],
              });
            } catch (e) {
              throw e instanceof ProjectUsageError ? new UsageError(e.message) : e;
            }
          })(),
        ),
    )
    .command(
      "list-specs",
      "List the built-in specs",
      (y) => y.example(EXAMPLES["list-specs"]!),
      () => {
        for (const s of builtinSpecs()) io.out(`${s}${s === DEFAULT_SPEC ? " (default)" : ""}`);
      },
    )
    .command(
      "schema",
      "Print the JSON Schema of the spec format",
      (y) => y.options({ out: { type: "string", requiresArg: true, describe: "Write it to this file instead" } }).example(EXAMPLES.schema!),
      (a) =>
        run(
          (async () => {
            const { specJsonSchema } = await import("./format.js");
            const text = JSON.stringify(specJsonSchema(), null, 2) + "\n";
            if (!a.out) {
              io.out(text.trimEnd());
              return 0;
            }
            const target = resolve(io.cwd, a.out);
            const shown = relative(io.cwd, target) || target;
            try {
              writeFileSync(target, text);
            } catch (e) {
              const err = e as NodeJS.ErrnoException;
              const why = err.code === "ENOENT" ? "its folder does not exist" : err.code === "EISDIR" ? "it is a folder" : `${err.code ?? "error"}: ${err.message.split("\n")[0]}`;
              io.err(`mcp-task-gen: error: cannot write ${shown}: ${why}; name a file in an existing folder`);
              return 1;
            }
            io.out(`mcp-task-gen: wrote the JSON Schema of the spec format to ${shown} (${Buffer.byteLength(text)} bytes)`);
            return 0;
          })(),
        ),
    )
    .command(
      "conform",
      "Test a running MCP server against a spec: stateful, property-based, derived from the spec",
      (y) =>
        y
          .options({
            spec: { ...specOpt, default: DEFAULT_SPEC },
            stdio: { type: "string", requiresArg: true, describe: "Start the server with this shell command and speak JSON-RPC on its stdin/stdout" },
            url: { type: "string", requiresArg: true, describe: "The server's Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp" },
            runs: { type: "number", requiresArg: true, describe: "Command sequences to try (default 20)" },
            seed: { type: "number", requiresArg: true, describe: "The seed of a run to replay (printed by every run)" },
            "max-commands": { type: "number", requiresArg: true, describe: "Longest sequence drawn (default 12)" },
            "time-limit": { type: "number", requiresArg: true, describe: "Stop drawing new sequences after this many seconds" },
            outcomes: {
              type: "string",
              requiresArg: true,
              describe: 'The tools that make work of each outcome: a JSON file or inline JSON, e.g. {"complete":{"name":"echo","arguments":{}},"long":null}',
            },
            header: { type: "string", array: true, requiresArg: true, describe: 'An HTTP header on every request, "Name: value" (repeatable)' },
            "other-stdio": {
              type: "string",
              requiresArg: true,
              describe: "With --stdio: the command of another server process on the same task store, serving another requestor: its sessions must not reach the first one's tasks",
            },
            "other-header": {
              type: "string",
              array: true,
              requiresArg: true,
              describe: 'The headers of another requestor, "Name: value" (repeatable): its sessions must not reach the first one\'s tasks, e.g. "Authorization: Bearer <another token>"',
            },
            ignore: { type: "string", array: true, requiresArg: true, describe: "A rule whose violations are reported as known deviations, not failures (repeatable)" },
            json: { type: "boolean", default: false, describe: "Print the report as JSON" },
            "startup-timeout": { type: "number", requiresArg: true, describe: "Seconds a stdio server may take to give its first answer (default 120)" },
            "request-timeout": { type: "number", requiresArg: true, describe: "Seconds any answer may take before the server counts as not testable (default 60)" },
            "fresh-process": { type: "boolean", default: false, describe: "Over stdio, start the server afresh for every run (default: one process, a new session per run)" },
          })
          .example(EXAMPLES.conform!)
          .epilog(
            "Exit codes: 0 every rule held, 1 a violation (the shortest failing sequence is printed), 2 usage, 3 the server could not be tested (not reachable, no start-up or answer in time, or it crashed; the sequence is printed).",
          ),
      (a) =>
        run(
          (async () => {
            const { conformCmd, ConformUsageError } = await import("./conform/command.js");
            try {
              return await conformCmd(io, {
                spec: a.spec,
                ...(a.stdio === undefined ? {} : { stdio: a.stdio }),
                ...(a.url === undefined ? {} : { url: a.url }),
                ...(a.runs === undefined ? {} : { runs: a.runs }),
                ...(a.seed === undefined ? {} : { seed: a.seed }),
                ...(a["max-commands"] === undefined ? {} : { maxCommands: a["max-commands"] }),
                ...(a["time-limit"] === undefined ? {} : { timeLimit: a["time-limit"] }),
                ...(a.outcomes === undefined ? {} : { outcomes: a.outcomes }),
                ...(a.header === undefined ? {} : { header: a.header.map(String) }),
                ...(a["other-header"] === undefined ? {} : { otherHeader: a["other-header"].map(String) }),
                ...(a["other-stdio"] === undefined ? {} : { otherStdio: a["other-stdio"] }),
                ...(a.ignore === undefined ? {} : { ignore: a.ignore.map(String) }),
                ...(a["startup-timeout"] === undefined ? {} : { startupTimeout: a["startup-timeout"] }),
                ...(a["request-timeout"] === undefined ? {} : { requestTimeout: a["request-timeout"] }),
                freshProcess: a["fresh-process"],
                json: a.json,
              });
            } catch (e) {
              throw e instanceof ConformUsageError ? new UsageError(e.message) : e;
            }
          })(),
        ),
    )
    .command(
      "codes",
      "List the diagnostic codes",
      (y) => y.example(EXAMPLES.codes!),
      () => {
        for (const [code, what] of Object.entries(CODES)) io.out(`${code}  ${what}`);
      },
    )
    .version(GENERATOR_VERSION)
    .alias("h", "help")
    .alias("v", "version")
    .strict()
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((msg, err) => {
      // yargs' own validation errors (an option missing its value, ...) are usage errors; anything else is ours.
      if (err && err.name !== "YError") throw err;
      throw new UsageError(`${msg ?? err?.message}\nRun 'npx mcp-task-gen --help' for usage.`);
    });
  try {
    // yargs answers --help before it looks at the command: an unknown one would get the general help and exit 0.
    const first = argv.find((a) => !a.startsWith("-"));
    if (first !== undefined && argv.some((a) => a === "--help" || a === "-h") && !commandsOf(parser).includes(first)) {
      throw new UsageError(`Unknown argument: ${first}\nRun 'npx mcp-task-gen --help' for usage.`);
    }
    await parser.parseAsync();
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`mcp-task-gen: ${await withGuess(e.message)}`);
      return 2;
    }
    throw e;
  }
  return exit;
}
