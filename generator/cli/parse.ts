/**
 * The dispatcher: the command line parsed by yargs against the commands' declarations (commands.ts), the
 * general help and version, and a mistake on the command line reported as a usage error (exit 2) with a
 * guess at what was meant.
 */
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { DEFAULT_OUT, DEFAULT_SPEC } from "../specs.js";
import { GENERATOR_VERSION } from "../version.js";
import { declareCommands } from "./commands.js";
import { defaultIo, settle, UsageError, type Io } from "./shared.js";

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
  const { closest } = await import("../format.js");
  const guess = closest(unknown[1]!, WORDS);
  // A word of another command (`--quiet` without `generate`): no misspelling to guess.
  if (guess === unknown[1]) return message.replace(unknown[0]!, `${unknown[0]!.replace(/[,\n]$/, "")} (an option of another command: see 'npx mcp-task-gen <command> --help')${unknown[2] ?? ""}`);
  return guess === undefined ? message : message.replace(unknown[0]!, `${unknown[0]!.replace(/[,\n]$/, "")}; did you mean '${guess}'?${unknown[2] ?? ""}`);
}

export async function main(argv: string[] = hideBin(process.argv), io: Io = defaultIo()): Promise<number> {
  let exit = 0;
  const run = (p: Promise<number>) =>
    settle(io, p).then((code) => {
      exit = code;
    });
  const general = yargs(argv)
    .scriptName("mcp-task-gen")
    .usage(
      "$0 [command]\n\nCompiles a declarative MCP Tasks spec into types, zod validators, guards, a transition table and docs.\nWith no command: generate from mcp-task-gen.config.{json,yaml} (or package.json#mcp-task-gen) if present, else the built-in spec " +
        `${DEFAULT_SPEC} into ./${DEFAULT_OUT}/.`,
    );
  const parser = declareCommands(general, io, run)
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
