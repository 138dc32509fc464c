/**
 * The no-change fast path (generator/fastpath.ts), end to end through the
 * built CLI.
 *
 * Whether a run compiled is told by the modules it loaded (test/helpers/
 * trace-loads.mjs), never by timing: a run answered by the fast path loads
 * neither the CLI nor the compiler. Whatever path a run takes, it must print
 * exactly what a full run (MCP_TASK_GEN_CACHE=off) prints in the same state.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { parseCommand } from "../generator/fastpath.js";
import { compile, emit, MANIFEST_FILE } from "../generator/pipeline.js";
import { builtinSpecs, DEFAULT_SPEC, resolveSpec } from "../generator/specs.js";
import { cliTraced, ROOT, STACK_TRACE, tempDirs, type Run } from "./helpers/cli.js";

const MINIMAL = join(ROOT, "test/fixtures/minimal.yaml");
/** A spec that compiles with one warning (MTG047). */
const WARNS = join(ROOT, "test/fixtures/diagnostics/MTG047-duplicate-transition.yaml");
const COMPILER = "dist/generator/pipeline.js";
const CLI = "dist/generator/cli/index.js";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const dirs = tempDirs("mcp-task-gen-fastpath-");
afterAll(() => dirs.cleanup());

type Traced = Run & { loaded: string[] };

function ok<T extends Run>(r: T): T {
  expect(r.stderr, r.stderr).not.toMatch(STACK_TRACE);
  return r;
}

/** A run the fast path answered: it loaded neither the CLI nor the compiler. */
function fast(r: Traced): Traced {
  ok(r);
  expect(r.loaded, "the fast path answered").not.toContain(COMPILER);
  expect(r.loaded).not.toContain(CLI);
  return r;
}

/** A run that compiled. */
function full(r: Traced): Traced {
  ok(r);
  expect(r.loaded, "the run compiled").toContain(COMPILER);
  return r;
}

/** What a full run prints in the current state (a no-change run writes nothing, so it can follow). */
async function fullRun(args: string[], cwd: string): Promise<Traced> {
  return full(await cliTraced(args, cwd, { MCP_TASK_GEN_CACHE: "off" }));
}

const same = (a: Run, b: Run) => expect({ code: a.code, stdout: a.stdout, stderr: a.stderr }).toEqual({ code: b.code, stdout: b.stdout, stderr: b.stderr });

describe("the command forms read without yargs", () => {
  it("reads the plain forms of generate, check and the default command as yargs does", () => {
    expect(parseCommand([])).toEqual({ kind: "config", force: false, warnAsError: false });
    expect(parseCommand(["--force", "--warn-as-error"])).toEqual({ kind: "config", force: true, warnAsError: true });
    expect(parseCommand(["generate"])).toEqual({
      kind: "generate",
      target: { spec: DEFAULT_SPEC, out: "mcp-tasks" },
      force: false,
      quiet: false,
      warnAsError: false,
    });
    expect(parseCommand(["generate", "--spec=a.yaml", "--out", "x/y", "--quiet", "--handlers", "h"])).toEqual({
      kind: "generate",
      target: { spec: "a.yaml", out: "x/y", handlers: "h" },
      force: false,
      quiet: true,
      warnAsError: false,
    });
    expect(parseCommand(["check", "--out=gen", "--warn-as-error"])).toEqual({
      kind: "check",
      target: { spec: DEFAULT_SPEC, out: "gen" },
      warnAsError: true,
    });
  });

  it.each([
    ["another command", ["validate", "x"]],
    ["--dry-run", ["generate", "--dry-run"]],
    ["--watch", ["generate", "--watch"]],
    ["--help", ["generate", "--help"]],
    ["a flag another command has", ["check", "--quiet"]],
    ["an unknown flag", ["generate", "--bogus"]],
    ["another spelling", ["generate", "--warnAsError"]],
    ["a negated flag", ["generate", "--no-force"]],
    ["a boolean with a value", ["generate", "--force", "true"]],
    ["a short alias", ["-v"]],
    ["a repeated flag", ["generate", "--out", "a", "--out", "b"]],
    ["a missing value", ["generate", "--spec"]],
    ["an empty value", ["generate", "--spec="]],
    ["a value that looks like a flag", ["generate", "--out", "--quiet"]],
    ["a positional argument", ["generate", "extra"]],
    ["the end of options", ["generate", "--"]],
  ])("leaves %s to yargs", (_what, argv) => {
    expect(parseCommand(argv)).toBeUndefined();
  });
});

