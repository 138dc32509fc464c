/**
 * runtime/stateless-server.ts without generating: the runtime built from the
 * ext-tasks-2026-07-28 descriptor, served with serveStatelessHttp on
 * 127.0.0.1 (and createStatelessHandler as a plain fetch handler), checked
 * with plain `fetch`. No assertion depends on timing: waits poll until a state
 * is reached (bounded only to fail instead of hanging).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
} from "@modelcontextprotocol/server";
import { makePlan } from "../../runtime/plan.js";
import { TaskRuntime } from "../../runtime/server.js";
import {
  checkProtocolVersion,
  createStatelessHandler,
  protocolVersionOf,
  serveStatelessHttp,
  serverCapabilities,
  signState,
  taskRequestMethods,
  verifyState,
  type StatelessHttpServer,
} from "../../runtime/stateless-server.js";
import type { TaskSpecDescriptor } from "../../runtime/descriptor.js";
import { descriptorOf } from "./descriptors.js";
import { eventually as until } from "../seed-harness.js";

type Json = Record<string, unknown>;

let descriptor: TaskSpecDescriptor;
let plan: ReturnType<typeof makePlan>;
let runtime: TaskRuntime;
let served: StatelessHttpServer;
let version: string;
let extCapability: Json;
let nextId = 1;

/** Lets a task's work finish when the test says so. */
const gates = new Map<string, () => void>();

function tools() {
  const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
  const elicit = (message: string) => ({
    message,
    requestedSchema: { type: "object", properties: { value: { type: "string" } }, required: ["value"] },
  });
  return [
    {
      name: "greet",
      taskSupport: "forbidden" as const,
      inputSchema: z.object({ name: z.string() }),
      handler: async ({ name }: { name: string }) => text(`Hello, ${name}!`),
    },
    {
      name: "gated_job",
      taskSupport: "required" as const,
      inputSchema: z.object({ gate: z.string() }),
      handler: async ({ gate }: { gate: string }, ctx: { signal: AbortSignal }) => {
        await new Promise<void>((resolve, reject) => {
          gates.set(gate, resolve);
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
        });
        return text(`done ${gate}`);
      },
    },
    {
      name: "confirm",
      taskSupport: "required" as const,
      inputSchema: z.object({}),
      // Asks inside the task: the question is inlined in the get method's answer, answered by the update method.
      handler: async (_args: Json, ctx: { elicit(p: unknown): Promise<{ action: string; content?: Json }> }) => {
        const answer = await ctx.elicit(elicit("Sure?"));
        return text(`answer ${String(answer.content?.value)}`);
      },
    },
    {
      name: "ask_twice",
      taskSupport: "required" as const,
      inputSchema: z.object({}).passthrough(),
      // Two questions, one after the other, on the request itself (before any task).
      prepare: async (args: Json, ctx: { elicit(p: unknown): Promise<{ action: string; content?: Json }> }) => {
        const first = await ctx.elicit(elicit("First?"));
        const second = await ctx.elicit(elicit("Second?"));
        return { ...args, first: first.content?.value, second: second.content?.value };
      },
      handler: async (args: Json) => text(`${String(args.first)} and ${String(args.second)}`),
    },
  ];
}

function envelope(capabilities: Json = extCapability): Json {
  return {
    [PROTOCOL_VERSION_META_KEY]: version,
    [CLIENT_INFO_META_KEY]: { name: "stateless-server-test", version: "0.0.0" },
    [CLIENT_CAPABILITIES_META_KEY]: capabilities,
  };
}

interface Exchange {
  status: number;
  id: number;
  message: Json;
}

/** The JSON-RPC message answering `id` in a JSON or SSE response body. */
function messageOf(type: string, text: string, id: number): Json | undefined {
  if (!type.includes("text/event-stream")) return JSON.parse(text) as Json;
  for (const block of text.split("\n\n")) {
    const data = block
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    if (!data) continue;
    const m = JSON.parse(data) as Json;
    if (m.id === id) return m;
  }
  return undefined;
}

