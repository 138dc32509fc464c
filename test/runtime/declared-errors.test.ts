/**
 * The errors the runtime answers on its own (a task the requestor cannot see, the server's own
 * failures) are the ones the spec names in its behaviour (notFoundError, internalError), whatever the
 * spec calls them: here the ext-tasks descriptor with both errors renamed.
 */
import { describe, expect, it } from "vitest";
import { makePlan } from "../../runtime/plan.js";
import { TaskRuntime } from "../../runtime/server.js";
import { InMemoryTaskStore } from "../../runtime/store.js";
import type { TaskSpecDescriptor } from "../../runtime/descriptor.js";
import { descriptorOf } from "./descriptors.js";
import { capabilityMeta, fakeExtra } from "./harness.js";
import { task } from "./store-contract.js";

const SPEC = "ext-tasks-2026-07-28";

/** The ext-tasks descriptor whose not-found and internal errors carry names, codes and messages of their own. */
async function renamed(): Promise<TaskSpecDescriptor> {
  const d = await descriptorOf(SPEC);
  const { taskNotFound: _n, internalError: _i, ...errors } = d.errors;
  return {
    ...d,
    errors: {
      ...errors,
      noSuchRelay: { code: -32602, message: "Unknown relay", context: {} },
      relayBroke: { code: -32001, message: "The relay broke", context: {} },
    },
    behaviour: { ...d.behaviour, notFoundError: "noSuchRelay", internalError: "relayBroke" },
  };
}

describe("errors named by the behaviour", () => {
  it("the plan reads them from the behaviour, with the format's defaults where it names none", async () => {
    expect(makePlan(await renamed()).errors).toEqual({ notFound: "noSuchRelay", internal: "relayBroke" });
    expect(makePlan(await descriptorOf(SPEC)).errors).toEqual({ notFound: "taskNotFound", internal: "internalError" });
  });

  it("an unknown task id is answered with the spec's not-found error", async () => {
    const rt = new TaskRuntime(await renamed(), { audit: false, log: () => undefined });
    try {
      const params = { taskId: "no-such-relay", _meta: await capabilityMeta(SPEC) };
      await expect(rt.handleTaskRequest("tasks/get", params, fakeExtra())).rejects.toMatchObject({ errorName: "noSuchRelay", code: -32602, message: "Unknown relay" });
      await expect(rt.handleTaskRequest("tasks/cancel", params, fakeExtra())).rejects.toMatchObject({ errorName: "noSuchRelay" });
    } finally {
      await rt.close();
    }
  });

  it("a task the server ends on its own (left unfinished by a stopped server) fails with the spec's internal error code", async () => {
    const store = new InMemoryTaskStore();
    const now = Date.now();
    await store.create(task("left-running", "auth:anonymous", { createdAt: now, updatedAt: now, expiresAt: now + 60_000 }));
    const rt = new TaskRuntime(await renamed(), { audit: false, log: () => undefined, store, settleOnStart: true });
    try {
      await rt.ready;
      const found = await store.get("left-running");
      expect(found?.state === "live" ? found.record : undefined).toMatchObject({ status: "failed", error: { code: -32001 } });
    } finally {
      await rt.close();
    }
  });
});

describe("the direction a method is declared with", () => {
  it("a request the spec has only the server send is not answered by the server: method not found", async () => {
    const d = await descriptorOf(SPEC);
    const serverOnly: TaskSpecDescriptor = { ...d, methods: d.methods.map((m) => (m.method === "tasks/get" ? { ...m, from: "server" as const } : m)) };
    const rt = new TaskRuntime(serverOnly, { audit: false, log: () => undefined });
    try {
      const params = { taskId: "any", _meta: await capabilityMeta(SPEC) };
      await expect(rt.handleTaskRequest("tasks/get", params, fakeExtra())).rejects.toMatchObject({ code: -32601 });
      // The same request the spec lets the client send is dispatched (here: to the not-found answer).
      const both = new TaskRuntime(d, { audit: false, log: () => undefined });
      try {
        await expect(both.handleTaskRequest("tasks/get", params, fakeExtra())).rejects.toMatchObject({ code: -32602 });
      } finally {
        await both.close();
      }
    } finally {
      await rt.close();
    }
  });
});

describe("a custom operation's answer", () => {
  /** The ext-tasks descriptor with a custom operation tasks/echo whose declared result is { ok: boolean }. */
  async function withEcho(): Promise<TaskSpecDescriptor> {
    const d = await descriptorOf(SPEC);
    const okResult = (v: unknown) =>
      typeof v === "object" && v !== null && typeof (v as { ok?: unknown }).ok === "boolean"
        ? { success: true as const, data: v }
        : { success: false as const, error: { issues: [{ path: ["ok"], message: "expected a boolean" }] } };
    return {
      ...d,
      methods: [...d.methods, { method: "tasks/echo", kind: "request", from: "client", operation: "custom" }],
      validateParams: (method, params) => (method === "tasks/echo" ? { success: true, data: params } : d.validateParams(method, params)),
      validateResult: (method, result) => (method === "tasks/echo" ? okResult(result) : { success: true, data: result }),
    };
  }

  it("is checked against its declared result type: a handler's malformed answer is the spec's internal error, never sent", async () => {
    const logged: Array<Record<string, unknown>> = [];
    const rt = new TaskRuntime(await withEcho(), { audit: false, log: (e: Record<string, unknown>) => logged.push(e) } as never);
    let answer: unknown = { ok: "yes" };
    rt.addOperations({ "tasks/echo": async () => answer as never });
    try {
      const params = { _meta: await capabilityMeta(SPEC) };
      await expect(rt.handleTaskRequest("tasks/echo", params, fakeExtra())).rejects.toMatchObject({ code: -32603 });
      expect(logged.some((e) => e.msg === "custom operation answered a result its declared type refuses")).toBe(true);
      answer = { ok: true };
      await expect(rt.handleTaskRequest("tasks/echo", params, fakeExtra())).resolves.toEqual({ ok: true });
    } finally {
      await rt.close();
    }
  });
});