describe("generate and check, one target", () => {
  const dir = dirs.make();
  const gen = (...extra: string[]) => ["generate", "--spec", MINIMAL, "--out", "gen", ...extra];

  it("the first no-change run after a write is answered without compiling, printing what a full run prints", async () => {
    const wrote = full(await cliTraced(gen(), dir));
    expect(wrote.code).toBe(0);
    expect(wrote.stdout).toContain("written, 0 unchanged");
    const again = fast(await cliTraced(gen(), dir));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/→ gen\/: 0 written, \d+ unchanged \(\d+ files\)\n$/);
    same(again, await fullRun(gen(), dir));
    // Flags that change nothing when there is nothing to do, and the other spellings of the same command.
    for (const args of [gen("--quiet"), gen("--force"), ["generate", `--spec=${MINIMAL}`, "--out=gen/"]]) {
      const r = fast(await cliTraced(args, dir));
      same(r, await fullRun(args, dir));
    }
  });

  it("check is answered without compiling when the directory is up to date", async () => {
    const args = ["check", "--spec", MINIMAL, "--out", "gen"];
    const r = fast(await cliTraced(args, dir));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("gen/ is up to date with");
    same(r, await fullRun(args, dir));
  });

  it("a file that is not generated output: check compiles and reports it, generate stays fast", async () => {
    writeFileSync(join(dir, "gen", "notes.txt"), "mine\n");
    const checked = full(await cliTraced(["check", "--spec", MINIMAL, "--out", "gen"], dir));
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain("  extra     gen/notes.txt");
    const generated = fast(await cliTraced(gen(), dir));
    same(generated, await fullRun(gen(), dir));
    rmSync(join(dir, "gen", "notes.txt"));
  });

  it("an edited, a missing or a stray manifest-listed file takes the full path", async () => {
    const types = join(dir, "gen", "types.ts");
    const original = readFileSync(types, "utf8");
    appendFileSync(types, "// my edit\n");
    const edited = full(await cliTraced(gen(), dir));
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain("gen/types.ts was edited by hand since it was generated");
    const checked = full(await cliTraced(["check", "--spec", MINIMAL, "--out", "gen"], dir));
    expect(checked.stderr).toContain("  changed   gen/types.ts");
    writeFileSync(types, original);
    fast(await cliTraced(gen(), dir));

    rmSync(types);
    const missing = full(await cliTraced(gen(), dir));
    expect(missing.code).toBe(0);
    expect(missing.stdout).toContain("create    gen/types.ts");
    fast(await cliTraced(gen(), dir));

    // A manifest that lists one more (intact) file than the compiler produces.
    const manifestPath = join(dir, "gen", MANIFEST_FILE);
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { files: Record<string, string> };
    writeFileSync(join(dir, "gen", "old.ts"), "// old\n");
    manifest.files["old.ts"] = createHash("sha256").update("// old\n").digest("hex");
    writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + "\n");
    const stray = full(await cliTraced(gen(), dir));
    expect(stray.code).toBe(0);
    expect(stray.stdout).toContain("update    gen/mcp-task-gen.manifest.json");
    expect(stray.stdout).toContain("delete    gen/old.ts");
    fast(await cliTraced(gen(), dir));
  });

  it("a changed spec takes the full path, and the run after it is fast again", async () => {
    mkdirSync(join(dir, "specs"), { recursive: true });
    const spec = join(dir, "specs", "mine.yaml");
    writeFileSync(spec, readFileSync(MINIMAL, "utf8"));
    const args = ["generate", "--spec", "specs/mine.yaml", "--out", "mine"];
    full(await cliTraced(args, dir));
    fast(await cliTraced(args, dir));
    appendFileSync(spec, "# a comment changes the spec's hash, so every header\n");
    const changed = full(await cliTraced(args, dir));
    expect(changed.code).toBe(0);
    expect(changed.stdout).toContain("update    mine/types.ts");
    const after = fast(await cliTraced(args, dir));
    same(after, await fullRun(args, dir));
  });

  it("--dry-run and another output directory compile", async () => {
    full(await cliTraced(gen("--dry-run"), dir));
    const elsewhere = full(await cliTraced(["generate", "--spec", MINIMAL, "--out", "gen2"], dir));
    expect(elsewhere.stdout).toContain("0 unchanged");
  });
});

