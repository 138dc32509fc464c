/** Rule `timestamps`: every task shown carries createdAt (ISO 8601), which never changes; lastUpdatedAt is never before it, never goes back, and moves with a change of status. */
import type { IRType } from "../../ir.js";
import type { SpecModel } from "../model.js";
import { checked, defineRule, fail } from "../rule.js";
import type { ModelTask, World } from "../world.js";

export const timestamps = defineRule({
  name: "timestamps",
  description:
    "Every task object shown (get, list items, cancel reply, status notifications, acknowledgements) carries createdAt as an ISO 8601 time, which never changes; lastUpdatedAt is never before it, never goes back, and moves with a change of status.",
  statements: [
    "mcp-2025-11-25/ttl.created-at",
    "mcp-2025-11-25/ttl.last-updated-at",
  ],
  reads: ["behaviour.taskType"],
});

/** The task type's MCP timestamps, where it declares them (`createdOptional`: its createdAt may be left out). */
export function timeFields(m: SpecModel): { created?: string; updated?: string; createdOptional?: boolean } {
  const fields = new Set<string>();
  const optional = new Set<string>();
  const seen = new Set<string>();
  const collect = (t: IRType | undefined): void => {
    if (t === undefined) return;
    if (t.kind === "object") for (const f of t.fields) fields.add(f.name), f.optional && optional.add(f.name);
    else if (t.kind === "union") for (const v of t.variants) collect(v);
    else if (t.kind === "ref" && !seen.has(t.name)) {
      seen.add(t.name);
      collect(m.ir.types.find((d) => d.name === t.name)?.type);
    }
  };
  collect({ kind: "ref", name: m.ir.behaviour.taskType, nullable: false });
  return {
    ...(fields.has("createdAt") ? { created: "createdAt", ...(optional.has("createdAt") ? { createdOptional: true } : {}) } : {}),
    ...(fields.has("lastUpdatedAt") ? { updated: "lastUpdatedAt" } : {}),
  };
}

/** An ISO 8601 date and time (with its zone), as the MCP timestamps are written. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Every task object the server shows (a get, a list item, a cancel reply, a status notification's params, an
 * acknowledgement) carries createdAt as an ISO 8601 string, where the task type declares it.
 */
export function checkCreatedAt(w: World, task: Record<string, unknown>, what: string): void {
  const f = timeFields(w.model);
  if (f.created === undefined) return;
  const v = task[f.created];
  if (v === undefined && f.createdOptional === true) return;
  checked(timestamps);
  if (typeof v !== "string" || !ISO_8601.test(v) || Number.isNaN(Date.parse(v))) {
    fail(timestamps, `${what}: task ${JSON.stringify(task[w.model.idField])} shows ${f.created} ${v === undefined ? "not at all" : JSON.stringify(v)}; every task response carries it as an ISO 8601 time`, "an ISO 8601 date and time, e.g. 2025-11-25T10:30:00Z", v ?? "nothing");
  }
}

export const ms = (v: unknown): number => (typeof v === "string" ? Date.parse(v) : NaN);

/**
 * createdAt never changes; lastUpdatedAt is never before it and never goes back (compared with what the same
 * channel showed last: answers with answers, notifications with notifications, which may come on another stream).
 */
export function checkTimes(w: World, t: ModelTask, task: Record<string, unknown>, what: string, last: { value: string } | null = t.updated ?? null): void {
  const f = timeFields(w.model);
  const created = f.created === undefined ? undefined : task[f.created];
  const updated = f.updated === undefined ? undefined : task[f.updated];
  if (typeof created === "string") {
    if (t.createdAt !== undefined && created !== t.createdAt) fail(timestamps, `${what}: createdAt of task ${t.id} changed`, t.createdAt, created);
    t.createdAt = created;
  }
  if (typeof created === "string" || typeof updated === "string") checked(timestamps);
  if (Number.isNaN(ms(updated))) return;
  if (!Number.isNaN(ms(created)) && ms(updated) < ms(created)) fail(timestamps, `${what}: lastUpdatedAt of task ${t.id} is before its createdAt`, `at or after ${String(created)}`, updated);
  if (last !== null && ms(updated) < ms(last.value)) fail(timestamps, `${what}: lastUpdatedAt of task ${t.id} went back`, `at or after ${last.value}`, updated);
}
