/**
 * generate --watch (and the default command's --watch): every target generated, then regenerated whenever
 * its spec file changes, its handler files kept in step.
 */
import { existsSync, watch as fsWatch } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { DEFAULT_OUT, DEFAULT_SPEC } from "../specs.js";
import { readConfig } from "./config.js";
import { generate, syncHandlers, type GenerateOpts } from "./generate.js";
import { resolveOrThrow, UsageError, type Io, type TargetT } from "./shared.js";

/**
 * generate --watch: the targets the command line names. With neither --spec nor --out, a project's
 * configuration names them (all its targets, their handler folders included); with --spec alone, the
 * configuration's targets of that spec; without a configuration, the defaults.
 */
export async function watchGenerateCmd(io: Io, o: Omit<GenerateOpts, "spec" | "out"> & { spec?: string; out?: string; handlers?: string }): Promise<number> {
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

/**
 * Generates every target, then regenerates the targets of a spec file whenever it changes (their handler
 * files kept in step where `handlers` names them). Never returns: the watch ends with the process.
 */
export async function watchTargets(io: Io, targets: readonly TargetT[], o: Omit<GenerateOpts, "spec" | "out">): Promise<number> {
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
  // Said once the folders are watched: a change saved as soon as it is read is seen.
  io.out(`mcp-task-gen: watching ${[...bySpec.values()].map((e) => e.shown).join(", ")} (Ctrl-C to stop)`);
  return new Promise<number>(() => {});
}