/** One POST; `name` goes in Mcp-Name, `headers` replace the defaults. */
async function post(
  method: string,
  params: Json = {},
  opts: { name?: string; capabilities?: Json; headers?: Record<string, string>; url?: string } = {},
): Promise<Exchange> {
  const id = nextId++;
  const body = { jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope(opts.capabilities) } };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": version,
    "mcp-method": method,
    ...(opts.name === undefined ? {} : { "mcp-name": opts.name }),
    ...(opts.headers ?? {}),
  };
  const response = await fetch(opts.url ?? served.url, { method: "POST", headers, body: JSON.stringify(body) });
  const message = messageOf(response.headers.get("content-type") ?? "", await response.text(), id);
  if (message === undefined) throw new Error(`no answer to ${method} (HTTP ${response.status})`);
  return { status: response.status, id, message };
}

function resultOf(x: Exchange): Json {
  if (x.message.error !== undefined) throw new Error(`unexpected error: ${JSON.stringify(x.message.error)}`);
  return x.message.result as Json;
}

function errorOf(x: Exchange): { code: number; message: string; data?: Json } {
  if (x.message.error === undefined) throw new Error(`expected an error, got ${JSON.stringify(x.message.result)}`);
  return x.message.error as { code: number; message: string; data?: Json };
}

async function startTask(gate: string): Promise<string> {
  const created = resultOf(await post("tools/call", { name: "gated_job", arguments: { gate } }, { name: "gated_job" }));
  expect(created.resultType).toBe("task");
  return created.taskId as string;
}

async function getTask(taskId: string): Promise<Json> {
  return resultOf(await post("tasks/get", { taskId }, { name: taskId }));
}

beforeAll(async () => {
  descriptor = await descriptorOf("ext-tasks-2026-07-28");
  plan = makePlan(descriptor);
  version = protocolVersionOf(plan);
  extCapability = plan.clientCapability!;
  runtime = new TaskRuntime(descriptor, { audit: false, log: () => undefined, pollFrequency: 50 } as never);
  runtime.addTools(tools() as never);
  served = await serveStatelessHttp(runtime, {
    serverInfo: { name: "stateless-test", version: "1.0.0" },
    requestStateSecret: "test-secret",
    subscriptionPollMs: 20,
    log: () => undefined,
  });
});

afterAll(async () => {
  for (const release of gates.values()) release();
  await served?.close();
  await (runtime as unknown as { close?: () => Promise<unknown> })?.close?.();
});

describe("values read from the plan", () => {
  it("protocol version, task methods and capabilities", () => {
    expect(version).toBe(descriptor.spec.protocol.protocolVersion);
    expect(taskRequestMethods(plan)).toEqual(plan.clientRequests);
    expect(serverCapabilities(plan)).toEqual({ tools: {}, ...plan.serverCapability });
  });

  it("a spec without a protocol version cannot be served per request", () => {
    const d = { ...descriptor, spec: { ...descriptor.spec, protocol: { ...descriptor.spec.protocol, protocolVersion: undefined } } };
    expect(() => protocolVersionOf(makePlan(d))).toThrow(/protocolVersion/);
  });
});

describe("checkProtocolVersion (stdio, where the SDK's entry does not check it)", () => {
  const request = (meta: Record<string, unknown> | undefined) => ({ jsonrpc: "2.0", id: 7, method: "tools/list", params: meta === undefined ? {} : { _meta: meta } });
  const KEY = "io.modelcontextprotocol/protocolVersion";

  it("lets a request naming the spec's version through", () => {
    expect(checkProtocolVersion(plan, request({ [KEY]: protocolVersionOf(plan) }))).toBeUndefined();
  });

  it.each([
    ["absent", undefined],
    ["absent from _meta", {}],
  ])("refuses a request whose version is %s with -32602: a required field of the envelope is missing", (_what, meta) => {
    const refused = checkProtocolVersion(plan, request(meta as Record<string, unknown> | undefined));
    expect(refused?.id).toBe(7);
    expect(refused?.status).toBe(400);
    expect(refused?.error.code).toBe(-32602);
    expect(refused?.error.data).toMatchObject({ envelope: { missing: [KEY] } });
  });

  it.each([
    ["empty", { [KEY]: "" }],
    ["unsupported", { [KEY]: "1999-01-01" }],
    ["not a string", { [KEY]: 20260728 }],
  ])("refuses a request whose version is %s with -32022, as over HTTP", (_what, meta) => {
    const refused = checkProtocolVersion(plan, request(meta as Record<string, unknown> | undefined));
    expect(refused?.id).toBe(7);
    expect(refused?.error.code).toBe(-32022);
    expect(refused?.error.data).toMatchObject({ supported: [protocolVersionOf(plan)] });
  });

  it("leaves notifications and responses alone", () => {
    expect(checkProtocolVersion(plan, { jsonrpc: "2.0", method: "notifications/cancelled", params: {} })).toBeUndefined();
    expect(checkProtocolVersion(plan, { jsonrpc: "2.0", id: 1, result: {} })).toBeUndefined();
  });
});

