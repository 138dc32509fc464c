/**
 * ext-tasks-2026-07-28 end to end: the generated client (output-samples/ext-tasks-2026-07-28/
 * client.ts on its stateless-client.ts connection) against the generated server (server.ts on
 * stateless-server.ts, @modelcontextprotocol/server 2.x) in the demo server, a child process,
 * over stateless Streamable HTTP. No assertion depends on timing: waits poll until a state is
 * reached (bounded only to fail instead of hanging).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { TaskClient, type TaskState } from "../output-samples/ext-tasks-2026-07-28/client.js";
import { TaskProtocolError } from "../output-samples/ext-tasks-2026-07-28/errors.js";
import { UNSUPPORTED_BEHAVIOURS } from "../output-samples/ext-tasks-2026-07-28/server.js";
import { StatelessHttpClient, type InputRequest } from "../output-samples/ext-tasks-2026-07-28/stateless-client.js";
import { eventually as until, httpChild } from "./seed-harness.js";

const root = join(import.meta.dirname, "..");
const EXT = "io.modelcontextprotocol/tasks";
const CAPS = "io.modelcontextprotocol/clientCapabilities";
// Suggested polls every 50 ms keep the waits short.
const OPTIONS = { pollFrequency: 50 };

let demo: ReturnType<typeof httpChild>;
let url: string;

beforeAll(async () => {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "demo-server.ts"), "ext-tasks-2026-07-28", "--http", "0"], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify(OPTIONS) },
  });
  demo = httpChild(child, "the ext-tasks demo server");
  url = await demo.url;
}, 60_000);

afterAll(() => demo?.stop());

async function rejection(p: Promise<unknown>): Promise<TaskProtocolError> {
  try {
    await p;
  } catch (e) {
    return e as TaskProtocolError;
  }
  throw new Error("expected a rejection");
}

const accept = (content: Record<string, unknown>) => ({ action: "accept", content });
const any = z.record(z.string(), z.unknown());

/** A connection declaring elicitation (answered by `answer`), and the task stubs over it. */
function connect(answer: (request: InputRequest, key: string) => Promise<unknown> = async () => accept({})) {
  const conn = new StatelessHttpClient({
    url,
    clientInfo: { name: "ext-tasks-e2e", version: "0.0.0" },
    capabilities: { elicitation: {} },
    onInputRequest: answer,
  });
  const tasks = new TaskClient(conn, { defaultPollFrequency: 50, onInputRequest: (request, key) => answer(request, key) });
  return { conn, tasks };
}

const fields = (t: TaskState) => t as unknown as Record<string, unknown>;

async function startTask(tasks: TaskClient, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const started = await tasks.start({ method: "tools/call", params: { name, arguments: args } }, any);
  if (!("task" in started)) throw new Error(`${name} answered without a task: ${JSON.stringify(started.result)}`);
  return fields(started.task);
}

const statusOf = (tasks: TaskClient, taskId: string, status: string) => async () => {
  const t = await tasks.getTask(taskId);
  return t.status === status ? fields(t) : undefined;
};

