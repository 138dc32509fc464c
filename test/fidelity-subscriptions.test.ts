/**
 * Task status subscriptions of the per-request lifecycle (ext-tasks-2026-07-28,
 * core 2026-07-28), read from the plan:
 * - over stdio (a child process serving serveStatelessStdio, spoken to in raw
 *   JSON-RPC lines): a subscribe request for task ids from a requestor without
 *   the extension is the declared missing-capability error; with it, the
 *   subscription is acknowledged with the task ids it may see and followed by
 *   the status notifications of those tasks on the stdio stream; a cancelled
 *   subscription ends silently; when the server stops, each open one gets
 *   notifications/cancelled naming it, then its closing response;
 * - over Streamable HTTP (serveStatelessHttp on 127.0.0.1): closing the server
 *   ends each open subscription stream with notifications/cancelled, then its
 *   closing response.
 * No assertion depends on timing: waits poll until a message arrives.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
} from "@modelcontextprotocol/server";
import { makePlan } from "../runtime/plan.js";
import { TaskRuntime } from "../runtime/server.js";
import { protocolVersionOf, serveStatelessHttp } from "../runtime/stateless-server.js";
import type { TaskSpecDescriptor } from "../runtime/descriptor.js";
import { ROOT } from "./helpers/cli.js";
import { descriptorOf } from "./runtime/descriptors.js";
import { eventually as until } from "./seed-harness.js";

type Json = Record<string, unknown>;

let descriptor: TaskSpecDescriptor;
let plan: ReturnType<typeof makePlan>;
let version: string;

beforeAll(async () => {
  descriptor = await descriptorOf("ext-tasks-2026-07-28");
  plan = makePlan(descriptor);
  version = protocolVersionOf(plan);
});

function envelope(capabilities: Json): Json {
  return {
    [PROTOCOL_VERSION_META_KEY]: version,
    [CLIENT_INFO_META_KEY]: { name: "fidelity-subscriptions", version: "0.0.0" },
    [CLIENT_CAPABILITIES_META_KEY]: capabilities,
  };
}

/** The subscribe request's params asking for `taskIds` at the declared field. */
function subscribeParams(taskIds: string[], capabilities: Json): Json {
  const subscription = plan.statusSubscription!;
  const params: Json = { _meta: envelope(capabilities) };
  let o = params;
  subscription.subscribePath.forEach((k, i) => {
    if (i === subscription.subscribePath.length - 1) o[k] = taskIds;
    else o = (o[k] = (o[k] as Json | undefined) ?? {}) as Json;
  });
  return params;
}

/** The notification a server sends when it tears down the subscription made by request `id`. */
function teardown(id: number): Json {
  return {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id, reason: expect.any(String), _meta: { [SUBSCRIPTION_ID_META_KEY]: id } },
  };
}

function acceptedIn(ack: Json): unknown {
  let v: unknown = ack.params;
  for (const k of plan.statusSubscription!.subscribePath) v = (v as Json | undefined)?.[k];
  return v;
}

