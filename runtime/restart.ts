// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * What a restart does to the tasks a stopped process left unfinished on a
 * durable store: no work is behind them any more, so each ends where the table
 * interpreter's restart event leads (the declared restart state first) with a
 * status message saying why. Ended tasks, their results and
 * their retention deadlines (absolute times) are left as they are.
 */
import type { TaskHost } from "./task-context.js";
import { internalError } from "./task-context.js";
import { machineOf, transition } from "./machine.js";
import { settleTasks, type TaskPatch, type TaskRecord } from "./store.js";

/** The status message of a task ended by a restart. */
export const RESTART_MESSAGE = "The server restarted before the task finished";

/**
 * Ends every live task whose status is not terminal and that this runtime is
 * not running itself (and that `only` accepts, where given). Returns the tasks it ended.
 */
export async function settleUnfinished<S extends string>(host: TaskHost<S>, only?: (record: TaskRecord) => boolean): Promise<TaskRecord[]> {
  const plan = host.plan;
  const d = plan.descriptor;
  const machine = machineOf(plan);
  const unfinished = d.states.all.filter((s) => !machine.isTerminal(s));
  if (unfinished.length === 0) return [];
  const internal = internalError(plan);
  const from = new Map<string, S>();
  const settled = await settleTasks(host.store, unfinished, (rec) => {
    if (host.active(rec.taskId) !== undefined || (only !== undefined && !only(rec))) return undefined;
    // The inputs a task waited for died with the process: no guard may count them.
    const patch: TaskPatch = { statusMessage: RESTART_MESSAGE };
    if (rec.inputRequests !== undefined) patch.inputRequests = {};
    const decision = transition(machine, rec, { type: "restart" }, { ctx: { pendingInputs: 0 }, patch, failure: { code: internal.code, message: RESTART_MESSAGE } });
    if (decision.kind !== "move") return undefined;
    if (decision.forced) {
      host.log({ level: "error", msg: "the transition table allows no ending after a restart; applied the restart state", taskId: rec.taskId, from: rec.status, to: decision.to });
    }
    from.set(rec.taskId, rec.status as S);
    return decision.patch;
  });
  for (const rec of settled) {
    host.audit({ type: "status", taskId: rec.taskId, owner: rec.owner, method: rec.method, from: from.get(rec.taskId), to: rec.status as S, reason: RESTART_MESSAGE });
    host.wake(rec.taskId);
  }
  if (settled.length > 0) host.log({ level: "info", msg: "tasks left unfinished by a stopped server ended", count: settled.length });
  return settled;
}
