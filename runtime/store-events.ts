// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Changes made by other processes sharing the store (TaskStore.watch), applied
 * to what this process holds in memory about its tasks: the work of a task
 * another process cancelled (or deleted, or that expired there) is stopped,
 * whatever waits on a task (result streams, paused work) is woken, status
 * notifications reach the requestor from the process that holds its session,
 * and input crosses processes: answers to inline input requests given through
 * another process reach the work waiting for them here, and input requests of
 * work running here travel on a result stream another process holds (its
 * answers come back the same way, as store messages).
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { TaskProtocolError } from "./errors.js";
import { failInputs, undelivered } from "./input.js";
import type { LogEntry } from "./log.js";
import type { RuntimePlan } from "./plan.js";
import type { TaskChange, TaskRecord, TaskStore } from "./store.js";
import { cancelledError, type ActiveTask, type PendingInput, type TaskPeer } from "./task-context.js";

/** What of a runtime the changes reach. */
export interface StoreEventsHost {
  readonly plan: RuntimePlan<string>;
  readonly store: TaskStore;
  /** The tasks whose work runs in this process. */
  readonly running: ReadonlyMap<string, ActiveTask>;
  /** Wakes whatever waits on the task here. */
  wake(taskId: string): void;
  /** Sends the task's state to its requestor where the spec pushes status notifications. */
  pushStatus(rec: TaskRecord): void;
  /** The task no longer counts against its requestor's concurrency limit here. */
  release(taskId: string, owner: string): void;
  /** A notification the work of a task sent from another process (a worker), for its requestor. */
  relay?(taskId: string, notification: { method: string; params?: Record<string, unknown> }): void;
  /** Whether this process sends the status notifications of a task whose work runs elsewhere (a worker). */
  relaysStatus?(taskId: string): boolean;
  /** A task ended or went away through another process. */
  ended?(taskId: string): void;
  log(entry: LogEntry): void;
}

/**
 * Follows the store's changes for a runtime; returns the function that stops.
 * A store without `watch` (one process) has nothing to follow.
 */