describe("requestState", () => {
  it("round-trips only for the scope it was signed for", () => {
    const state = signState("k", "owner|tools/call|x", { "input-1": { action: "accept" } });
    expect(verifyState("k", "owner|tools/call|x", state)).toEqual({ "input-1": { action: "accept" } });
    expect(verifyState("k", "owner|tools/call|y", state)).toBeUndefined();
    expect(verifyState("other", "owner|tools/call|x", state)).toBeUndefined();
    expect(verifyState("k", "owner|tools/call|x", `${state}x`)).toBeUndefined();
    expect(verifyState("k", "owner|tools/call|x", "nodot")).toBeUndefined();
  });
});

describe("serveStatelessHttp", () => {
  it("server/discover advertises the plan's version and capabilities", async () => {
    const x = await post("server/discover");
    expect(x.status).toBe(200);
    const result = resultOf(x);
    expect(result.supportedVersions).toEqual([version]);
    expect(result.capabilities).toEqual(serverCapabilities(plan));
    expect((result._meta as Json)[SERVER_INFO_META_KEY]).toEqual({ name: "stateless-test", version: "1.0.0" });
  });

  it("tools/list and a plain tools/call answer complete", async () => {
    const list = resultOf(await post("tools/list"));
    expect((list.tools as Json[]).map((t) => t.name)).toEqual(["greet", "gated_job", "confirm", "ask_twice"]);
    const greeted = resultOf(await post("tools/call", { name: "greet", arguments: { name: "Ada" } }, { name: "greet" }));
    expect(greeted.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
    expect(greeted.resultType).toBe("complete");
  });

  it("a tools/call becomes a task, tasks/get follows it to its result", async () => {
    const taskId = await startTask("a");
    const working = await getTask(taskId);
    expect(working).toMatchObject({ taskId, status: "working" });
    gates.get("a")!();
    const done = await until(async () => {
      const t = await getTask(taskId);
      return t.status === "completed" ? t : undefined;
    }, "completed");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "done a" }] });
  });

  it("tasks/get whose Mcp-Name does not match the task id: -32020, HTTP 400", async () => {
    const taskId = await startTask("b");
    const x = await post("tasks/get", { taskId }, { name: "some-other-task" });
    expect(x.status).toBe(400);
    expect(errorOf(x).code).toBe(-32020);
    gates.get("b")!();
  });

  it("tasks/get without the client capability: -32021 naming it, HTTP 400", async () => {
    const taskId = await startTask("c");
    const x = await post("tasks/get", { taskId }, { name: taskId, capabilities: {} });
    expect(x.status).toBe(400);
    const error = errorOf(x);
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: plan.clientCapability });
    gates.get("c")!();
  });

  it("task methods registered from the plan; others answer HTTP 404, -32601", async () => {
    for (const method of taskRequestMethods(plan)) {
      const x = await post(method, { taskId: "no-such-task" }, { name: "no-such-task" });
      expect(x.status, method).not.toBe(404);
    }
    const x = await post("tasks/list", {});
    expect(x.status).toBe(404);
    expect(errorOf(x).code).toBe(-32601);
  });

  it("the update method receives the responses the SDK lifted out of its params", async () => {
    // The requestor declares elicitation: input is asked only of capabilities it declared.
    const created = resultOf(await post("tools/call", { name: "confirm", arguments: {} }, { name: "confirm", capabilities: { ...extCapability, elicitation: {} } }));
    expect(created.resultType).toBe("task");
    const taskId = created.taskId as string;
    const asking = await until(async () => {
      const t = await getTask(taskId);
      return t.status === "input_required" ? t : undefined;
    }, "input_required");
    const requests = asking[plan.input.requestsField] as Json;
    const keys = Object.keys(requests);
    expect(keys).toHaveLength(1);
    const ack = resultOf(
      await post("tasks/update", { taskId, [plan.input.responsesField]: { [keys[0]!]: { action: "accept", content: { value: "yes" } } } }, { name: taskId }),
    );
    expect(ack.resultType).toBe("complete");
    const done = await until(async () => {
      const t = await getTask(taskId);
      return t.status === "completed" ? t : undefined;
    }, "completed");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "answer yes" }] });
  });

  it("input before a task: input_required rounds with a signed requestState; a forged one is refused", async () => {
    // The SDK asks only for input whose capability the request declares.
    const capabilities = { ...extCapability, elicitation: { form: {} } };
    const call = (extra: Json) => post("tools/call", { name: "ask_twice", arguments: {}, ...extra }, { name: "ask_twice", capabilities });
    const first = resultOf(await call({}));
    expect(first.resultType).toBe("input_required");
    expect(Object.keys(first.inputRequests as Json)).toEqual(["input-1"]);
    expect((first.inputRequests as Json)["input-1"]).toMatchObject({ method: "elicitation/create" });
    expect(first.requestState).toBeUndefined();

    const second = resultOf(await call({ inputResponses: { "input-1": { action: "accept", content: { value: "one" } } } }));
    expect(second.resultType).toBe("input_required");
    expect(Object.keys(second.inputRequests as Json)).toEqual(["input-2"]);
    const state = second.requestState as string;
    expect(typeof state).toBe("string");

    // Forged: the answers changed, the MAC kept.
    const [payload, tag] = state.split(".");
    const forgedPayload = Buffer.from(JSON.stringify({ v: 1, a: { "input-1": { action: "accept", content: { value: "evil" } } } })).toString("base64url");
    expect(forgedPayload).not.toBe(payload);
    const forged = errorOf(await call({ requestState: `${forgedPayload}.${tag}`, inputResponses: { "input-2": { action: "accept", content: { value: "two" } } } }));
    expect(forged.code).toBe(-32602);
    expect(forged.message).toMatch(/requestState/);
    // Moved: a state issued for one tool is refused by another.
    const moved = errorOf(
      await post("tools/call", { name: "gated_job", arguments: { gate: "never" }, requestState: state }, { name: "gated_job", capabilities }),
    );
    expect(moved.code).toBe(-32602);

    const created = resultOf(await call({ requestState: state, inputResponses: { "input-2": { action: "accept", content: { value: "two" } } } }));
    expect(created.resultType).toBe("task");
    const done = await until(async () => {
      const t = await getTask(created.taskId as string);
      return t.status === "completed" ? t : undefined;
    }, "completed");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "one and two" }] });
  });

  it("a subscription stream for a task id acknowledges, then sends the status notification", async () => {
    const subscription = plan.statusSubscription!;
    const taskId = await startTask("e");
    const id = nextId++;
    const params: Json = { _meta: envelope() };
    let filter: Json = params;
    subscription.subscribePath.forEach((k, i) => {
      filter[k] = i === subscription.subscribePath.length - 1 ? [taskId, "not-mine"] : {};
      filter = filter[k] as Json;
    });
    const abort = new AbortController();
    const response = await fetch(served.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": version,
        "mcp-method": subscription.subscribeMethod,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id, method: subscription.subscribeMethod, params }),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const messages: Json[] = [];
    let buffer = "";
    const next = async (): Promise<Json> => {
      for (;;) {
        const cut = buffer.indexOf("\n\n");
        if (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = block
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).trimStart())
            .join("\n");
          if (data) return JSON.parse(data) as Json;
          continue;
        }
        const { done, value } = await reader.read();
        if (done) throw new Error("stream ended");
        buffer += value;
      }
    };
    try {
      const ack = await next();
      messages.push(ack);
      expect(ack.method).toBe("notifications/subscriptions/acknowledged");
      let acked: unknown = ack.params;
      for (const k of subscription.subscribePath) acked = (acked as Json)[k];
      expect(acked).toEqual([taskId]);
      expect((ack.params as Json)._meta).toEqual({ [SUBSCRIPTION_ID_META_KEY]: id });

      const first = await next();
      expect(first.method).toBe(subscription.method);
      expect(first.params).toMatchObject({ taskId, status: "working", _meta: { [SUBSCRIPTION_ID_META_KEY]: id } });

      gates.get("e")!();
      for (;;) {
        const m = await next();
        expect(m.method).toBe(subscription.method);
        if ((m.params as Json).status === "completed") {
          // Detailed: the result inlined, as the get method answers it.
          if (subscription.detailed) expect((m.params as Json).result).toMatchObject({ content: [{ type: "text", text: "done e" }] });
          break;
        }
      }
    } finally {
      abort.abort();
      await reader.cancel().catch(() => undefined);
    }
  });

  it("a subscription without the client capability: -32021, HTTP 400", async () => {
    const subscription = plan.statusSubscription!;
    const params: Json = { _meta: envelope({}) };
    let filter: Json = params;
    subscription.subscribePath.forEach((k, i) => {
      filter[k] = i === subscription.subscribePath.length - 1 ? ["x"] : {};
      filter = filter[k] as Json;
    });
    const response = await fetch(served.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": version,
        "mcp-method": subscription.subscribeMethod,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: subscription.subscribeMethod, params }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as Json;
    expect(body.error).toEqual({ code: -32021, message: "Missing required client capability", data: { requiredCapabilities: plan.clientCapability } });
  });
});