describe("ext-tasks-2026-07-28: generated client ↔ generated server over stateless HTTP", () => {
  it("implements every declared behaviour (nothing answers 'not supported')", () => {
    expect(UNSUPPORTED_BEHAVIOURS).toEqual([]);
  });

  it("server/discover advertises the extension under capabilities.extensions", async () => {
    const { conn } = connect();
    const d = await conn.discover();
    expect(d.supportedVersions).toEqual(["2026-07-28"]);
    expect(d.resultType).toBe("complete");
    expect((d.capabilities as Record<string, unknown>).extensions).toEqual({ [EXT]: {} });
    expect((d.capabilities as Record<string, unknown>).tasks).toBeUndefined();
  });

  it("a tool the server runs at once answers its result with resultType complete and no task", async () => {
    const { tasks } = connect();
    const started = await tasks.start({ method: "tools/call", params: { name: "greet", arguments: { name: "Ada" } } }, any);
    expect("result" in started).toBe(true);
    const result = (started as { result: Record<string, unknown> }).result;
    expect(result.resultType).toBe("complete");
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
    expect(result.taskId).toBeUndefined();
  });

  it("working → completed: a flat CreateTaskResult, then tasks/get inlines the result", async () => {
    const { tasks } = connect();
    const created = await startTask(tasks, "slow_compute", { seconds: 0.2, label: "e2e" });
    expect(created.resultType).toBe("task");
    expect(created.status).toBe("working");
    expect(Number.isInteger(created.ttlMs)).toBe(true);
    expect(created.pollIntervalMs).toBe(50);
    for (const k of ["task", "ttl", "pollInterval", "result", "error", "inputRequests"]) expect(created).not.toHaveProperty(k);
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const result = await tasks.waitForTask(created.taskId as string, any);
    expect(result.content).toEqual([{ type: "text", text: "Computed for 0.2 s" }]);
    const done = fields(await tasks.getTask(created.taskId as string));
    expect(done).toMatchObject({ taskId: created.taskId, status: "completed", resultType: "complete", result: { content: result.content } });
    expect(done).not.toHaveProperty("error");
  });

  it("a tool result with isError completes the task (result inlined, isError kept)", async () => {
    const { tasks } = connect();
    const created = await startTask(tasks, "failing_job", { seconds: 0.05 });
    const result = await tasks.waitForTask(created.taskId as string, any);
    expect(result.isError).toBe(true);
    expect(fields(await tasks.getTask(created.taskId as string))).toMatchObject({ status: "completed", result: { isError: true } });
  });

  it("failed: a protocol error fails the task with that error object inlined (and the client rejects with it)", async () => {
    const { tasks } = connect();
    const created = await startTask(tasks, "protocol_error_job", {});
    const err = await rejection(tasks.waitForTask(created.taskId as string, any));
    expect(err).toBeInstanceOf(TaskProtocolError);
    expect(err).toMatchObject({ code: -32603, message: "Tool execution failed: API rate limit exceeded" });
    const failed = fields(await tasks.getTask(created.taskId as string));
    expect(failed).toMatchObject({
      status: "failed",
      error: { code: -32603, message: "Tool execution failed: API rate limit exceeded" },
      statusMessage: "Tool execution failed: API rate limit exceeded",
    });
    expect(failed).not.toHaveProperty("result");
  });

  it("cancelled: tasks/cancel is an empty ack, the task ends cancelled, a second cancel gets the same ack", async () => {
    const { tasks } = connect();
    const created = await startTask(tasks, "slow_compute", { seconds: 600 });
    expect((await tasks.getTask(created.taskId as string)).status).toBe("working");
    const ack = await tasks.cancelTask(created.taskId as string);
    expect(ack).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const cancelled = await until(statusOf(tasks, created.taskId as string, "cancelled"), "cancelled");
    expect(cancelled).not.toHaveProperty("result");
    expect(await tasks.cancelTask(created.taskId as string)).toMatchObject({ resultType: "complete" });
    // The tool saw its AbortSignal fire.
    await until(async () => (demo.stderr().includes(`"msg":"slow_compute aborted","taskId":"${created.taskId}"`) ? true : undefined), "abort log");
  });

  it("aborting a wait cancels the task through tasks/cancel", async () => {
    const { tasks } = connect();
    const created = await startTask(tasks, "slow_compute", { seconds: 600 });
    const ac = new AbortController();
    const waiting = tasks.waitForTask(created.taskId as string, any, { signal: ac.signal });
    ac.abort();
    const err = await rejection(waiting);
    expect(err.name).toBe("TaskCancelledError");
    expect((await tasks.getTask(created.taskId as string)).status).toBe("cancelled");
  });

  it("input_required: inputRequests answered in two partial updates; the task stays input_required until both arrive", async () => {
    const { tasks } = connect();
    const created = await startTask(tasks, "multi_input", {});
    const waiting = await until(async () => {
      const t = fields(await tasks.getTask(created.taskId as string));
      return t.status === "input_required" && Object.keys((t.inputRequests as object) ?? {}).length === 2 ? t : undefined;
    }, "two input requests");
    const requests = waiting.inputRequests as Record<string, { method: string; params: { message: string } }>;
    const [first, second] = Object.keys(requests);
    expect(Object.values(requests).map((r) => r.method)).toEqual(["elicitation/create", "elicitation/create"]);
    expect(await tasks.updateTask(created.taskId as string, { [first!]: accept({ value: "Ada" }) })).toMatchObject({ resultType: "complete" });
    // Applied before the ack: the very next tasks/get sees only the other key.
    const partial = fields(await tasks.getTask(created.taskId as string));
    expect(partial.status).toBe("input_required");
    expect(Object.keys(partial.inputRequests as object)).toEqual([second]);
    // Unknown and already answered keys are ignored, whatever their values.
    await tasks.updateTask(created.taskId as string, { [first!]: accept({ value: "again" }), "no-such-key": { ignored: true } });
    expect(Object.keys(fields(await tasks.getTask(created.taskId as string)).inputRequests as object)).toEqual([second]);
    await tasks.updateTask(created.taskId as string, { [second!]: accept({ value: "teal" }) });
    const result = await tasks.waitForTask(created.taskId as string, any);
    const answers = new Set([(requests[first!]!.params.message), requests[second!]!.params.message]);
    expect(answers).toEqual(new Set(["Your name?", "Your colour?"]));
    expect(result.content).toEqual([{ type: "text", text: requests[first!]!.params.message === "Your name?" ? "name=Ada colour=teal" : "name=teal colour=Ada" }]);
  });

  it("callTool answers a task's input requests with onInputRequest (tasks/update) and resolves with the inlined result", async () => {
    const seen: string[] = [];
    const { tasks } = connect(async (request) => {
      seen.push(request.method);
      return accept({ confirm: true });
    });
    const statuses: string[] = [];
    const result = await tasks.callTool({ name: "confirm_delete", arguments: { filename: "a.txt" } }, { onTaskStatus: (t) => void statuses.push(t.status) });
    expect(result.content).toEqual([{ type: "text", text: "Deleted a.txt" }]);
    expect(seen).toEqual(["elicitation/create"]);
    expect(statuses).toContain("input_required");
    expect(statuses[statuses.length - 1]).toBe("completed");
  });

  it("input asked before the task exists travels as input_required rounds on the request, then the task is made", async () => {
    const { tasks } = connect(async (request) => {
      expect(request.method).toBe("elicitation/create");
      return accept({ name: "Alice" });
    });
    const statuses: string[] = [];
    const result = await tasks.callTool({ name: "test_tool_with_task", arguments: {} }, { onTaskStatus: (t) => void statuses.push(t.status) });
    expect(result.content).toEqual([{ type: "text", text: "Hello, Alice!" }]);
    expect(statuses.length).toBeGreaterThan(0);
  });

  it("header routing: Mcp-Name must repeat the task id (-32020, HTTP 400 on a mismatch)", async () => {
    const { conn, tasks } = connect();
    const created = await startTask(tasks, "slow_compute", { seconds: 600 });
    const meta = { [CAPS]: { extensions: { [EXT]: {} } } };
    const ok = await conn.send("tasks/get", { taskId: created.taskId, _meta: meta });
    expect(ok.taskId).toBe(created.taskId);
    const err = await rejection(conn.send("tasks/get", { taskId: created.taskId, _meta: meta }, { headers: { "mcp-name": "some-other-task" } }));
    expect(err).toMatchObject({ code: -32020, httpStatus: 400 });
    await tasks.cancelTask(created.taskId as string);
  });

  it("an unknown task id is -32602 'Failed to retrieve task: Task not found'", async () => {
    const { tasks } = connect();
    expect(await rejection(tasks.getTask("no-such-task"))).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found" });
    expect(await rejection(tasks.cancelTask("no-such-task"))).toMatchObject({ code: -32602 });
    expect(await rejection(tasks.updateTask("no-such-task", {}))).toMatchObject({ code: -32602 });
  });

  it("tasks/result and tasks/list do not exist: -32601 (HTTP 404)", async () => {
    const { conn } = connect();
    const meta = { [CAPS]: { extensions: { [EXT]: {} } } };
    expect(await rejection(conn.send("tasks/result", { taskId: "x", _meta: meta }))).toMatchObject({ code: -32601, httpStatus: 404 });
    expect(await rejection(conn.send("tasks/list", { _meta: meta }))).toMatchObject({ code: -32601, httpStatus: 404 });
  });

  it("without the per-request opt-in: a task-only tool and the task methods are -32021 naming the extension; others run at once", async () => {
    const { conn } = connect();
    const err = await rejection(conn.send("tools/call", { name: "failing_job", arguments: {} }));
    expect(err).toMatchObject({ code: -32021, httpStatus: 400, data: { requiredCapabilities: { extensions: { [EXT]: {} } } } });
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      expect(await rejection(conn.send(method, { taskId: "whatever", inputResponses: {} }))).toMatchObject({ code: -32021 });
    }
    const plain = await conn.send("tools/call", { name: "slow_compute", arguments: { seconds: 0 } });
    expect(plain.resultType).toBe("complete");
    expect(plain.taskId).toBeUndefined();
    expect(plain.content).toEqual([{ type: "text", text: "Computed for 0 s" }]);
  });

  it("subscriptions/listen with taskIds: acknowledged first, then notifications/tasks with the detailed task", async () => {
    const { tasks } = connect();
    const created = await startTask(tasks, "slow_compute", { seconds: 0.3 });
    const body = {
      jsonrpc: "2.0",
      id: 77,
      method: "subscriptions/listen",
      params: {
        notifications: { taskIds: [created.taskId, "not-mine"] },
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", [CAPS]: { extensions: { [EXT]: {} } } },
      },
    };
    const ac = new AbortController();
    const response = await fetch(url, {
      method: "POST",
      signal: ac.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify(body),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const messages: Array<Record<string, any>> = [];
    let buffer = "";
    while (!messages.some((m) => m.method === "notifications/tasks" && m.params.status === "completed")) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (let i = buffer.indexOf("\n\n"); i !== -1; i = buffer.indexOf("\n\n")) {
        const data = buffer.slice(0, i).split("\n").find((l) => l.startsWith("data:"));
        buffer = buffer.slice(i + 2);
        if (data) messages.push(JSON.parse(data.slice(5)));
      }
    }
    ac.abort();
    expect(messages[0]).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: [created.taskId] }, _meta: { "io.modelcontextprotocol/subscriptionId": 77 } },
    });
    const last = messages[messages.length - 1]!;
    expect(last.params).toMatchObject({ taskId: created.taskId, status: "completed", result: { content: [{ type: "text", text: "Computed for 0.3 s" }] } });
    expect(last.params._meta).toEqual({ "io.modelcontextprotocol/subscriptionId": 77 });
  });
});
