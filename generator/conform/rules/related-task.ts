/** Rule `related-task`: the related-task _meta on the results, notifications and server requests the spec puts it on, naming the task. */
import { checked, defineRule, fail } from "../rule.js";
import { valueAt } from "../session.js";
import { isObject, type ModelTask, type World } from "../world.js";
import { checkInputShown } from "./input.js";

export const relatedTask = defineRule({
  name: "related-task",
  description:
    "The results the spec lists carry the related-task _meta naming the task, and so do a task's notifications (its progress, its log messages, its announcement) and the server's requests for it where the spec says they do; the results it excludes do not; a task method whose related-task meta names another task acts on the task its id param names.",
  statements: [
    "mcp-2025-11-25/assoc.all-messages-server",
    "mcp-2025-11-25/assoc.elicitation-same-task",
    "mcp-2025-11-25/assoc.ignore-meta-in-task-requests",
    "mcp-2025-11-25/assoc.no-meta-on-task-results",
    "mcp-2025-11-25/assoc.taskid-param-source-of-truth",
    "mcp-2025-11-25/input.related-task-on-request",
    "mcp-2025-11-25/meta.all-messages-server",
    "mcp-2025-11-25/meta.not-on-task-operations-server",
    "mcp-2025-11-25/meta.on-result-response",
    "mcp-2025-11-25/notifications.no-related-meta",
    "sep-1686-draft/associate.all-messages-server",
    "sep-1686-draft/associate.elicitation-same-task",
    "sep-1686-draft/input.related-task-on-request",
  ],
  reads: ["behaviour.relatedTask", "meta.*.key"],
});

/** The related-task `_meta` entry: on the results the spec lists it for (naming the task), absent where it says not. */
export function checkRelated(w: World, t: ModelTask | undefined, method: string, result: Record<string, unknown>): void {
  const rel = w.model.ir.behaviour.relatedTask;
  if (rel === false) return;
  const key = w.model.metaKey(rel.meta);
  if (key === undefined) return;
  if ((rel.results.includes(method) && t !== undefined) || (rel.notOnResults ?? []).includes(method)) checked(relatedTask);
  const entry = valueAt(result, ["_meta", key]);
  if (rel.results.includes(method) && t !== undefined) {
    if (!isObject(entry) || entry.taskId !== t.id) fail(relatedTask, `${method} result of task ${t.id} does not carry _meta["${key}"] naming it`, { taskId: t.id }, entry ?? "nothing");
  } else if ((rel.notOnResults ?? []).includes(method) && entry !== undefined) {
    fail(relatedTask, `${method} result carries _meta["${key}"], which the spec says it does not`, "nothing", entry);
  }
}

/** A notification of a task's (its work's progress and logs, its announcement): it names the task in the related-task meta, where the spec says. */
export function checkRelatedNotification(w: World, t: ModelTask, method: string, params: Record<string, unknown> | undefined): void {
  const rel = w.model.ir.behaviour.relatedTask;
  if (rel === false || !rel.notifications) return;
  const key = w.model.metaKey(rel.meta);
  if (key === undefined) return;
  checked(relatedTask);
  const entry = valueAt(params ?? {}, ["_meta", key]);
  if (!isObject(entry) || entry.taskId !== t.id) fail(relatedTask, `${method} of task ${t.id}'s work does not carry _meta["${key}"] naming it`, { taskId: t.id }, entry ?? "nothing");
}

/** The answer to the request that made a task, where that request stayed open until the end: it names the task. */
export function checkRelatedAnswer(w: World, t: ModelTask, method: string, result: Record<string, unknown>): void {
  const rel = w.model.ir.behaviour.relatedTask;
  if (rel === false) return;
  const key = w.model.metaKey(rel.meta);
  if (key === undefined) return;
  checked(relatedTask);
  const entry = valueAt(result, ["_meta", key]);
  if (!isObject(entry) || entry.taskId !== t.id) fail(relatedTask, `the ${method} that made task ${t.id} was answered without _meta["${key}"] naming it`, { taskId: t.id }, entry ?? "nothing");
}

/** A status notification names its task in its params: it never carries the related-task meta (the format's rule). */
export function checkStatusNotificationMeta(w: World, method: string, params: Record<string, unknown> | undefined): void {
  const rel = w.model.ir.behaviour.relatedTask;
  if (rel === false) return;
  const key = w.model.metaKey(rel.meta);
  if (key === undefined) return;
  checked(relatedTask);
  const entry = valueAt(params ?? {}, ["_meta", key]);
  if (entry !== undefined) fail(relatedTask, `${method} carries _meta["${key}"]; a status notification names its task in its params and carries no related-task meta`, "nothing", entry);
}

/**
 * The requests the server sent since the last look (elicitation, sampling: what the spec's input asks with): each
 * names one of the tester's tasks in the related-task meta, where the spec says they carry it.
 */
export function checkServerRequests(w: World): void {
  const rel = w.model.ir.behaviour.relatedTask;
  const input = w.model.ir.behaviour.input;
  const all = w.session.serverRequests;
  for (; w.serverRequestsSeen < all.length; w.serverRequestsSeen++) {
    const r = all[w.serverRequestsSeen]!;
    checkInputShown(w, r);
    // Input that reaches the requestor on a task's result stream is that task's: it names the task whose result
    // request was open (over stdio, one of those open).
    if (rel !== false && rel.requests && input !== false && input.via === "result-stream" && input.requests.includes(r.method) && r.relatedTaskId !== undefined && r.resultsOpen.length > 0) {
      checked(relatedTask);
      if (!r.resultsOpen.includes(r.relatedTaskId)) fail(relatedTask, `the server's ${r.method} names task ${r.relatedTaskId}, but came while only the result request of ${r.resultsOpen.join(", ")} was open`, r.resultsOpen, r.relatedTaskId);
    }
    if (rel === false || !rel.requests || input === false || !input.requests.includes(r.method)) continue;
    // Without the meta, a request is a task's only where it came while a request that carries a task's input was
    // open (the result method's stream, a creation request kept open): a plain tool may elicit too.
    if (r.relatedTaskId === undefined && !r.duringTask) continue;
    checked(relatedTask);
    if (r.relatedTaskId === undefined || !w.made.ids.has(r.relatedTaskId)) {
      fail(relatedTask, `the server's ${r.method} for a task does not name one of the requestor's tasks in the related-task meta`, "the id of the task that asks", r.relatedTaskId ?? "nothing");
    }
  }
}
