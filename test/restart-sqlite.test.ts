/**
 * Crash semantics on the SQLite store, end to end: the demo server
 * (`--store sqlite:<file> --auth <token>`) with the generated client of each
 * built-in spec; a task completed, one failed, one cancelled and one still
 * running; `kill -9`; a restart on the same file. The ended tasks and their
 * results are there, their retention deadlines unchanged; the running one ended
 * in the declared restart state with a message; ids are not reused; a requestor
 * with another token sees none of them.
 *
 * Session-bound revisions are driven over stdio (one session, the same after a
 * restart); the per-request revision over HTTP, where the token is checked on
 * every request.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SqliteTaskStore } from "../runtime/store-sqlite.js";
import type { TaskRecord } from "../runtime/store.js";
import { RESTART_MESSAGE } from "../runtime/restart.js";
import * as seedClient from "../output-samples/sep-1686-draft/client.js";
import * as mcpClient from "../output-samples/mcp-2025-11-25/client.js";
import * as extClient from "../output-samples/ext-tasks-2026-07-28/client.js";
import { StatelessHttpClient } from "../output-samples/ext-tasks-2026-07-28/stateless-client.js";
import { ROOT, run } from "./helpers/cli.js";
import { eventually, httpChild, rejection } from "./seed-harness.js";

type ClientModule = typeof import("../output-samples/sep-1686-draft/client.js");
type Tasks = InstanceType<ClientModule["TaskClient"]>;

const demo = join(ROOT, "scripts", "demo-server.ts");
const dir = mkdtempSync(join(tmpdir(), "mtg-restart-"));
const children: ChildProcess[] = [];
const pids: number[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const any = z.record(z.string(), z.unknown());
const OPTIONS = JSON.stringify({ pollFrequency: 50, defaultKeepAlive: 3_600_000 });
const HOUR = 3_600_000;

const CLIENTS: Record<string, unknown> = { "sep-1686-draft": seedClient, "mcp-2025-11-25": mcpClient, "ext-tasks-2026-07-28": extClient };

async function clientModule(spec: string): Promise<ClientModule> {
  return CLIENTS[spec] as ClientModule;
}

/** A demo server over stdio and its generated client; `kill9` ends the process with SIGKILL. */
async function stdioDemo(spec: string, file: string, token: string) {
  const mod = await clientModule(spec);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", demo, spec, "--store", `sqlite:${file}`, "--auth", token],
    cwd: ROOT,
    env: { ...getDefaultEnvironment(), MCP_TASK_GEN_DEMO_OPTIONS: OPTIONS },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")));
  const client = new Client({ name: "restart-test", version: "0.0.0" }, { capabilities: {} });
  const tasks = new mod.TaskClient(client, { defaultPollFrequency: 50 });
  await client.connect(transport);
  const pid = transport.pid!;
  pids.push(pid);
  const closed = new Promise<void>((r) => (client.onclose = () => r()));
  return {
    tasks,
    stderr: () => err,
    async kill9() {
      process.kill(pid, "SIGKILL");
      await closed;
    },
    async stop() {
      await client.close();
      await closed;
      // The store's file lock goes with the process.
      await eventually(() => (processGone(pid) ? true : undefined), "the server process to exit");
    },
  };
}

