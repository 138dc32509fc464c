/**
 * Malformed requests reaching the runtime through the real SDK and the runtime's stdio transport
 * (over in-process streams): unknown methods named like Object.prototype members, a tools/call
 * without params, malformed answers to the update method of a per-request lifecycle.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { defineTool } from "../../runtime/server.js";
import { checkInputResponses, serveStatelessHttp, serveStatelessStdio } from "../../runtime/stateless-server.js";
import { makePlan } from "../../runtime/plan.js";
import { TaskStdioServerTransport } from "../../runtime/transports.js";
import { descriptorOf } from "./descriptors.js";
import { capabilityMeta, fakeExtra, runtimeOf, waitFor } from "./harness.js";

type Msg = Record<string, any>;

/** Writes JSON lines to `stdin` and reads the answer with a given id from `stdout`. */
function wire(stdin: PassThrough, stdout: PassThrough) {
  const got: Msg[] = [];
  const waiting = new Map<unknown, (m: Msg) => void>();
  let buf = "";
  stdout.setEncoding("utf8");
  stdout.on("data", (d: string) => {
    buf += d;
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
      const m = JSON.parse(buf.slice(0, nl)) as Msg;
      buf = buf.slice(nl + 1);
      const w = waiting.get(m.id);
      if (w) {
        waiting.delete(m.id);
        w(m);
      } else got.push(m);
    }
  });
  return (message: Msg): Promise<Msg> =>
    new Promise((resolve) => {
      waiting.set(message.id, resolve);
      stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
    });
}

const PROTOTYPE_NAMES = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "isPrototypeOf"];

describe("runtime on the SDK Server over the runtime's stdio transport", () => {
  for (const spec of ["sep-1686-draft", "mcp-2025-11-25"] as const) {
    it(`${spec}: methods named like Object.prototype members are unknown (-32601); tools/call without params and SDK-refused params are -32602`, async () => {
      const rt = await runtimeOf(spec);
      const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
      rt.install(server);
      rt.registerTools(server, [defineTool({ name: "greet", handler: async () => ({ content: [] }) })]);
      const stdin = new PassThrough();
      const stdout = new PassThrough();
      const call = wire(stdin, stdout);
      await server.connect(new TaskStdioServerTransport(stdin, stdout));
      expect(await call({ id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } } })).toHaveProperty("result");
      let id = 1;
      for (const method of PROTOTYPE_NAMES) {
        expect(await call({ id: id++, method, params: {} }), method).toMatchObject({ error: { code: -32601 } });
      }
      expect(await call({ id: id++, method: "tools/call" })).toMatchObject({ error: { code: -32602 } });
      // Params the SDK's own schema refuses (a handler registered on the SDK Server) are -32602 too, not -32603.
      expect(await call({ id: id++, method: "tools/list", params: { cursor: [1] } })).toMatchObject({ error: { code: -32602, message: expect.stringContaining("cursor") } });
      expect(await call({ id: id++, method: "ping" })).toEqual({ jsonrpc: "2.0", id: id - 1, result: {} });
      await server.close();
      await rt.close();
    });
  }
});

describe("per-request lifecycle: the update method's answers", () => {
  it("checkInputResponses: -32602 for responses that are no map of bare result objects; nothing for other methods", async () => {
    const plan = makePlan(await descriptorOf("ext-tasks-2026-07-28"));
    const update = plan.methods.update!;
    const field = plan.input.responsesField;
    const req = (responses: unknown) => ({ jsonrpc: "2.0", id: 4, method: update, params: { [plan.idField]: "t", [field]: responses } });
    for (const bad of [5, "x", [], null, { a: 5 }, { a: [] }, { a: { method: "elicitation/create" } }, { a: { result: {} } }]) {
      expect(checkInputResponses(plan, req(bad)), JSON.stringify(bad)).toMatchObject({ id: 4, code: -32602 });
    }
    expect(checkInputResponses(plan, { jsonrpc: "2.0", id: 4, method: update, params: { [plan.idField]: "t" } })).toMatchObject({ code: -32602 });
    expect(checkInputResponses(plan, req({}))).toBeUndefined();
    expect(checkInputResponses(plan, req({ a: { action: "accept", content: {} } }))).toBeUndefined();
    expect(checkInputResponses(plan, { jsonrpc: "2.0", id: 4, method: plan.methods.get, params: { [field]: 5 } })).toBeUndefined();
  });

  it("over stdio (serveStatelessStdio on the SDK's serveStdio): malformed answers are -32602, malformed lines get JSON-RPC errors", async () => {
    const rt = await runtimeOf("ext-tasks-2026-07-28");
    const plan = rt.plan;
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const call = wire(stdin, stdout);
    const served = await serveStatelessStdio(rt, { stdin, stdout });
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": plan.descriptor.spec.protocol.protocolVersion,
      "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
      ...(await capabilityMeta("ext-tasks-2026-07-28")),
    };
    const update = plan.methods.update!;
    const field = plan.input.responsesField;
    for (const [i, bad] of ([5, [], { a: 1 }, { a: { result: {} } }] as unknown[]).entries()) {
      expect(await call({ id: 10 + i, method: update, params: { [plan.idField]: "nope", [field]: bad, _meta: envelope } }), JSON.stringify(bad)).toMatchObject({
        error: { code: -32602, message: expect.stringContaining(field) },
      });
    }
    stdin.write("{not json\n");
    expect(await call({ id: 20, method: "server/discover", params: { _meta: envelope } })).toHaveProperty("result");
    await served.close();
    await rt.close();
  });
});

