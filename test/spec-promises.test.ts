/**
 * What a spec of one's own promises beyond MCP's defaults, kept on the wire by its generated server
 * (test/fixtures/specs/batches.yaml, served over the real MCP SDK in memory):
 * - the list method's paging fields as the spec names them (`after` read, `next` answered);
 * - errors whose declared `data` has required fields get it, filled from what the runtime knows;
 * - retention and poll interval held within the bounds the task type declares for them;
 * - a request that failed with a JSON-RPC error is replayed by the result method (replaysErrors);
 * - every placeholder of a declared message filled (the task's state, under the spec's own name).
 */
import { afterEach, describe, expect, it } from "vitest";
import { generateSpec, serveSpec, until, type Served } from "./helpers/serve-spec.js";

const SPEC = "test/fixtures/specs/batches.yaml";

let open: Served | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function serve(options: Record<string, unknown> = {}): Promise<Served> {
  open = await serveSpec(await generateSpec("spec-promises", "batches", SPEC), options);
  return open;
}

/** Starts a batch of the `slow` tool; its acknowledgement (the batch's fields). */
const start = (s: Served, ms: number, batch: Record<string, unknown> = {}) => s.request("tools/call", { name: "slow", arguments: { ms }, batch });
const stateOf = async (s: Served, batchId: string) => (await s.request("batches/status", { batchId })).state as string;

describe("a spec's own promises on the wire", () => {
  it("paging: the list answers the next page under the declared `next`, and reads the declared `after`", async () => {
    const s = await serve();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await start(s, 5_000)).batchId as string);
    const first = await s.request("batches/list", {});
    expect(first.tasks.map((t: { batchId: string }) => t.batchId)).toEqual(ids.slice(0, 2));
    expect(first).not.toHaveProperty("nextCursor");
    expect(typeof first.next).toBe("string");
    const second = await s.request("batches/list", { after: first.next });
    expect(second.tasks.map((t: { batchId: string }) => t.batchId)).toEqual(ids.slice(2));
    expect(second).not.toHaveProperty("next");
    expect(await s.refusal("batches/list", { after: "forged" })).toEqual({ code: -32602, message: "Invalid cursor" });
  });

  it("error data: not found, not ready and already ended carry `data` filled to its declared type", async () => {
    const s = await serve();
    expect(await s.refusal("batches/status", { batchId: "no-such-batch" })).toEqual({ code: -32602, message: "No such batch", data: { batchId: "no-such-batch" } });
    const { batchId } = await start(s, 200);
    await until(() => stateOf(s, batchId), "running");
    expect(await s.refusal("batches/result", { batchId })).toEqual({
      code: -32002,
      message: "The batch is running: no result yet",
      data: { batchId, state: "running" },
    });
    expect(await until(() => stateOf(s, batchId), "done")).toContain("done");
    expect(await s.refusal("batches/cancel", { batchId })).toEqual({ code: -32602, message: "The batch already ended (done)", data: { batchId, state: "done" } });
  });

  it("retention: asking under the declared minimum grants the minimum (no instant expiry), above the maximum the maximum", async () => {
    const s = await serve();
    for (const asked of [0, 500]) {
      const ack = await start(s, 2_000, { ttl: asked });
      expect(ack.ttl).toBe(1_000);
      await new Promise((r) => setTimeout(r, 100));
      expect(await stateOf(s, ack.batchId)).toBe("running");
    }
    expect((await start(s, 100, { ttl: 500_000 })).ttl).toBe(120_000);
    // The spec's default (60 000) is within the field's bounds: granted as it is.
    expect((await start(s, 100)).ttl).toBe(60_000);
  });

  it("poll interval: the spec's default as it is (validate refuses one outside the field's bounds); a configured one under the minimum as the minimum, above the maximum as the maximum", async () => {
    const s = await serve();
    expect((await start(s, 100)).pollMs).toBe(300);
    await open!.close();
    const low = await serve({ pollFrequency: 50 });
    expect((await start(low, 100)).pollMs).toBe(200);
    await open!.close();
    const t = await serve({ pollFrequency: 60_000 });
    expect((await start(t, 100)).pollMs).toBe(5_000);
  });

  it("replaysErrors: a batch whose request failed with a JSON-RPC error answers the result method with that error", async () => {
    const s = await serve();
    const { batchId } = await s.request("tools/call", { name: "broken", arguments: {}, batch: {} });
    expect(await until(() => stateOf(s, batchId), "failed")).toContain("failed");
    expect(await s.refusal("batches/result", { batchId })).toEqual({
      code: -32603,
      message: "Upstream refused the batch",
      data: { upstream: "ledger", retryable: false },
    });
  });

  it("placeholders: the deletion refusal names the batch's state", async () => {
    const s = await serve();
    const { batchId } = await start(s, 5_000);
    await until(() => stateOf(s, batchId), "running");
    expect(await s.refusal("batches/delete", { batchId })).toEqual({ code: -32602, message: "A running batch cannot be deleted" });
  });
});
