/**
 * Specs composed the way users write them (test/helpers/spec-composer.ts: several states of one role,
 * guards on every kind of edge, transition operations into every role, renamed fields, extra required
 * fields, renamed meta keys and capabilities, own error codes, with the semantic mutations of
 * spec-mutants.ts) keep every promise: each is refused by validate with located errors, or its generated
 * code type-checks and its demo passes its own conform. A fixed-seed sample here; scripts/compose-specs.ts
 * is the long run (COMPOSE_RUNS draws more here).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { draws } from "../scripts/compose-specs-draws.js";
import { runDraw, runDraws, type Outcome } from "./helpers/compose-run.js";
import { COMPOSE_SEMANTIC_KINDS } from "./helpers/spec-composer.js";
import { explain } from "./helpers/conform.js";

const SEED = Number(process.env.FC_SEED ?? 20261204);
const work = mkdtempSync(join(tmpdir(), "spec-composer-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("composed specs pass their own conform, or are refused with located errors", () => {
  // One batch: the generated code of the whole sample is type-checked in one program.
  const sample = draws(Number(process.env.COMPOSE_RUNS ?? 4), SEED);
  let all: Promise<Outcome[]> | undefined;
  const outcomes = () => (all ??= runDraws(sample, (i) => join(work, String(i)), join(work, "tsc"), { runs: 6, seed: SEED, batch: sample.length }));
  sample.forEach((d, i) => {
    it(`composed spec ${i} (${d.base}: ${d.kinds.join(", ")})`, async () => {
      const o = (await outcomes())[i]!;
      if (o.kind === "refused") expect(o.located, `${o.what}: ${o.codes.join(", ")}`).toBe(true);
      else if (o.kind === "tsc") expect.fail(`${o.what}\n${o.errors.join("\n")}`);
      else if (o.kind === "demo") expect.fail(`${o.what}\n${o.why}`);
      else expect(o.report.verdict, `${o.what}\n${explain(o.report)}`).toBe("held");
    }, 480_000);
  });
});

describe("draws that once broke a promise, replayed at their own seed", () => {
  // 28, 52: per-request specs whose meta keys are renamed: the client's capabilities travel under the spec's own
  // entry (the runtime reads them there) besides the core's. 352: a transition operation into a cancelled-role
  // state ends a task whose work would have completed: the move, not the outcome, says how it ends.
  const fixed = draws(420, 20261204, COMPOSE_SEMANTIC_KINDS);
  const replayed = [28, 52, 352];
  let all: Promise<Outcome[]> | undefined;
  const outcomes = () => (all ??= runDraws(replayed.map((n) => fixed[n]!), (i) => join(work, `fixed-${replayed[i]}`), join(work, "tsc"), { runs: 8, seed: 20261204, batch: replayed.length }));
  replayed.forEach((n, i) => {
    const d = fixed[n]!;
    it(`composed spec ${n} of seed 20261204 (${d.base}: ${d.kinds.join(", ")})`, async () => {
      const o = (await outcomes())[i]!;
      expect(o.kind, o.what).toBe("conform");
      if (o.kind === "conform") expect(o.report.verdict, `${o.what}\n${explain(o.report)}`).toBe("held");
    }, 480_000);
  });
  // 419: a state of the cancelled role added beside 'cancelled' while the per-state unions (DetailedTask, ...) have
  // no variant for it: refused where each union is, not served with results that break their own type.
  it("composed spec 419 of seed 20261204 is refused at each union that leaves its new state out", async () => {
    const o = await runDraw(fixed[419]!, join(work, "fixed-419"), join(work, "tsc"), 8, 20261204);
    expect(o.kind, o.what).toBe("refused");
    if (o.kind === "refused") {
      expect(o.codes).toEqual(["MTG062"]);
      expect(o.located).toBe(true);
    }
  });
});
