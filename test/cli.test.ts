/**
 * The CLI contract, end to end: `node bin/mcp-task-gen.js` in temp dirs.
 * Exit codes: 0 ok, 1 spec errors / drift / files in the way, 2 usage errors.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { compile, MANIFEST_FILE, type VirtualFile } from "../generator/pipeline.js";
import { builtinSpecs, DEFAULT_SPEC, resolveSpec } from "../generator/specs.js";
import { useColor } from "../generator/fastpath.js";
import { BIN, cli, ROOT, run, STACK_TRACE, tempDirs, type Run } from "./helpers/cli.js";

const MINIMAL = join(ROOT, "test/fixtures/minimal.yaml");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

// Each CLI run is a cold node process that loads prettier; leave room on a loaded machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const dirs = tempDirs("mcp-task-gen-cli-");
afterAll(() => dirs.cleanup());

/** What generate must write for a spec: the compiler's virtual files. */
const expected = new Map<string, VirtualFile[]>();
async function filesOf(spec: string): Promise<VirtualFile[]> {
  if (!expected.has(spec)) {
    const r = resolveSpec(spec, ROOT);
    if (!r.ok) throw new Error(r.message);
    const c = await compile(r.source);
    if (!c.files) throw new Error(`${spec} does not compile`);
    expected.set(spec, c.files);
  }
  return expected.get(spec)!;
}

/** Every file under a directory, relative, sorted. */
function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name), base) : [join(dir, e.name).slice(base.length + 1)]))
    .sort();
}

function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

function ok(r: Run): Run {
  expect(r.stderr, r.stderr).not.toMatch(STACK_TRACE);
  return r;
}

async function expectMatchesCompiler(dir: string, spec: string) {
  const files = await filesOf(spec);
  expect(listFiles(dir)).toEqual(files.map((f) => f.path).sort());
  for (const f of files) expect(readFileSync(join(dir, f.path), "utf8"), f.path).toBe(f.contents);
}

describe("the command's file", () => {
  // npm links a package's command once, by its path: projects that installed this package and npx's cache of
  // it keep a link to bin/mcp-task-gen.js, so that path stays, and a package.json beside it makes it CommonJS.
  it("is bin/mcp-task-gen.js, a CommonJS script, and runs through a link made as npm makes it", async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string>; type?: string };
    expect(pkg.bin).toEqual({ "mcp-task-gen": "bin/mcp-task-gen.js" });
    expect(JSON.parse(readFileSync(join(ROOT, "bin", "package.json"), "utf8"))).toEqual({ type: "commonjs" });
    const dir = dirs.make();
    mkdirSync(join(dir, "node_modules", ".bin"), { recursive: true });
    symlinkSync(ROOT, join(dir, "node_modules", "mcp-task-gen"), "dir");
    symlinkSync(join("..", "mcp-task-gen", pkg.bin["mcp-task-gen"]!), join(dir, "node_modules", ".bin", "mcp-task-gen"));
    const r = ok(await run(join(dir, "node_modules", ".bin", "mcp-task-gen"), ["--version"], { cwd: dir }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(VERSION);
  });
});

