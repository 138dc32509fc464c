// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Result delivery for the declared result method: answered only once the task
 * completed (an error before), or blocking until the task is terminal and then
 * answering exactly what the original request would have. (Specs that inline
 * results into the polled task have no result method: see toDetailedTask.)
 */
import type { Result } from "@modelcontextprotocol/sdk/types.js";
import { invalidParams, TaskProtocolError } from "./errors.js";
import { deliverInputs } from "./input.js";
import { relayInputs } from "./store-events.js";
import type { TaskRecord } from "./store.js";
import { internalError, notFoundError, requestor, type ServerExtra, type TaskHost, type TaskPeer } from "./task-context.js";
import { withRelated } from "./wire.js";

/** The stored result of a task, with the related-task meta where the spec declares it on results. */
function storedResult<S extends string>(host: TaskHost<S>, rec: TaskRecord & { result: Record<string, unknown> }): Result {
  return (host.plan.related.onResult ? withRelated(host.plan, rec.result, rec.taskId) : rec.result) as Result;
}

/** Error until completed: the result of a completed task, the declared not-ready error otherwise. */
export function resultWhenCompleted<S extends string>(host: TaskHost<S>, rec: TaskRecord, owner: string, extra: ServerExtra): Result {
  if (!host.plan.isRole(rec.status, "completed") || rec.result === undefined) {
    const status = rec.status;
    throw host.plan.error(host.plan.behaviour.results.notReadyError, { status }, () =>
      invalidParams(`Cannot retrieve result: Task status is '${status}'`),
    );
  }
  host.audit({ type: "result", taskId: rec.taskId, ...requestor(owner, extra), method: rec.method });
  return storedResult(host, rec as TaskRecord & { result: Record<string, unknown> });
}

/**
 * Block until terminal: waits for the task to end, carrying its input requests
 * on this response's stream meanwhile, then answers what the original request
 * would have: its result, or its JSON-RPC error. Local changes wake it at
 * once; the store is also polled at the task's poll interval, so a task that
 * ends on another instance sharing the store is seen too.
 */
export async function awaitResult<S extends string>(
  host: TaskHost<S>,
  first: TaskRecord,
  owner: string,
  extra: ServerExtra,
  method: string,
  peer: TaskPeer | undefined,
): Promise<Result> {
  const taskId = first.taskId;
  const isTerminal = host.plan.descriptor.machine.isTerminal;
  let changed = false;
  let wakeUp: (() => void) | undefined;
  const unwatch = host.watch(taskId, () => {
    changed = true;
    wakeUp?.();
  });
  // The work runs in another process sharing the store: its input requests come here through the store.
  const relay = peer && !host.active(taskId) ? relayInputs(host.store, taskId, peer, extra.requestId, host.inputTimeout) : undefined;
  try {
    let rec = first;
    for (;;) {
      if (isTerminal(rec.status as S)) return replay(host, rec, owner, extra);
      const active = host.active(taskId);
      if (active && peer) deliverInputs(active, peer, extra.requestId, host.inputTimeout);
      else if (relay && host.plan.isRole(rec.status, "input_required")) relay.ask();
      if (!changed) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            extra.signal.removeEventListener("abort", done);
            wakeUp = undefined;
            resolve();
          };
          const timer = setTimeout(done, Math.max(10, rec.pollFrequency));
          wakeUp = done;
          extra.signal.addEventListener("abort", done, { once: true });
        });
      }
      changed = false;
      // The requestor stopped waiting (its request was cancelled, or the session closed): nothing is answered.
      if (extra.signal.aborted) throw new TaskProtocolError("requestCancelled", -32800, "Request cancelled");
      rec = await host.lookup(taskId, owner, extra, method);
    }
  } finally {
    unwatch();
    relay?.stop();
  }
}

/** What the original request would have answered, for a terminal task. */
function replay<S extends string>(host: TaskHost<S>, rec: TaskRecord, owner: string, extra: ServerExtra): Result {
  const plan = host.plan;
  host.audit({ type: "result", taskId: rec.taskId, ...requestor(owner, extra), method: rec.method });
  if (plan.isRole(rec.status, "cancelled")) throw plan.error(plan.behaviour.results.cancelledError, {}, () => internalError(plan));
  if (rec.result !== undefined) return storedResult(host, rec as TaskRecord & { result: Record<string, unknown> });
  if (plan.behaviour.results.replaysErrors && rec.error !== undefined) {
    throw new TaskProtocolError("requestFailed", rec.error.code, rec.error.message, rec.error.data);
  }
  // A task that expired into the spec's expiry state has no result and never will: the spec's expired
  // error says so (else not found), never the server's own failure.
  if (plan.status.onExpiry !== undefined && rec.status === plan.status.onExpiry) {
    throw plan.error(plan.retention.expiredError, { status: rec.status }, () => notFoundError(plan));
  }
  throw internalError(plan);
}
