/**
 * What each command loads, end to end through the built CLI: every command's module is imported only when
 * that command runs (generator/cli/), so the help and the commands that only read (validate, list-specs)
 * load no emitter, no template engine, no conform code and no runtime package; their plain forms not
 * even the argument parser.
 *
 * Told by the modules a run loaded (test/helpers/trace-loads.mjs: what is imported, and what CommonJS
 * modules require), never by timing. The runs that do load them show that the trace would see them.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { main, plainRead } from "../generator/cli/index.js";
import { main as dispatch } from "../generator/cli/parse.js";
import { cliTraced, ROOT, STACK_TRACE, tempDirs } from "./helpers/cli.js";

const MINIMAL = join(ROOT, "test/fixtures/minimal.yaml");

vi.setConfig({ testTimeout: 120_000 });

const dirs = tempDirs("mcp-task-gen-cli-loading-");
afterAll(() => dirs.cleanup());

/** What a light command must not load, by the module paths (relative to the package root) that show it. */
const HEAVY: Record<string, (path: string) => boolean> = {
  emitters: (p) => p.startsWith("dist/generator/emit/"),
  handlebars: (p) => p.startsWith("node_modules/handlebars/"),
  conform: (p) => p.startsWith("dist/generator/conform/"),
  "the runtime package": (p) => p.startsWith("runtime/") || p.startsWith("node_modules/@mcp-task-gen/runtime/"),
};

/** The modules of each kind in HEAVY a run loaded (none: every list empty). */
function heavy(loaded: readonly string[]): Record<string, string[]> {
  return Object.fromEntries(Object.entries(HEAVY).map(([what, is]) => [what, loaded.filter(is)]));
}

const none = Object.fromEntries(Object.keys(HEAVY).map((what) => [what, []]));

