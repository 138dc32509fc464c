/**
 * The thin shell: arguments, config, the disk, exit codes.
 * Exit codes: 0 ok, 1 spec errors or drift, 2 usage errors.
 *
 * Each command lives in its own module of this folder and is loaded only when it runs: the help,
 * validate and list-specs load no emitter, no template engine and no conform code. The compiler
 * (pipeline.js: YAML, checks, Handlebars) is loaded only when a target needs compiling, and for a built-in
 * spec only its back half (output.js: the analysis the build precompiled, precompiled.ts): a target that
 * is up to date is answered by the no-change fast path (fastpath.ts) first. The plain forms of generate,
 * check and the default command also run without yargs (runCommand), as bin/mcp-task-gen.js parses them
 * (fastpath.ts parseCommand), and so do the plain forms of list-specs, codes and validate (plainRead);
 * every other command line goes through the dispatcher (parse.ts).
 */
import type { Command } from "../fastpath.js";
import { defaultIo, settle, type Io } from "./shared.js";

export type { Io } from "./shared.js";

/** Parses the command line (default: the process's) and runs the command; resolves to its exit code. */
export async function main(argv?: string[], io: Io = defaultIo()): Promise<number> {
  const plain = plainRead(argv ?? process.argv.slice(2));
  if (plain) return settle(io, plain(io));
  return (await import("./parse.js")).main(argv, io);
}

/**
 * The plain forms of the commands that only read: `list-specs`, `codes`, and `validate <spec>` with
 * --json and --warn-as-error at most once each, run without loading yargs, as the dispatcher runs them
 * after parsing the same arguments. Anything else (another flag or spelling, --help, a spec that looks
 * like a flag) is undefined, and left to the dispatcher.
 */
export function plainRead(argv: readonly string[]): ((io: Io) => Promise<number>) | undefined {
  const [command, ...rest] = argv;
  if (rest.length === 0 && command === "list-specs") return async (io) => (await import("./list-specs.js")).listSpecsCmd(io);
  if (rest.length === 0 && command === "codes") return async (io) => (await import("./codes.js")).codesCmd(io);
  if (command !== "validate") return undefined;
  const [spec, ...flags] = rest;
  if (spec === undefined || spec === "" || spec.startsWith("-") || new Set(flags).size !== flags.length) return undefined;
  if (!flags.every((f) => f === "--json" || f === "--warn-as-error")) return undefined;
  const json = flags.includes("--json");
  const warnAsError = flags.includes("--warn-as-error");
  return async (io) => (await import("./validate.js")).validateCmd(io, { spec, json, warnAsError });
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