describe("task subscriptions over stdio", () => {
  let child: ChildProcess;
  const messages: Json[] = [];
  let exited: Promise<number | null>;
  let nextId = 1;

  beforeAll(() => {
    child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "test", "helpers", "stateless-stdio-child.ts")], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.trim() !== "") messages.push(JSON.parse(line) as Json);
    });
    child.stderr!.on("data", () => undefined);
    exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  });

  afterAll(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  const write = (message: Json) => child.stdin!.write(JSON.stringify(message) + "\n");
  const answerTo = (id: number) => until(() => messages.find((m) => m.id === id && !("method" in m)), `the answer to ${id}`);

  async function request(method: string, params: Json): Promise<Json> {
    const id = nextId++;
    write({ jsonrpc: "2.0", id, method, params });
    return answerTo(id);
  }

  const withExtension = () => ({ ...plan.clientCapability! });
  const resultOf = (m: Json) => {
    if (m.error !== undefined) throw new Error(`unexpected error ${JSON.stringify(m.error)}`);
    return m.result as Json;
  };
  const startTask = async (gate: string) => resultOf(await request("tools/call", { name: "gated_job", arguments: { gate }, _meta: envelope(withExtension()) })).taskId as string;
  const statusNotes = (subscriptionId: number, taskId: string) =>
    messages.filter(
      (m) =>
        m.method === plan.statusSubscription!.method &&
        ((m.params as Json)._meta as Json)[SUBSCRIPTION_ID_META_KEY] === subscriptionId &&
        (m.params as Json)[plan.idField] === taskId,
    );

  it("a subscribe request for task ids from a requestor without the extension is the declared missing-capability error", async () => {
    const taskId = await startTask("cap");
    const answer = await request(plan.statusSubscription!.subscribeMethod, subscribeParams([taskId], {}));
    const expected = plan.missingCapability(plan.gateErrorName, { method: plan.statusSubscription!.subscribeMethod })!;
    expect(expected).toBeDefined();
    expect(answer.error).toMatchObject({ code: expected.code });
    expect(answer).not.toHaveProperty("result");
    await request("tools/call", { name: "release", arguments: { gate: "cap" }, _meta: envelope(withExtension()) });
  });

  it("acknowledges the task ids it may see, sends their status notifications on the stdio stream; cancel ends one, stopping tears down the others (notifications/cancelled, then the closing response)", async () => {
    const taskId = await startTask("s1");
    const other = await startTask("s2");
    const subscribeMethod = plan.statusSubscription!.subscribeMethod;
    const id = nextId++;
    write({ jsonrpc: "2.0", id, method: subscribeMethod, params: subscribeParams([taskId, "not-mine"], withExtension()) });
    const ack = await until(
      () => messages.find((m) => m.method === "notifications/subscriptions/acknowledged" && ((m.params as Json)._meta as Json)[SUBSCRIPTION_ID_META_KEY] === id),
      "the acknowledgement",
    );
    expect(acceptedIn(ack)).toEqual([taskId]);
    const first = await until(() => statusNotes(id, taskId)[0], "the first status notification");
    expect((first.params as Json)[plan.statusField]).toBe(plan.status.running);
    await request("tools/call", { name: "release", arguments: { gate: "s1" }, _meta: envelope(withExtension()) });
    const done = await until(
      () => statusNotes(id, taskId).find((m) => (m.params as Json)[plan.statusField] === plan.status.completed),
      "the completed status notification",
    );
    if (plan.statusSubscription!.detailed) expect((done.params as Json)[plan.results.resultField]).toMatchObject({ content: [{ type: "text", text: "done s1" }] });

    // A second subscription, cancelled by the requestor: no closing response for it later.
    const cancelledId = nextId++;
    write({ jsonrpc: "2.0", id: cancelledId, method: subscribeMethod, params: subscribeParams([other], withExtension()) });
    await until(() => statusNotes(cancelledId, other)[0], "the second subscription's first notification");
    write({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: cancelledId, reason: "done" } });
    // The connection still serves requests after the cancellation.
    await request("tools/call", { name: "release", arguments: { gate: "s2" }, _meta: envelope(withExtension()) });

    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const closing = messages.filter((m) => !("method" in m) && (m.id === id || m.id === cancelledId));
    expect(closing).toHaveLength(1);
    expect(closing[0]).toEqual({
      jsonrpc: "2.0",
      id,
      result: {
        ...(plan.behaviour.resultType === false ? {} : { [plan.behaviour.resultType.field]: plan.behaviour.resultType.complete }),
        _meta: { [SUBSCRIPTION_ID_META_KEY]: id, [SERVER_INFO_META_KEY]: { name: "stdio-child", version: "1.0.0" } },
      },
    });
    // Torn down by the server: notifications/cancelled naming the subscribe request comes just before its closing
    // response (ext-tasks-2026-07-28/core.cancelled-on-teardown); none for the one the requestor cancelled, nor for
    // anything else (ext-tasks-2026-07-28/core.cancelled-only-for-subscriptions).
    const cancelled = messages.filter((m) => m.method === "notifications/cancelled");
    expect(cancelled).toEqual([teardown(id)]);
    expect(messages.indexOf(cancelled[0]!)).toBeLessThan(messages.indexOf(closing[0]!));
    // Nothing of the subscription after its closing response.
    expect(messages.slice(messages.indexOf(closing[0]!) + 1).filter((m) => ((m.params as Json | undefined)?._meta as Json | undefined)?.[SUBSCRIPTION_ID_META_KEY] === id)).toEqual([]);
  });
});

