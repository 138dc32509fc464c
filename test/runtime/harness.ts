/**
 * Helpers for the runtime's unit tests: a runtime on a built-in spec's
 * descriptor, and a minimal SDK request context (`extra`) that records what the
 * runtime sends back on the request's stream.
 */
import { TaskRuntime, type ServerExtra, type TaskServerOptions } from "../../runtime/server.js";
import { descriptorOf, type BuiltinSpec } from "./descriptors.js";

export interface FakeExtra extends ServerExtra {
  /** Notifications sent on the request's stream. */
  readonly sent: Array<{ method: string; params?: Record<string, unknown> }>;
  /** Requests sent on the request's stream. */
  readonly requests: Array<{ method: string; params?: Record<string, unknown> }>;
  /** Cancels the request. */
  abort(): void;
}

let nextId = 1;

/** A request context: session `sessionId`, no auth unless given; `answer` answers requests sent to the requestor. */
export function fakeExtra(
  init: { sessionId?: string; clientId?: string; headers?: Record<string, string>; answer?: (req: { method: string; params?: unknown }) => unknown } = {},
): FakeExtra {
  const controller = new AbortController();
  const sent: FakeExtra["sent"] = [];
  const requests: FakeExtra["requests"] = [];
  const extra = {
    signal: controller.signal,
    requestId: nextId++,
    sessionId: init.sessionId ?? "s1",
    authInfo: init.clientId === undefined ? undefined : { token: "t", clientId: init.clientId, scopes: [] },
    requestInfo: init.headers === undefined ? undefined : { headers: init.headers },
    _meta: undefined,
    sent,
    requests,
    abort: () => controller.abort(),
    sendNotification: async (n: { method: string; params?: Record<string, unknown> }) => {
      sent.push(n);
    },
    sendRequest: async (r: { method: string; params?: Record<string, unknown> }) => {
      requests.push(r);
      if (!init.answer) throw new Error("no answer");
      return init.answer(r);
    },
  };
  return extra as unknown as FakeExtra;
}

/** A runtime on a built-in spec, quiet (no audit, no log) unless told otherwise. */
export async function runtimeOf(spec: BuiltinSpec, options: TaskServerOptions = {}): Promise<TaskRuntime> {
  return new TaskRuntime(await descriptorOf(spec), { audit: false, log: () => undefined, ...options });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a value other than undefined (or times out). */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, ms = 2000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await sleep(5);
  }
}

/** A deferred: a promise and its resolve. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The `_meta` with which an ext-tasks style request declares the per-request client capability (and `more` capabilities). */
export async function capabilityMeta(spec: BuiltinSpec, more: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const d = await descriptorOf(spec);
  const b = d.behaviour;
  if (b.capabilities.client === false || b.creation.capabilityMeta === undefined) return {};
  let v: unknown = b.capabilities.client.value;
  for (const k of [...b.capabilities.client.path].reverse()) v = { [k]: v };
  return { [d.meta[b.creation.capabilityMeta] ?? b.creation.capabilityMeta]: { ...(v as Record<string, unknown>), ...more } };
}
