// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * What a restart does to the tasks a stopped process left unfinished on a
 * durable store: no work is behind them any more, so each ends in the declared
 * restart state (plan.status.onRestart) with a status message saying why,
 * through a transition the spec's table allows. Ended tasks, their results and
 * their retention deadlines (absolute times) are left as they are.
 */
import type { TaskHost } from "./task-context.js";
import { internalError } from "./task-context.js";
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
  const machine = d.machine;
  const unfinished = d.states.all.filter((s) => !machine.isTerminal(s));
  if (unfinished.length === 0) return [];
  // The inputs a task waited for died with the process: no guard may count them.
  const ctx = { pendingInputs: 0 };
  const s = plan.status;
  // The declared restart state first; where the table forbids it from some state, the declared failure
  // outcomes in turn: a task with no work behind it must end, never stay running forever.
  const candidates = [...new Set([s.onRestart, s.onUnexpected, s.onProtocolError, s.failed, s.cancelled])].filter((t) => t !== undefined && machine.isTerminal(t));
  const internal = internalError(plan);
  const from = new Map<string, S>();
  const settled = await settleTasks(host.store, unfinished, (rec) => {
    if (host.active(rec.taskId) !== undefined || (only !== undefined && !only(rec))) return undefined;
    const status = rec.status as S;
    let to = candidates.find((t) => machine.canTransition(status, t, ctx));
    if (to === undefined) {
      // No declared outcome is reachable by the table: the restart state is applied anyway (and logged),
      // since leaving the task in a running state would promise work that will never happen.
      to = s.onRestart;
      host.log({ level: "error", msg: "the transition table allows no ending after a restart; applied the restart state", taskId: rec.taskId, from: status, to });
    }
    const now = Date.now();
    const patch: TaskPatch = { status: to, updatedAt: now, terminalAt: now, pendingInputs: 0, statusMessage: RESTART_MESSAGE };
    if (rec.inputRequests !== undefined) patch.inputRequests = {};
    if (plan.isRole(to, "failed")) patch.error = { code: internal.code, message: RESTART_MESSAGE };
    // Retention as a move to a terminal state sets it: counted from now where it counts from the end,
    // else kept at its absolute deadline (set from creation where expiry is the runtime's own event).
    if (rec.keepAlive !== null && plan.retention.countedFrom === "terminal") patch.expiresAt = now + rec.keepAlive;
    else if (rec.keepAlive !== null && s.onExpiry !== undefined && rec.expiresAt === null) patch.expiresAt = Math.max(now, rec.createdAt + rec.keepAlive);
    from.set(rec.taskId, status);
    return patch;
  });
  for (const rec of settled) {
    host.audit({ type: "status", taskId: rec.taskId, owner: rec.owner, method: rec.method, from: from.get(rec.taskId), to: rec.status as S, reason: RESTART_MESSAGE });
    host.wake(rec.taskId);
  }
  if (settled.length > 0) host.log({ level: "info", msg: "tasks left unfinished by a stopped server ended", count: settled.length });
  return settled;
}
