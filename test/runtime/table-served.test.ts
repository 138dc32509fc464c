/**
 * Specs that validate and that the runtime once broke, because it picked a task's next state by role (the
 * first state declared with it) instead of asking the transition table: each is generated from a change of
 * mcp-2025-11-25, and its generated server is driven over the real MCP SDK (an SDK Client and Server,
 * linked in memory).
 * - several states of one role, the first declared not reachable from the initial state;
 * - a guard on the edge into the cancelled state that does not hold (the cancel must be refused);
 * - a transition operation into an input_required-role state (the task must still end and answer);
 * - a transition operation into a failed-role state (its result method answers that outcome).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { compile } from "../../generator/pipeline.js";
import { ROOT } from "../helpers/cli.js";

type Doc = Record<string, any>;
const WORK = join(ROOT, ".tmp", "table-served");

/** Generates the spec `change` makes of `base` into .tmp/table-served/<name>; fails on any diagnostic error. */
async function generate(name: string, change: (d: Doc) => void, base = "spec/mcp-2025-11-25.yaml"): Promise<string> {
  const doc = parseYaml(readFileSync(join(ROOT, base), "utf8")) as Doc;
  change(doc);
  doc.spec = `table-${name}`;
  const r = await compile({ file: `${name}.yaml`, text: toYaml(doc, { lineWidth: 0 }) });
  expect(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([]);
  const out = join(WORK, name);
  rmSync(out, { recursive: true, force: true });
  for (const f of r.files!) {
    mkdirSync(dirname(join(out, f.path)), { recursive: true });
    writeFileSync(join(out, f.path), f.contents);
  }
  return out;
}

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

interface Served {
  client: Client;
  request(method: string, params: Record<string, unknown>): Promise<any>;
  status(taskId: string): Promise<string>;
  close(): Promise<void>;
}

/** The generated server of `out` on an SDK Server, with one tool that works `ms` while the task may run. */
async function serve(out: string, get = { method: "tasks/get", id: "taskId", status: "status" }, options: Record<string, unknown> = {}): Promise<Served> {
  const gen = (await import(join(out, "server.ts"))) as { TaskRuntime: new (o: Record<string, unknown>) => any; defineTool: (t: unknown) => unknown };
  const rt = new gen.TaskRuntime({ audit: false, log: () => undefined, pollFrequency: 20, ...options });
  const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
  rt.install(server);
  const slow = gen.defineTool({
    name: "slow",
    taskSupport: "optional",
    inputSchema: z.object({ ms: z.number() }),
    handler: async ({ ms }: { ms: number }, ctx: { whenRunning(): Promise<void>; signal: AbortSignal }) => {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        await ctx.whenRunning();
        await sleep(10, undefined, { signal: ctx.signal });
      }
      return text("done");
    },
  });
  rt.registerTools(server, [slow]);
  const client = new Client({ name: "c", version: "1" }, { capabilities: {} });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  await client.connect(ct);
  const request = (method: string, params: Record<string, unknown>) => client.request({ method, params } as never, z.any());
  return {
    client,
    request,
    status: async (taskId) => (await request(get.method, { [get.id]: taskId }))[get.status] as string,
    close: async () => {
      await client.close();
      await server.close();
      await rt.close();
    },
  };
}

