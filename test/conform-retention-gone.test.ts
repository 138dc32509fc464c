/**
 * A task whose short retention ran out may be forgotten by the server: the requests conform makes of it afterwards
 * are rightly answered with the not-found or the declared expired error. test/fixtures/specs/relay-status.yaml with
 * a retention of 1 s from creation, which the receiver decides; a proxy holds each stop request 2.5 s, so that the
 * relay it names is past its retention when the server gets it: every rule holds, and such stops are counted.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { conform } from "../generator/conform/run.js";
import { startProxy } from "../scripts/mutants/proxy.js";
import { demoUrl } from "./helpers/compose-run.js";
import { explain, irOf } from "./helpers/conform.js";
import { ROOT } from "./helpers/cli.js";

const work = mkdtempSync(join(tmpdir(), "conform-retention-gone-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function shortRetention(): string {
  const text = readFileSync(join(ROOT, "test/fixtures/specs/relay-status.yaml"), "utf8");
  const short = text.replace("    default: 600000\n    max: 3600000\n", "    default: 1000\n    max: 3600000\n");
  expect(short).not.toBe(text);
  const file = join(work, "relay-short.yaml");
  writeFileSync(file, short);
  return file;
}

describe("a task past its short retention", () => {
  it("answered not found or expired by the cancel method: not a violation", async () => {
    const spec = shortRetention();
    const server = await demoUrl(spec);
    const proxy = await startProxy(server.url, {
      onRequest: async (m) => {
        if (m.method === "relays/stop") await sleep(2500);
        return m;
      },
    });
    try {
      const r = await conform({ ir: irOf(spec), target: { url: proxy.url }, runs: 4, seed: 836 });
      expect(r.verdict, explain(r)).toBe("held");
      expect(r.exercised["cancel of a task past its retention"]).toBeGreaterThan(0);
    } finally {
      await proxy.close();
      await server.stop();
    }
  }, 300_000);
});