describe("createStatelessHandler", () => {
  it("serves web-standard requests (server/discover) without node:http", async () => {
    const handler = createStatelessHandler(runtime);
    try {
      const id = nextId++;
      const response = await handler.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": version,
            "mcp-method": "server/discover",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: envelope() } }),
        }),
      );
      expect(response.status).toBe(200);
      const message = messageOf(response.headers.get("content-type") ?? "", await response.text(), id)!;
      expect((message.result as Json).capabilities).toMatchObject(serverCapabilities(plan));
    } finally {
      await handler.close();
    }
  });

  it("leaves subscriptions to the SDK when the spec delivers no status by subscription", async () => {
    const d = { ...descriptor, behaviour: { ...descriptor.behaviour, statusNotifications: false as const } };
    const other = new TaskRuntime(d, { audit: false, log: () => undefined } as never);
    const handler = createStatelessHandler(other);
    try {
      const subscription = plan.statusSubscription!;
      const params: Json = { _meta: envelope(), notifications: { taskIds: ["x"] } };
      const response = await handler.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": version,
            "mcp-method": subscription.subscribeMethod,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: subscription.subscribeMethod, params }),
        }),
      );
      // The SDK acknowledges the request without the task filter it does not know.
      const text = await readSome(response);
      expect(text).toContain('"notifications":{}');
      expect(text).not.toContain("taskIds");
    } finally {
      await handler.close();
      await (other as unknown as { close?: () => Promise<unknown> }).close?.();
    }
  });
});

