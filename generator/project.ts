/**
 * The disk side of projects with user-owned files: `mcp-task-gen init` (write
 * a scaffold from generator/init.ts) and the regeneration hook that keeps
 * user-owned handler files in step with the contract
 * (generator/update-user-files.ts). Generated files go through fsout.ts (the
 * manifest); every other file is written only when it is absent.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { formatDiagnostic, hasErrors, type Diagnostic } from "./diagnostics.js";
import { CONTRACT_FILE, contractOf } from "./emit/contract.js";
import { handlerFiles, recordHandlers } from "./fastpath.js";
import { apply, atomicWrite, conflictMessage, plan } from "./fsout.js";
import { generatorSource, InitUsageError, LAYOUT, packageName, runtimeSource, scaffold, type GeneratorSource, type Scaffold, type Transport } from "./init.js";
import { analyze } from "./pipeline.js";
import { resolveSpec } from "./specs.js";
import { planUserFileUpdates } from "./update-user-files.js";
import { RUNTIME_PACKAGE, RUNTIME_VERSION } from "./version.js";

/** The CLI's output channels (structurally the same as cli/shared.ts's Io). */
export interface ProjectIo {
  out: (s: string) => void;
  err: (s: string) => void;
  cwd: string;
  color: boolean;
}

/** A bad argument: the CLI answers exit 2. */
export class ProjectUsageError extends Error {}

export interface InitArgs {
  dir: string;
  spec: string;
  /** Default: from the spec's lifecycle (see init.ts). */
  transport?: Transport;
  /** Scaffold into a non-empty directory (existing files are kept). */
  allowNonEmpty?: boolean;
  name?: string;
}

const IGNORED_WHEN_EMPTY = new Set([".git"]);

function printDiagnostics(io: ProjectIo, diags: readonly Diagnostic[]) {
  for (const d of diags) io.err(formatDiagnostic(d, { color: io.color }));
}

const show = (p: string) => p.split(sep).join("/");

