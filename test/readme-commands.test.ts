/**
 * The README's quick start "tasks for an existing server", run as written in a folder outside the checkout:
 * the runtime's tarball packed from this checkout (`npm pack ./runtime`), the block's `npm install` of it into
 * a project holding the SDK quickstart's weather server, the server with the README's lines added
 * (test/fixtures/weather/server.mjs: test/mcp-server-adopt.test.ts checks that it is the quickstart with exactly
 * those lines) as build/index.js, and the README's try-task.mjs beside it: `node try-task.mjs` runs the slow tool
 * as a task through the installed package. (The other quick start, `init`, is run by test/init.test.ts, which
 * takes its commands from the README.)
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, run, STACK_TRACE, tempDirs, type Run } from "./helpers/cli.js";
import { readmeBlocks, readmeCommands } from "./helpers/readme.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const HEADING = "## Quick start: tasks for an existing server";

/** The child npm must not inherit `npm test`'s npm_* variables (they point at this repository). */
const env: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false",
};
/** Offline-friendly: from the npm cache that installed this repository. */
const QUIET = ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];
const installedVersion = (name: string) => (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

const dirs = tempDirs("mcp-task-gen-readme-");
afterAll(() => dirs.cleanup());

function must(r: Run, what: string): Run {
  expect(r.stderr, what).not.toMatch(STACK_TRACE);
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

describe("the README's quick start: tasks for an existing server", () => {
  it("installs the runtime's tarball as its block says, and the first task call runs on the installed package", async () => {
    const project = join(dirs.make(), "weather");
    mkdirSync(join(project, "build"), { recursive: true });
    // The SDK quickstart's project: an ES module package with the SDK and zod.
    writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "weather", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`);
    must(
      await run(NPM, ["install", ...QUIET, `@modelcontextprotocol/sdk@${installedVersion("@modelcontextprotocol/sdk")}`, `zod@${installedVersion("zod")}`], { cwd: project, env, timeoutMs: 240_000 }),
      "npm install of the SDK and zod",
    );
    // `npm pack ./runtime` in this checkout (built by the global setup), the tarball put beside the project's package.json.
    const packed = must(await run(NPM, ["pack", "./runtime", "--ignore-scripts", "--json", "--pack-destination", project], { cwd: ROOT, env, timeoutMs: 120_000 }), "npm pack ./runtime");
    const tarball = (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename;

    // The block's commands, as written (npm's quiet, offline-friendly flags added).
    const commands = readmeCommands(HEADING);
    expect(commands).toEqual([["npm", "install", `./${tarball}`]]);
    for (const [cmd, ...args] of commands) {
      expect(cmd).toBe("npm");
      must(await run(NPM, [...args, ...QUIET], { cwd: project, env, timeoutMs: 240_000 }), args.join(" "));
    }
    expect(existsSync(join(project, "node_modules", "@mcp-task-gen", "runtime", "dist", "esm", "mcp-server.js"))).toBe(true);

    // The server with the README's lines, and the README's try-task.mjs beside build/index.js.
    copyFileSync(join(ROOT, "test", "fixtures", "weather", "server.mjs"), join(project, "build", "index.js"));
    const client = readmeBlocks(HEADING, "js").at(-1)!;
    expect(client).toContain("callToolStream");
    writeFileSync(join(project, "try-task.mjs"), client);
    const r = must(await run(process.execPath, ["try-task.mjs"], { cwd: project, env, timeoutMs: 60_000 }), "node try-task.mjs");
    const out = r.stdout.split("\n");
    expect(out[0]).toBe("taskCreated working");
    expect(out).toContain("progress 20/20");
    expect(out).toContain("taskStatus completed");
    expect(out.at(-2)).toMatch(/^result \{.*"content":\[\{"type":"text","text":"Waited 2 seconds"\}\]\}$/);
  }, 300_000);
});
