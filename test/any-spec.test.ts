/**
 * Specs of our own, not the built-in revisions: each validates, generates and
 * type-checks (tsc --strict), and the demo server generated from it works end to
 * end over stdio, through the generated TaskClient and through raw JSON-RPC.
 *
 * test/fixtures/specs/jobs.yaml: its own id and status fields (jobId, state), a
 * renamed get method (jobs/status), pause/resume transitions, an `expired` state
 * reached when the retention runs out, a `progress` field the work sets, a
 * validated `priority` on the creation request, task-augmented resources/read.
 * test/fixtures/specs/lean.yaml: no retention, no polling interval, no input;
 * results inline in the get answer.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = join(import.meta.dirname, "..");
const work = join(root, ".tmp", "any-spec");
const specs = { jobs: join(root, "test/fixtures/specs/jobs.yaml"), lean: join(root, "test/fixtures/specs/lean.yaml") };

function generate(name: keyof typeof specs): void {
  const run = spawnSync(process.execPath, [join(root, "bin/mcp-task-gen.js"), "generate", "--spec", specs[name], "--out", join(work, name), "--quiet"], {
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
}

async function demo(name: keyof typeof specs, options: Record<string, unknown> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", join(root, "scripts/demo-server.ts"), specs[name]],
    env: { ...getDefaultEnvironment(), MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify(options) },
    cwd: root,
    stderr: "pipe",
  });
  const client = new Client({ name: "any-spec", version: "0.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

const Any = z.record(z.string(), z.unknown());
const raw = (client: Client, method: string, params: Record<string, unknown>) => client.request({ method, params } as never, Any);
async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: number; message: string };
  }
  throw new Error("expected an error");
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await sleep(40);
  }
}

beforeAll(() => {
  mkdirSync(work, { recursive: true });
  copyFileSync(join(root, "output-samples/tsconfig.json"), join(work, "tsconfig.json"));
  generate("jobs");
  generate("lean");
}, 120_000);

describe("specs of our own generate code that type-checks", () => {
  it("the handler contract has a typed member per custom operation", () => {
    const contract = readFileSync(join(work, "jobs", "handlers.ts"), "utf8");
    expect(contract).toContain('"jobs/note": { params: T.JobNote; result: T.Empty };');
    expect(contract).toMatch(/jobsNote\(\s*params: CustomOperations\["jobs\/note"\]\["params"\],\s*ctx: OperationContext,?\s*\): Promise<CustomOperations\["jobs\/note"\]\["result"\]>;/);
  });

  // That their output compiles under tsc --strict and the other settings a project may have: test/compile-matrix.test.ts.
});

describe("served or refused", () => {
  it("a runtime whose custom operation has no handler refuses to serve, rather than advertise what it cannot answer", async () => {
    const { TaskRuntime } = (await import(join(work, "jobs", "server.ts"))) as typeof import("../.tmp/any-spec/jobs/server.js");
    const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
    const server = new Server({ name: "x", version: "0" }, { capabilities: {} });
    expect(() => new TaskRuntime({ audit: false }).install(server)).toThrow(/custom operation\(s\) jobs\/note/);
    const served = new TaskRuntime({ audit: false, operations: { "jobs/note": async () => ({}) } });
    expect(() => served.install(server)).not.toThrow();
    await served.close();
  });
});

describe("jobs.yaml end to end (stdio)", () => {
  let client: Client;
  beforeAll(async () => {
    client = await demo("jobs");
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it("a job made by tools/call is read by the renamed get method under its own id and status fields, with the progress the work set", async () => {
    const ack = await raw(client, "tools/call", { name: "slow_compute", arguments: { seconds: 0.6 }, job: { priority: "high" } });
    expect(typeof ack.jobId).toBe("string");
    expect(ack).not.toHaveProperty("taskId");
    expect(["pending", "running"]).toContain(ack.state);
    expect(ack.progress).toBe(0);
    const seen = new Set<number>();
    const done = await until(
      () => raw(client, "jobs/status", { jobId: ack.jobId }),
      (j) => {
        if (typeof j.progress === "number") seen.add(j.progress);
        return j.state === "done";
      },
    );
    expect(done.state).toBe("done");
    expect(done.progress).toBe(100);
    expect([...seen].some((p) => p > 0 && p < 100)).toBe(true);
    const result = await raw(client, "jobs/result", { jobId: ack.jobId });
    expect(result.content).toEqual([{ type: "text", text: "Computed for 0.6 s" }]);
  });

  it("the creation request is checked against its declared type: a bad priority is -32602 and makes no job", async () => {
    const err = await rpcError(raw(client, "tools/call", { name: "slow_compute", arguments: { seconds: 0 }, job: { priority: "bogus" } }));
    expect(err.code).toBe(-32602);
    expect(err.message).toMatch(/priority/);
  });

  it("pause holds the work (progress stops, no result), resume lets it finish; an illegal transition is -32602", async () => {
    const ack = await raw(client, "tools/call", { name: "slow_compute", arguments: { seconds: 1 }, job: {} });
    const id = ack.jobId as string;
    await until(() => raw(client, "jobs/status", { jobId: id }), (j) => j.state === "running" && (j.progress as number) > 0);
    const paused = await raw(client, "jobs/pause", { jobId: id });
    expect(paused).toMatchObject({ jobId: id, state: "paused" });
    await sleep(200);
    const held = await raw(client, "jobs/status", { jobId: id });
    await sleep(1300);
    const still = await raw(client, "jobs/status", { jobId: id });
    expect(still.state).toBe("paused");
    // At most the step that was under way when the pause came may finish.
    expect((still.progress as number) - (held.progress as number)).toBeLessThanOrEqual(10);
    // The not-ready message names the job's state by the spec's own field ({state}).
    const notReady = await rpcError(raw(client, "jobs/result", { jobId: id }));
    expect(notReady.code).toBe(-32002);
    expect(notReady.message).toMatch(/The job has not finished \(state paused\)$/);
    expect((await rpcError(raw(client, "jobs/pause", { jobId: id }))).code).toBe(-32602);
    const resumed = await raw(client, "jobs/resume", { jobId: id });
    expect(resumed.state).toBe("running");
    const done = await until(() => raw(client, "jobs/status", { jobId: id }), (j) => j.state === "done");
    expect(done).toMatchObject({ state: "done", progress: 100 });
  });

  it("a job whose retention runs out before it ends moves to the declared expired state, with a message", async () => {
    const ack = await raw(client, "tools/call", { name: "slow_compute", arguments: { seconds: 30 }, job: { ttl: 300 } });
    const expired = await until(() => raw(client, "jobs/status", { jobId: ack.jobId }), (j) => j.state === "expired");
    expect(expired.state).toBe("expired");
    expect(expired.message).toMatch(/retention/);
    // Ended: it cannot be cancelled any more.
    expect((await rpcError(raw(client, "jobs/cancel", { jobId: ack.jobId }))).code).toBe(-32602);
    // It has no result and never will: a declared error says so, never -32603.
    const result = await rpcError(raw(client, "jobs/result", { jobId: ack.jobId }));
    expect(result.code).toBe(-32002);
    expect(result.message).toMatch(/\(state expired\)$/);
  });

  it("an expired job stays readable for the server's expiredReadableMs, then is gone", async () => {
    const short = await demo("jobs", { expiredReadableMs: 500 });
    try {
      const ack = await raw(short, "tools/call", { name: "slow_compute", arguments: { seconds: 30 }, job: { ttl: 200 } });
      await until(() => raw(short, "jobs/status", { jobId: ack.jobId }), (j) => j.state === "expired");
      const status = () => raw(short, "jobs/status", { jobId: ack.jobId }).then((j) => ({ state: j.state }), (e: { code: number }) => ({ code: e.code }));
      expect(await status()).toEqual({ state: "expired" });
      expect(await until(status, (r) => !("state" in r))).toEqual({ code: -32602 });
    } finally {
      await short.close();
    }
  });

  it("resources/read runs as a job when asked, and its result is fetched with the result method", async () => {
    const ack = await raw(client, "resources/read", { uri: "demo://report", job: {} });
    expect(typeof ack.jobId).toBe("string");
    await until(() => raw(client, "jobs/status", { jobId: ack.jobId }), (j) => j.state === "done");
    const result = await raw(client, "jobs/result", { jobId: ack.jobId });
    expect(Array.isArray(result.contents)).toBe(true);
    // Without a job request it is answered directly.
    const direct = await raw(client, "resources/read", { uri: "demo://report" });
    expect(Array.isArray(direct.contents)).toBe(true);
  });

  it("a custom operation is answered by the server's code, its params checked against the spec first", async () => {
    const ack = await raw(client, "tools/call", { name: "slow_compute", arguments: { seconds: 0 }, job: {} });
    const answer = await raw(client, "jobs/note", { jobId: ack.jobId, text: "hello" });
    expect(answer).toMatchObject({ operation: "jobs/note", params: { jobId: ack.jobId, text: "hello" }, task: { jobId: ack.jobId } });
    expect((await rpcError(raw(client, "jobs/note", { jobId: ack.jobId }))).code).toBe(-32602);
    expect((await rpcError(raw(client, "jobs/note", { jobId: "not-mine", text: "x" }))).code).toBe(-32602);
  });

  it("unknown job ids and the built-in method names are refused", async () => {
    // The spec's own not-found error (behaviour.notFoundError), with its message.
    expect(await rpcError(raw(client, "jobs/status", { jobId: "nope" }))).toMatchObject({ code: -32602, message: expect.stringContaining("No such job") });
    expect((await rpcError(raw(client, "tasks/get", { taskId: "nope" }))).code).toBe(-32601);
    expect((await rpcError(raw(client, "jobs/status", { taskId: "nope" }))).code).toBe(-32602);
  });

  it("the generated TaskClient waits on a job through the renamed methods and fields", async () => {
    const { TaskClient } = (await import(join(work, "jobs", "client.ts"))) as typeof import("../.tmp/any-spec/jobs/client.js");
    const tasks = new TaskClient(client, { defaultPollFrequency: 30 });
    const states: string[] = [];
    const progress: number[] = [];
    const result = await tasks.callTool({ name: "slow_compute", arguments: { seconds: 0.5 } }, {
      taskRequest: { priority: "low" },
      onTaskStatus: (job) => {
        states.push(job.state);
        progress.push(job.progress);
      },
    });
    expect(result.content).toEqual([{ type: "text", text: "Computed for 0.5 s" }]);
    expect(states.at(-1)).toBe("done");
    expect(progress.at(-1)).toBe(100);
    expect(progress.some((p) => p > 0 && p < 100)).toBe(true);
    // resources/read through a job, the result fetched by the renamed methods.
    const read = await tasks.readResource({ uri: "demo://report" });
    expect(Array.isArray(read.contents)).toBe(true);
    const ack = await raw(client, "tools/call", { name: "slow_compute", arguments: { seconds: 5 }, job: {} });
    const paused = await tasks.transitionTask("jobs/pause", ack.jobId as string);
    expect(paused.state).toBe("paused");
    await tasks.cancelTask(ack.jobId as string);
    expect((await tasks.getTask(ack.jobId as string)).state).toBe("cancelled");
  });
});

describe("lean.yaml end to end (stdio): no retention, no polling, no input", () => {
  let client: Client;
  beforeAll(async () => {
    client = await demo("lean");
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it("a run carries no retention or poll interval, and its result comes inline once finished", async () => {
    const ack = await raw(client, "tools/call", { name: "slow_compute", arguments: { seconds: 0.1 }, run: {} });
    expect(Object.keys(ack).sort()).toEqual(["runId", "status"]);
    const done = await until(() => raw(client, "runs/get", { runId: ack.runId }), (r) => r.status === "finished");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "Computed for 0.1 s" }] });
  });

  it("the generated TaskClient reads the inline result through the renamed get method", async () => {
    const { TaskClient } = (await import(join(work, "lean", "client.ts"))) as typeof import("../.tmp/any-spec/lean/client.js");
    const tasks = new TaskClient(client, { defaultPollFrequency: 20 });
    const seen: string[] = [];
    const result = await tasks.callTool({ name: "slow_compute", arguments: { seconds: 0.1 } }, { onTaskStatus: (run) => void seen.push(run.status) });
    expect(result.content).toEqual([{ type: "text", text: "Computed for 0.1 s" }]);
    expect(seen.at(-1)).toBe("finished");
  });

  it("notifications/cancelled naming the request that made a run cancels the run, though the acknowledgement answered that request", async () => {
    // The ids of the requests as they go out: the notification names one.
    const sent: Array<{ id: string | number; method: string }> = [];
    const transport = client.transport!;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if ("id" in message && "method" in message) sent.push({ id: message.id, method: message.method });
      return send(message, options);
    };
    try {
      const other = await raw(client, "tools/call", { name: "slow_compute", arguments: { seconds: 30 }, run: {} });
      const otherId = sent.at(-1)!.id;
      const ack = await raw(client, "tools/call", { name: "slow_compute", arguments: { seconds: 30 }, run: {} });
      const requestId = sent.at(-1)!.id;
      expect(ack.status).toBe("active");
      await client.notification({ method: "notifications/cancelled", params: { requestId, reason: "no longer needed" } });
      const ended = await until(() => raw(client, "runs/get", { runId: ack.runId }), (r) => r.status !== "active", 5_000);
      expect(ended.status).toBe("stopped");
      expect(ended).not.toHaveProperty("result");
      // Only the run of the request named: the other goes on.
      expect((await raw(client, "runs/get", { runId: other.runId })).status).toBe("active");
      // Named again once the run ended: ignored, as the spec says of a terminal task.
      await client.notification({ method: "notifications/cancelled", params: { requestId, reason: "again" } });
      await sleep(100);
      expect((await raw(client, "runs/get", { runId: ack.runId })).status).toBe("stopped");
      await client.notification({ method: "notifications/cancelled", params: { requestId: otherId } });
      await until(() => raw(client, "runs/get", { runId: other.runId }), (r) => r.status !== "active", 5_000);
    } finally {
      transport.send = send;
    }
  });

  it("a tool that asks for input fails its run instead of waiting forever", async () => {
    const ack = await raw(client, "tools/call", { name: "confirm_delete", arguments: { path: "/tmp/x" }, run: {} });
    const ended = await until(() => raw(client, "runs/get", { runId: ack.runId }), (r) => r.status !== "active");
    expect(ended.status).toBe("broken");
  });
});
