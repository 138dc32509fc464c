/**
 * The generated code type-checks whatever package it lands in: here in a folder with no package.json above
 * it, where TypeScript (module NodeNext) reads every file as CommonJS and resolves the SDK's packages through
 * their "require" declarations. The per-request lifecycle (ext-tasks-2026-07-28) brings the stateless server,
 * which uses two entries of @modelcontextprotocol/server that must resolve alike.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, ROOT } from "./helpers/cli.js";
import { checker } from "./helpers/typecheck.js";

const work = mkdtempSync(join(tmpdir(), "mcp-task-gen-anywhere-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The package.json files above `dir` (none: TypeScript takes its .ts files for CommonJS). */
function packagesAbove(dir: string): string[] {
  const found: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "package.json"))) found.push(join(d, "package.json"));
    if (dirname(d) === d) return found;
  }
}

describe("generated code in a folder with no package.json", () => {
  it("ext-tasks-2026-07-28 passes tsc --strict as CommonJS", () => {
    expect(packagesAbove(work)).toEqual([]);
    const run = spawnSync(process.execPath, [BIN, "generate", "--spec", "ext-tasks-2026-07-28", "--out", "out", "--quiet"], { cwd: work, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(join(work, "out", "stateless-server.ts"))).toBe(true);
    // The packages the output imports, from this checkout.
    symlinkSync(join(ROOT, "node_modules"), join(work, "node_modules"), "dir");
    writeFileSync(
      join(work, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: [] },
        include: ["out/**/*.ts"],
      }),
    );
    expect(checker(work)().map((e) => `${e.file}:${e.line} ${e.code} ${e.message.split("\n")[0]}`)).toEqual([]);
  }, 120_000);
});