describe("requestor-chosen task ids are the requestor's own (sep-1686-draft)", () => {
  const key = "modelcontextprotocol.io/task";
  const related = "modelcontextprotocol.io/related-task";
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

  it("another requestor's duplicate id makes its own task; neither sees the other's; a requestor's own duplicate is refused", async () => {
    const rt = await runtimeOf("sep-1686-draft");
    const release = new Map<string, () => void>();
    rt.addTools([
      defineTool({
        name: "hold",
        handler: async (_args, ctx) => {
          await new Promise<void>((r) => release.set(ctx.taskId ?? "", r));
          return text(`done by ${ctx.taskId === undefined ? "?" : "task"}`);
        },
      }),
    ]);
    const a = () => fakeExtra({ sessionId: "A" });
    const b = () => fakeExtra({ sessionId: "B" });
    const extraA = a();
    const doneA = rt.callTool({ name: "hold", _meta: { [key]: { taskId: "same" } } }, extraA);
    await waitFor(() => (extraA.sent.length > 0 ? true : undefined));
    // B names the same id: B gets a task of its own, acknowledged with the id B chose.
    const extraB = b();
    const doneB = rt.callTool({ name: "hold", _meta: { [key]: { taskId: "same" } } }, extraB);
    await waitFor(() => (extraB.sent.length > 0 ? true : undefined));
    expect(extraB.sent[0]).toEqual({ method: "notifications/tasks/created", params: { _meta: { [related]: { taskId: "same" } } } });
    const getA = (await rt.handleTaskRequest("tasks/get", { taskId: "same" }, a())) as Record<string, unknown>;
    const getB = (await rt.handleTaskRequest("tasks/get", { taskId: "same" }, b())) as Record<string, unknown>;
    expect(getA).toMatchObject({ taskId: "same", status: "working" });
    expect(getB).toMatchObject({ taskId: "same", status: "working" });
    // Each requestor's own duplicate is still the declared duplicate error.
    await expect(rt.callTool({ name: "hold", _meta: { [key]: { taskId: "same" } } }, b())).rejects.toMatchObject({ errorName: "duplicateTaskId" });
    await expect(rt.callTool({ name: "hold", _meta: { [key]: { taskId: "same" } } }, a())).rejects.toMatchObject({ errorName: "duplicateTaskId" });
    // B's task ends; A's still works: they are two tasks.
    for (const [id, r] of release) if (id !== "same") r();
    expect(await doneB).toMatchObject({ _meta: { [related]: { taskId: "same" } } });
    expect(await rt.handleTaskRequest("tasks/get", { taskId: "same" }, a())).toMatchObject({ status: "working" });
    expect(await rt.handleTaskRequest("tasks/get", { taskId: "same" }, b())).toMatchObject({ taskId: "same", status: "completed" });
    const listB = (await rt.handleTaskRequest("tasks/list", {}, b())) as { tasks: Array<{ taskId: string }> };
    expect(listB.tasks.map((t) => t.taskId)).toEqual(["same"]);
    // A third requestor learns nothing: the id is unknown to it.
    await expect(rt.handleTaskRequest("tasks/get", { taskId: "same" }, fakeExtra({ sessionId: "C" }))).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("not found") });
    // The scope mark is never part of a requestor's id.
    await expect(rt.callTool({ name: "hold", _meta: { [key]: { taskId: "x\u001fy" } } }, a())).rejects.toMatchObject({ code: -32602 });
    release.get("same")?.();
    await doneA;
    await rt.close();
  });
});

describe("per-request lifecycle over HTTP (serveStatelessHttp)", () => {
  it("Mcp-Name mismatch is -32020 with HTTP 400; a task id that is no string is -32602; invalid requests keep their id", async () => {
    const rt = await runtimeOf("ext-tasks-2026-07-28");
    const plan = rt.plan;
    const served = await serveStatelessHttp(rt, { log: () => undefined });
    try {
      const version = plan.descriptor.spec.protocol.protocolVersion!;
      const envelope = { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" }, ...(await capabilityMeta("ext-tasks-2026-07-28")) };
      const get = plan.methods.get!;
      const post = async (body: unknown, headers: Record<string, string> = {}) => {
        const r = await fetch(served.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": version, "mcp-method": get, ...headers },
          body: JSON.stringify(body),
        });
        return { status: r.status, body: (await r.json()) as Msg };
      };
      const mismatch = await post({ jsonrpc: "2.0", id: 1, method: get, params: { [plan.idField]: "t1", _meta: envelope } }, { "mcp-name": "t2" });
      expect(mismatch).toMatchObject({ status: 400, body: { id: 1, error: { code: -32020 } } });
      const notString = await post({ jsonrpc: "2.0", id: 2, method: get, params: { [plan.idField]: 5, _meta: envelope } }, { "mcp-name": "5" });
      expect(notString).toMatchObject({ status: 200, body: { id: 2, error: { code: -32602 } } });
      const badMethod = await post({ jsonrpc: "2.0", id: "m", method: 7, params: { _meta: envelope } });
      expect(badMethod).toMatchObject({ status: 400, body: { id: "m", error: { code: -32600 } } });
    } finally {
      await served.close();
      await rt.close();
    }
  });
});
