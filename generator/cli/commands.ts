/**
 * The commands as the argument parser knows them: each one's name, description, options and examples
 * (all the help shows), and its handler, which loads the command's module (generate.ts, validate.ts, ...)
 * only when that command runs: the help and the light commands load no emitter, no template engine, no
 * conform code.
 */
import type { Argv } from "yargs";
import { DEFAULT_OUT, DEFAULT_SPEC, INIT_DEFAULT_SPEC } from "../specs.js";
import { EXAMPLES } from "./examples.js";
import type { Io } from "./shared.js";

/** The options several commands share. */
const specOpt = { type: "string", requiresArg: true, describe: "A built-in spec name or a path to a spec file (YAML or JSON)" } as const;
const outOpt = { type: "string", requiresArg: true, describe: "The output directory" } as const;
const common = {
  "warn-as-error": { type: "boolean", describe: "Treat warnings as errors", default: false },
} as const;

/** Declares every command on `parser`; a handler hands its command's exit code (a promise) to `run`. */
export function declareCommands<T>(parser: Argv<T>, io: Io, run: (p: Promise<number>) => Promise<void>) {
  return parser
    .command(
      "$0",
      "Generate from the config file, or the default spec into ./mcp-tasks/",
      (y) =>
        y.options({
          force: { type: "boolean", default: false, describe: "Overwrite generated files edited by hand (never files mcp-task-gen did not write)" },
          watch: { type: "boolean", default: false, describe: "Then regenerate a target whenever its spec file changes" },
          ...common,
        }).example([...EXAMPLES.$0!, ...Object.entries(EXAMPLES).flatMap(([c, e]) => (c === "$0" ? [] : [e[0]!]))]),
      (a) => run(import("./default.js").then((m) => m.configCmd(io, { force: a.force, warnAsError: a["warn-as-error"], watch: a.watch }))),
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
            ? import("./watch.js").then((m) =>
                m.watchGenerateCmd(io, { ...rest, ...(a.spec === undefined ? {} : { spec: a.spec }), ...(a.out === undefined ? {} : { out: a.out }), ...(a.handlers === undefined ? {} : { handlers: a.handlers }) }),
              )
            : import("./generate.js").then((m) => m.generateCmd(io, { ...rest, spec: a.spec ?? DEFAULT_SPEC, out: a.out ?? DEFAULT_OUT, handlers: a.handlers })),
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
          import("./check.js").then((m) =>
            a.spec === undefined && a.out === undefined && a.handlers === undefined
              ? m.checkConfigCmd(io, { warnAsError: a["warn-as-error"] })
              : m.checkCmd(io, { spec: a.spec ?? DEFAULT_SPEC, out: a.out ?? DEFAULT_OUT, ...(a.handlers === undefined ? {} : { handlers: a.handlers }), warnAsError: a["warn-as-error"] }),
          ),
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
      (a) => run(import("./validate.js").then((m) => m.validateCmd(io, { spec: a.spec as string, json: a.json, warnAsError: a["warn-as-error"] }))),
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
        run(import("./diff.js").then((m) => m.diffCmd(io, { old: a.old as string, new: a.new as string, json: a.json, failOn: a["fail-on"] }))),
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
          import("./init.js").then((m) =>
            m.initCmd(io, {
              dir: a.dir as string,
              spec: a.spec,
              ...(a.transport === undefined ? {} : { transport: a.transport }),
              ...(a.name === undefined ? {} : { name: a.name }),
              allowNonEmpty: a["allow-nonempty"],
            }),
          ),
        ),
    )
    .command(
      "list-specs",
      "List the built-in specs",
      (y) => y.example(EXAMPLES["list-specs"]!),
      () => run(import("./list-specs.js").then((m) => m.listSpecsCmd(io))),
    )
    .command(
      "schema",
      "Print the JSON Schema of the spec format",
      (y) => y.options({ out: { type: "string", requiresArg: true, describe: "Write it to this file instead" } }).example(EXAMPLES.schema!),
      (a) => run(import("./schema.js").then((m) => m.schemaCmd(io, { out: a.out }))),
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
          import("./conform.js").then((m) =>
            m.conformCmd(io, {
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
            }),
          ),
        ),
    )
    .command(
      "codes",
      "List the diagnostic codes",
      (y) => y.example(EXAMPLES.codes!),
      () => run(import("./codes.js").then((m) => m.codesCmd(io))),
    );
}