/** `p`, or a failure naming `what` once `ms` passed. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(read: () => Promise<string>, want: string, ms = 5_000): Promise<string[]> {
  const seen: string[] = [];
  const end = Date.now() + ms;
  for (;;) {
    const s = await read();
    if (seen[seen.length - 1] !== s) seen.push(s);
    if (s === want || Date.now() > end) return seen;
    await sleep(15);
  }
}

let open: Served | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const taskCall = (ms: number) => ({ name: "slow", arguments: { ms }, task: { ttl: 60_000 } });

describe("the runtime serves what the transition table allows", () => {
  it("several states of one role, the first declared not reachable from the initial state: the task runs in the one that is, and completes", async () => {
    // jobs.yaml: pending (queued, initial) -> running. `warming`, declared first with the running role, is reached only from `running`.
    const out = await generate(
      "two-running",
      (d) => {
        const { pending, ...rest } = d.states;
        d.states = { pending, warming: { role: "running" }, ...rest };
        d.transitions = [
          ...d.transitions.map((t: Doc) => (t.from === "running" ? { ...t, to: [...t.to, "warming"] } : t)),
          { from: "warming", to: ["running", "done", "failed", "cancelled", "expired"] },
        ];
      },
      "test/fixtures/specs/jobs.yaml",
    );
    open = await serve(out, { method: "jobs/status", id: "jobId", status: "state" }, { operations: { "jobs/note": async () => ({}) } });
    const created = await open.request("tools/call", { name: "slow", arguments: { ms: 150 }, job: {} });
    const jobId = created.jobId as string;
    const seen = await until(() => open!.status(jobId), "done");
    expect(seen[seen.length - 1]).toBe("done");
    expect(seen).not.toContain("warming");
    expect(seen).toContain("running");
    expect(await open.request("jobs/result", { jobId })).toMatchObject(text("done"));
  });

  it("a guard on the edge into the cancelled state that does not hold: tasks/cancel answers an error, never a success, and the task goes on", async () => {
    const out = await generate("guarded-cancel", (d) => {
      d.guards.asked = { field: "pendingInputs", type: "integer", equals: 1, description: "Only a task waiting for one answer may be cancelled." };
      d.transitions = [
        { from: "working", to: ["input_required", "completed", "failed"] },
        { from: "working", to: "cancelled", guard: "asked" },
        ...d.transitions.filter((t: Doc) => t.from !== "working"),
      ];
    });
    open = await serve(out);
    const created = await open.request("tools/call", taskCall(300));
    const taskId = created.task.taskId as string;
    const refused = await open.request("tasks/cancel", { taskId }).then(
      (ok: unknown) => ({ ok }),
      (e: { code: number; message: string }) => ({ code: e.code, message: e.message }),
    );
    expect(refused).toMatchObject({ code: -32602, message: expect.stringMatching(/Cannot cancel task.*'working'.*'cancelled'.*guard asked does not hold/) });
    expect(await open.status(taskId)).toBe("working");
    expect(await within(open.request("tasks/result", { taskId }), 5_000, "tasks/result")).toMatchObject(text("done"));
    expect(await open.status(taskId)).toBe("completed");
  });

  it("a transition operation into an input_required-role state: the task still ends and tasks/result answers", async () => {
    const out = await generate("hold-for-input", (d) => {
      d.methods["tasks/hold"] = { kind: "request", operation: "transition", to: "input_required", from: "client", params: "GetTaskRequestParams", result: "GetTaskResult", errors: ["taskNotFound"], name: "HoldTask" };
    });
    open = await serve(out);
    const created = await open.request("tools/call", taskCall(200));
    const taskId = created.task.taskId as string;
    expect(await open.request("tasks/hold", { taskId })).toMatchObject({ taskId, status: "input_required" });
    expect(await within(open.request("tasks/result", { taskId }), 8_000, "tasks/result")).toMatchObject(text("done"));
    expect(await open.status(taskId)).toBe("completed");
  });

  it("a transition operation into a failed-role state: tasks/result answers that outcome (the tool's failure), not a bare internal error", async () => {
    const out = await generate("fail-op", (d) => {
      d.methods["tasks/fail"] = { kind: "request", operation: "transition", to: "failed", from: "client", params: "GetTaskRequestParams", result: "GetTaskResult", errors: ["taskNotFound"], name: "FailTask" };
    });
    open = await serve(out);
    const created = await open.request("tools/call", taskCall(5_000));
    const taskId = created.task.taskId as string;
    expect(await open.request("tasks/fail", { taskId })).toMatchObject({ taskId, status: "failed", statusMessage: "The task was moved to 'failed' by tasks/fail" });
    const answer = await within(
      open.request("tasks/result", { taskId }).catch((e: { code: number; message: string }) => ({ error: { code: e.code, message: e.message } })),
      5_000,
      "tasks/result",
    );
    expect(answer).toMatchObject({ isError: true, content: [{ type: "text", text: "The task was moved to 'failed' by tasks/fail" }] });
    // It stays failed: the work it stopped writes nothing.
    await sleep(100);
    expect(await open.status(taskId)).toBe("failed");
  });
});
