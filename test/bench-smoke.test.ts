/**
 * `npm run bench -- --quick` as a smoke test: the benchmark suite runs to the
 * end and writes a well-formed report (Markdown and JSON) to a temp file.
 * No timing is asserted here, nor anywhere in the tests: a missed target is a
 * line in BENCHMARKS.md, not a failure.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseArgs } from "../bench/args.js";
import { ROOT, tempDirs } from "./helpers/cli.js";

const dirs = tempDirs("mcp-task-gen-bench-");
afterAll(() => dirs.cleanup());

const AREAS = ["validators", "transitions", "generator", "store", "stores", "e2e", "load", "workers"];
const STATUSES = ["met", "missed", "not measured yet", "n/a"];

describe("where a run writes its report", () => {
  it("a full run writes BENCHMARKS.md; a quick run an ignored file beside the benches, never the committed report", () => {
    expect(parseArgs([]).out).toBe(join(ROOT, "BENCHMARKS.md"));
    const quick = parseArgs(["--quick"]).out;
    expect(quick).toBe(join(ROOT, "bench", "results", "quick.md"));
    // git check-ignore exits 0 (and names the file) when the file is ignored.
    expect(execFileSync("git", ["check-ignore", quick], { cwd: ROOT, encoding: "utf8" }).trim()).toBe(quick);
    expect(parseArgs(["--quick", "--out", "x.md"]).out).toBe(join(process.cwd(), "x.md"));
  });
});

describe("npm run bench -- --quick", () => {
  const dir = dirs.make();
  const md = join(dir, "BENCHMARKS.md");
  const json = join(dir, "bench.json");
  let run: ReturnType<typeof spawnSync>;

  // A few tens of seconds on an idle machine; the timeout leaves room for a loaded CI box.
  it("completes", () => {
    run = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bench", "run.ts"), "--quick", "--out", md, "--json", json], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 480_000,
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(run.status, String(run.stderr)).toBe(0);
  }, 500_000);

  it("writes a JSON report with every area, well-formed targets and numeric figures", () => {
    const r = JSON.parse(readFileSync(json, "utf8")) as {
      quick: boolean;
      command: string;
      machine: { cpu: string; cores: number; node: string };
      sections: { id: string; tables: { columns: string[]; rows: string[][] }[]; targets: { status: string; target: string; measured: string }[]; figures: Record<string, unknown> }[];
    };
    expect(r.quick).toBe(true);
    expect(r.command).toContain("npm run bench");
    expect(r.machine.cores).toBeGreaterThan(0);
    expect(r.machine.node).toMatch(/^v\d+/);
    expect(r.sections.map((s) => s.id)).toEqual(AREAS);
    for (const s of r.sections) {
      for (const t of s.targets) {
        expect(STATUSES, `${s.id}: ${t.target}`).toContain(t.status);
        if (t.status === "met" || t.status === "missed") expect(t.measured, t.target).toMatch(/\d/);
      }
      for (const t of s.tables) for (const row of t.rows) expect(row.length, `${s.id}: ${t.columns.join("|")}`).toBe(t.columns.length);
      // null: a figure not measured in quick mode (NaN in JSON).
      for (const [k, v] of Object.entries(s.figures)) expect(v === null || typeof v === "number", k).toBe(true);
    }
    // The validators and transitions of every built-in spec were measured.
    const validators = r.sections.find((s) => s.id === "validators")!;
    expect(Object.keys(validators.figures).some((k) => k.startsWith("mcp-2025-11-25:tasks/get result:guard/sdk"))).toBe(true);
  });

  it("writes Markdown with the machine, the command, the targets and a section per area; every table row has its header's columns", () => {
    const text = readFileSync(md, "utf8");
    expect(text.startsWith("# Benchmarks\n")).toBe(true);
    expect(text).toContain("**Quick mode**");
    for (const h of ["## Machine and command", "## Targets", "## Validators", "## Transitions", "## The generator", "## Task store", "## End to end"]) {
      expect(text).toContain(`\n${h}\n`);
    }
    expect(text).toMatch(/\| CPU \| .+ \|/);
    expect(text).toMatch(/\| cores \| \d+ \|/);
    expect(text).toContain("npm run bench -- --quick");
    // Tables: each block of consecutive "|" lines has one column count.
    const cells = (line: string) => line.replace(/\\\|/g, "").split("|").length;
    let width = 0;
    for (const line of text.split("\n")) {
      if (!line.startsWith("|")) {
        width = 0;
        continue;
      }
      if (width === 0) width = cells(line);
      else expect(cells(line), line).toBe(width);
    }
  });
});