/** A command line run in this process: its exit code and output. */
async function inProcess(run: typeof main, args: string[]) {
  let out = "";
  let err = "";
  const code = await run(args, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`), cwd: ROOT, color: false });
  return { code, out, err };
}

/** Runs the CLI traced, with no fast path, and checks it exited as expected without a stack trace. */
async function traced(args: string[], code: number) {
  const r = await cliTraced(args, dirs.make(), { MCP_TASK_GEN_CACHE: "off" });
  expect(r.stderr, r.stderr).not.toMatch(STACK_TRACE);
  expect(r.code, r.stderr).toBe(code);
  return r;
}

describe("a command loads only what it needs", () => {
  it.each([
    [["--help"], "Commands:"],
    [["validate", "--help"], "Check a spec and report its diagnostics"],
    [["list-specs", "--help"], "List the built-in specs"],
    [["validate", MINIMAL], "valid (0 errors, 0 warnings)"],
    [["validate", "mcp-2025-11-25", "--json"], '"ok": true'],
    [["list-specs"], "mcp-2025-11-25 (default)"],
  ])("%j loads no emitter, no Handlebars, no conform code, no runtime package", async (args, shows) => {
    const r = await traced(args, 0);
    expect(r.stdout).toContain(shows);
    expect(heavy(r.loaded)).toEqual(none);
    // Its own command module, and no other command's.
    const commands = r.loaded.filter((p) => p.startsWith("dist/generator/cli/") && !/\/(index|parse|commands|examples|shared)\.js$/.test(p));
    expect(commands).toEqual(args.includes("--help") ? [] : [`dist/generator/cli/${args[0]}.js`]);
    // The plain forms run without the argument parser; the help is the parser's.
    expect(r.loaded.some((p) => p.startsWith("node_modules/yargs/"))).toBe(args.includes("--help"));
  });

  it("the plain forms of list-specs, codes and validate run as the dispatcher runs them after parsing the same arguments", async () => {
    const invalid = join(ROOT, "test/fixtures/diagnostics/MTG041-two-initial-states.yaml");
    const warns = join(ROOT, "test/fixtures/diagnostics/MTG047-duplicate-transition.yaml");
    const plain = [
      ["list-specs"],
      ["codes"],
      ["validate", MINIMAL],
      ["validate", invalid, "--json"],
      ["validate", warns, "--warn-as-error"],
      ["validate", warns, "--json", "--warn-as-error"],
      ["validate", "no-such-spec"],
      ["validate", "./no-such-file.yaml", "--json"],
      ["validate", "007"],
    ];
    for (const args of plain) {
      expect(plainRead(args), JSON.stringify(args)).toBeDefined();
      expect(await inProcess(main, args), JSON.stringify(args)).toEqual(await inProcess(dispatch, args));
    }
    // Anything else is the dispatcher's: another flag or spelling, a repeated flag, the help, a spec that looks like a flag.
    for (const args of [["list-specs", "--json"], ["codes", "x"], ["validate"], ["validate", "-x"], ["validate", MINIMAL, "--json", "--json"], ["validate", MINIMAL, "--json=true"], ["validate", MINIMAL, "--help"], ["validate", MINIMAL, "extra"], ["validate", ""]]) {
      expect(plainRead(args), JSON.stringify(args)).toBeUndefined();
    }
  });

  it("an invalid spec is reported by validate without the emitters too", async () => {
    const r = await traced(["validate", join(ROOT, "test/fixtures/diagnostics/MTG041-two-initial-states.yaml")], 1);
    expect(r.stderr).toContain("error MTG041");
    expect(heavy(r.loaded)).toEqual(none);
  });

  it("a generate of a built-in spec compiles from the analysis the build stored: no YAML parser, no zod, no checks; a user's spec loads them", async () => {
    const front = (p: string) =>
      p.startsWith("node_modules/yaml/") || p.startsWith("node_modules/zod/") || p.startsWith("dist/generator/check/") || /^dist\/generator\/(load|analyze|format|pipeline)\.js$/.test(p);
    const builtin = await traced(["generate", "--spec", "mcp-2025-11-25", "--out", "gen", "--quiet"], 0);
    expect(builtin.loaded.filter(front)).toEqual([]);
    expect(builtin.loaded).toContain("dist/generator/output.js");
    // Templates precompiled: the Handlebars runtime only, as the package ships it in one file.
    expect(builtin.loaded.filter((p) => p.startsWith("node_modules/handlebars/"))).toEqual(["node_modules/handlebars/dist/handlebars.runtime.js"]);
    const own = await traced(["generate", "--spec", MINIMAL, "--out", "gen", "--quiet"], 0);
    expect(own.loaded).toEqual(expect.arrayContaining(["dist/generator/load.js", "dist/generator/check/index.js", "node_modules/yaml/dist/index.js", "node_modules/zod/index.js"]));
  });

  it("with a cache folder, a generate of a built-in spec runs the generate path the build bundled: the launcher and the bundle, both CommonJS scripts, no other module", async () => {
    const cwd = dirs.make();
    const env = { MCP_TASK_GEN_CACHE: join(cwd, "cache") };
    for (const out of ["first", "second"]) {
      // The first run writes the code cache, the second reads it: both load the same.
      const r = await cliTraced(["generate", "--spec", "mcp-2025-11-25", "--out", out, "--quiet"], cwd, env);
      expect(r.stderr, r.stderr).not.toMatch(STACK_TRACE);
      expect(r.code, r.stderr).toBe(0);
      expect([...r.loaded].sort()).toEqual([
        "bin/mcp-task-gen.js",
        "dist/generate.cjs",
        "dist/launch.cjs",
      ]);
    }
    // A user's spec: the bundle, then the front end's modules from dist/ as a generate needs them.
    const own = await cliTraced(["generate", "--spec", MINIMAL, "--out", "own", "--quiet"], cwd, env);
    expect(own.code, own.stderr).toBe(0);
    expect(own.loaded).toEqual(expect.arrayContaining(["dist/generate.cjs", "dist/generator/pipeline.js", "dist/generator/load.js", "node_modules/yaml/dist/index.js"]));
    expect(own.loaded).not.toContain("dist/generator/cli/index.js");
  });

  it("the trace sees them where a command needs them: generate the emitters and Handlebars, conform its code", async () => {
    const generated = await traced(["generate", "--spec", MINIMAL, "--out", "gen", "--quiet"], 0);
    expect(generated.loaded.some(HEAVY.emitters!)).toBe(true);
    expect(generated.loaded.some(HEAVY.handlebars!)).toBe(true);
    expect(generated.loaded.some(HEAVY.conform!)).toBe(false);
    // No server named: a usage error, from conform's own code.
    const conform = await traced(["conform", "--spec", MINIMAL], 2);
    expect(conform.stderr).toMatch(/^mcp-task-gen: /);
    expect(conform.loaded.some(HEAVY.conform!)).toBe(true);
  });
});