describe("task subscriptions over stdio, the requestor closing its input", () => {
  it("closing the server's stdin (the stdio shutdown) tears down an open subscription: notifications/cancelled naming it, then its closing response", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "test", "helpers", "stateless-stdio-child.ts")], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    const messages: Json[] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.trim() !== "") messages.push(JSON.parse(line) as Json);
    });
    child.stderr!.on("data", () => undefined);
    try {
      const write = (message: Json) => child.stdin!.write(JSON.stringify(message) + "\n");
      const withExtension = { ...plan.clientCapability! };
      write({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "gated_job", arguments: { gate: "eof" }, _meta: envelope(withExtension) } });
      const made = await until(() => messages.find((m) => m.id === 1), "the task");
      const taskId = (made.result as Json).taskId as string;
      write({ jsonrpc: "2.0", id: 2, method: plan.statusSubscription!.subscribeMethod, params: subscribeParams([taskId], withExtension) });
      await until(() => messages.find((m) => m.method === "notifications/subscriptions/acknowledged"), "the acknowledgement");
      child.stdin!.end();
      const cancelled = await until(() => messages.find((m) => m.method === "notifications/cancelled"), "notifications/cancelled after stdin closed");
      expect(cancelled).toEqual(teardown(2));
      const closing = await until(() => messages.find((m) => m.id === 2 && !("method" in m)), "the closing response");
      expect(messages.indexOf(cancelled)).toBeLessThan(messages.indexOf(closing));
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("task subscriptions over Streamable HTTP", () => {
  it("closing the server ends an open subscription stream with notifications/cancelled naming it, then its closing response", async () => {
    let release = () => undefined as void;
    const runtime = new TaskRuntime(descriptor, { audit: false, log: () => undefined, pollFrequency: 20 } as never);
    runtime.addTools([
      {
        name: "gated_job",
        taskSupport: "required" as const,
        inputSchema: z.object({}),
        handler: async () => {
          await new Promise<void>((resolve) => (release = resolve));
          return { content: [{ type: "text" as const, text: "done" }] };
        },
      },
    ] as never);
    const serverInfo = { name: "http-fidelity", version: "1.0.0" };
    const served = await serveStatelessHttp(runtime, { serverInfo, subscriptionPollMs: 20, log: () => undefined });
    try {
      const post = (id: number, method: string, params: Json) =>
        fetch(served.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": version,
            "mcp-method": method,
            ...(method === "tools/call" ? { "mcp-name": String(params.name) } : {}),
          },
          body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
        });
      const created = (await (await post(1, "tools/call", { name: "gated_job", arguments: {}, _meta: envelope({ ...plan.clientCapability! }) })).json()) as Json;
      const taskId = (created.result as Json).taskId as string;
      const response = await post(2, plan.statusSubscription!.subscribeMethod, subscribeParams([taskId], { ...plan.clientCapability! }));
      expect(response.headers.get("content-type")).toContain("text/event-stream");
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      const received: Json[] = [];
      const readMore = async (): Promise<boolean> => {
        const { done, value } = await reader.read();
        if (done) return false;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = block
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).trimStart())
            .join("\n");
          if (data) received.push(JSON.parse(data) as Json);
        }
        return true;
      };
      while (!received.some((m) => m.method === plan.statusSubscription!.method)) {
        if (!(await readMore())) throw new Error("the stream ended before the first status notification");
      }
      const closing = served.close();
      while (await readMore());
      await closing;
      // ext-tasks-2026-07-28/core.cancelled-on-teardown: notifications/cancelled naming the subscribe request, then
      // the closing response the subscriptions page asks for, which ends the stream.
      expect(received.filter((m) => m.method === "notifications/cancelled")).toEqual([teardown(2)]);
      expect(received[received.length - 2]).toEqual(teardown(2));
      const last = received[received.length - 1]!;
      expect(last).toEqual({
        jsonrpc: "2.0",
        id: 2,
        result: {
          ...(plan.behaviour.resultType === false ? {} : { [plan.behaviour.resultType.field]: plan.behaviour.resultType.complete }),
          _meta: { [SUBSCRIPTION_ID_META_KEY]: 2, [SERVER_INFO_META_KEY]: serverInfo },
        },
      });
    } finally {
      release();
      await served.close().catch(() => undefined);
      await runtime.close();
    }
  });
});
