/**
 * The oracle, measured: a fixed sample of the mutant catalogue (scripts/mutants/catalogue.ts), one bug at a
 * time simulated by a wire-level proxy in front of the real demo server over Streamable HTTP, each killed by
 * a rule it names (`npm run mutants` runs the whole catalogue). Each demo first passes unmutated through the
 * same proxy: the positive side of every rule family the sample exercises.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATALOGUE, type Mutant } from "../scripts/mutants/catalogue.js";
import { classify, conformThrough, groups, runMutant, startDemo, type Demo } from "../scripts/mutants/run.js";

/** One or two per new rule family, the quick ones. */
const SAMPLE = [
  "mcp-2025-11-25/result-of-failed-as-success",
  "mcp-2025-11-25/result-of-protocol-error-as-success",
  "mcp-2025-11-25/terminal-reopens",
  "mcp-2025-11-25/status-notification-contradicts",
  "mcp-2025-11-25/list-other-sessions",
  "mcp-2025-11-25/get-other-session",
  "mcp-2025-11-25/lastUpdatedAt-before-createdAt",
  "mcp-2025-11-25/progress-goes-back",
  "mcp-2025-11-25/cancel-served-unadvertised",
  "mcp-2025-11-25/result-before-end",
  "mcp-2025-11-25/list-page-loses-last",
  "sep-1686-draft/duplicate-id-accepted",
  "sep-1686-draft/delete-running",
  "jobs/custom-operation-error",
  "lean/finished-without-result",
  "relay/result-type-missing",
  "relay/unsupported-method-wrong-error",
  "mcp-2025-11-25/progress-stray-token",
  "mcp-2025-11-25/progress-without-related-task",
  "mcp-2025-11-25/elicitation-without-related-task",
  "mcp-2025-11-25/replayed-error-differs",
  "mcp-2025-11-25/end-never-announced",
  "ext-tasks-2026-07-28/mcp-name-not-checked",
  "ext-tasks-2026-07-28/task-without-opt-in",
  "ext-tasks-2026-07-28/task-marker-missing",
  "ext-tasks-2026-07-28/missing-capability-without-data",
  "ext-tasks-2026-07-28/discover-without-extension",
  "ext-tasks-2026-07-28/subscription-not-acknowledged",
  "ext-tasks-2026-07-28/subscription-acknowledges-any-id",
];

const SEED = 20261204;
const sample: Mutant[] = SAMPLE.map((name) => {
  const m = CATALOGUE.find((x) => x.name === name);
  if (m === undefined) throw new Error(`no mutant ${name}`);
  return m;
});

describe("the mutant catalogue", () => {
  it("holds at least 60 named mutants over every built-in and fixture spec, each naming the rules that catch it", () => {
    expect(CATALOGUE.length).toBeGreaterThanOrEqual(60);
    expect(new Set(CATALOGUE.map((m) => m.name)).size).toBe(CATALOGUE.length);
    expect(new Set(CATALOGUE.map((m) => m.spec))).toEqual(new Set(["mcp-2025-11-25", "sep-1686-draft", "ext-tasks-2026-07-28", "jobs", "lean", "relay"]));
    for (const m of CATALOGUE) expect(m.rules.length, m.name).toBeGreaterThan(0);
  });
});

for (const g of groups(sample)) {
  describe(`mutants of ${g.spec}${g.demo ? ` (demo ${JSON.stringify(g.demo)})` : ""}`, () => {
    let demo: Demo;
    beforeAll(async () => {
      demo = await startDemo(g.spec, g.demo);
    }, 120_000);
    afterAll(async () => {
      await demo?.stop();
    });

    it("the unmutated demo, through the same proxy, holds every rule", async () => {
      const r = await conformThrough(g.spec, demo, {}, { runs: 20, seed: SEED });
      expect(classify({ rules: [] }, r).verdict, JSON.stringify(r.failure?.violation ?? r.checks.filter((c) => !c.ok))).toBe("survived");
    }, 180_000);

    for (const m of g.mutants) {
      it(`${m.name} is killed by ${m.rules.join(" or ")}`, { timeout: 180_000 }, async () => {
        const r = await runMutant(m, demo, { runs: 20, seed: SEED });
        expect(r.verdict, `${r.caughtBy ?? ""}: ${r.message ?? ""}`).toBe("killed");
        expect(m.rules).toContain(r.caughtBy);
      });
    }
  });
}
