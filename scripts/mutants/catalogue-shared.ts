/**
 * What the mutants of every spec are made of: the Mutant entry, the names a spec gives a task's id and
 * status, and the hooks that find tasks in messages, remember what the server showed, and rewrite it.
 */
import type { MutantContext, MutantHooks, Msg } from "./proxy.js";

export interface Mutant extends MutantHooks {
  name: string;
  /** A built-in spec name or a fixture spec (test/fixtures/specs/<name>.yaml). */
  spec: string;
  /** The rules any of which, breaking, show this bug. */
  rules: string[];
  bug: string;
  /** Options the demo server runs with (its --options), e.g. a small list page. */
  demo?: Record<string, unknown>;
}

export const isObject = (v: unknown): v is Msg => typeof v === "object" && v !== null && !Array.isArray(v);
export const resultOf = (m: Msg): Msg | undefined => (isObject(m.result) ? m.result : undefined);
export const paramsOf = (m: Msg | undefined): Msg => (m && isObject(m.params) ? m.params : {});
export const methodOf = (m: Msg | undefined): string | undefined => (m && typeof m.method === "string" ? m.method : undefined);

export interface Names {
  id: string;
  status: string;
}
export const M25: Names = { id: "taskId", status: "status" };
export const SEP = M25;
export const EXT = M25;
export const JOBS: Names = { id: "jobId", status: "state" };
export const LEAN: Names = { id: "runId", status: "status" };
export const RELAY: Names = { id: "relayId", status: "phase" };

/** Every task object in a value: itself, a `task` field, arrays of tasks. */
export function tasksIn(v: unknown, n: Names): Msg[] {
  if (!isObject(v)) return [];
  if (typeof v[n.id] === "string" && n.status in v) return [v];
  const out: Msg[] = [];
  for (const x of Object.values(v)) {
    if (isObject(x) && typeof x[n.id] === "string" && n.status in x) out.push(x);
    if (Array.isArray(x)) for (const y of x) if (isObject(y) && typeof y[n.id] === "string" && n.status in y) out.push(y);
  }
  return out;
}

/** Applies `fn` to every task in the answers to `methods` (all methods when empty) and in notifications. */
export function eachTask(n: Names, methods: string[], fn: (t: Msg, ctx: MutantContext, via: string) => void, notifications = true): MutantHooks["onMessage"] {
  return (m, req, ctx) => {
    const via = req ? methodOf(req) : methodOf(m);
    if (via === undefined) return m;
    if (req === undefined && !notifications) return m;
    if (methods.length && !methods.includes(via)) return m;
    const where = req ? resultOf(m) : paramsOf(m);
    for (const t of tasksIn(where, n)) fn(t, ctx, via);
    return m;
  };
}

export const TERMINAL = new Set(["completed", "failed", "cancelled", "unknown", "done", "expired", "finished", "broken", "stopped", "delivered", "bounced", "dropped"]);

/** Remembers which session made each task (from the answers and notifications that show it). */
function owners(n: Names, m: Msg, ctx: MutantContext, req: Msg | undefined): void {
  const where = req ? resultOf(m) : paramsOf(m);
  for (const t of tasksIn(where, n)) if (!ctx.state.has(`owner:${t[n.id]}`)) ctx.state.set(`owner:${t[n.id]}`, ctx.session);
  // A requestor-chosen id: known from the request itself.
  const meta = paramsOf(req)._meta;
  const asked = isObject(meta) && isObject(meta["modelcontextprotocol.io/task"]) ? meta["modelcontextprotocol.io/task"].taskId : undefined;
  if (typeof asked === "string" && !ctx.state.has(`owner:${asked}`)) ctx.state.set(`owner:${asked}`, ctx.session);
}

/** Whether the session of this request made the task: a bug of the owner's path, which other sessions never reach. */
export const owned = (ctx: MutantContext, id: string): boolean => ctx.state.get(`owner:${id}`) === ctx.session;

/** Serves requests naming another session's task as that session (the server forgot to check the requestor). */
export function crossSession(n: Names, methods: string[]): Pick<MutantHooks, "onRequest" | "onMessage"> {
  return {
    onMessage: (m, req, ctx) => {
      owners(n, m, ctx, req);
      return m;
    },
    onRequest: (m, ctx) => {
      const method = methodOf(m);
      if (method === undefined || !methods.includes(method)) return m;
      const id = paramsOf(m)[n.id];
      const owner = ctx.state.get(`owner:${String(id)}`);
      if (typeof owner === "string" && owner !== ctx.session) return { session: owner, message: m };
      return m;
    },
  };
}

/** Lists every session's tasks to everyone. */
export function listAll(n: Names, list: string): MutantHooks["onMessage"] {
  return (m, req, ctx) => {
    owners(n, m, ctx, req);
    const seen = (ctx.state.get("tasks") as Map<string, Msg> | undefined) ?? new Map<string, Msg>();
    ctx.state.set("tasks", seen);
    for (const t of tasksIn(req ? resultOf(m) : paramsOf(m), n)) seen.set(String(t[n.id]), { ...t });
    if (methodOf(req) !== list) return m;
    const r = resultOf(m);
    if (!r || !Array.isArray(r.tasks) || r.nextCursor !== undefined) return m;
    const mine = new Set((r.tasks as Msg[]).map((t) => t[n.id]));
    const foreign = [...seen.values()].filter((t) => !mine.has(t[n.id]) && ctx.state.get(`owner:${t[n.id]}`) !== ctx.session);
    return { ...m, result: { ...r, tasks: [...(r.tasks as Msg[]), ...foreign] } };
  };
}