describe("no arguments", () => {
  let dir: string;
  let first: Run;
  beforeAll(async () => {
    dir = dirs.make();
    // A package.json without a "mcp-task-gen" key is not a configuration.
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", private: true }));
    first = await cli([], dir);
  });

  it("generates the default spec into ./mcp-tasks/ and says what it wrote", async () => {
    ok(first);
    expect(first.code).toBe(0);
    expect(first.stdout).not.toContain("using");
    await expectMatchesCompiler(join(dir, "mcp-tasks"), DEFAULT_SPEC);
    for (const f of listFiles(join(dir, "mcp-tasks"))) expect(first.stdout).toContain(`create    mcp-tasks/${f}`);
    const n = (await filesOf(DEFAULT_SPEC)).length;
    expect(first.stdout).toContain(`mcp-task-gen: ${DEFAULT_SPEC} → mcp-tasks/: ${n} written, 0 unchanged (${n} files)`);
    expect(readdirSync(dir).sort()).toEqual(["mcp-tasks", "package.json"]);
  });

  it("every file has the header naming the generator and the spec, LF line ends and a final newline", async () => {
    const out = join(dir, "mcp-tasks");
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), "utf8")) as {
      generator: string;
      version: string;
      spec: { name: string; sha256: string };
      files: Record<string, string>;
    };
    expect(manifest.generator).toBe("mcp-task-gen");
    expect(manifest.version).toBe(VERSION);
    expect(manifest.spec.name).toBe(DEFAULT_SPEC);
    expect(manifest.spec.sha256).toMatch(/^[0-9a-f]{64}$/);
    const header = `Generated by mcp-task-gen ${VERSION} from spec ${DEFAULT_SPEC} (sha256 ${manifest.spec.sha256.slice(0, 16)}).`;
    for (const f of listFiles(out)) {
      const text = readFileSync(join(out, f), "utf8");
      expect(text.includes("\r"), `${f} has CR`).toBe(false);
      expect(text.endsWith("\n") && !text.endsWith("\n\n"), `${f} ends with one LF`).toBe(true);
      if (f === MANIFEST_FILE) continue;
      // The runtime is imported from its package, never copied.
      expect(f.startsWith("runtime/"), f).toBe(false);
      if (f.endsWith(".ts")) expect(text.split("\n")[0]).toBe(`// ${header}`);
      else expect(text.split("\n")[0]).toContain(header);
      // The manifest lists the file with its hash.
      expect(manifest.files[f]).toBe(sha256(text));
    }
  });

  it("a second run rewrites nothing (mtimes unchanged)", async () => {
    const out = join(dir, "mcp-tasks");
    // Backdate every file by an hour, so a rewrite cannot hide within the clock's resolution.
    const past = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    for (const f of listFiles(out)) utimesSync(join(out, f), past, past);
    const before = Object.fromEntries(listFiles(out).map((f) => [f, statSync(join(out, f)).mtimeMs]));
    const r = ok(await cli([], dir));
    expect(r.code).toBe(0);
    const n = listFiles(out).length;
    expect(r.stdout).toContain(`0 written, ${n} unchanged (${n} files)`);
    expect(r.stdout).not.toMatch(/create|update/);
    expect(Object.fromEntries(listFiles(out).map((f) => [f, statSync(join(out, f)).mtimeMs]))).toEqual(before);
    expect(Math.round(Object.values(before)[0])).toBe(past.getTime());
  });
});

describe("configuration files", () => {
  it("mcp-task-gen.config.json names the spec and the output", async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, "mcp-task-gen.config.json"), JSON.stringify({ spec: MINIMAL, out: "gen/tasks" }));
    const r = ok(await cli([], dir));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("mcp-task-gen: using mcp-task-gen.config.json");
    await expectMatchesCompiler(join(dir, "gen/tasks"), MINIMAL);
    expect(existsSync(join(dir, "mcp-tasks"))).toBe(false);
  });

  it("mcp-task-gen.config.yaml with several targets", async () => {
    const dir = dirs.make();
    writeFileSync(
      join(dir, "mcp-task-gen.config.yaml"),
      `targets:\n  - spec: ${MINIMAL}\n    out: a\n  - spec: specs/copy.yaml\n    out: b\n`,
    );
    mkdirSync(join(dir, "specs"));
    writeFileSync(join(dir, "specs/copy.yaml"), readFileSync(MINIMAL, "utf8"));
    const r = ok(await cli([], dir));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("mcp-task-gen: using mcp-task-gen.config.yaml");
    expect(r.stdout).toContain("→ a/: ");
    expect(r.stdout).toContain("specs/copy.yaml → b/: ");
    await expectMatchesCompiler(join(dir, "a"), MINIMAL);
    await expectMatchesCompiler(join(dir, "b"), MINIMAL);
  });

  it('a "mcp-task-gen" key in package.json (out defaults to mcp-tasks)', async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", private: true, "mcp-task-gen": { spec: MINIMAL } }));
    const r = ok(await cli([], dir));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("mcp-task-gen: using package.json#mcp-task-gen");
    await expectMatchesCompiler(join(dir, "mcp-tasks"), MINIMAL);
  });

  it("a bad config exits 1 with MTG090 and writes nothing", async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, "mcp-task-gen.config.json"), JSON.stringify({ spec: MINIMAL, outDir: "x" }));
    const r = ok(await cli([], dir));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^mcp-task-gen\.config\.json:1:\d+ error MTG090 invalid configuration at '\(root\)': unknown key 'outDir'/);
    expect(readdirSync(dir)).toEqual(["mcp-task-gen.config.json"]);
  });

  it("a config naming an unknown spec is a usage error (exit 2)", async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, "mcp-task-gen.config.yaml"), "spec: no-such-spec\n");
    const r = ok(await cli([], dir));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown spec 'no-such-spec'");
  });
});

