// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * The task on the wire: the record as the requestor sees it (the spec's task
 * fields), the detailed task with what its status carries inlined, and the
 * small rewrites of answers the spec declares (result type marker, related-task
 * meta, the per-request client capability, the task id header).
 */
import { createHash } from "node:crypto";
import { invalidParams } from "./errors.js";
import { covers, isObject, type RuntimePlan } from "./plan.js";
import type { TaskRecord } from "./store.js";

/** The spec-independent part of the plan these functions read. */
type Plan = RuntimePlan<string>;

/**
 * Where requestors choose task ids, an id is the requestor's own: a task whose id another requestor
 * already holds is kept under the id, this mark and the requestor's scope (see scopedTaskId). The
 * mark is never part of a requestor's id (such ids are refused), and never shown: see wireTaskId.
 */
export const TASK_SCOPE_MARK = "\u001f";

/** The key of a requestor's task whose requestor-chosen id another requestor already holds. */
export function scopedTaskId(taskId: string, owner: string): string {
  return `${taskId}${TASK_SCOPE_MARK}${createHash("sha256").update(owner).digest("base64url").slice(0, 22)}`;
}

/** A task's id as its requestor knows it (the stored key without the scope that keeps it apart). */
export function wireTaskId(taskId: string): string {
  const at = taskId.indexOf(TASK_SCOPE_MARK);
  return at === -1 ? taskId : taskId.slice(0, at);
}

/** The ISO strings of times formatted lately (a bounded memo: cleared when full). */
const isoTimes = new Map<number, string>();

/**
 * `new Date(ms).toISOString()`, remembered: Date's formatting costs more than the rest of a
 * get answer, and a polled task's times stay the same from one poll to the next.
 */
export function isoTime(ms: number): string {
  let iso = isoTimes.get(ms);
  if (iso === undefined) {
    iso = new Date(ms).toISOString();
    if (isoTimes.size >= 4096) isoTimes.clear();
    isoTimes.set(ms, iso);
  }
  return iso;
}

/** The task as the requestor sees it: the fields of the spec's task type, filled from the record. */
export function toWireTask<W = Record<string, unknown>>(plan: Plan, rec: TaskRecord): W {
  const task = plan.task;
  const t: Record<string, unknown> = { [plan.idField]: wireTaskId(rec.taskId), [plan.statusField]: rec.status };
  if (task.statusMessageField !== undefined && rec.statusMessage !== undefined) t[task.statusMessageField] = rec.statusMessage;
  if (task.createdAt) t.createdAt = isoTime(rec.createdAt);
  if (task.lastUpdatedAt) t.lastUpdatedAt = isoTime(rec.updatedAt);
  if (plan.retention.field !== undefined) t[plan.retention.field] = rec.keepAlive;
  if (plan.polling.field !== undefined) t[plan.polling.field] = rec.pollFrequency;
  if (task.failureField !== undefined && rec.error !== undefined && plan.isRole(rec.status, "failed")) {
    t[task.failureField] = task.failureAsMessage ? rec.error.message : rec.error;
  }
  if (task.extras !== undefined) {
    // The task's own fields: what the work set, else the declared default (null: none yet).
    for (const name of task.extras) {
      const v = rec.fields !== undefined && Object.prototype.hasOwnProperty.call(rec.fields, name) ? rec.fields[name] : plan.descriptor.taskExtras[name];
      if (v !== null && v !== undefined) t[name] = v;
    }
  }
  return t as W;
}

/** The task with what its status carries inlined: the result (completed), the error (failed), the pending input requests (input status, where input is polled). */
export function toDetailedTask<W = Record<string, unknown>>(plan: Plan, rec: TaskRecord): W {
  const t = toWireTask<Record<string, unknown>>(plan, rec);
  if (plan.isRole(rec.status, "completed") && rec.result !== undefined) t[plan.results.resultField] = rec.result;
  if (plan.isRole(rec.status, "failed") && rec.error !== undefined) t[plan.results.errorField] = rec.error;
  if (plan.input.via === "inline-poll" && plan.isRole(rec.status, "input_required")) t[plan.input.requestsField] = rec.inputRequests ?? {};
  return t as W;
}

/** Marks a result as the request's own answer (the declared result type "complete") unless it already says what it is; unchanged where the spec has no result type. */
export function withResultType<R>(plan: Plan, result: R): R {
  const rt = plan.behaviour.resultType;
  if (rt === false || !isObject(result) || typeof result[rt.field] === "string") return result;
  return { ...result, [rt.field]: rt.complete } as R;
}

/** Adds the related-task meta key to a result; unchanged where the spec declares none. */
export function withRelated<R extends object>(plan: Plan, result: R, taskId: string): R {
  const key = plan.related.key;
  if (key === undefined) return result;
  const meta = isObject((result as { _meta?: unknown })._meta) ? (result as { _meta: Record<string, unknown> })._meta : {};
  return { ...result, _meta: { ...meta, [key]: { taskId: wireTaskId(taskId) } } };
}

/** Whether a request declares the client capability in its own `_meta` (per-request capabilities). */
export function declaresClientCapability(plan: Plan, params: unknown): boolean {
  const key = plan.creation.capabilityMetaKey;
  if (key === undefined || plan.clientCapability === undefined) return false;
  const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
  return covers(meta?.[key], plan.clientCapability);
}

/** An HTTP header value as sent: trimmed, `=?base64?...?=` decoded (undefined when absent or undecodable). */
export function decodeHeaderValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/i.exec(v);
  if (!m) return v;
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  // Node decodes leniently: only a value that encodes back the same is taken.
  return Buffer.from(decoded, "utf8").toString("base64").replace(/=+$/, "") === m[1]!.replace(/=+$/, "") ? decoded : undefined;
}

/** The request headers the SDK hands a handler over Streamable HTTP (absent on other transports). */
export interface RequestHeaders {
  readonly requestInfo?: { readonly headers?: Readonly<Record<string, string | string[] | undefined>> } | undefined;
}

/**
 * Over Streamable HTTP the declared header must repeat params.taskId (after
 * decoding and trimming); other transports carry no headers and pass.
 */
export function checkTaskIdHeader(plan: Plan, extra: RequestHeaders, params: unknown): void {
  const http = plan.behaviour.http;
  if (http === false) return;
  const headers = extra.requestInfo?.headers;
  if (headers === undefined) return;
  const taskId = isObject(params) ? params[plan.idField] : undefined;
  // A request without a string task id has no header to repeat: its params are invalid (-32602), checked next.
  if (typeof taskId !== "string") return;
  const raw = headers[http.header.toLowerCase()];
  const value = decodeHeaderValue(Array.isArray(raw) ? raw[0] : raw);
  if (value === undefined || value !== taskId) {
    throw plan.error(http.mismatchError, { header: http.header }, () => invalidParams("Header mismatch"));
  }
}