export async function initCommand(io: ProjectIo, a: InitArgs): Promise<number> {
  const dir = resolve(io.cwd, a.dir);
  const rel = show(relative(io.cwd, dir));
  const shown = rel === "" ? "." : rel.startsWith("../") ? show(dir) : rel;
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new ProjectUsageError(`${shown} exists and is not a directory`);
    const entries = readdirSync(dir).filter((e) => !IGNORED_WHEN_EMPTY.has(e));
    if (entries.length > 0 && !a.allowNonEmpty) {
      io.err(
        `mcp-task-gen: error: ${shown}/ is not empty (${entries.slice(0, 5).join(", ")}${entries.length > 5 ? ", ..." : ""}); ` +
          `init scaffolds into a new or empty directory. Pass --allow-nonempty to add the missing files anyway (existing files are never overwritten).`,
      );
      return 1;
    }
  }
  const r = resolveSpec(a.spec, io.cwd);
  if (!r.ok) {
    if (r.diagnostic) {
      printDiagnostics(io, [r.diagnostic]);
      return 1;
    }
    throw new ProjectUsageError(r.message);
  }
  const name = a.name ?? packageName(dir);
  // npm's rules for a package name: lowercase, URL-safe, at most 214 characters, optionally scoped.
  if (name.length > 214 || !/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(name)) {
    throw new ProjectUsageError(`--name ${JSON.stringify(name)} is not a valid npm package name (lowercase letters, digits, - . _ ~, optionally @scope/); choose another`);
  }
  const source = generatorSource(dir);
  const runtime = runtimeSource(dir);
  let s: Scaffold;
  try {
    s = await scaffold({
      name,
      source: r.source,
      builtin: r.builtin ? a.spec : undefined,
      generatorSource: source.specifier,
      ...(runtime ? { runtimeSource: runtime.specifier } : {}),
      directory: dir,
      ...(a.transport ? { transport: a.transport } : {}),
    });
  } catch (e) {
    throw e instanceof InitUsageError ? new ProjectUsageError(e.message) : e;
  }
  printDiagnostics(io, s.diagnostics);
  if (!s.files || hasErrors(s.diagnostics)) {
    io.err(`mcp-task-gen: ${a.spec}: the spec has errors; nothing written`);
    return 1;
  }
  // Generated files: through the manifest, like generate.
  const outDir = join(dir, LAYOUT.out);
  const prefix = `${LAYOUT.out}/`;
  const generated = s.files.filter((f) => f.owner === "generated").map((f) => ({ path: f.path.slice(prefix.length), contents: f.contents }));
  const p = plan(outDir, generated);
  const conflicts = p.actions.filter((x) => x.kind === "conflict" && x.reason !== "edited-stale");
  if (conflicts.length > 0) {
    for (const c of conflicts) io.err(`mcp-task-gen: error: ${conflictMessage(c as Extract<typeof c, { kind: "conflict" }>, join(shown, LAYOUT.out))}`);
    io.err(`mcp-task-gen: ${conflicts.length} file(s) in the way; nothing written`);
    return 1;
  }
  // The few lines that matter: what is yours, what is generated, where to go next (not one line per file).
  const created: string[] = [];
  const kept: string[] = [];
  for (const f of s.files.filter((x) => x.owner === "user")) {
    const target = join(dir, f.path);
    if (existsSync(target)) {
      kept.push(f.path);
      continue;
    }
    atomicWrite(target, f.contents);
    created.push(f.path);
  }
  const done = apply(p);
  for (const vendor of [source, runtime]) {
    if (vendor?.kind !== "vendor") continue;
    const vendored = vendorPackage(dir, vendor);
    if (vendored === "written") created.push(vendor.file);
    else if (vendored === "kept") kept.push(vendor.file);
    else io.err(`mcp-task-gen: warning: ${vendored}`);
  }
  if (runtime === undefined) {
    io.err(`mcp-task-gen: warning: ${RUNTIME_PACKAGE}, the runtime the generated code imports, is not installed beside this generator; package.json names version ${RUNTIME_VERSION}, which npm install takes from the registry`);
  }
  const transport = s.transport === "http" ? "Streamable HTTP" : "stdio";
  io.out(`mcp-task-gen: ${shown}/: a ${transport} MCP server for spec ${s.specRef}`);
  io.out(`  yours      ${created.length > 0 ? created.join(", ") : "(none written)"}`);
  if (kept.length > 0) io.out(`  kept       ${kept.join(", ")} (they exist)`);
  io.out(`  generated  ${LAYOUT.out}/ (${done.length} of ${generated.length} files written; npm run generate rewrites them from the spec)`);
  if (kept.includes("package.json")) {
    io.err(`mcp-task-gen: warning: ${shown}/package.json exists and was kept; the scaffold expects the scripts and dependencies of a new package.json (see mcp-task-gen init in the README)`);
  }
  io.out("");
  io.out("Next:");
  if (shown !== ".") io.out(`  cd ${shown}`);
  io.out("  npm install");
  // SQLite, the default task store, is built into Node 22.13 and later; an older Node needs a driver package.
  if (!hasBuiltinSqlite(process.versions.node)) io.out(`  npm install better-sqlite3@12     (Node ${process.versions.node} has no built-in SQLite; Node 22.13 or later needs nothing)`);
  io.out("  npm test");
  io.out(`  then connect a client: ${shown === "." ? "" : `${shown}/`}README.md, "Connect a client"`);
  return 0;
}

/** Whether this Node version has node:sqlite without a flag (22.13 and later, 23.4 and later). */
export function hasBuiltinSqlite(version: string): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 23 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
}

// ---------------------------------------------------------------------------
// Regeneration: user-owned handler files
// ---------------------------------------------------------------------------

export interface HandlersTarget {
  spec: string;
  out: string;
  handlers: string;
}

/**
 * After generate wrote `out`: bring the user-owned files under `handlers` in
 * step with the contract (stubs for new members, markers on removed ones).
 * Returns 0, or 1 when the spec cannot be analysed.
 */
export async function syncHandlers(io: ProjectIo, t: HandlersTarget, opts: { dryRun?: boolean; quiet?: boolean } = {}): Promise<number> {
  const planned = await planHandlers(io, t);
  if (typeof planned === "number") return planned;
  const { report, read, source, name } = planned;
  for (const w of report.warnings) io.err(`mcp-task-gen: warning: ${w}`);
  // No handler folder: the warning says so, and there is nothing to be in step with.
  if (!existsSync(resolve(io.cwd, t.handlers))) return 0;
  if (report.unchecked !== undefined) {
    io.err(`mcp-task-gen: warning: ${show(t.handlers)}/: ${report.unchecked}`);
    return 0;
  }
  for (const u of report.updates) {
    if (!opts.dryRun) {
      // Only if the file is still what was planned from (no concurrent edit).
      const now = readFileSync(resolve(io.cwd, u.path), "utf8");
      if (now !== u.before) {
        io.err(`mcp-task-gen: warning: ${u.path} changed while it was being updated; left as it is (run npx mcp-task-gen again)`);
        continue;
      }
      atomicWrite(resolve(io.cwd, u.path), u.after);
    }
    if (!opts.quiet) for (const n of u.notes) io.out(`  ${(opts.dryRun ? "would" : "update").padEnd(9)} ${u.path}: ${n}`);
  }
  const files = report.updates.length;
  if (files === 0 && report.warnings.length === 0 && read) await recordHandlers(io.cwd, source, t, read, name);
  io.out(
    `mcp-task-gen: ${show(t.handlers)}/: ${files === 0 ? "in step with" : `${files} file(s) ${opts.dryRun ? "would be " : ""}updated for`} the contract of spec ${name}`,
  );
  return 0;
}