describe("what the spec declares, answered before dispatch", () => {
  /** A runtime on the ext-tasks descriptor changed by `change`, served as a fetch handler; `send` posts one request. */
  function servedWith(change: (d: TaskSpecDescriptor) => TaskSpecDescriptor) {
    const other = new TaskRuntime(change(descriptor), { audit: false, log: () => undefined, pollFrequency: 50 } as never);
    other.addTools(tools() as never);
    const handler = createStatelessHandler(other);
    const send = async (method: string, params: Json, headers: Record<string, string> = {}, capabilities?: Json) => {
      const id = nextId++;
      const response = await handler.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": version, "mcp-method": method, ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope(capabilities) } }),
        }),
      );
      return { status: response.status, id, message: messageOf(response.headers.get("content-type") ?? "", await response.text(), id)! };
    };
    const close = async () => {
      await handler.close();
      await (other as unknown as { close?: () => Promise<unknown> }).close?.();
    };
    return { send, close };
  }

  it("a task id header of the spec's own name that does not repeat the task id: the declared error with its HTTP status", async () => {
    const http = descriptor.behaviour.http as { header: string; methods: readonly string[]; mismatchError: string };
    // The SDK checks Mcp-Name on the methods it knows; a header of the spec's own is the runtime's to check.
    const { send, close } = servedWith((d) => ({ ...d, behaviour: { ...d.behaviour, http: { ...http, header: "X-Task-Route" } } }));
    try {
      const created = resultOf(await send("tools/call", { name: "gated_job", arguments: { gate: "route" } }, { "mcp-name": "gated_job" }));
      const taskId = created.taskId as string;
      const wrong = await send("tasks/get", { taskId }, { "mcp-name": taskId, "x-task-route": "another-task" });
      expect(wrong.status).toBe(400);
      expect(errorOf(wrong)).toEqual({ code: -32020, message: "Header mismatch: X-Task-Route" });
      const right = await send("tasks/get", { taskId }, { "mcp-name": taskId, "x-task-route": taskId });
      expect(resultOf(right).taskId).toBe(taskId);
      await send("tasks/cancel", { taskId }, { "mcp-name": taskId, "x-task-route": taskId });
    } finally {
      gates.get("route")?.();
      await close();
    }
  });

  it("an error a handler throws is answered with the HTTP status it declares, whatever its code", async () => {
    // The SDK answers a handler's error on HTTP 200 unless its code is -32021; the spec's own code keeps its 400.
    const { send, close } = servedWith((d) => ({ ...d, errors: { ...d.errors, missingRequiredClientCapability: { ...d.errors.missingRequiredClientCapability!, code: -32000 } } }));
    try {
      const created = resultOf(await send("tools/call", { name: "gated_job", arguments: { gate: "own-code" } }, { "mcp-name": "gated_job" }));
      const taskId = created.taskId as string;
      const get = await send("tasks/get", { taskId }, { "mcp-name": taskId }, {});
      expect(get.status).toBe(400);
      expect(errorOf(get)).toMatchObject({ code: -32000, data: { requiredCapabilities: plan.clientCapability } });
      // A request served only as a task, from a requestor without the capability.
      const call = await send("tools/call", { name: "gated_job", arguments: { gate: "own-code-2" } }, { "mcp-name": "gated_job" }, {});
      expect(call.status).toBe(400);
      expect(errorOf(call).code).toBe(-32000);
      // An error that declares no status stays on 200.
      const unknown = await send("tasks/get", { taskId: "no-such-task" }, { "mcp-name": "no-such-task" });
      expect(unknown.status).toBe(200);
      expect(errorOf(unknown).code).toBe(-32602);
      await send("tasks/cancel", { taskId }, { "mcp-name": taskId });
    } finally {
      gates.get("own-code")?.();
      await close();
    }
  });

  it("a method the spec lists as unsupported: the declared error, not the SDK's", async () => {
    const { send, close } = servedWith((d) => ({ ...d, errors: { ...d.errors, methodNotFound: { ...d.errors.methodNotFound!, message: "Gone since 2026" } } }));
    try {
      const x = await send("tasks/list", {});
      expect(x.status).toBe(404);
      expect(errorOf(x)).toEqual({ code: -32601, message: "Gone since 2026" });
    } finally {
      await close();
    }
  });
});

/** The first chunk(s) of a response body, without waiting for a stream to end. */
async function readSome(response: Response): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const deadline = Date.now() + 500;
  try {
    while (Date.now() < deadline) {
      const r = await Promise.race([reader.read(), new Promise<{ done: true; value: undefined }>((res) => setTimeout(() => res({ done: true, value: undefined }), 300))]);
      if (r.done) break;
      text += r.value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}
