// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// Task status by subscription, for specs that deliver it so: streams of the declared subscribe method,
// over HTTP (an SSE response) and over stdio (a transport in front of the SDK's entry, which knows no
// task filter).

import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  type ServerEvent,
  type AuthInfo as CoreAuthInfo,
  type McpHttpHandler,
  type Transport,
} from "@modelcontextprotocol/server";
import { TaskProtocolError } from "./errors.js";
import { isObject, type RuntimePlan } from "./plan.js";
import { jsonRpcError, protocolVersionOf, serverCapabilities } from "./stateless-dispatch.js";
import type { ServerExtra, TaskRuntime } from "./server.js";
import type { TaskRecord } from "./store.js";

export type Subscription = NonNullable<RuntimePlan["statusSubscription"]>;

/** The core notification that acknowledges a subscribe request, naming the filters it honours. */
const ACKNOWLEDGED = "notifications/subscriptions/acknowledged";

/** The task ids a subscribe request asks for (at the declared field), or undefined when it asks for none. */
export function subscribedTaskIds(subscription: Subscription, body: unknown): string[] | undefined {
  if (!isObject(body) || body.method !== subscription.subscribeMethod || subscription.subscribePath.length === 0) return undefined;
  let v: unknown = body.params;
  for (const k of subscription.subscribePath) v = isObject(v) ? v[k] : undefined;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;
}

/** Sets `value` at `path` inside `target`, creating the objects on the way. */
function setAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let o = target;
  for (const k of path.slice(0, -1)) {
    if (!isObject(o[k])) o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  o[path[path.length - 1]!] = value;
}

/**
 * The response that ends a subscribe request the server will not serve any longer (it stops): the
 * request's own result, complete, naming the subscription (and the server) in `_meta`; the requestor
 * knows the stream ended by the server's decision and may subscribe again.
 */
function closingResponse(plan: RuntimePlan, id: unknown, serverInfo: { name: string; version: string } | undefined): Record<string, unknown> {
  const rt = plan.behaviour.resultType;
  return {
    jsonrpc: "2.0",
    id,
    result: {
      ...(rt === false ? {} : { [rt.field]: rt.complete }),
      _meta: { [SUBSCRIPTION_ID_META_KEY]: id, ...(serverInfo === undefined ? {} : { [SERVER_INFO_META_KEY]: serverInfo }) },
    },
  };
}

/**
 * Sends the declared status notification (the task as the get method answers it) whenever one of
 * `taskIds` changes in the store, looking every `pollMs`; the first look sends each task's current
 * state. Returns the function that stops it.
 */
