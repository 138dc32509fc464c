/**
 * `mcp-task-gen init` with a spec of one's own that declares custom operations: the scaffold compiles at once
 * (tsc --strict with the scaffold's own tsconfig), its handler class already holding a typed stub for each
 * operation, as a regeneration would add it. No install: the project uses this checkout's node_modules.
 */
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, ROOT, STACK_TRACE, tempDirs } from "./helpers/cli.js";
import { checker } from "./helpers/typecheck.js";

const dirs = tempDirs("mcp-task-gen-init-own-");
afterAll(() => dirs.cleanup());

describe("init with a spec that declares custom operations", () => {
  it("scaffolds handlers that type-check before any regeneration", async () => {
    const tmp = dirs.make();
    const r = await cli(["init", "srv", "--spec", join(ROOT, "test/fixtures/specs/jobs.yaml")], tmp);
    expect(r.stderr).not.toMatch(STACK_TRACE);
    expect(r.code, r.stderr).toBe(0);
    const dir = join(tmp, "srv");
    const index = readFileSync(join(dir, "src/handlers/index.ts"), "utf8");
    expect(index).toMatch(/^import \{ notImplemented \} from "\.\.\/tasks\/handlers\.js";$/m);
    expect(index).toMatch(/^import type \{\n(  \w+,\n)*  CustomOperations,\n(  \w+,\n)*  OperationContext,\n(  \w+,\n)*\} from "\.\.\/tasks\/handlers\.js";$/m);
    expect(index).toMatch(/async jobsNote\(params: CustomOperations\["jobs\/note"\]\["params"\], _ctx: OperationContext\): Promise<CustomOperations\["jobs\/note"\]\["result"\]> \{/);
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    expect(checker(dir)().map((e) => `${e.file}:${e.line} ${e.code} ${e.message.split("\n")[0]}`)).toEqual([]);
    // And the first regeneration finds the handlers in step.
    const again = await cli([], dir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("src/handlers/: in step with the contract of spec jobs");
  }, 180_000);
});
