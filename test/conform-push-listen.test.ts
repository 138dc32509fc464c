/**
 * Status notifications pushed on the per-request lifecycle (ext-tasks-2026-07-28 with `statusNotifications.delivery:
 * push`): each `subscriptions/listen` stream of the requestor carries the changes of all its tasks, and conform's
 * `status-push` checks that once per invocation. The demo holds it; the same demo behind a proxy that drops the
 * status notifications of listen streams breaks it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { conform } from "../generator/conform/run.js";
import { startProxy } from "../scripts/mutants/proxy.js";
import { demoUrl } from "./helpers/compose-run.js";
import { explain, irOf } from "./helpers/conform.js";
import { ROOT } from "./helpers/cli.js";

const work = mkdtempSync(join(tmpdir(), "conform-push-listen-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function pushedExt(): string {
  const text = readFileSync(join(ROOT, "spec/ext-tasks-2026-07-28.yaml"), "utf8");
  const pushed = text.replace(/^( {4}delivery: )subscription$/m, "$1push");
  expect(pushed).not.toBe(text);
  const file = join(work, "ext-push.yaml");
  writeFileSync(file, pushed);
  return file;
}

describe("status notifications pushed on the per-request lifecycle", () => {
  const spec = pushedExt();

  it("come on a listen stream: status-push exercised and held", async () => {
    const server = await demoUrl(spec);
    try {
      const r = await conform({ ir: irOf(spec), target: { url: server.url }, runs: 3, seed: 5 });
      expect(r.verdict, explain(r)).toBe("held");
      expect(r.rules["status-push"]).toBeGreaterThan(0);
      expect(r.exercised["once: status notifications on a listen stream"]).toBe(1);
    } finally {
      await server.stop();
    }
  }, 240_000);

  it("dropped from the listen streams: status-push is broken", async () => {
    const server = await demoUrl(spec);
    const proxy = await startProxy(server.url, {
      onMessage: (m) => (m.method === "notifications/tasks" ? null : m),
    });
    try {
      const r = await conform({ ir: irOf(spec), target: { url: proxy.url }, runs: 3, seed: 5 });
      expect(r.verdict, explain(r)).toBe("violation");
      expect(r.failure?.violation.rule).toBe("status-push");
    } finally {
      await proxy.close();
      await server.stop();
    }
  }, 240_000);
});