describe("generate", () => {
  it("--spec <built-in name> --out <dir>, deterministically: two output dirs get identical bytes", async () => {
    const dir = dirs.make();
    for (const out of ["out/one", "out/two"]) {
      const r = ok(await cli(["generate", "--spec", "ext-tasks-2026-07-28", "--out", out], dir));
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`ext-tasks-2026-07-28 → ${out}/`);
    }
    await expectMatchesCompiler(join(dir, "out/one"), "ext-tasks-2026-07-28");
    expect(snapshot(join(dir, "out/one"))).toEqual(snapshot(join(dir, "out/two")));
  });

  it("--spec <path> (relative to the cwd)", async () => {
    const dir = dirs.make();
    mkdirSync(join(dir, "specs"));
    writeFileSync(join(dir, "specs/mine.yaml"), readFileSync(MINIMAL, "utf8"));
    const r = ok(await cli(["generate", "--spec", "specs/mine.yaml", "--out", "gen"], dir));
    expect(r.code).toBe(0);
    await expectMatchesCompiler(join(dir, "gen"), MINIMAL);
  });

  it("--watch regenerates when the spec file changes, and keeps --handlers files in step on every round", async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, "tasks.yaml"), readFileSync(join(ROOT, "spec/sep-1686-draft.yaml"), "utf8"));
    mkdirSync(join(dir, "src/handlers"), { recursive: true });
    const mine = [
      `import type { ServerHandlers } from "../../gen/handlers.js";`,
      ``,
      `export class Handlers implements ServerHandlers {`,
      `  readonly tools = [];`,
      `}`,
      ``,
    ].join("\n");
    writeFileSync(join(dir, "src/handlers/index.ts"), mine);
    const child = spawn(process.execPath, [BIN, "generate", "--spec", "tasks.yaml", "--out", "gen", "--handlers", "src/handlers", "--watch"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
    const waitFor = async (what: string, ok: () => boolean) => {
      for (const end = Date.now() + 30_000; !ok(); await new Promise((r) => setTimeout(r, 50))) {
        if (Date.now() > end) throw new Error(`never saw ${what}:\n${output}`);
      }
    };
    try {
      await waitFor("the watch start", () => output.includes("watching tasks.yaml"));
      // The first round added the contract's members to the user's class, keeping its lines.
      const handlers = readFileSync(join(dir, "src/handlers/index.ts"), "utf8");
      expect(handlers).toContain("  readonly tools = [];");
      expect(handlers).toContain("async listResources(");
      const header = () => readFileSync(join(dir, "gen/types.ts"), "utf8").split("\n")[0]!;
      const before = header();
      writeFileSync(join(dir, "tasks.yaml"), readFileSync(join(dir, "tasks.yaml"), "utf8").replace(/^spec: sep-1686-draft$/m, "spec: my-tasks"));
      await waitFor("the regeneration", () => header() !== before);
      expect(header()).toMatch(/from spec my-tasks /);
      // Saved as editors that write safely do (a new file renamed over the old one), twice.
      for (const name of ["renamed-once", "renamed-twice"]) {
        const text = readFileSync(join(dir, "tasks.yaml"), "utf8").replace(/^spec: .*$/m, `spec: ${name}`);
        writeFileSync(join(dir, "tasks.yaml.tmp"), text);
        renameSync(join(dir, "tasks.yaml.tmp"), join(dir, "tasks.yaml"));
        await waitFor(`the regeneration for ${name}`, () => header().includes(`from spec ${name} `));
      }
      expect(output).not.toMatch(STACK_TRACE);
    } finally {
      child.kill();
      await new Promise((r) => child.once("close", r));
    }
  });

  it.each([
    ["mcp-task-gen --watch", ["--watch"]],
    ["generate --watch", ["generate", "--watch"]],
  ])("%s in a project uses its configuration (targets, handler folders), and writes no ./mcp-tasks/", async (_what, argv) => {
    const dir = dirs.make();
    writeFileSync(join(dir, "tasks.yaml"), readFileSync(join(ROOT, "spec/sep-1686-draft.yaml"), "utf8"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "p", private: true, "mcp-task-gen": { spec: "tasks.yaml", out: "src/tasks", handlers: "src/handlers" } }));
    mkdirSync(join(dir, "src/handlers"), { recursive: true });
    const mine = `import type { ServerHandlers } from "../tasks/handlers.js";\n\nexport class Handlers implements ServerHandlers {\n  readonly tools = [];\n}\n`;
    writeFileSync(join(dir, "src/handlers/index.ts"), mine);
    const child = spawn(process.execPath, [BIN, ...argv], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (output += d));
    const waitFor = async (what: string, ok: () => boolean) => {
      for (const end = Date.now() + 30_000; !ok(); await new Promise((r) => setTimeout(r, 50))) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`never saw ${what}:\n${output}`);
      }
    };
    try {
      await waitFor("the watch start", () => output.includes("watching tasks.yaml"));
      expect(output).toContain("mcp-task-gen: using package.json#mcp-task-gen");
      expect(existsSync(join(dir, "src/tasks/types.ts"))).toBe(true);
      expect(readFileSync(join(dir, "src/handlers/index.ts"), "utf8")).toContain("async listResources(");
      const header = () => readFileSync(join(dir, "src/tasks/types.ts"), "utf8").split("\n")[0]!;
      writeFileSync(join(dir, "tasks.yaml"), readFileSync(join(dir, "tasks.yaml"), "utf8").replace(/^spec: sep-1686-draft$/m, "spec: my-tasks"));
      await waitFor("the regeneration", () => header().includes("from spec my-tasks "));
      expect(readdirSync(dir).sort()).toEqual(["package.json", "src", "tasks.yaml"]);
      expect(output).not.toMatch(STACK_TRACE);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const closed = new Promise((r) => child.once("close", r));
        child.kill();
        await closed;
      }
    }
  });

  it("generate --watch --spec naming no target of the configuration is a usage error, not a stray ./mcp-tasks/", async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, "mcp-task-gen.config.json"), JSON.stringify({ spec: "sep-1686-draft", out: "src/tasks" }));
    const r = ok(await cli(["generate", "--watch", "--spec", "mcp-2025-11-25"], dir));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "mcp-task-gen: mcp-task-gen.config.json has no target of spec mcp-2025-11-25 (its specs: sep-1686-draft); name the output folder with --out\n",
    );
    expect(readdirSync(dir)).toEqual(["mcp-task-gen.config.json"]);
  });

  it("a regeneration after a spec change says, one line each, what changed for the handlers and what they must do", async () => {
    const dir = dirs.make();
    const jobs = readFileSync(join(ROOT, "test/fixtures/specs/jobs.yaml"), "utf8");
    writeFileSync(join(dir, "tasks.yaml"), jobs);
    const first = ok(await cli(["generate", "--spec", "tasks.yaml", "--out", "gen", "--quiet"], dir));
    expect(first.code).toBe(0);
    expect(first.stdout).not.toContain("for the handlers");
    const doc = parseYaml(jobs) as Record<string, any>;
    delete doc.methods["jobs/note"];
    doc.examples = (doc.examples ?? []).filter((e: { method?: string }) => e.method !== "jobs/note");
    doc.types.Job.fields.eta = "integer?";
    doc.states.archived = { role: "completed", terminal: true };
    doc.transitions.push({ from: "running", to: "archived" });
    writeFileSync(join(dir, "tasks.yaml"), stringifyYaml(doc));
    const r = ok(await cli(["generate", "--spec", "tasks.yaml", "--out", "gen", "--quiet"], dir));
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").filter((l) => l.startsWith("  "))).toEqual([
      "  contract  Request `jobs/note` removed (compatible for servers): remove jobsNote (jobs/note) from your class (with a handlers folder, it is marked)",
      "  fields    `Job.eta` added (optional: integer) (compatible for servers): the work may set 'eta' with ctx.setFields",
      "  states    Status `archived (completed, terminal)` added with 1 transition: running → archived (compatible for servers): custom operations may move tasks to 'archived' (ctx.move)",
    ]);
    expect(r.stdout).toContain("mcp-task-gen: 3 changes for the handlers (all changes: npx mcp-task-gen diff <old spec> <new spec>)");
    // A change that touches none of them says nothing more.
    writeFileSync(join(dir, "tasks.yaml"), stringifyYaml({ ...doc, description: "Another description." }));
    const quiet = ok(await cli(["generate", "--spec", "tasks.yaml", "--out", "gen", "--quiet"], dir));
    expect(quiet.stdout).not.toContain("for the handlers");
  });

  it("--handlers naming a folder that does not exist: a warning, and no claim that it is in step", async () => {
    const dir = dirs.make();
    const r = ok(await cli(["generate", "--spec", MINIMAL, "--out", "gen", "--handlers", "src/handlers"], dir));
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("mcp-task-gen: warning: src/handlers/ does not exist: no handler files to update\n");
    expect(r.stdout).not.toContain("in step with");
    // A folder of a close name beside it is named, as a likely misspelling; check fails on it.
    mkdirSync(join(dir, "src/handler"), { recursive: true });
    const guessed = ok(await cli(["check", "--spec", MINIMAL, "--out", "gen", "--handlers", "src/handlers"], dir));
    expect(guessed.code).toBe(1);
    expect(guessed.stderr).toContain("mcp-task-gen: error: src/handlers/ does not exist: no handler files to update; did you mean src/handler/?");
  });

  it("says what to install when the runtime package the output imports is missing or of another version, and nothing when it fits", async () => {
    const dir = dirs.make();
    const version = (JSON.parse(readFileSync(join(ROOT, "runtime", "package.json"), "utf8")) as { version: string }).version;
    const install = `run: npm install @mcp-task-gen/runtime@${version}`;
    const missing = ok(await cli(["generate", "--out", "gen"], dir));
    expect(missing.code).toBe(0);
    expect(missing.stderr).toContain(`the generated code imports the task runtime, @mcp-task-gen/runtime, which is not installed where it can find it; ${install}\n`);
    const installed = join(dir, "node_modules", "@mcp-task-gen", "runtime");
    mkdirSync(installed, { recursive: true });
    writeFileSync(join(installed, "package.json"), JSON.stringify({ name: "@mcp-task-gen/runtime", version: "0.0.1" }));
    rmSync(join(dir, "gen"), { recursive: true });
    const other = ok(await cli(["generate", "--out", "gen"], dir));
    expect(other.stderr).toContain(`the generated code is for @mcp-task-gen/runtime ${version}, but node_modules/@mcp-task-gen/runtime/package.json is version 0.0.1; ${install}\n`);
    writeFileSync(join(installed, "package.json"), JSON.stringify({ name: "@mcp-task-gen/runtime", version }));
    rmSync(join(dir, "gen"), { recursive: true });
    const fits = ok(await cli(["generate", "--out", "gen"], dir));
    expect(fits.stderr).not.toContain("@mcp-task-gen/runtime");
  });

  it("--dry-run lists what it would write and writes nothing", async () => {
    const dir = dirs.make();
    const r = ok(await cli(["generate", "--out", "gen", "--dry-run"], dir));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("dry run, nothing written");
    for (const f of await filesOf(DEFAULT_SPEC)) expect(r.stdout).toContain(`create    gen/${f.path}`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("spec errors exit 1 with file:line:col error MTGnnn on stderr and write nothing", async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, "bad.yaml"), readFileSync(join(ROOT, "test/fixtures/diagnostics/MTG010-unknown-key.yaml"), "utf8"));
    const r = ok(await cli(["generate", "--spec", "bad.yaml", "--out", "gen"], dir));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^bad\.yaml:9:5 error MTG010 unknown key 'fieldz', did you mean 'fields'\?\n {2}9 \| {5}fieldz:\n {4}\| {5}\^{6}\n/);
    expect(r.stderr).toContain("1 error, 0 warnings; nothing written");
    expect(readdirSync(dir)).toEqual(["bad.yaml"]);
  });
});