describe("warnings and options", () => {
  const dir = dirs.make();
  const gen = (...extra: string[]) => ["generate", "--spec", WARNS, "--out", "gen", ...extra];

  it("a spec's warnings are printed again, as a full run prints them", async () => {
    const first = full(await cliTraced(gen(), dir));
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("warning MTG047");
    const again = fast(await cliTraced(gen(), dir));
    same(again, await fullRun(gen(), dir));
    expect(again.stderr).toContain("warning MTG047");
  });

  it("--warn-as-error takes the full path and fails, as it would have", async () => {
    const r = full(await cliTraced(gen("--warn-as-error"), dir));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("nothing written");
    const checked = full(await cliTraced(["check", "--spec", WARNS, "--out", "gen", "--warn-as-error"], dir));
    expect(checked.code).toBe(1);
  });

  it("MCP_TASK_GEN_CACHE=off: every run compiles; by default the cache is the project's node_modules/.cache", async () => {
    const project = dirs.make();
    mkdirSync(join(project, "node_modules"));
    const args = ["generate", "--spec", MINIMAL, "--out", "gen"];
    for (let i = 0; i < 2; i++) full(await cliTraced(args, project, { MCP_TASK_GEN_CACHE: "off" }));
    expect(readdirSync(join(project, "node_modules"))).toEqual([]);
    full(await cliTraced(args, project, { MCP_TASK_GEN_CACHE: undefined }));
    expect(existsSync(join(project, "node_modules", ".cache", "mcp-task-gen"))).toBe(true);
    fast(await cliTraced(args, project, { MCP_TASK_GEN_CACHE: undefined }));
  });
});

describe("config runs", () => {
  it("several targets: the first no-change run after a write is fast; with one target edited, the run prints what a full run prints", async () => {
    const dir = dirs.make();
    mkdirSync(join(dir, "specs"));
    writeFileSync(join(dir, "specs", "copy.yaml"), readFileSync(MINIMAL, "utf8"));
    writeFileSync(join(dir, "mcp-task-gen.config.yaml"), `targets:\n  - spec: ${MINIMAL}\n    out: a\n  - spec: specs/copy.yaml\n    out: b\n`);
    const wrote = full(await cliTraced([], dir));
    expect(wrote.code).toBe(0);
    const again = fast(await cliTraced([], dir));
    expect(again.stdout).toMatch(/^mcp-task-gen: using mcp-task-gen\.config\.yaml\n.*→ a\/: 0 written.*\n.*→ b\/: 0 written.*\n$/);
    same(again, await fullRun([], dir));

    // b edited by hand: a is still up to date (decided per target), b stops the run as it would have.
    appendFileSync(join(dir, "b", "types.ts"), "// my edit\n");
    const mixed = full(await cliTraced([], dir));
    expect(mixed.code).toBe(1);
    expect(mixed.stdout).toContain("→ a/: 0 written");
    expect(mixed.stderr).toContain("b/types.ts was edited by hand");
    same(mixed, await fullRun([], dir));
    const forced = full(await cliTraced(["--force"], dir));
    expect(forced.code).toBe(0);
    fast(await cliTraced([], dir));
  });

  it("a config that is not plainly valid is left to the full CLI", async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, "mcp-task-gen.config.json"), JSON.stringify({ spec: MINIMAL, out: "gen" }));
    full(await cliTraced([], dir));
    fast(await cliTraced([], dir));
    writeFileSync(join(dir, "mcp-task-gen.config.json"), JSON.stringify({ spec: MINIMAL, out: "gen", outDir: "x" }));
    const bad = ok(await cliTraced([], dir));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("MTG090");
    expect(bad.loaded).toContain(CLI);
  });

  it("a target with handler files: fast while they are in step, the full path once one is edited", async () => {
    const tmp = dirs.make();
    expect(ok(await cliTraced(["init", "proj"], tmp)).code).toBe(0);
    const proj = join(tmp, "proj");
    // The first run compiles (init's compile is not this directory's) and finds the handlers in step.
    const first = full(await cliTraced([], proj));
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("src/handlers/: in step with the contract of spec");
    const again = fast(await cliTraced([], proj));
    same(again, await fullRun([], proj));
    appendFileSync(join(proj, "src", "handlers", "index.ts"), "// mine\n");
    const edited = ok(await cliTraced([], proj));
    expect(edited.loaded).toContain("dist/generator/project.js");
    same(edited, await fullRun([], proj));
    fast(await cliTraced([], proj));
  });
});
