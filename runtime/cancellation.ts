// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * The cancel and delete methods. Cancelling stops the work at once whatever
 * the declared timing; the reply is the task or an empty acknowledgement, and a
 * task already terminal gets the declared error or the same acknowledgement.
 */
import type { Result } from "@modelcontextprotocol/sdk/types.js";
import { invalidParams, TaskProtocolError } from "./errors.js";
import type { TaskRecord } from "./store.js";
import { requestor, type ServerExtra, type TaskHost } from "./task-context.js";
import { toWireTask, withRelated, withResultType } from "./wire.js";

/** The statusMessage of a task cancelled by the cancel method. */
export const CANCELLED_BY_REQUEST = "The task was cancelled by request.";

/** Answers the cancel method for a task the requestor may see. */
export async function answerCancel<S extends string>(host: TaskHost<S>, rec: TaskRecord): Promise<Result> {
  const plan = host.plan;
  const c = plan.behaviour.cancellation;
  const isTerminal = plan.descriptor.machine.isTerminal;
  const terminalError = (status: string) =>
    plan.error(c.terminalError, { status }, () => invalidParams(`Cannot cancel task: already in terminal status '${status}'`));
  let current: TaskRecord = rec;
  if (!isTerminal(rec.status as S)) {
    const updated = await host.cancel(rec.taskId, CANCELLED_BY_REQUEST);
    const found = updated ? undefined : await host.store.get(rec.taskId);
    current = updated ?? (found?.state === "live" ? found.record : rec);
  } else if (c.terminal === "error") {
    throw terminalError(rec.status);
  }
  // It ended on its own while this request cancelled it: terminal before the cancel, so an error too.
  if (c.terminal === "error" && !plan.isRole(current.status, "cancelled") && isTerminal(current.status as S)) throw terminalError(current.status);
  const related = plan.related.onCancel;
  const answer = (
    c.reply === "task"
      ? related
        ? withRelated(plan, toWireTask<Record<string, unknown>>(plan, current), current.taskId)
        : toWireTask(plan, current)
      : related
        ? withRelated(plan, {}, rec.taskId)
        : {}
  ) as Result;
  return withResultType(plan, answer);
}

/** Answers the delete method: refused outside the deletable statuses; a running task is cancelled first. */
export async function answerDelete<S extends string>(
  host: TaskHost<S>,
  rec: TaskRecord,
  owner: string,
  extra: ServerExtra,
  method: string,
  deletable: readonly string[],
): Promise<Result> {
  const plan = host.plan;
  if (!deletable.includes(rec.status)) {
    host.audit({ type: "denied", taskId: rec.taskId, ...requestor(owner, extra), method, reason: `deletion refused in status ${rec.status}` });
    throw plan.error(plan.behaviour.cancellation.deleteRefusedError, {}, () => new TaskProtocolError("deletionRefused", -32602, "Task deletion refused"));
  }
  if (!plan.descriptor.machine.isTerminal(rec.status as S)) await host.cancel(rec.taskId, "The task was deleted");
  await host.store.delete(rec.taskId);
  host.audit({ type: "deleted", taskId: rec.taskId, ...requestor(owner, extra), method: rec.method });
  return (plan.related.onDelete ? withRelated(plan, {}, rec.taskId) : {}) as Result;
}
