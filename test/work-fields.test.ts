/**
 * `ctx.setFields` is typed by the spec's work-set fields (the task type's fields that no behaviour fills):
 * a handler that sets one of them type-checks, a misspelt or managed field does not. tsc --strict on the
 * generated code of test/fixtures/specs/jobs.yaml (work field: progress).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, ROOT, tempDirs } from "./helpers/cli.js";
import { checker } from "./helpers/typecheck.js";

const dirs = tempDirs("mcp-task-gen-work-fields-");
afterAll(() => dirs.cleanup());

/** A project with the output of `spec` in gen/ and `tool` as src/tool.ts; the type errors of src/. */
function errorsOf(spec: string, tool: string): string[] {
  const dir = dirs.make();
  const run = spawnSync(process.execPath, [BIN, "generate", "--spec", spec, "--out", "gen", "--quiet"], { cwd: dir, encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: ["node"] },
      include: ["gen/**/*.ts", "src/**/*.ts"],
    }),
  );
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src/tool.ts"), tool);
  return checker(dir)((f) => f.startsWith("src/")).map((e) => `${e.file}:${e.line} ${e.code}`);
}

const tool = (fields: string) =>
  [
    `import { defineTool } from "../gen/handlers.js";`,
    `export const t = defineTool({`,
    `  name: "t",`,
    `  async handler(_args, ctx) {`,
    `    await ctx.setFields(${fields});`,
    `    return { content: [] };`,
    `  },`,
    `});`,
    ``,
  ].join("\n");

describe("ctx.setFields", () => {
  it("accepts the spec's work-set fields and refuses a misspelt or a managed one", () => {
    const jobs = join(ROOT, "test/fixtures/specs/jobs.yaml");
    expect(errorsOf(jobs, tool("{ progress: 50 }"))).toEqual([]);
    expect(errorsOf(jobs, tool("{ progres: 50 }"))).toEqual(["src/tool.ts:5 TS2561"]);
    expect(errorsOf(jobs, tool("{ state: \"done\" }"))).toEqual(["src/tool.ts:5 TS2353"]);
    expect(errorsOf(jobs, tool('{ progress: "half" }'))).toEqual(["src/tool.ts:5 TS2322"]);
  }, 180_000);

  it("types them for a task type that is a union of status-specific shapes too (ext-tasks-2026-07-28 with a progress field)", () => {
    const dir = dirs.make();
    const text = readFileSync(join(ROOT, "spec/ext-tasks-2026-07-28.yaml"), "utf8").replace(
      /^( {2}Task:\n {4}type: object\n(?: {4}.*\n)*? {4}fields:\n)/m,
      "$1      progress:\n        type: number\n        default: 0\n",
    );
    expect(text).toContain("      progress:\n        type: number");
    writeFileSync(join(dir, "ext.yaml"), text);
    const ext = join(dir, "ext.yaml");
    expect(errorsOf(ext, tool("{ progress: 50 }"))).toEqual([]);
    expect(errorsOf(ext, tool("{ progres: 50 }"))).toEqual(["src/tool.ts:5 TS2561"]);
  }, 180_000);
});