describe("protecting files that are not (or no longer) generated output", () => {
  let dir: string;
  const out = () => join(dir, "gen");
  const gen = (...extra: string[]) => cli(["generate", "--spec", MINIMAL, "--out", "gen", ...extra], dir);

  beforeAll(async () => {
    dir = dirs.make();
  });

  it("a pre-existing file not in the manifest is never overwritten, even with --force", async () => {
    mkdirSync(out());
    writeFileSync(join(out(), "types.ts"), "// mine\n");
    for (const force of [[], ["--force"]]) {
      const r = ok(await gen(...force));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("gen/types.ts exists and was not written by mcp-task-gen");
      expect(r.stderr).toContain("nothing written");
      expect(listFiles(out())).toEqual(["types.ts"]);
      expect(readFileSync(join(out(), "types.ts"), "utf8")).toBe("// mine\n");
    }
    rmSync(out(), { recursive: true });
  });

  it("a hand-edited generated file stops generate with a clear message; --force overwrites it", async () => {
    expect(ok(await gen()).code).toBe(0);
    const types = join(out(), "types.ts");
    const original = readFileSync(types, "utf8");
    writeFileSync(types, original + "// my edit\n");
    const r = ok(await gen());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("gen/types.ts was edited by hand since it was generated");
    expect(r.stderr).toContain("--force");
    expect(readFileSync(types, "utf8")).toBe(original + "// my edit\n");
    const forced = ok(await gen("--force"));
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain("overwrite gen/types.ts");
    expect(readFileSync(types, "utf8")).toBe(original);
  });

  it("stale generated files are deleted only if unedited", async () => {
    // Pretend an earlier version generated two more files; one was edited since.
    const manifestPath = join(out(), MANIFEST_FILE);
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { files: Record<string, string> };
    writeFileSync(join(out(), "old.ts"), "// old\n");
    writeFileSync(join(out(), "edited.ts"), "// old, then edited\n");
    manifest.files["old.ts"] = sha256("// old\n");
    manifest.files["edited.ts"] = sha256("// old\n");
    writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + "\n");

    const r = ok(await gen());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("delete    gen/old.ts");
    expect(existsSync(join(out(), "old.ts"))).toBe(false);
    expect(r.stderr).toContain("warning: gen/edited.ts is no longer generated and was edited by hand; it is left in place");
    expect(readFileSync(join(out(), "edited.ts"), "utf8")).toBe("// old, then edited\n");
    // It is no longer in the manifest, so it is the user's file now.
    const after = JSON.parse(readFileSync(manifestPath, "utf8")) as { files: Record<string, string> };
    expect(Object.keys(after.files)).not.toContain("edited.ts");
    expect(Object.keys(after.files)).not.toContain("old.ts");
    const again = ok(await gen());
    expect(again.code).toBe(0);
    expect(again.stderr).toBe("");
    expect(existsSync(join(out(), "edited.ts"))).toBe(true);
  });
});

