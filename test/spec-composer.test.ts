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
import { runDraw, runDraws, type Draw, type Outcome } from "./helpers/compose-run.js";
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

describe("draws of every kind that once broke a promise, replayed as drawn", () => {
  // Draws of seed 20261204 over every kind (the matrix's compositions among them), written out: adding a kind
  // reorders that seed's draws, not these. 214: the capability error under an own code (-32000), declared
  // HTTP 400: the SDK answers a handler's error on 200 unless its code is -32021, the runtime sets the declared
  // status. 229: a tool's error result fails the task (outcomes.toolError names a failed state): its status
  // message says why, as it does for a protocol error. 315: input asked by side requests over Streamable HTTP,
  // two at once (the multi_input work): the second is sent after the acknowledgement closed the creation's
  // stream, and goes on the session's stream instead of failing the task. 430: a guard on the edge from the
  // input state to cancelled (no input pending): the cancel of a task waiting for input is the table's to
  // refuse, and the task then completes once answered.
  const replayed: Record<number, Draw> = {
    214: {
      base: "ext-tasks-2026-07-28",
      kinds: ["ownErrorCodes", "ownErrorCodes"],
      choices: [0.9999999999999994, 2.161198377829785e-183, 4.2203749985597975e-122, 1.355554506347897e-107, 6.4e-323, 1.863319066227885e-280, 1.036137777088685e-108, 3.3179877415170548e-257, 6e-323, 1.3174966753180656e-139, 9e-323, 7.4e-323],
    },
    229: {
      base: "test/fixtures/specs/relay-status.yaml",
      kinds: ["outcome", "renameMetaKeys"],
      choices: [9.605322434750568e-62, 0.9999999999999981, 0.999999999999998, 5e-324, 1.7490759911433905e-43, 2.8966200002265208e-33, 4.049970261284452e-211, 7.19689200591256e-240, 9.347461025468823e-129, 1.9680517227799084e-117, 5.578417244438173e-144, 4.940341683928359e-100],
    },
    315: {
      base: "mcp-2025-11-25",
      kinds: ["pollBounds", "inputVia", "extraRequiredField", "retentionBounds"],
      choices: [2.0990644520781622e-51, 4.460398787738383e-169, 8.374540762446626e-300, 5e-323, 3.887814993936859e-273, 1.5261162499831662e-116, 2.597083303010214e-200, 5e-324, 3.2321707519457427e-249, 0.9999999999999987, 1.0480853799380443e-302, 3.5119925990636138e-31],
    },
    430: {
      base: "mcp-2025-11-25",
      kinds: ["pageSize", "guardEdge"],
      choices: [2.0244156915872047e-204, 0.9999999999999978, 0.9999999999999984, 4.699676478024205e-115, 1.6292039522804074e-259, 3.976954283863313e-267, 0.9999999999999978, 5.4e-323, 5.565578093393973e-244, 7.715937407636717e-145, 1.3355010125013191e-195, 2.4366283081390524e-267],
    },
  };
  const ns = Object.keys(replayed).map(Number);
  let all: Promise<Outcome[]> | undefined;
  const outcomes = () => (all ??= runDraws(ns.map((n) => replayed[n]!), (i) => join(work, `every-${ns[i]}`), join(work, "tsc"), { runs: 8, seed: 20261204, batch: ns.length }));
  ns.forEach((n, i) => {
    it(`composed spec ${n} of seed 20261204 over every kind (${replayed[n]!.base}: ${replayed[n]!.kinds.join(", ")})`, async () => {
      const o = (await outcomes())[i]!;
      expect(o.kind, o.what).toBe("conform");
      if (o.kind === "conform") expect(o.report.verdict, `${o.what}\n${explain(o.report)}`).toBe("held");
    }, 480_000);
  });
});
