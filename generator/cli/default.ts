/**
 * The default command (no command named): the configuration's targets, each generated and its handler
 * files kept in step, else the default spec into ./mcp-tasks/.
 */
import { DEFAULT_OUT, DEFAULT_SPEC } from "../specs.js";
import { readConfig } from "./config.js";
import { generate, syncHandlers } from "./generate.js";
import type { Io } from "./shared.js";

/** The default command: the config file's targets, else the default spec into ./mcp-tasks/. */
export async function configCmd(io: Io, a: { force?: boolean; warnAsError?: boolean; watch?: boolean }): Promise<number> {
  const cfg = await readConfig(io.cwd);
  if (cfg && "error" in cfg) {
    io.err(cfg.error);
    return 1;
  }
  const targets = cfg ? cfg.targets : [{ spec: DEFAULT_SPEC, out: DEFAULT_OUT }];
  if (cfg) io.out(`mcp-task-gen: using ${cfg.file}`);
  if (a.watch) return (await import("./watch.js")).watchTargets(io, targets, { force: a.force, warnAsError: a.warnAsError });
  let code = 0;
  for (const t of targets) {
    const c = await generate(io, { spec: t.spec, out: t.out, force: a.force, warnAsError: a.warnAsError });
    // A target with user-owned handler files: keep them in step with the contract (generator/project.ts).
    code = Math.max(code, c === 0 && t.handlers ? await syncHandlers(io, { ...t, handlers: t.handlers }) : c);
  }
  return code;
}