function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Starts a task-augmented tool call; `outcome` settles when the task ends. */
async function begin(tasks: Tasks, name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<{ taskId: string; outcome: Promise<unknown> }> {
  if (tasks.plan.creation.ackMode === "notification") {
    const p = tasks.beginCallTool({ name, arguments: args }, signal ? { signal } : {});
    const outcome = p.result();
    outcome.catch(() => undefined);
    if (!(await p.created)) throw new Error(`${name} answered without a task`);
    return { taskId: p.taskId!, outcome };
  }
  const started = await tasks.start({ method: "tools/call", params: { name, arguments: args } }, any);
  if (!("task" in started)) throw new Error(`${name} answered without a task`);
  const taskId = String((started.task as unknown as Record<string, unknown>)[tasks.plan.idField]);
  const outcome = tasks.waitForTask(taskId, any);
  outcome.catch(() => undefined);
  return { taskId, outcome };
}

const statusOf = (task: unknown, tasks: Tasks) => (task as Record<string, unknown>)[tasks.plan.statusField] as string;

/** One task of each kind: completed, failed, cancelled, still running. */
async function fourTasks(tasks: Tasks) {
  const completed = await begin(tasks, "get_weather", {});
  await completed.outcome;
  const failed = await begin(tasks, "protocol_error_job", {});
  await rejection(failed.outcome);
  const ac = new AbortController();
  const cancelled = await begin(tasks, "slow_compute", { seconds: 600 }, ac.signal);
  await eventually(async () => (statusOf(await tasks.getTask(cancelled.taskId), tasks) === "working" ? true : undefined), "working");
  // Cancelled by the spec's cancel method where it has one, else by cancelling the request.
  if (tasks.plan.methods.cancel !== undefined) await tasks.cancelTask(cancelled.taskId);
  else ac.abort();
  await eventually(async () => (tasks.plan.isRole(statusOf(await tasks.getTask(cancelled.taskId), tasks), "cancelled") ? true : undefined), "cancelled");
  const running = await begin(tasks, "slow_compute", { seconds: 600 });
  await eventually(async () => (statusOf(await tasks.getTask(running.taskId), tasks) === tasks.plan.status.running ? true : undefined), "running");
  const ids = { completed: completed.taskId, failed: failed.taskId, cancelled: cancelled.taskId, running: running.taskId };
  const before: Record<string, Record<string, unknown>> = {};
  for (const [k, id] of Object.entries(ids)) before[k] = (await tasks.getTask(id)) as unknown as Record<string, unknown>;
  expect(before.failed![tasks.plan.statusField]).toBe(tasks.plan.status.onProtocolError);
  const result = tasks.plan.methods.result !== undefined ? await tasks.getTaskResult(ids.completed) : undefined;
  return { ids, before, result };
}

/** The records on the file (the server that held it must be gone). */
async function onDisk(file: string, ids: Record<string, string>): Promise<Record<string, TaskRecord>> {
  const store = await SqliteTaskStore.open(file);
  try {
    const out: Record<string, TaskRecord> = {};
    for (const [k, id] of Object.entries(ids)) {
      const found = await store.get(id);
      if (found?.state !== "live") throw new Error(`task ${k} (${id}) is not live on disk`);
      out[k] = found.record;
    }
    return out;
  } finally {
    await store.close();
  }
}

/** What every revision must show after the restart, read through its own client. */
async function checkAfterRestart(tasks: Tasks, state: Awaited<ReturnType<typeof fourTasks>>) {
  const { ids, before, result } = state;
  const plan = tasks.plan;
  for (const k of ["completed", "failed", "cancelled"] as const) {
    expect(await tasks.getTask(ids[k]), k).toEqual(before[k]);
  }
  if (result !== undefined) expect(await tasks.getTaskResult(ids.completed)).toEqual(result);
  const settled = (await tasks.getTask(ids.running)) as unknown as Record<string, unknown>;
  expect(settled[plan.statusField]).toBe(plan.status.onRestart);
  expect(plan.descriptor.machine.isTerminal(settled[plan.statusField] as never)).toBe(true);
  // The message reaches the requestor in the field the revision has for it (status message or error).
  expect(JSON.stringify(settled)).toContain(RESTART_MESSAGE);
  if (plan.methods.result !== undefined) {
    // Its result: where the result method answers what the request would have, the restart's error; else the not-ready error.
    const err = await rejection(tasks.getTaskResult(ids.running));
    if (plan.results.mode === "block-until-terminal") expect(err).toMatchObject({ code: -32603, message: expect.stringContaining(RESTART_MESSAGE) });
    else expect(err).toMatchObject({ code: -32602 });
  }
  if (plan.retention.field !== undefined) expect(settled[plan.retention.field]).toBe(before.running![plan.retention.field]);
  if (plan.task.createdAt) expect(settled.createdAt).toBe(before.running!.createdAt);
  // The server serves new tasks, under new ids.
  const fresh = await begin(tasks, "get_weather", {});
  await fresh.outcome;
  expect(Object.values(ids)).not.toContain(fresh.taskId);
  if (plan.methods.list !== undefined) {
    const listed: string[] = [];
    for await (const page of tasks.listTasks()) for (const t of page.tasks) listed.push(String((t as unknown as Record<string, unknown>)[plan.idField]));
    expect(listed).toEqual(expect.arrayContaining([...Object.values(ids), fresh.taskId]));
  }
}

/** Retention counts on: the ended tasks keep their absolute deadlines; the settled one gets the one its revision gives an ended task. */
function checkDeadlines(plan: Tasks["plan"], killed: Record<string, TaskRecord>, after: Record<string, TaskRecord>) {
  for (const k of ["completed", "failed", "cancelled"]) {
    expect(after[k]!.expiresAt, k).toBe(killed[k]!.expiresAt);
    expect(after[k]!.expiresAt, k).not.toBeNull();
  }
  const was = killed.running!;
  const now = after.running!;
  expect(plan.descriptor.machine.isTerminal(was.status as never)).toBe(false);
  expect(now.status).toBe(plan.status.onRestart);
  expect(now.statusMessage).toBe(RESTART_MESSAGE);
  expect(now.terminalAt).not.toBeNull();
  expect(now.terminalAt!).toBeGreaterThanOrEqual(was.updatedAt);
  expect(now.keepAlive).toBe(HOUR);
  if (plan.retention.countedFrom === "terminal") expect(now.expiresAt).toBe(now.terminalAt! + HOUR);
  else expect(now.expiresAt).toBe(was.createdAt + HOUR);
}

describe.each(["sep-1686-draft", "mcp-2025-11-25"])("%s over stdio, SQLite store: kill -9 and restart", (spec) => {
  it("keeps ended tasks and results, settles the running one, reuses no id, hides them from another token", async () => {
    const file = join(dir, `${spec}.db`);
    const first = await stdioDemo(spec, file, "token-a");
    const state = await fourTasks(first.tasks);
    await first.kill9();
    const killed = await onDisk(file, state.ids);

    const second = await stdioDemo(spec, file, "token-a");
    await checkAfterRestart(second.tasks, state);
    expect(second.stderr()).toContain('"msg":"tasks left unfinished by a stopped server ended","count":1');
    if (second.tasks.plan.creation.idFromRequestor) {
      // The requestor names its tasks: an id of a task from before the crash is still taken.
      const again = second.tasks.beginCallTool({ name: "get_weather", arguments: {} }, { taskId: state.ids.running });
      expect(await rejection(again.result())).toMatchObject({ code: -32602 });
    }
    await second.stop();
    checkDeadlines(second.tasks.plan, killed, await onDisk(file, state.ids));

    // Another requestor (another token: another auth context) sees none of them.
    const other = await stdioDemo(spec, file, "token-b");
    for (const id of Object.values(state.ids)) expect(await rejection(other.tasks.getTask(id))).toMatchObject({ code: -32602 });
    const page = await other.tasks.listTasksPage();
    expect(page.tasks).toEqual([]);
    expect(other.stderr()).not.toContain("tasks left unfinished by a stopped server ended");
    await other.stop();
  }, 120_000);
});

/** A demo server over HTTP; its URL once listening. */
function httpDemo(spec: string, file: string, token: string) {
  const child = spawn(process.execPath, ["--import", "tsx", demo, spec, "--http", "0", "--store", `sqlite:${file}`, "--auth", token], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: OPTIONS },
  });
  children.push(child);
  const served = httpChild(child, "demo server");
  return {
    child,
    served,
    async kill9() {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

describe("ext-tasks-2026-07-28 over HTTP, SQLite store: kill -9 and restart", () => {
  const spec = "ext-tasks-2026-07-28";
  async function tasksAt(url: string, token: string | undefined): Promise<Tasks> {
    const mod = await clientModule(spec);
    const conn = new StatelessHttpClient({
      url,
      clientInfo: { name: "restart-test", version: "0.0.0" },
      capabilities: {},
      ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
    });
    return new mod.TaskClient(conn as never, { defaultPollFrequency: 50 });
  }

  it("keeps ended tasks and results, settles the running one, reuses no id, refuses other tokens", async () => {
    const file = join(dir, `${spec}.db`);
    const first = httpDemo(spec, file, "token-a");
    const state = await fourTasks(await tasksAt(await first.served.url, "token-a"));
    // Inline results: the completed task carries its result.
    expect(state.before.completed!.result).toMatchObject({ content: [{ type: "text" }] });
    await first.kill9();
    const killed = await onDisk(file, state.ids);

    const second = httpDemo(spec, file, "token-a");
    const url = await second.served.url;
    const tasks = await tasksAt(url, "token-a");
    await checkAfterRestart(tasks, state);
    // Without the token, or with another, every request is refused.
    for (const token of [undefined, "token-b"]) {
      const refused = await rejection(tasksAt(url, token).then((t) => t.getTask(state.ids.completed)));
      expect(refused.message, String(token)).toMatch(/401|Unauthorized/);
    }
    await second.served.stop();
    checkDeadlines(tasks.plan, killed, await onDisk(file, state.ids));

    // Another requestor (the server now takes another token) sees none of them.
    const third = httpDemo(spec, file, "token-b");
    const other = await tasksAt(await third.served.url, "token-b");
    for (const id of Object.values(state.ids)) expect(await rejection(other.getTask(id))).toMatchObject({ code: -32602 });
    await third.served.stop();
  }, 120_000);
});

describe("mcp-2025-11-25 over HTTP, SQLite store: tasks bound to a session", () => {
  it("after kill -9 the new session does not see the old session's tasks; the running one is settled on disk all the same", async () => {
    const spec = "mcp-2025-11-25";
    const file = join(dir, `${spec}-http.db`);
    const mod = await clientModule(spec);
    const connect = async (url: string, token: string) => {
      const client = new Client({ name: "restart-test", version: "0.0.0" }, { capabilities: {} });
      const tasks = new mod.TaskClient(client, { defaultPollFrequency: 50 });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      return { client, tasks };
    };
    const first = httpDemo(spec, file, "token-a");
    const url1 = await first.served.url;
    const refused = await fetch(url1, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(refused.status).toBe(401);
    const a = await connect(url1, "token-a");
    const running = await begin(a.tasks, "slow_compute", { seconds: 600 });
    await eventually(async () => (statusOf(await a.tasks.getTask(running.taskId), a.tasks) === "working" ? true : undefined), "working");
    await first.kill9();
    await a.client.close().catch(() => undefined);

    const second = httpDemo(spec, file, "token-a");
    const b = await connect(await second.served.url, "token-a");
    expect(await rejection(b.tasks.getTask(running.taskId))).toMatchObject({ code: -32602 });
    await b.client.close();
    await second.served.stop();
    const disk = await onDisk(file, { running: running.taskId });
    expect(disk.running!.status).toBe("failed");
    expect(disk.running!.statusMessage).toBe(RESTART_MESSAGE);
  }, 120_000);
});

describe("demo --auth", () => {
  it("refuses a missing or malformed token as a usage error", async () => {
    for (const args of [["--auth"], ["--auth", "two words"], ["--auth="]]) {
      const r = await run(process.execPath, ["--import", "tsx", demo, "mcp-2025-11-25", ...args], { cwd: ROOT });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("--auth needs a bearer token (visible ASCII characters, no spaces)");
    }
  }, 60_000);
});
