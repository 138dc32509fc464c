/** Rule `retention`: the retention granted is within the spec's bounds, whatever the requestor asked. */
import { checked, defineRule, fail } from "../rule.js";
import type { Answer, JsonRpcError } from "../wire.js";
import { isLimitError, type ModelTask, type World } from "../world.js";

export const retention = defineRule({
  name: "retention",
  description:
    "The server may grant another retention than the one asked (a permission conform honours): the retention a task request is granted (behaviour.retention.field) is within the spec's bounds whatever was asked (0, a little, far too much): at most the declared max, of its declared type (rule types checks its minimum), or the request is refused as invalid; a task granted a retention is readable right after it is made; where an acknowledgement result shows the task, later answers (the get method's first among them, for a task granted another retention than it asked) show the retention it granted; where the spec keeps a task reachable its whole retention, the get method answers it until that retention has run out, and the server may fail or delete it once it ran out, not before (a task with a short retention is not shown expired sooner after it was asked for than the retention granted); once per run, a short retention asked, the task is gone some margin after it: the retention shown is the one applied.",
  statements: [
    "ext-tasks-2026-07-28/get.may-fail-after-ttl",
    "mcp-2025-11-25/resources.max-ttl",
    "mcp-2025-11-25/ttl.may-override",
    "mcp-2025-11-25/ttl.actual-in-get",
    "sep-1686-draft/cancel.may-delete",
    "sep-1686-draft/keep-alive.actual-in-get",
    "sep-1686-draft/keep-alive.may-delete",
    "sep-1686-draft/keep-alive.may-override",
    "sep-1686-draft/resources.max-keep-alive",
  ],
  reads: ["behaviour.retention", "behaviour.creation.retentionField"],
});

/**
 * The retention a task shows (behaviour.retention.field) is the one it was granted: where the acknowledgement shows
 * the task as granted (an acknowledgement result), every later answer shows that value.
 */
export function checkGranted(w: World, t: ModelTask, task: Record<string, unknown>, what: string): void {
  const ret = w.model.ir.behaviour.retention;
  if (ret !== false && (typeof task[ret.field] === "number" || task[ret.field] === null)) t.retained = task[ret.field] as number | null;
  if (ret === false || t.granted === undefined || !(ret.field in task)) return;
  checked(retention);
  const shown = task[ret.field];
  if (shown !== t.granted) fail(retention, `${what} shows task ${t.id} with ${ret.field} ${JSON.stringify(shown)}, but the acknowledgement granted it ${JSON.stringify(t.granted)}`, t.granted, shown);
}

/** When the tester saw the task's retention start, as the spec counts it: its end, or its acknowledgement. */
function retentionStart(countedFrom: string, t: ModelTask): number | undefined {
  return countedFrom === "terminal" ? t.endedAt : (t.answeredAt ?? t.acknowledgedAt);
}

/** A margin for the clocks of tester and server and the time a request takes. */
const MARGIN_MS = 2000;

/**
 * Where the spec keeps a task reachable for its whole retention (behaviour.retention.reachableWholeTime), the get
 * method answers it, not an error, until the retention it last showed has run out (counted from its creation or
 * its end, as the spec counts it). A task the tester deleted is not asked.
 */
export function checkReachable(w: World, t: ModelTask, a: Answer, what: string): void {
  const ret = w.model.ir.behaviour.retention;
  if (ret === false || !ret.reachableWholeTime || t.deleted || t.gone || a.error === undefined || isLimitError(w.model, a.error.code)) return;
  const kept = t.retained;
  if (kept === undefined || (typeof kept === "number" && kept < 2 * MARGIN_MS)) return;
  const from = retentionStart(ret.countedFrom, t);
  if (typeof kept === "number" && from !== undefined && Date.now() - from > kept - MARGIN_MS) return;
  checked(retention);
  fail(retention, `${what} of task ${t.id} answered an error while the task's ${ret.field} (${JSON.stringify(kept)} ms${ret.countedFrom === "terminal" ? " after its end" : ""}) has not run out`, "the task", a.error);
}

/**
 * Whether `error` answers a task whose retention (as it last showed it, counted as the spec counts it) may have run
 * out: the not-found or the declared expired error is then the server's right answer, and the task is gone from then
 * on. Any other error, or one before that time, is left to the caller's check.
 */
export function goneByRetention(w: World, t: ModelTask, error: JsonRpcError | undefined): boolean {
  const ret = w.model.ir.behaviour.retention;
  if (error === undefined || ret === false || typeof t.retained !== "number") return false;
  const codes = [w.model.error(ret.expiredError)?.code, w.model.notFound?.code];
  if (!codes.includes(error.code)) return false;
  const from = retentionStart(ret.countedFrom, t);
  if (from === undefined || Date.now() - from <= t.retained - MARGIN_MS) return false;
  t.gone = true;
  return true;
}
