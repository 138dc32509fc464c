/**
 * Guards over the task's own fields (test/fixtures/specs/reviews.yaml): a boolean field true from the
 * start lets the task leave its first state, an integer the work sets lets it complete (unset, the task
 * ends failed once its work is over, its status message naming the guard); and the
 * generated project, whose transition context reads those fields, compiles under strict tsc.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { generateSpec, serveSpec, until, type Served } from "./helpers/serve-spec.js";
import { checker } from "./helpers/typecheck.js";

const SPEC = "test/fixtures/specs/reviews.yaml";

let open: Served | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const stateOf = async (s: Served, reviewId: string) => (await s.request("reviews/status", { reviewId })).state as string;

describe("guards on the task's own fields", () => {
  it("a boolean field that holds lets the task start, an integer the work sets lets it complete", async () => {
    const s = (open = await serveSpec(await generateSpec("spec-guards", "reviews", SPEC)));
    const ack = await s.request("tools/call", { name: "slow", arguments: { ms: 150, set: { score: 3 } }, review: {} });
    expect(ack.cleared).toBe(true);
    const seen = await until(() => stateOf(s, ack.reviewId), "done");
    expect(seen).toContain("reviewing");
    expect(seen[seen.length - 1]).toBe("done");
    expect(await s.request("reviews/result", { reviewId: ack.reviewId })).toMatchObject({ content: [{ type: "text", text: "done" }] });
  });

  it("a guard that does not hold keeps its edge closed: unscored, the review does not complete, and ends failed saying why", async () => {
    const s = (open = await serveSpec(await generateSpec("spec-guards", "reviews-unscored", SPEC)));
    const ack = await s.request("tools/call", { name: "slow", arguments: { ms: 50 }, review: {} });
    const seen = await until(() => stateOf(s, ack.reviewId), "failed", 2_000);
    expect(seen).toContain("reviewing");
    expect(seen).not.toContain("done");
    expect(seen[seen.length - 1]).toBe("failed");
    const status = await s.request("reviews/status", { reviewId: ack.reviewId });
    expect(status.message).toBe("The work ended, but the task cannot move from 'reviewing' to 'done' (guard isScored does not hold)");
    // Its result is an internal error, as for work that failed unexpectedly, saying the same; it is not left waiting.
    const refusal = await s.refusal("reviews/result", { reviewId: ack.reviewId });
    expect(refusal).toMatchObject({ code: -32603, message: status.message });
  });

  it("the generated project compiles under strict tsc", async () => {
    const out = await generateSpec("spec-guards", "reviews-tsc", SPEC);
    writeFileSync(
      join(out, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: [] },
        include: ["**/*.ts"],
      }),
    );
    expect(checker(out)().map((e) => `${e.file}:${e.line} ${e.code} ${e.message}`)).toEqual([]);
  }, 120_000);
});