describe("check", () => {
  let dir: string;
  beforeAll(async () => {
    dir = dirs.make();
    expect(ok(await cli(["generate", "--spec", MINIMAL, "--out", "gen"], dir)).code).toBe(0);
  });

  it("with a configuration and no --spec/--out: checks its targets and their handler files, and says how to fix them", async () => {
    const project = dirs.make();
    writeFileSync(join(project, "mcp-task-gen.config.json"), JSON.stringify({ spec: "sep-1686-draft", out: "src/tasks", handlers: "src/handlers" }));
    mkdirSync(join(project, "src/handlers"), { recursive: true });
    const mine = `import type { ServerHandlers } from "../tasks/handlers.js";\n\nexport class Handlers implements ServerHandlers {\n  readonly tools = [];\n}\n`;
    writeFileSync(join(project, "src/handlers/index.ts"), mine);
    const stale = ok(await cli(["check"], project));
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain("mcp-task-gen: using mcp-task-gen.config.json");
    expect(stale.stderr).toContain("mcp-task-gen: src/tasks/ is stale");
    // The command it gives keeps the handler files in step too.
    expect(stale.stderr).toMatch(/src\/tasks\/ is stale \(.*\); run: npx mcp-task-gen generate --spec sep-1686-draft --out src\/tasks --handlers src\/handlers\n/);
    expect(stale.stderr).toMatch(/^ {2}update {4}src\/handlers\/index\.ts: /m);
    expect(stale.stderr).toContain(
      "mcp-task-gen: src/handlers/ is not in step with the contract of spec sep-1686-draft (1 file(s) to update); run: npx mcp-task-gen generate --spec sep-1686-draft --out src/tasks --handlers src/handlers",
    );
    // check writes nothing.
    expect(readFileSync(join(project, "src/handlers/index.ts"), "utf8")).toBe(mine);
    expect(existsSync(join(project, "src/tasks"))).toBe(false);
    expect(ok(await cli([], project)).code).toBe(0);
    const fresh = ok(await cli(["check"], project));
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toContain("mcp-task-gen: src/handlers/ is in step with the contract of spec sep-1686-draft");
    expect(fresh.stderr).toBe("");
  });

  it("exits 0 when the directory is exactly what generate would write", async () => {
    const r = ok(await cli(["check", "--spec", MINIMAL, "--out", "gen"], dir));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("gen/ is up to date");
  });

  it("exits 1 listing missing, changed and extra files", async () => {
    rmSync(join(dir, "gen/index.ts"));
    writeFileSync(join(dir, "gen/types.ts"), "// changed\n");
    writeFileSync(join(dir, "gen/notes.txt"), "mine\n");
    const before = snapshot(join(dir, "gen"));
    const r = ok(await cli(["check", "--spec", MINIMAL, "--out", "gen"], dir));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("  missing   gen/index.ts");
    expect(r.stderr).toContain("  changed   gen/types.ts");
    expect(r.stderr).toContain("  extra     gen/notes.txt");
    expect(r.stderr).toContain("gen/ is stale (1 missing, 1 changed, 1 extra)");
    // The hand edit is named as generate names it, and the command given is one that generate accepts.
    expect(r.stderr).toContain("gen/types.ts was edited by hand since it was generated");
    expect(r.stderr).toMatch(/run: npx mcp-task-gen generate --spec \S+ --out gen --force$/m);
    // check never writes.
    expect(snapshot(join(dir, "gen"))).toEqual(before);
  });

  it("exits 1 when the directory does not exist, listing every file as missing", async () => {
    const r = ok(await cli(["check", "--spec", MINIMAL, "--out", "nowhere"], dir));
    expect(r.code).toBe(1);
    for (const f of await filesOf(MINIMAL)) expect(r.stderr).toContain(`missing   nowhere/${f.path}`);
    expect(existsSync(join(dir, "nowhere"))).toBe(false);
  });

});

