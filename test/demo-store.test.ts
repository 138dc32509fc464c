/**
 * The demo server's --store option (a contract, like the rest of the demo's):
 * `memory` (default), `sqlite:<file>`, `postgres:<url>` (its multi-process
 * behaviour is postgres-multi-instance.test.ts's); anything else is a usage
 * error. With SQLite a completed task, its result included, is still there
 * after the server is killed with SIGKILL and started again on the same file
 * (ext-tasks-2026-07-28: tasks bound to the auth context, which a restart keeps).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { TaskClient } from "../output-samples/ext-tasks-2026-07-28/client.js";
import { StatelessHttpClient } from "../output-samples/ext-tasks-2026-07-28/stateless-client.js";
import { ROOT, run } from "./helpers/cli.js";
import { httpChild } from "./seed-harness.js";

const demo = join(ROOT, "scripts", "demo-server.ts");
const dir = mkdtempSync(join(tmpdir(), "mtg-demo-store-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const any = z.record(z.string(), z.unknown());

function startDemo(spec: string, store: string) {
  const child = spawn(process.execPath, ["--import", "tsx", demo, spec, "--http", "0", "--store", store], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify({ pollFrequency: 50 }) },
  });
  children.push(child);
  return { child, served: httpChild(child, "demo server") };
}

function tasksAt(url: string) {
  const conn = new StatelessHttpClient({ url, clientInfo: { name: "demo-store-test", version: "0.0.0" }, capabilities: {} });
  return new TaskClient(conn, { defaultPollFrequency: 50 });
}

describe("demo server --store", () => {
  it("refuses unknown stores, and a postgres: store without a URL, as usage errors", async () => {
    for (const [arg, message] of [
      ["postgres:", "--store postgres: needs a connection URL"],
      ["postgres:tasks", "--store postgres: needs a connection URL"],
      ["redis:x", "--store takes memory, sqlite:<file> or postgres:<url>, got redis:x"],
      ["sqlite:", "--store sqlite: needs a file"],
    ] as const) {
      const r = await run(process.execPath, ["--import", "tsx", demo, "sep-1686-draft", "--store", arg], { cwd: ROOT });
      expect(r.code, arg).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain("usage: npm run --silent demo -- <spec-name> [--http <port>] [--store memory|sqlite:<file>|postgres:<url>]");
    }
  });

  it("answers a spec that cannot be served with what is wrong, and no usage line (the command line was right)", async () => {
    const unknown = await run(process.execPath, ["--import", "tsx", demo, "no-such-spec"], { cwd: ROOT });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("demo-server: no generated server in output-samples/no-such-spec/: a built-in spec (");
    expect(unknown.stderr).not.toContain("usage:");
    const dir = mkdtempSync(join(tmpdir(), "mtg-demo-bad-spec-"));
    try {
      writeFileSync(join(dir, "bad.yaml"), "spec: bad\n");
      const bad = await run(process.execPath, ["--import", "tsx", demo, join(dir, "bad.yaml")], { cwd: ROOT });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/bad\.yaml:\d+:\d+ error MTG\d+/);
      expect(bad.stderr).toContain("did not generate (exit 1): fix what is reported above");
      expect(bad.stderr).not.toContain("usage:");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("sqlite:<file>: a completed task and its result outlive a kill -9 and a restart", async () => {
    const file = join(dir, "tasks.db");
    const first = startDemo("ext-tasks-2026-07-28", `sqlite:${file}`);
    const tasks = tasksAt(await first.served.url);
    const started = await tasks.start({ method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 0.05 } } }, any);
    if (!("task" in started)) throw new Error("slow_compute answered without a task");
    const taskId = (started.task as unknown as { taskId: string }).taskId;
    const result = await tasks.waitForTask(taskId, any);
    expect(result.content).toEqual([{ type: "text", text: "Computed for 0.05 s" }]);
    const before = (await tasks.getTask(taskId)) as unknown as Record<string, unknown>;
    expect(first.served.stderr()).toMatch(/"msg":"task store","store":"sqlite".*"journalMode":"wal","synchronous":"full"/);

    const killed = new Promise((r) => first.child.once("exit", r));
    first.child.kill("SIGKILL");
    await killed;

    const second = startDemo("ext-tasks-2026-07-28", `sqlite:${file}`);
    const again = tasksAt(await second.served.url);
    const after = (await again.getTask(taskId)) as unknown as Record<string, unknown>;
    expect(after).toMatchObject({ taskId, status: "completed", result: { content: result.content } });
    expect(after.createdAt).toBe(before.createdAt);
    expect(after.ttlMs).toBe(before.ttlMs);
    await second.served.stop();
  }, 90_000);
});
