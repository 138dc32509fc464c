/** Rule `related-task`: The results the spec lists carry the related-task _meta naming the task; those it excludes do not. */
import { defineRule, fail } from "../rule.js";
import { valueAt } from "../session.js";
import { isObject, type ModelTask, type World } from "../world.js";

export const relatedTask = defineRule({
  name: "related-task",
  description: "The results the spec lists carry the related-task _meta naming the task; those it excludes do not.",
  statements: [
    "mcp-2025-11-25/assoc.all-messages-server",
    "mcp-2025-11-25/assoc.no-meta-on-task-results",
    "mcp-2025-11-25/meta.all-messages-server",
    "mcp-2025-11-25/meta.not-on-task-operations-server",
    "mcp-2025-11-25/meta.on-result-response",
    "sep-1686-draft/associate.all-messages-server",
  ],
  reads: ["behaviour.relatedTask", "meta.*.key"],
});

/** The related-task `_meta` entry: on the results the spec lists it for (naming the task), absent where it says not. */
export function checkRelated(w: World, t: ModelTask, method: string, result: Record<string, unknown>): void {
  const rel = w.model.ir.behaviour.relatedTask;
  if (rel === false) return;
  const key = w.model.metaKey(rel.meta);
  if (key === undefined) return;
  const entry = valueAt(result, ["_meta", key]);
  if (rel.results.includes(method)) {
    if (!isObject(entry) || entry.taskId !== t.id) fail(relatedTask, `${method} result of task ${t.id} does not carry _meta["${key}"] naming it`, { taskId: t.id }, entry ?? "nothing");
  } else if ((rel.notOnResults ?? []).includes(method) && entry !== undefined) {
    fail(relatedTask, `${method} result carries _meta["${key}"], which the spec says it does not`, "nothing", entry);
  }
}