/** Once a task was shown terminal, later answers show it in `to` after `ms`. */
export function flipAfter(n: Names, methods: string[], ms: number, to: (s: string) => string): MutantHooks["onMessage"] {
  return (m, req, ctx) => {
    if (!req || !methods.includes(methodOf(req) ?? "")) return m;
    for (const t of tasksIn(resultOf(m), n)) {
      const k = `ended:${t[n.id]}`;
      const status = String(t[n.status]);
      if (!TERMINAL.has(status)) continue;
      const at = ctx.state.get(k) as number | undefined;
      if (at === undefined) ctx.state.set(k, Date.now());
      else if (Date.now() - at >= ms) t[n.status] = to(status);
    }
    return m;
  };
}

/** An error answer to a request, in place of the server's. */
export const errorReply = (m: Msg, code: number, message: string) => ({ reply: { jsonrpc: "2.0", id: m.id, error: { code, message } } });
export const resultReply = (m: Msg, result: Msg) => ({ reply: { jsonrpc: "2.0", id: m.id, result } });

/** Rewrites the error answers to `methods` whose code is `code`. */
export function errorCode(n: Names, methods: string[], from: number, to: number, message?: string): MutantHooks["onMessage"] {
  return (m, req, ctx) => {
    lastStatus(n, m, ctx, req);
    if (!req || !methods.includes(methodOf(req) ?? "") || !isObject(m.error) || m.error.code !== from) return m;
    // Only lookups of an id the server never showed: a request whose params are refused, or a cancel of a
    // task that ended (refused with the same code), is another code path.
    const id = paramsOf(req)[n.id];
    if (typeof id !== "string" || ctx.state.has(`status:${id}`)) return m;
    return { ...m, error: { ...m.error, code: to, ...(message === undefined ? {} : { message }) } };
  };
}

/** Remembers the status each task was last shown in, and the task as it was shown. */
function lastStatus(n: Names, m: Msg, ctx: MutantContext, req: Msg | undefined): void {
  for (const t of tasksIn(req ? resultOf(m) : paramsOf(m), n)) {
    ctx.state.set(`status:${t[n.id]}`, t[n.status]);
    const copy = { ...t };
    delete copy._meta;
    delete copy.resultType;
    ctx.state.set(`task:${t[n.id]}`, copy);
  }
}

/** The outcome each task was made for, by the tool that made it. */
function toolOf(n: Names, m: Msg, ctx: MutantContext, req: Msg | undefined): void {
  if (methodOf(req) !== "tools/call") return;
  const name = paramsOf(req).name;
  for (const t of tasksIn(resultOf(m), n)) ctx.state.set(`tool:${t[n.id]}`, name);
  const meta = paramsOf(req)._meta;
  const asked = isObject(meta) && isObject(meta["modelcontextprotocol.io/task"]) ? meta["modelcontextprotocol.io/task"].taskId : undefined;
  if (typeof asked === "string") ctx.state.set(`tool:${asked}`, name);
}
export const chain =
  (...fs: Array<NonNullable<MutantHooks["onMessage"]>>): MutantHooks["onMessage"] =>
  async (m, req, ctx) => {
    let cur: Msg[] = [m];
    for (const f of fs) {
      const next: Msg[] = [];
      for (const x of cur) {
        const out = await f(x, req, ctx);
        if (out === null) continue;
        if (out === undefined) next.push(x);
        else next.push(...(Array.isArray(out) ? out : [out]));
      }
      cur = next;
    }
    return cur.length === 1 ? cur[0] : cur.length === 0 ? null : cur;
  };
export const track =
  (n: Names): NonNullable<MutantHooks["onMessage"]> =>
  (m, req, ctx) => {
    owners(n, m, ctx, req);
    lastStatus(n, m, ctx, req);
    toolOf(n, m, ctx, req);
    return m;
  };

/** Shifts an ISO time by ms. */
const shift = (iso: unknown, ms: number) => (typeof iso === "string" && !Number.isNaN(Date.parse(iso)) ? new Date(Date.parse(iso) + ms).toISOString() : iso);

/** Mutants over the three task methods every spec with timestamps has. */
export function timestampMutants(spec: string, n: Names, methods: string[]): Mutant[] {
  return [
    {
      name: `${spec}/lastUpdatedAt-frozen`,
      spec,
      rules: ["timestamps"],
      bug: "lastUpdatedAt is set at creation and never written again",
      onMessage: eachTask(n, methods, (t) => {
        if ("createdAt" in t) t.lastUpdatedAt = t.createdAt;
      }),
    },
    {
      name: `${spec}/lastUpdatedAt-before-createdAt`,
      spec,
      rules: ["timestamps"],
      bug: "lastUpdatedAt is written from another clock, a second behind the one createdAt is read from",
      onMessage: eachTask(n, methods, (t) => {
        t.lastUpdatedAt = shift(t.createdAt, -1000);
      }),
    },
    {
      name: `${spec}/createdAt-rewritten`,
      spec,
      rules: ["timestamps"],
      bug: "createdAt is overwritten with the time of every update",
      onMessage: eachTask(n, methods, (t) => {
        t.createdAt = t.lastUpdatedAt;
        t.lastUpdatedAt = shift(t.lastUpdatedAt, 0);
      }),
    },
  ];
}
