/**
 * Raw JSON-RPC over stdio against the demo server started exactly as the
 * acceptance contract says (`npm run --silent demo -- sep-1686-draft`), with no
 * generated client: the seed's own example messages (spec/sep-1686-draft.yaml
 * `examples`) go in as JSON lines, the answers' wire shapes are checked exactly,
 * and malformed input gets JSON-RPC errors while the server keeps serving.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, root } from "./seed-harness.js";

type Msg = Record<string, any>;
const examples = new Map<string, Msg>(
  (parse(readFileSync(join(root, "spec", "sep-1686-draft.yaml"), "utf8")).examples as { name: string; message: Msg }[]).map((e) => [
    e.name,
    e.message,
  ]),
);
const ex = (name: string): Msg => structuredClone(examples.get(name)!);
const REL = "modelcontextprotocol.io/related-task";
const TASK = "modelcontextprotocol.io/task";
const related = (taskId: string) => ({ [REL]: { taskId } });
const EXAMPLE_ID = "786512e2-9e0d-44bd-8f29-789f320fe840";

describe("sep-1686-draft raw JSON-RPC over stdio (npm run --silent demo)", () => {
  let child: ChildProcessWithoutNullStreams;
  const lines: string[] = [];
  const received: Msg[] = [];
  let stderr = "";
  let nextId = 1000;

  const send = (m: unknown) => child.stdin.write((typeof m === "string" ? m : JSON.stringify(m)) + "\n");
  const response = (id: string | number | null, after = 0) =>
    eventually(() => received.slice(after).find((m) => m.id === id && ("result" in m || "error" in m)), `response ${String(id)}`);
  const call = async (method: string, params: unknown, id: string | number = nextId++) => {
    const at = received.length;
    send({ jsonrpc: "2.0", id, method, params });
    return response(id, at);
  };
  const taskMeta = (taskId: string, keepAlive?: number) => ({ [TASK]: keepAlive === undefined ? { taskId } : { taskId, keepAlive } });

  beforeAll(async () => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    child = spawn(npm, ["run", "--silent", "demo", "--", "sep-1686-draft"], {
      cwd: root,
      env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify({ maxKeepAlive: 30_000, pollFrequency: 5000, rememberExpiredMs: 60_000 }) },
    });
    let buf = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      buf += d;
      for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(line);
        try {
          received.push(JSON.parse(line) as Msg);
        } catch {
          received.push({ notJson: line });
        }
      }
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const init = await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }, "init");
    expect(init.result.serverInfo.name).toBe("mcp-task-gen-demo");
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }, 60_000);

  afterAll(() => {
    child?.stdin.end();
    child?.kill();
  });

  it("3.1/3.4/3.2/3.3/7.1: the example task: created notification, tasks/get, tasks/result, duplicate id — exact wire shapes", async () => {
    const at = received.length;
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_weather", arguments: { location: "New York" }, _meta: { [TASK]: ex("create-task-meta") } },
    });
    const answer = await response(1, at);
    const created = received.slice(at).findIndex((m) => m.method === "notifications/tasks/created");
    expect(created).toBeGreaterThanOrEqual(0);
    // 3.4: exactly the seed's notification, and before the original answer.
    expect(received[at + created]).toEqual(ex("task-created-notification"));
    expect(at + created).toBeLessThan(received.indexOf(answer));
    // The original request is still answered with the real result.
    expect(answer.result.content).toEqual(ex("get-task-result-response").result.content);

    // 3.2: the seed's tasks/get request; the receiver overrode keepAlive (30000, as in the example) and suggests polls.
    send(ex("get-task-request"));
    const got = await response(3);
    const expected = ex("get-task-response");
    expected.result.status = "completed";
    expect(got).toEqual(expected);

    // 3.3: the seed's tasks/result request and response, exactly.
    send(ex("get-task-result-request"));
    expect(await response(4)).toEqual(ex("get-task-result-response"));

    // 7.1: reusing the id.
    const dupAt = received.length;
    send({ jsonrpc: "2.0", id: 73, method: "tools/call", params: { name: "greet", arguments: { name: "x" }, _meta: { [TASK]: ex("create-task-meta") } } });
    expect(await response(73, dupAt)).toEqual(ex("error-duplicate-task-id"));
  });

  it("3.5: tasks/list — the example's made-up cursor is refused (-32602), a real page has the example's shape", async () => {
    send(ex("list-tasks-request"));
    expect(await response(5)).toEqual({ jsonrpc: "2.0", id: 5, error: { code: -32602, message: "Invalid cursor" } });
    const page = await call("tasks/list", {});
    const shape = ex("list-tasks-response").result.tasks[0] as Msg;
    const mine = (page.result.tasks as Msg[]).find((t) => t.taskId === EXAMPLE_ID)!;
    expect(mine).toEqual({ ...shape, status: "completed", keepAlive: 30_000 });
    expect(page.result.nextCursor).toBeUndefined();
  });

  it("3.6/7.1: tasks/delete with the example's messages, then tasks/get says not found (example error)", async () => {
    send(ex("delete-task-request"));
    expect(await response(6)).toEqual(ex("delete-task-response"));
    send({ jsonrpc: "2.0", id: 70, method: "tasks/get", params: { taskId: EXAMPLE_ID } });
    expect(await response(70)).toEqual(ex("error-task-not-found"));
  });

  it("7.1: tasks/result of a working task; cancellation by notifications/cancelled; late cancellation ignored", async () => {
    const at = received.length;
    send({ jsonrpc: "2.0", id: 90, method: "tools/call", params: { name: "slow_compute", arguments: { seconds: 30 }, _meta: taskMeta(EXAMPLE_ID) } });
    await eventually(async () => ((await call("tasks/get", { taskId: EXAMPLE_ID })).result?.status === "working" ? true : undefined), "working");
    send({ jsonrpc: "2.0", id: 72, method: "tasks/result", params: { taskId: EXAMPLE_ID } });
    expect(await response(72)).toEqual(ex("error-result-not-ready"));
    send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 90, reason: "no longer needed" } });
    await eventually(async () => ((await call("tasks/get", { taskId: EXAMPLE_ID })).result?.status === "cancelled" ? true : undefined), "cancelled");
    // A cancelled request gets no answer.
    expect(received.slice(at).some((m) => m.id === 90)).toBe(false);
    // 4.8: cancelling a finished task's request is ignored.
    await call("tools/call", { name: "greet", arguments: { name: "late" }, _meta: taskMeta("t-late") }, 200);
    send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 200 } });
    expect((await call("tasks/get", { taskId: "t-late" })).result.status).toBe("completed");
  });

  it("7.1: an expired task (keepAlive elapsed) answers the example's error", async () => {
    await call("tools/call", { name: "greet", arguments: { name: "short" }, _meta: taskMeta("t-expire", 50) });
    expect((await call("tasks/get", { taskId: "t-expire" })).result?.keepAlive ?? 50).toBe(50);
    await eventually(async () => ((await call("tasks/get", { taskId: "t-expire" })).error ? true : undefined), "expiry");
    send({ jsonrpc: "2.0", id: 71, method: "tasks/get", params: { taskId: "t-expire" } });
    expect(await response(71)).toEqual(ex("error-task-expired"));
  });

  it("7.2: a task whose request failed reports failed with the error message (example shape)", async () => {
    // The example id is still held by the cancelled task of the previous test: delete it first.
    expect((await call("tasks/delete", { taskId: EXAMPLE_ID })).result).toEqual({ _meta: related(EXAMPLE_ID) });
    const failed = await call("tools/call", { name: "protocol_error_job", arguments: {}, _meta: taskMeta(EXAMPLE_ID) });
    expect(failed.error).toEqual({ code: -32603, message: "Tool execution failed: API rate limit exceeded" });
    const at = received.length;
    send({ jsonrpc: "2.0", id: 4, method: "tasks/get", params: { taskId: EXAMPLE_ID } });
    const expected = ex("failed-task");
    expected.result.pollFrequency = 5000;
    expected.result._meta = related(EXAMPLE_ID);
    expect(await response(4, at)).toEqual(expected);
  });

  it("malformed input gets JSON-RPC errors and the server keeps serving", async () => {
    let at = received.length;
    send("garbage{");
    expect(await response(null, at)).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: invalid JSON" } });
    at = received.length;
    send('{"jsonrpc":"2.0","id":300,"method":42}');
    expect(await response(300, at)).toMatchObject({ jsonrpc: "2.0", id: 300, error: { code: -32600 } });
    at = received.length;
    send("[1,2]");
    expect(await response(null, at)).toMatchObject({ id: null, error: { code: -32600 } });
    expect((await call("tasks/get", {})).error).toMatchObject({ code: -32602, message: expect.stringContaining("taskId") });
    expect((await call("tasks/get", { taskId: 12 })).error).toMatchObject({ code: -32602 });
    expect((await call("tasks/result", { taskId: { x: 1 } })).error).toMatchObject({ code: -32602 });
    expect((await call("tasks/list", { cursor: false })).error).toMatchObject({ code: -32602 });
    expect((await call("tasks/delete", [])).error).toBeDefined();
    expect((await call("tools/call", { arguments: {} })).error).toMatchObject({ code: -32602 });
    expect((await call("tools/call", { name: "slow_compute", arguments: { seconds: "soon" } })).error).toMatchObject({ code: -32602 });
    expect((await call("tools/call", { name: "greet", arguments: { name: "m" }, _meta: { [TASK]: "t" } })).error).toEqual({
      code: -32602,
      message: "Invalid task metadata: expected an object",
    });
    expect((await call("tasks/unknown", {})).error).toMatchObject({ code: -32601 });
    const ok = await call("tools/call", { name: "greet", arguments: { name: "still serving" } });
    expect(ok.result.content).toEqual([{ type: "text", text: "Hello, still serving!" }]);
  });

  it("stdout carries nothing but JSON-RPC", () => {
    expect(lines.length).toBeGreaterThan(10);
    for (const m of received) expect(m.jsonrpc).toBe("2.0");
    expect(stderr).toContain('"audit"');
  });
});