describe("validate, list-specs, --help, --version", () => {
  it("a reader that closes the pipe early (| head -1) ends the command quietly, with no stack trace", async () => {
    for (const command of ["schema", "codes", "list-specs"]) {
      const child = spawn(process.execPath, [BIN, command], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      // Reads the first chunk, then closes the pipe, as `head -1` does.
      await new Promise((r) => child.stdout.once("data", r));
      child.stdout.destroy();
      const code = await new Promise<number | null>((r) => child.once("close", r));
      expect({ command, code, stderr }).toEqual({ command, code: 0, stderr: "" });
    }
  });

  it("validate exits 0 for a valid spec, 1 for an invalid one", async () => {
    const good = ok(await cli(["validate", MINIMAL], ROOT));
    expect(good.code).toBe(0);
    expect(good.stdout).toContain("valid (0 errors, 0 warnings)");
    expect(good.stderr).toBe("");
    const bad = ok(await cli(["validate", "test/fixtures/diagnostics/MTG041-two-initial-states.yaml"], ROOT));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^test\/fixtures\/diagnostics\/MTG041-two-initial-states\.yaml:20:5 error MTG041 /);
    expect(bad.stdout).toContain("invalid (1 error, 0 warnings)");
  });

  it("validate --json prints a machine-readable verdict", async () => {
    const r = ok(await cli(["validate", "test/fixtures/diagnostics/MTG043-unreachable-state.yaml", "--json"], ROOT));
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout) as { ok: boolean; diagnostics: { code: string; location: { line: number; col: number } }[] };
    expect(j.ok).toBe(false);
    expect(j.diagnostics.map((d) => [d.code, d.location.line, d.location.col])).toEqual([["MTG043", 18, 3]]);
    const good = ok(await cli(["validate", DEFAULT_SPEC, "--json"], ROOT));
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ spec: DEFAULT_SPEC, ok: true, diagnostics: [] });
  });

  it("list-specs lists the built-in specs and marks the default", async () => {
    const r = ok(await cli(["list-specs"], dirs.make()));
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toEqual(builtinSpecs().map((s) => (s === DEFAULT_SPEC ? `${s} (default)` : s)));
    expect(builtinSpecs()).toEqual(expect.arrayContaining(["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"]));
  });

  it("--help describes the commands and exits 0", async () => {
    const r = ok(await cli(["--help"], dirs.make()));
    expect(r.code).toBe(0);
    for (const c of ["generate", "check", "validate <spec>", "list-specs", "--version", "--help"]) expect(r.stdout).toContain(c);
  });

  it("--help shows examples: a few of every command in the general help, each command's own in its help", async () => {
    const general = ok(await cli(["--help"], dirs.make()));
    expect(general.stdout).toContain("Examples:");
    for (const c of ["generate --spec", "check", "validate ./my-tasks.yaml", "diff mcp-2025-11-25", "init my-server", "schema --out"]) {
      expect(general.stdout).toContain(`mcp-task-gen ${c}`);
    }
    const generate = ok(await cli(["generate", "--help"], dirs.make()));
    expect(generate.code).toBe(0);
    const examples = generate.stdout.slice(generate.stdout.indexOf("Examples:"));
    expect(examples).toContain("mcp-task-gen generate --spec ./my-tasks.yaml");
    expect(examples).toContain("Your spec: list what would be written");
    expect(examples).toContain("--handlers src/handlers --watch");
  });

  it("schema --out says what it wrote; a file it cannot write is an error, not a stack trace", async () => {
    const dir = dirs.make();
    const r = ok(await cli(["schema", "--out", "schema.json"], dir));
    expect(r.code).toBe(0);
    const bytes = statSync(join(dir, "schema.json")).size;
    expect(r.stdout.trim()).toBe(`mcp-task-gen: wrote the JSON Schema of the spec format to schema.json (${bytes} bytes)`);
    const bad = ok(await cli(["schema", "--out", "no/such/folder.json"], dir));
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe("mcp-task-gen: error: cannot write no/such/folder.json: its folder does not exist; name a file in an existing folder");
  });

  it("colours the diagnostics as Node decides: FORCE_COLOR forces or forbids, NO_COLOR and a pipe turn them off", async () => {
    const bad = "test/fixtures/diagnostics/MTG041-two-initial-states.yaml";
    const validate = (env: NodeJS.ProcessEnv) => run(process.execPath, [BIN, "validate", bad], { cwd: ROOT, env: { NO_COLOR: undefined, FORCE_COLOR: undefined, ...env } });
    const red = "\x1b[31merror\x1b[0m";
    expect((await validate({ FORCE_COLOR: "1" })).stderr).toContain(`:20:5 ${red} MTG041`);
    expect((await validate({ FORCE_COLOR: "" })).stderr).toContain(red);
    // FORCE_COLOR decides alone when set, as in Node.
    expect((await validate({ FORCE_COLOR: "3", NO_COLOR: "1" })).stderr).toContain(red);
    for (const env of [{ FORCE_COLOR: "0" }, { FORCE_COLOR: "false" }, {}, { NO_COLOR: "1" }]) {
      const r = await validate(env);
      expect(r.stderr, JSON.stringify(env)).toContain(":20:5 error MTG041");
      expect(r.stderr, JSON.stringify(env)).not.toContain("\x1b[");
    }
    // On a terminal: coloured unless NO_COLOR, NODE_DISABLE_COLORS or TERM=dumb.
    expect(useColor({}, true)).toBe(true);
    expect(useColor({ NO_COLOR: "" }, true)).toBe(false);
    expect(useColor({ NODE_DISABLE_COLORS: "1" }, true)).toBe(false);
    expect(useColor({ TERM: "dumb" }, true)).toBe(false);
    expect(useColor({ FORCE_COLOR: "0" }, true)).toBe(false);
    expect(useColor({ FORCE_COLOR: "2", TERM: "dumb" }, false)).toBe(true);
  });

  it("--version prints the package version", async () => {
    const r = ok(await cli(["--version"], dirs.make()));
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(VERSION);
  });
});

