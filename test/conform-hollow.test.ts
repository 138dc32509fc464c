/**
 * No hollow verdicts: a run of conform that made no task, or saw none of the spec's outcomes to its end, says
 * nothing of the server: it exits 3 ("nothing tested"), names what it could not do and the option that fixes it,
 * and lists the rules it never exercised, instead of saying that every rule held.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { conform } from "../generator/conform/run.js";
import { cli, ROOT } from "./helpers/cli.js";
import { irOf } from "./helpers/conform.js";

const PLAIN = join(ROOT, "test", "fixtures", "servers", "plain-sdk-server.mjs");
const DROP = join(ROOT, "test", "fixtures", "servers", "drop-task-marker.mjs");

describe("a run that tested nothing", () => {
  it("a plain SDK server with no task capability and tools of its own: exit 3, never a pass nor a violation", async () => {
    const r = await cli(["conform", "--spec", "mcp-2025-11-25", "--stdio", `node ${PLAIN}`, "--runs", "3", "--seed", "1"], ROOT);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stderr).toContain("NOTHING TESTED");
    expect(r.stderr).toContain("the server declares no task capability (tasks) and made no task");
    
    expect(r.stderr).toContain("--outcomes");
    expect(r.stderr).toMatch(/rules never exercised \(they say nothing of this server\): .*creation/);
    expect(r.stderr).not.toMatch(/all rules held|every rule exercised held/);
  }, 120_000);

  it("a plain SDK server that serves every task request without a task: exit 3, not a pass", async () => {
    const r = await conform({ ir: irOf("mcp-2025-11-25"), target: { stdio: `node ${PLAIN} --demo-names` }, runs: 3, seed: 1 });
    expect(r.verdict).toBe("untestable");
    expect(r.ok).toBe(false);
    expect(r.failure?.kind).toBe("nothing-tested");
    expect(r.failure?.violation.message).toMatch(/declares no task capability \(tasks\) and made no task/);
    // The plain answers were checked as such: the capability rule was exercised.
    expect(r.rules.capabilities).toBeGreaterThan(0);
  }, 120_000);

  it("a server that drops the task marker from every creation (ext-tasks-2026-07-28, where the server decides): exit 3", async () => {
    const r = await conform({ ir: irOf("ext-tasks-2026-07-28"), target: { stdio: `node ${DROP}` }, runs: 3, seed: 1 });
    expect(r.verdict, JSON.stringify(r.failure)).toBe("untestable");
    expect(r.failure?.kind).toBe("nothing-tested");
    expect(r.failure?.violation.message).toMatch(/every task request \(\d+\) was served plainly, without a task/);
    expect(r.failure?.violation.message).toContain("--outcomes");
    expect(r.rules.creation).toBe(0);
  }, 180_000);

  it("a demo of another revision, which declares none of this one's task capability: exit 3, its capability check shown failed", async () => {
    const r = await conform({ ir: irOf("mcp-2025-11-25"), target: { stdio: "npm run --silent demo -- sep-1686-draft" }, runs: 3, seed: 1 });
    expect(r.verdict, JSON.stringify(r.failure)).toBe("untestable");
    expect(r.failure?.kind).toBe("nothing-tested");
    expect(r.checks).toContainEqual({ rule: "capabilities", ok: false, message: "the server does not declare the capability at tasks" });
  }, 180_000);

  it("the demo of the same spec: every rule it exercised held, with a count per rule, and the ones it did not named", async () => {
    const r = await conform({ ir: irOf("mcp-2025-11-25"), target: { stdio: "npm run --silent demo -- mcp-2025-11-25" }, runs: 3, seed: 1 });
    expect(r.verdict, JSON.stringify(r.failure)).toBe("held");
    expect(r.rules.creation).toBeGreaterThan(0);
    expect(r.rules.types).toBeGreaterThan(0);
    expect(r.rules.outcomes).toBeGreaterThan(0);
    // A rule of another revision's design is never exercised here, and says so.
    expect(r.rules.envelope).toBe(0);
  }, 180_000);
});