/**
 * For `check`: whether the user-owned files under `handlers` are in step with the contract (nothing
 * is written). 0 when they are; 1 when a file needs an update or the folder is missing.
 */
export async function checkHandlers(io: ProjectIo, t: HandlersTarget): Promise<number> {
  const planned = await planHandlers(io, t);
  if (typeof planned === "number") return planned;
  const { report, name } = planned;
  const shown = show(t.handlers);
  const fix = `run: npx mcp-task-gen generate --spec ${t.spec} --out ${show(t.out)} --handlers ${shown} (or npx mcp-task-gen with the configuration)`;
  if (!existsSync(resolve(io.cwd, t.handlers))) {
    for (const w of report.warnings) io.err(`mcp-task-gen: error: ${w}`);
    return 1;
  }
  for (const w of report.warnings) io.err(`mcp-task-gen: warning: ${w}`);
  if (report.unchecked !== undefined) {
    io.err(`mcp-task-gen: error: ${shown}/: ${report.unchecked}`);
    return 1;
  }
  if (report.updates.length === 0) {
    io.out(`mcp-task-gen: ${shown}/ is in step with the contract of spec ${name}`);
    return 0;
  }
  for (const u of report.updates) for (const n of u.notes) io.err(`  update    ${u.path}: ${n}`);
  io.err(`mcp-task-gen: ${shown}/ is not in step with the contract of spec ${name} (${report.updates.length} file(s) to update); ${fix}`);
  return 1;
}

/** The plan of the updates of the handler files (writes nothing); a number is the exit code of a spec that fails. */
async function planHandlers(io: ProjectIo, t: HandlersTarget) {
  const r = resolveSpec(t.spec, io.cwd);
  if (!r.ok) {
    io.err(`mcp-task-gen: ${r.message}`);
    return 1;
  }
  const { ir, diagnostics } = analyze(r.source);
  if (!ir) {
    printDiagnostics(io, diagnostics);
    return 1;
  }
  // The files as the plan reads them, for the fast path of later runs (fastpath.ts) if they turn out in step.
  const read = await handlerFiles(io.cwd, t.handlers);
  const report = await planUserFileUpdates({
    contract: contractOf(ir),
    projectDir: io.cwd,
    handlersDir: resolve(io.cwd, t.handlers),
    contractFile: resolve(io.cwd, t.out, CONTRACT_FILE),
  });
  return { report, read, source: r.source, name: ir.spec.name };
}

/**
 * Puts one of this generator's packages into the new project (vendor/), where its package.json names it:
 * the tarball it was installed from, else its files packed (npm pack; a checkout's runtime builds first,
 * by its prepack script, when its build is older than its sources).
 */
function vendorPackage(dir: string, source: Extract<GeneratorSource, { kind: "vendor" }>): "written" | "kept" | string {
  const target = join(dir, source.file);
  if (existsSync(target)) return "kept";
  mkdirSync(dirname(target), { recursive: true });
  if (source.tarball !== undefined && existsSync(source.tarball)) {
    copyFileSync(source.tarball, target);
    return "written";
  }
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const packed = spawnSync(npm, ["pack", source.root, ...(source.fromCheckout ? [] : ["--ignore-scripts"]), "--json", "--pack-destination", dirname(target)], {
    encoding: "utf8",
    shell: process.platform === "win32",
  });
  try {
    const name = (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename;
    if (join(dirname(target), name) !== target) renameSync(join(dirname(target), name), target);
    return "written";
  } catch {
    return `could not pack ${source.root} into ${source.file} (${(packed.stderr || String(packed.error ?? "")).trim().split("\n")[0]}); copy a tarball of ${source.name} there before npm install`;
  }
}