describe("usage errors exit 2", () => {
  it.each([
    ["an unknown command", ["frobnicate"], /Unknown argument: frobnicate/],
    ["an unknown option", ["generate", "--bogus"], /Unknown argument: bogus/],
    ["validate without a spec", ["validate"], /Not enough non-option arguments/],
    ["an unknown spec name", ["generate", "--spec", "mcp-2025"], /unknown spec 'mcp-2025': not a built-in spec \(ext-tasks-2026-07-28, mcp-2025-11-25, sep-1686-draft\)/],
    // An option without its value is a mistake, not a request for the default.
    ["--spec without a value", ["generate", "--spec"], /Not enough arguments following: spec/],
    ["--out without a value", ["generate", "--spec", "mcp-2025-11-25", "--out"], /Not enough arguments following: out/],
    ["--handlers without a value", ["generate", "--handlers"], /Not enough arguments following: handlers/],
    ["check --spec without a value", ["check", "--spec"], /Not enough arguments following: spec/],
    ["a misspelt command, with a guess", ["genrate"], /Unknown argument: genrate; did you mean 'generate'\?/],
    // --help does not turn an unknown command into a request for the general help.
    ["a misspelt command with --help, with a guess", ["genrate", "--help"], /^mcp-task-gen: Unknown argument: genrate; did you mean 'generate'\?\nRun 'npx mcp-task-gen --help' for usage\.\n$/],
    ["an unknown command with -h", ["frobnicate", "-h"], /Unknown argument: frobnicate/],
    ["a misspelt option, with a guess", ["generate", "--sepc", "x"], /Unknown argument: sepc; did you mean 'spec'\?/],
    ["an option of another command, named as such (no guess of itself)", ["--quiet"], /Unknown argument: quiet \(an option of another command: see 'npx mcp-task-gen <command> --help'\)\n/],
    ["init with a --name npm would refuse", ["init", "srv", "--name", "Bad_Name!"], /--name "Bad_Name!" is not a valid npm package name/],
  ])("%s", async (_what, argv, message) => {
    const dir = dirs.make();
    const r = ok(await cli(argv, dir));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.startsWith("mcp-task-gen: ")).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });
});
