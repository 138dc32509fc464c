/**
 * Hand-written checks: the ceiling for the validator benchmarks. Each one
 * checks what the generated guard of its spec checks (the same fields, the
 * same date-time pattern), written the way a careful person would inline it.
 */
type Check = (v: any) => boolean;

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const isObj = (v: any): boolean => typeof v === "object" && v !== null && !Array.isArray(v);
const optNum = (v: any) => v === undefined || (typeof v === "number" && Number.isFinite(v));
const optInt = (v: any) => v === undefined || Number.isSafeInteger(v);
const optStr = (v: any) => v === undefined || typeof v === "string";
const optObj = (v: any) => v === undefined || isObj(v);

export interface HandChecks {
  getRequest: Check;
  getResult: Check;
  listResult?: Check;
}

function listOf(task: Check): Check {
  return (r) => {
    if (!isObj(r)) return false;
    const ts = r.tasks;
    if (!Array.isArray(ts)) return false;
    for (let i = 0; i < ts.length; i++) if (!task(ts[i])) return false;
    return optStr(r.nextCursor) && optObj(r._meta);
  };
}

// mcp-2025-11-25 ------------------------------------------------------------

const task20251125: Check = (t) =>
  isObj(t) &&
  typeof t.taskId === "string" &&
  (t.status === "working" || t.status === "input_required" || t.status === "completed" || t.status === "failed" || t.status === "cancelled") &&
  optStr(t.statusMessage) &&
  typeof t.createdAt === "string" &&
  DATE_TIME.test(t.createdAt) &&
  typeof t.lastUpdatedAt === "string" &&
  DATE_TIME.test(t.lastUpdatedAt) &&
  (t.ttl === null || (typeof t.ttl === "number" && Number.isFinite(t.ttl))) &&
  optNum(t.pollInterval);

const mcp20251125: HandChecks = {
  getRequest: (m) => isObj(m) && m.method === "tasks/get" && isObj(m.params) && typeof m.params.taskId === "string",
  getResult: (r) => task20251125(r) && optObj(r._meta),
  listResult: listOf(task20251125),
};

// sep-1686-draft -------------------------------------------------------------

const taskSep1686: Check = (t) =>
  isObj(t) &&
  typeof t.taskId === "string" &&
  (t.status === "submitted" ||
    t.status === "working" ||
    t.status === "input_required" ||
    t.status === "completed" ||
    t.status === "failed" ||
    t.status === "cancelled" ||
    t.status === "unknown") &&
  (t.keepAlive === null || (typeof t.keepAlive === "number" && Number.isFinite(t.keepAlive))) &&
  optNum(t.pollFrequency) &&
  optStr(t.error);

const sep1686: HandChecks = {
  getRequest: (m) => isObj(m) && m.method === "tasks/get" && isObj(m.params) && typeof m.params.taskId === "string" && optObj(m.params._meta),
  getResult: (r) => taskSep1686(r) && optObj(r._meta),
  listResult: listOf(taskSep1686),
};

// ext-tasks-2026-07-28 ---------------------------------------------------------

const ext20260728: HandChecks = {
  getRequest: (m) => isObj(m) && m.method === "tasks/get" && isObj(m.params) && typeof m.params.taskId === "string" && optObj(m.params._meta),
  getResult: (r) => {
    if (
      !(
        isObj(r) &&
        typeof r.taskId === "string" &&
        optStr(r.statusMessage) &&
        typeof r.createdAt === "string" &&
        DATE_TIME.test(r.createdAt) &&
        typeof r.lastUpdatedAt === "string" &&
        DATE_TIME.test(r.lastUpdatedAt) &&
        (r.ttlMs === null || Number.isSafeInteger(r.ttlMs)) &&
        optInt(r.pollIntervalMs) &&
        r.resultType === "complete" &&
        optObj(r._meta)
      )
    )
      return false;
    switch (r.status) {
      case "working":
      case "cancelled":
        return true;
      case "completed":
        return isObj(r.result);
      case "input_required":
        return isObj(r.inputRequests);
      case "failed":
        return isObj(r.error) && Number.isSafeInteger(r.error.code) && typeof r.error.message === "string";
      default:
        return false;
    }
  },
};

export const HAND: Record<string, HandChecks> = {
  "mcp-2025-11-25": mcp20251125,
  "sep-1686-draft": sep1686,
  "ext-tasks-2026-07-28": ext20260728,
};
