/**
 * The generate path from the build's bundle with V8's code cache (generator/launch.ts) and the build id
 * (generator/build-id.ts), end to end through a copy of the built package (bin, dist, templates, spec,
 * package.json, with this checkout's packages but a copy of Handlebars; every file with one time, as npm extracts a package): whatever the state of the code cache or of the copy,
 * a generate writes exactly what the modules write with no cache at all. A run took the bundle when it
 * wrote a code cache (only the bundle's path does).
 */
import { createHash } from "node:crypto";
import { appendFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listFiles } from "../generator/fsout.js";
import { ROOT, run, STACK_TRACE, tempDirs } from "./helpers/cli.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const dirs = tempDirs("mcp-task-gen-launch-");
afterAll(() => dirs.cleanup());

let pkg: string;
/** What the modules write with no cache (MCP_TASK_GEN_CACHE=off): file → content. */
let expected: Record<string, string>;

beforeAll(async () => {
  pkg = dirs.make();
  for (const part of ["bin", "dist", "templates", "spec", "package.json"]) cpSync(join(ROOT, part), join(pkg, part), { recursive: true, preserveTimestamps: true });
  // This checkout's packages, but a copy of Handlebars, whose runtime the bundle holds.
  mkdirSync(join(pkg, "node_modules"));
  for (const name of readdirSync(join(ROOT, "node_modules"))) {
    if (name === "handlebars") cpSync(join(ROOT, "node_modules", name), join(pkg, "node_modules", name), { recursive: true });
    else symlinkSync(join(ROOT, "node_modules", name), join(pkg, "node_modules", name));
  }
  // Every file with one time, as npm extracts a package (the build id then stands for the files as extracted).
  const npmTime = new Date("1985-10-26T08:15:00Z");
  for (const part of ["bin", "dist", "templates", "spec"]) for (const f of listFiles(join(pkg, part))) utimesSync(join(pkg, part, f), npmTime, npmTime);
  expected = (await generate(dirs.make(), "off")).files;
});

/** A generate of mcp-2025-11-25 by the copy, into a new folder of `cwd`: its files, and the code caches the cache folder then holds. */
async function generate(cwd: string, cache: string) {
  const out = `out-${readdirSync(cwd).length}`;
  const r = await run(process.execPath, [join(pkg, "bin", "mcp-task-gen.js"), "generate", "--spec", "mcp-2025-11-25", "--out", out, "--quiet"], {
    cwd,
    env: { MCP_TASK_GEN_CACHE: cache },
  });
  expect(r.stderr, r.stderr).not.toMatch(STACK_TRACE);
  expect(r.code, r.stderr).toBe(0);
  const files = Object.fromEntries(listFiles(join(cwd, out)).map((f) => [f, readFileSync(join(cwd, out, f), "utf8")]));
  return { files, caches: codeCaches(cache) };
}

/** The code cache files of a cache folder, by name: the sha256 of each. */
function codeCaches(cache: string): Record<string, string> {
  const dir = join(cache, "v2", "code");
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir).map((n) => [n, createHash("sha256").update(readFileSync(join(dir, n))).digest("hex")]));
}

describe("the generate path from the bundle", () => {
  it("writes its code cache after a run, reads it on the next, and writes what the modules write", async () => {
    const cwd = dirs.make();
    const cache = join(cwd, "cache");
    const first = await generate(cwd, cache);
    expect(Object.keys(first.caches)).toHaveLength(1);
    expect(first.files).toEqual(expected);
    const second = await generate(cwd, cache);
    // A cache V8 took is not written again.
    expect(second.caches).toEqual(first.caches);
    expect(second.files).toEqual(expected);
  });

  it("a corrupt, truncated or rejected code cache is compiled past and written afresh", async () => {
    const cwd = dirs.make();
    const cache = join(cwd, "cache");
    const good = (await generate(cwd, cache)).caches;
    const [name] = Object.keys(good);
    const file = join(cache, "v2", "code", name!);
    const valid = readFileSync(file);
    const payload = valid.subarray(32);
    const flipped = Buffer.from(valid);
    flipped[flipped.length - 100] ^= 0xff;
    // V8's own checks pass on the flipped and the truncated payloads' headers: only the file's sha256 tells.
    const garbage = Buffer.alloc(payload.length, 7);
    const withHash = (p: Buffer) => Buffer.concat([createHash("sha256").update(p).digest(), p]);
    for (const bad of [flipped, valid.subarray(0, valid.length >> 1), Buffer.alloc(0), withHash(garbage), withHash(payload.subarray(0, 64))]) {
      writeFileSync(file, bad);
      const r = await generate(cwd, cache);
      expect(r.files).toEqual(expected);
      expect(Object.keys(r.caches)).toEqual([name]);
      // Written afresh: a valid cache again (its content may differ from the first one's, its use not).
      expect(readFileSync(file).subarray(0, 32)).toEqual(createHash("sha256").update(readFileSync(file).subarray(32)).digest());
    }
  });

  it("is not used once the installed Handlebars runtime is not the one the bundle holds", async () => {
    const cwd = dirs.make();
    const runtime = join(pkg, "node_modules", "handlebars", "dist", "handlebars.runtime.js");
    const original = readFileSync(runtime);
    appendFileSync(runtime, "\n// another release\n");
    try {
      const r = await generate(cwd, join(cwd, "cache"));
      expect(r.caches).toEqual({});
      expect(r.files).toEqual(expected);
    } finally {
      writeFileSync(runtime, original);
    }
  });

  it("is not used, nor the build id, once a file of dist/ or templates/ changed without a rebuild: the change shows in what is generated", async () => {
    const cwd = dirs.make();
    expect(Object.keys((await generate(cwd, join(cwd, "cache-0"))).caches)).toHaveLength(1);
    // A module saved again with the same text: the modules run (no code cache written), and write the same.
    const output = join(pkg, "dist", "generator", "output.js");
    writeFileSync(output, readFileSync(output));
    const resaved = await generate(cwd, join(cwd, "cache-1"));
    expect(resaved.caches).toEqual({});
    expect(resaved.files).toEqual(expected);
    // A file added to templates/ (the emitters list it): the modules run.
    writeFileSync(join(pkg, "templates", "notes.txt"), "not a template\n");
    const added = await generate(cwd, join(cwd, "cache-3"));
    expect(added.caches).toEqual({});
    expect(added.files).toEqual(expected);
    // An edited template: its text is in the output.
    const readme = join(pkg, "templates", "README.md.hbs");
    appendFileSync(readme, "\nEdited after the build.\n");
    const edited = await generate(cwd, join(cwd, "cache-0"));
    expect(edited.files["README.md"]).toContain("Edited after the build.");
    // A changed bundle, once the rest is back as built: the modules run.
    writeFileSync(readme, readFileSync(join(ROOT, "templates", "README.md.hbs")));
    appendFileSync(join(pkg, "dist", "generate.cjs"), "\n");
    const unbundled = await generate(cwd, join(cwd, "cache-2"));
    expect(unbundled.caches).toEqual({});
    expect(unbundled.files).toEqual(expected);
  });
});