export function followStoreChanges(host: StoreEventsHost): () => void {
  const store = host.store;
  if (typeof store.watch !== "function") return () => undefined;
  const origin = (store as { origin?: unknown }).origin;
  const isTerminal = (status: string) => host.plan.descriptor.machine.isTerminal(status as never);
  const apply = async (taskId: string, ends: boolean): Promise<void> => {
    const active = host.running.get(taskId);
    host.wake(taskId);
    if (active === undefined) {
      // A task made here whose work runs on a worker: its requestor hears of the new status from here.
      if (host.relaysStatus?.(taskId) === true) {
        const found = await store.get(taskId);
        if (found?.state === "live") host.pushStatus(found.record);
      }
      if (ends) host.ended?.(taskId);
      return;
    }
    const found = await store.get(taskId);
    const rec = found?.state === "live" ? found.record : undefined;
    if (rec !== undefined && !isTerminal(rec.status)) {
      host.pushStatus(rec);
      return;
    }
    // Ended, deleted or expired through another process: the work here stops.
    if (active.cancelled) return;
    active.cancelled = true;
    const cancelled = rec !== undefined && host.plan.isRole(rec.status, "cancelled");
    const reason = rec === undefined ? "The task is gone (deleted or expired)" : cancelled ? "The task was cancelled" : `The task ended (${rec.status})`;
    active.controller.abort(new Error(reason));
    // The inputs fail as the task ended: a task settled with an error is not reported as cancelled.
    const error = rec?.error;
    failInputs(
      active,
      rec === undefined ? new TaskProtocolError("expired", -32603, reason) : cancelled || error === undefined ? cancelledError() : new TaskProtocolError("requestFailed", error.code, error.message, error.data),
    );
    host.release(taskId, active.owner);
    if (rec !== undefined) host.pushStatus(rec);
    host.log({ level: "info", msg: "task stopped by a change made through another process", taskId, status: rec?.status ?? null });
  };
  /** Answers to inline input requests, given through another process, for work waiting here. */
  const answer = (taskId: string, answers: Record<string, unknown>) => {
    const active = host.running.get(taskId);
    if (active === undefined) return;
    for (const [key, value] of Object.entries(answers)) {
      const waiter = active.waiters.get(key);
      if (waiter === undefined) continue;
      active.waiters.delete(key);
      const parsed = waiter.schema.safeParse(value);
      if (parsed.success) waiter.resolve(parsed.data);
      else {
        // Accepted there unchecked (the asked schema lives here): the work learns it got no usable answer.
        host.log({ level: "warn", msg: "an input answer given through another process does not match what was asked", taskId, key });
        waiter.resolve(undefined);
      }
    }
  };
  /** Input requests of work running here, handed to a result stream in another process, by key. */
  const lent = new Map<string, { taskId: string; item: PendingInput }>();
  /** Another process holds a result stream for a task running here: the queued input requests go there. */
  const lend = (taskId: string, stream: unknown) => {
    // Forget what was settled here meanwhile (answered by timeout, cancelled, or the work ended).
    for (const [key, l] of lent) if (!(host.running.get(l.taskId)?.inputs.includes(l.item) ?? false)) lent.delete(key);
    const active = host.running.get(taskId);
    if (active === undefined || typeof stream !== "string" || !store.publish) return;
    const inputs: { key: string; request: PendingInput["request"] }[] = [];
    for (const item of active.inputs) {
      // A request the requestor serves as a task is followed through the peer that sent it: it stays here.
      if (item.state !== "queued" || item.follow) continue;
      const key = randomUUID();
      item.state = "sent";
      lent.set(key, { taskId, item });
      inputs.push({ key, request: item.request });
    }
    if (inputs.length === 0) return;
    store.publish(taskId, { inputsFor: stream, inputs }).catch((e: unknown) => {
      for (const { key } of inputs) giveBack(key);
      host.log({ level: "warn", msg: "could not hand input requests to another process", taskId, error: String(e) });
    });
  };
  const giveBack = (key: string) => {
    const item = lent.get(key)?.item;
    lent.delete(key);
    if (item !== undefined && !item.abort.signal.aborted) item.state = "queued";
  };
  /** What the requestor answered, through the other process's result stream. */
  const answered = (taskId: string, a: Record<string, unknown>) => {
    const key = typeof a.key === "string" ? a.key : "";
    const item = lent.get(key)?.item;
    if (item === undefined) return;
    if (a.undelivered === true) {
      giveBack(key);
      host.wake(taskId);
      return;
    }
    lent.delete(key);
    if (a.ok === true) {
      const parsed = item.schema.safeParse(a.value);
      if (parsed.success) item.settle({ ok: true, value: parsed.data });
      else item.settle({ ok: false, error: new TaskProtocolError("invalidAnswer", -32603, "The requestor's answer to an input request does not match what was asked") });
      return;
    }
    const e = (a.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
    const code = typeof e.code === "number" ? e.code : -32603;
    item.settle({ ok: false, error: new TaskProtocolError("inputFailed", code, typeof e.message === "string" ? e.message : "The input request failed", e.data) });
  };
  const onChange = (change: TaskChange) => {
    // Whichever runtime on this store published it: a worker sharing the store object (one origin) relays too.
    const n = change.kind === "message" ? (change.message?.notification as { method?: unknown; params?: unknown } | undefined) : undefined;
    if (typeof n?.method === "string") {
      host.relay?.(change.taskId, { method: n.method, ...(n.params !== null && typeof n.params === "object" ? { params: n.params as Record<string, unknown> } : {}) });
      return;
    }
    // Changes this process made were applied when it made them.
    if (change.origin === origin && change.kind !== "resync") return;
    if (change.kind === "message") {
      const m = change.message ?? {};
      const answers = m.inlineAnswers;
      if (answers !== null && typeof answers === "object") answer(change.taskId, answers as Record<string, unknown>);
      if (m.wantInputs !== undefined) lend(change.taskId, m.wantInputs);
      if (m.inputAnswer !== null && typeof m.inputAnswer === "object") answered(change.taskId, m.inputAnswer as Record<string, unknown>);
      return;
    }
    // A task's creation is no news to the process already running its work (the announcement may come after the
    // claim): nothing to read again.
    if (change.kind === "created" && host.running.has(change.taskId)) return;
    const ids = change.kind === "resync" ? [...host.running.keys()] : [change.taskId];
    const ends = change.kind === "deleted" || change.kind === "expired" || (change.status !== undefined && change.status !== null && isTerminal(change.status));
    for (const id of ids) {
      apply(id, ends).catch((e: unknown) => host.log({ level: "warn", msg: "could not apply a change made through another process", taskId: id, error: String(e) }));
    }
  };
  return store.watch(onChange);
}

const anyObject = z.record(z.string(), z.unknown());

/**
 * For a result stream held here for a task whose work runs in another process
 * (input delivered through result streams): `ask` has that process hand over
 * its queued input requests, which are sent on this stream; the answers go back
 * to it. Undefined where the store cannot carry messages. `stop` when the
 * stream's request ends: requests still travelling are withdrawn and reported
 * undelivered, so that another result stream may carry them.
 */
export function relayInputs(
  store: TaskStore,
  taskId: string,
  peer: TaskPeer,
  relatedRequestId: string | number,
  timeout: number,
): { ask(): void; stop(): void } | undefined {
  if (typeof store.watch !== "function" || typeof store.publish !== "function") return undefined;
  const publish = store.publish.bind(store);
  const stream = randomUUID();
  // Requests still travelling when the stream's request ends are withdrawn (reported undelivered).
  const ended = new AbortController();
  const unwatch = store.watch((change) => {
    const m = change.message;
    if (change.kind !== "message" || change.taskId !== taskId || m?.inputsFor !== stream || !Array.isArray(m.inputs)) return;
    for (const input of m.inputs as { key: string; request: { method: string; params?: Record<string, unknown> } }[]) {
      const reply = (inputAnswer: Record<string, unknown>) => publish(taskId, { inputAnswer: { key: input.key, ...inputAnswer } }).catch(() => undefined);
      peer.request(input.request, anyObject, { relatedRequestId, timeout, signal: ended.signal }).then(
        (value) => reply({ ok: true, value }),
        (error: unknown) => {
          if (undelivered(error)) return reply({ undelivered: true });
          const e = error as { code?: unknown; message?: unknown; data?: unknown };
          return reply({ ok: false, error: { code: typeof e.code === "number" ? e.code : -32603, message: String(e.message ?? error), data: e.data } });
        },
      );
    }
  });
  return {
    ask: () => void publish(taskId, { wantInputs: stream }).catch(() => undefined),
    stop: () => {
      unwatch();
      ended.abort(new Error("the result request ended"));
    },
  };
}