function watchTasks<S extends string, W>(
  runtime: TaskRuntime<S, W>,
  subscription: Subscription,
  taskIds: readonly string[],
  send: (method: string, params: Record<string, unknown>) => void,
  pollMs: number,
): () => void {
  const toTask = (rec: TaskRecord) =>
    (subscription.detailed ? runtime.toDetailedTask(rec) : runtime.toWireTask(rec)) as unknown as Record<string, unknown>;
  let stopped = false;
  const seen = new Map<string, string>();
  const look = async () => {
    for (const taskId of taskIds) {
      const found = await runtime.store.get(taskId);
      if (stopped || found?.state !== "live") continue;
      const version = `${found.record.status}|${found.record.updatedAt}|${JSON.stringify(found.record.inputRequests ?? {})}`;
      if (seen.get(taskId) === version) continue;
      seen.set(taskId, version);
      send(subscription.method, toTask(found.record));
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const again = () => {
    if (!stopped) timer = setTimeout(() => void look().catch(() => undefined).finally(again), pollMs);
  };
  void look()
    .catch(() => undefined)
    .finally(again);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

/** What serves task subscription streams: the open ones (their closers), the store's poll interval, the server's identity. */
export interface SubscriptionStreams {
  open: Set<() => void>;
  pollMs: number;
  serverInfo: { name: string; version: string } | undefined;
}

/**
 * A subscribe request that asks for task ids: an SSE stream that acknowledges
 * first (naming the task ids it accepted: those the requestor may see), then
 * sends the declared status notification with the task as the get method would
 * answer it whenever a subscribed task changes, each with the subscription id
 * (the subscribe request's id). Other filters of the same request (list
 * changes) are served from the handler's event bus. The SDK serves subscribe
 * requests that ask for no task ids.
 */
export async function serveTaskSubscription<S extends string, W>(
  runtime: TaskRuntime<S, W>,
  subscription: Subscription,
  handler: McpHttpHandler,
  request: Request,
  body: Record<string, unknown>,
  taskIds: string[],
  authInfo: CoreAuthInfo | undefined,
  streams: SubscriptionStreams,
): Promise<Response> {
  const plan = runtime.plan;
  const protocolVersion = protocolVersionOf(plan);
  const capabilities = serverCapabilities(plan);
  const id = body.id;
  const params = isObject(body.params) ? body.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  if (request.headers.get("mcp-method") !== body.method) {
    return jsonRpcError(400, id, { code: -32020, message: "Bad Request: the Mcp-Method header does not match the body" });
  }
  const version = meta[PROTOCOL_VERSION_META_KEY];
  if (version !== protocolVersion || request.headers.get("mcp-protocol-version") !== protocolVersion) {
    return jsonRpcError(400, id, { code: -32022, message: "Unsupported protocol version", data: { supported: [protocolVersion], requested: version ?? null } });
  }
  if (!isObject(meta[CLIENT_CAPABILITIES_META_KEY])) {
    return jsonRpcError(400, id, { code: -32602, message: "Invalid params: _meta needs the client capabilities" });
  }
  if (!runtime.declaresClientCapability(params)) {
    const missing =
      plan.missingCapability(plan.gateErrorName, { method: subscription.subscribeMethod }) ??
      new TaskProtocolError("missingRequiredClientCapability", -32021, "Missing required client capability", { requiredCapabilities: plan.clientCapability ?? {} });
    return jsonRpcError(missing.httpStatus ?? 400, id, missing.toJSON());
  }
  const extra = { authInfo, sessionId: undefined, requestId: typeof id === "number" || typeof id === "string" ? id : 0 } as unknown as ServerExtra;
  const owner = runtime.ownerOf(extra);
  const accepted: string[] = [];
  for (const taskId of taskIds) {
    const found = await runtime.store.get(taskId);
    if (found?.state === "live" && found.record.owner === owner) accepted.push(taskId);
  }
  const filter = isObject(params.notifications) ? params.notifications : {};
  const lists: Record<string, string> = {
    toolsListChanged: "tools_list_changed",
    promptsListChanged: "prompts_list_changed",
    resourcesListChanged: "resources_list_changed",
  };
  const wantedLists = Object.keys(lists).filter((k) => filter[k] === true && (k === "toolsListChanged" || k in capabilities));
  const ack: Record<string, unknown> = {};
  setAt(ack, subscription.subscribePath, accepted);
  if (wantedLists.length > 0) {
    if (!isObject(ack.notifications)) ack.notifications = {};
    for (const k of wantedLists) (ack.notifications as Record<string, unknown>)[k] = true;
  }
  const encoder = new TextEncoder();
  let stop = (_graceful: boolean) => undefined as void;
  const end = () => stop(true);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const frame = (message: unknown) => controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
      const send = (method: string, p: Record<string, unknown>) => {
        if (closed) return;
        frame({ jsonrpc: "2.0", method, params: { ...p, _meta: { ...(isObject(p._meta) ? p._meta : {}), [SUBSCRIPTION_ID_META_KEY]: id } } });
      };
      send(ACKNOWLEDGED, ack);
      const unwatch = watchTasks(runtime, subscription, accepted, send, streams.pollMs);
      const unsubscribe = handler.bus.subscribe((event: ServerEvent) => {
        const key = Object.keys(lists).find((k) => lists[k] === event.kind);
        if (key && wantedLists.includes(key)) send(`notifications/${event.kind.replace("_list_changed", "")}/list_changed`, {});
      });
      // Graceful: the server stops serving it, so the request gets its closing response and the stream ends.
      stop = (graceful) => {
        if (closed) return;
        closed = true;
        streams.open.delete(end);
        unwatch();
        unsubscribe();
        if (!graceful) return;
        try {
          frame(closingResponse(plan, id, streams.serverInfo));
          controller.close();
        } catch {
          // The requestor went away meanwhile.
        }
      };
      streams.open.add(end);
    },
    cancel() {
      stop(false);
    },
  });
  request.signal.addEventListener("abort", () => stop(false), { once: true });
  return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

// ---------------------------------------------------------------------------
// stdio
// ---------------------------------------------------------------------------

/**
 * A stdio connection with task subscriptions served in front of the SDK's entry (see
 * {@link serveStatelessStdio}): a subscribe request that asks for task ids is checked for the envelope
 * and the declared client capability as over HTTP, acknowledged with the task ids the requestor may see,
 * followed by the status notifications on the stdio stream (each with the subscription id), and ended by
 * the requestor's cancellation or, when the server stops, by its closing response. Other subscribe
 * requests (list changes) stay with the SDK.
 */
export class TaskSubscriptionTransport<S extends string, W> implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  /** The open subscriptions by request id: each stops its stream (gracefully: with the closing response). */
  private readonly open = new Map<string | number, (graceful: boolean) => Promise<void>>();

  constructor(
    private readonly runtime: TaskRuntime<S, W>,
    private readonly subscription: Subscription,
    private readonly wire: Transport,
    private readonly pollMs: number,
    private readonly serverInfo: { name: string; version: string } | undefined,
  ) {}

  get sessionId(): string | undefined {
    return this.wire.sessionId;
  }

  setProtocolVersion = (version: string): void => this.wire.setProtocolVersion?.(version);

  async start(): Promise<void> {
    this.wire.onmessage = ((message: unknown, extra?: unknown) => {
      if (!this.intercept(message)) (this.onmessage as ((m: unknown, e?: unknown) => void) | undefined)?.(message, extra);
    }) as Transport["onmessage"];
    this.wire.onerror = (e) => this.onerror?.(e);
    this.wire.onclose = () => {
      // The requestor is gone: nothing can be sent any more.
      for (const stop of [...this.open.values()]) void stop(false);
      this.onclose?.();
    };
    await this.wire.start();
  }

  send(message: Parameters<Transport["send"]>[0], options?: Parameters<Transport["send"]>[1]): Promise<void> {
    return this.wire.send(message, options);
  }

  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map((stop) => stop(true)));
    await this.wire.close();
  }

  /** Serves a task subscribe request or the cancellation of one; false for anything else (the SDK's). */
  private intercept(message: unknown): boolean {
    if (!isObject(message)) return false;
    if (message.method === "notifications/cancelled" && !("id" in message)) {
      const requestId = isObject(message.params) ? message.params.requestId : undefined;
      const stop = typeof requestId === "string" || typeof requestId === "number" ? this.open.get(requestId) : undefined;
      if (stop === undefined) return false;
      void stop(false);
      return true;
    }
    const id = message.id;
    if ((typeof id !== "string" && typeof id !== "number") || subscribedTaskIds(this.subscription, message) === undefined) return false;
    void this.serve(id, isObject(message.params) ? message.params : {}).catch((e: unknown) => {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
      void this.reply(id, { code: -32603, message: "Internal error" });
    });
    return true;
  }

  private reply(id: string | number, error: { code: number; message: string; data?: unknown }): Promise<void> {
    return this.wire.send({ jsonrpc: "2.0", id, error } as never).catch(() => undefined);
  }

  private async serve(id: string | number, params: Record<string, unknown>): Promise<void> {
    const { runtime, subscription } = this;
    const plan = runtime.plan;
    const protocolVersion = protocolVersionOf(plan);
    const meta = isObject(params._meta) ? params._meta : {};
    const version = meta[PROTOCOL_VERSION_META_KEY];
    if (version !== protocolVersion) {
      return this.reply(id, { code: -32022, message: "Unsupported protocol version", data: { supported: [protocolVersion], requested: version ?? null } });
    }
    if (!isObject(meta[CLIENT_CAPABILITIES_META_KEY])) return this.reply(id, { code: -32602, message: "Invalid params: _meta needs the client capabilities" });
    if (!runtime.declaresClientCapability(params)) {
      const missing =
        plan.missingCapability(plan.gateErrorName, { method: subscription.subscribeMethod }) ??
        new TaskProtocolError("missingClientCapability", -32603, `The requestor did not declare the client capability ${subscription.subscribeMethod} needs`);
      return this.reply(id, missing.toJSON());
    }
    const taskIds = subscribedTaskIds(subscription, { method: subscription.subscribeMethod, params }) ?? [];
    const owner = runtime.ownerOf({ authInfo: undefined, sessionId: undefined, requestId: id } as unknown as ServerExtra);
    const accepted: string[] = [];
    for (const taskId of taskIds) {
      const found = await runtime.store.get(taskId);
      if (found?.state === "live" && found.record.owner === owner) accepted.push(taskId);
    }
    const ack: Record<string, unknown> = {};
    setAt(ack, subscription.subscribePath, accepted);
    let closed = false;
    const send = (method: string, p: Record<string, unknown>) => {
      if (closed) return;
      const message = { jsonrpc: "2.0", method, params: { ...p, _meta: { ...(isObject(p._meta) ? p._meta : {}), [SUBSCRIPTION_ID_META_KEY]: id } } };
      void this.wire.send(message as never).catch(() => undefined);
    };
    send(ACKNOWLEDGED, ack);
    const unwatch = watchTasks(runtime, subscription, accepted, send, this.pollMs);
    this.open.set(id, async (graceful) => {
      if (closed) return;
      closed = true;
      this.open.delete(id);
      unwatch();
      if (graceful) await this.wire.send(closingResponse(plan, id, this.serverInfo) as never).catch(() => undefined);
    });
  }
}
