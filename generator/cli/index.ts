/**
 * The thin shell: arguments, config, the disk, exit codes.
 * Exit codes: 0 ok, 1 spec errors or drift, 2 usage errors.
 *
 * Each command lives in its own module of this folder and is loaded only when it runs: the help,
 * validate and list-specs load no emitter, no template engine and no conform code. The compiler
 * (pipeline.js: YAML, checks, Handlebars) is loaded only when a target needs compiling: a target that
 * is up to date is answered by the no-change fast path (fastpath.ts) first. The plain forms of generate,
 * check and the default command also run without yargs (runCommand), as bin/mcp-task-gen.js parses them
 * (fastpath.ts parseCommand); every other command line goes through the dispatcher (parse.ts).
 */
import type { Command } from "../fastpath.js";
import { defaultIo, settle, type Io } from "./shared.js";

export type { Io } from "./shared.js";

/** Parses the command line (default: the process's) and runs the command; resolves to its exit code. */
export async function main(argv?: string[], io: Io = defaultIo()): Promise<number> {
  return (await import("./parse.js")).main(argv, io);
}

/**
 * Runs a command in one of the plain forms that fastpath.ts's parseCommand
 * reads, exactly as main() runs it after yargs parsed the same arguments.
 */
export async function runCommand(cmd: Command, io: Io = defaultIo()): Promise<number> {
  switch (cmd.kind) {
    case "config": {
      const { configCmd } = await import("./default.js");
      return settle(io, configCmd(io, { force: cmd.force, warnAsError: cmd.warnAsError }));
    }
    case "generate": {
      const { generateCmd } = await import("./generate.js");
      return settle(io, generateCmd(io, { ...cmd.target, force: cmd.force, quiet: cmd.quiet, warnAsError: cmd.warnAsError, dryRun: false }));
    }
    case "check": {
      const { checkCmd } = await import("./check.js");
      return settle(io, checkCmd(io, { spec: cmd.target.spec, out: cmd.target.out, warnAsError: cmd.warnAsError }));
    }
  }
}
