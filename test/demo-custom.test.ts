/**
 * The demo answers a spec's custom operations with values of their declared result types (whatever
 * fields those require), carrying the task the params name and what the params share with the type,
 * so that any spec's custom operations can be tried on it. Over stdio, raw JSON-RPC.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StdioWire } from "../generator/conform/wire.js";
import { ROOT } from "./helpers/cli.js";

const SPEC = join(ROOT, "test/fixtures/demo/custom-results.yaml");
const wire = new StdioWire(`${join(ROOT, "node_modules/.bin/tsx")} ${join(ROOT, "scripts/demo-server.ts")} ${SPEC}`, undefined, 120_000);
afterAll(() => wire.close());

describe("the demo's custom operations", () => {
  it("answer with values of their declared result types", async () => {
    const hello = await wire.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }, { timeoutMs: 120_000 });
    expect(hello.result, JSON.stringify(hello)).toBeDefined();
    await wire.notify("notifications/initialized");

    const stats = await wire.request("jobs/stats", {}, { timeoutMs: 30_000 });
    expect(stats.error, JSON.stringify(stats.error)).toBeUndefined();
    expect(stats.result).toMatchObject({ total: expect.any(Number) });
    expect(String(stats.result!.label).length).toBeGreaterThanOrEqual(3);
    expect(stats.result!.kinds).toEqual(["build"]);

    const made = await wire.request("tools/call", { name: "slow_compute", arguments: { seconds: 0.2 }, job: {} }, { timeoutMs: 30_000 });
    const jobId = /"jobId":"([^"]+)"/.exec(JSON.stringify(made.result))?.[1];
    expect(jobId, JSON.stringify(made)).toBeDefined();
    const note = await wire.request("jobs/note", { jobId, text: "hello" }, { timeoutMs: 30_000 });
    expect(note.error, JSON.stringify(note.error)).toBeUndefined();
    expect(note.result).toMatchObject({ jobId, noted: false, job: { jobId } });
    expect(note.result!.labels).toHaveLength(2);

    // An unknown job: the spec's not-found error, not the internal error of an answer that does not fit.
    const unknown = await wire.request("jobs/note", { jobId: "no-such-job", text: "x" }, { timeoutMs: 30_000 });
    expect(unknown.error?.code).not.toBe(-32603);
  }, 180_000);
});
