/**
 * Where the task objects are in the messages of each revision, and small stateful helpers the
 * catalogues build their bugs from: find and rewrite the tasks a server shows, remember the last
 * status it showed of each task, and tell the request that made a task.
 */
import { answers, clone, isNotification, type Ctx, type Msg } from "./mutant.js";

export const TERMINAL = new Set(["completed", "failed", "cancelled", "unknown"]);

/**
 * The task objects a server→client message shows: the result of tasks/get and tasks/cancel, each
 * entry of tasks/list, the params of a status notification, the task of a CreateTaskResult.
 * Returns the containers within `m` itself (rewrite a clone).
 */
export function tasksIn(m: Msg, ctx: Ctx): any[] {
  if (ctx.dir !== "toClient") return [];
  if (isNotification(m) && (m.method === "notifications/tasks/status" || m.method === "notifications/tasks") && m.params?.taskId) return [m.params];
  const r = m.result;
  if (!r || typeof r !== "object" || !ctx.request) return [];
  const method = ctx.request.method;
  if (method === "tasks/list" && Array.isArray(r.tasks)) return r.tasks.filter((t: any) => t && typeof t === "object");
  if ((method === "tasks/get" || method === "tasks/cancel") && typeof r.taskId === "string") return [r];
  if (r.task && typeof r.task === "object" && typeof r.task.taskId === "string") return [r.task];
  if (r.resultType === "task" && typeof r.taskId === "string") return [r];
  return [];
}

/** Rewrites each task object m shows (on a copy); passes m unchanged when it shows none. */
export function editTasks(m: Msg, ctx: Ctx, edit: (task: any) => void): Msg[] | undefined {
  if (tasksIn(m, ctx).length === 0) return undefined;
  const c = clone(m);
  for (const t of tasksIn(c, ctx)) edit(t);
  return [c];
}

/** Remembers the last status the server showed of each task, and the request id that made it. */
export class Tracker {
  status = new Map<string, string>();
  everStatus = new Map<string, Set<string>>();
  byRequest = new Map<string, string>();
  order: string[] = [];
  observe(m: Msg, ctx: Ctx): void {
    for (const t of tasksIn(m, ctx)) {
      if (!this.status.has(t.taskId)) this.order.push(t.taskId);
      if (typeof t.status === "string") {
        this.status.set(t.taskId, t.status);
        const s = this.everStatus.get(t.taskId) ?? new Set();
        this.everStatus.set(t.taskId, s.add(t.status));
      }
    }
    // sep-1686: the client names the task in the request; later revisions answer it in the CreateTaskResult.
    if (ctx.dir === "toServer" && m.id !== undefined) {
      const id = m.params?._meta?.["modelcontextprotocol.io/task"]?.taskId;
      if (typeof id === "string") {
        this.byRequest.set(JSON.stringify(m.id), id);
        if (!this.status.has(id)) this.order.push(id);
        this.status.set(id, this.status.get(id) ?? "submitted");
      }
    }
    if (ctx.dir === "toClient" && m.id !== undefined) for (const t of tasksIn(m, ctx)) if (ctx.request && !ctx.request.method.startsWith("tasks/")) this.byRequest.set(JSON.stringify(m.id), t.taskId);
  }
  taskOfRequest(id: unknown): string | undefined {
    return this.byRequest.get(JSON.stringify(id));
  }
  isTerminal(taskId: string): boolean {
    return TERMINAL.has(this.status.get(taskId) ?? "");
  }
}

/** The taskId a client request names in its params (tasks/get, tasks/result, tasks/cancel, ...). */
export const paramTaskId = (ctx: Ctx): string | undefined => (typeof ctx.request?.params?.taskId === "string" ? ctx.request.params.taskId : undefined);

/** A response of method `method` that is an error with code `code`. */
export const errorOf = (m: Msg, ctx: Ctx, method: string | RegExp, code?: number) =>
  answers(m, ctx, method) && m.error !== undefined && (code === undefined || m.error.code === code);

/** A response of method `method` that is a result. */
export const resultOf = (m: Msg, ctx: Ctx, method: string | RegExp) => answers(m, ctx, method) && m.result !== undefined;

/** Removes key from an object's _meta (on a copy of m's params or result), dropping an emptied _meta. */
export function withoutMeta(m: Msg, where: "params" | "result", key: string): Msg[] | undefined {
  const body = m[where];
  if (!body?._meta || !(key in body._meta)) return undefined;
  const c = clone(m);
  delete c[where]._meta[key];
  if (Object.keys(c[where]._meta).length === 0) delete c[where]._meta;
  return [c];
}

/** Every nth call is true (n ≥ 1), counted in state under key: a bug that strikes now and then. */
export function every(state: Record<string, any>, key: string, n: number): boolean {
  state[key] = (state[key] ?? 0) + 1;
  return state[key] % n === 0;
}

/** Rewrites every string under a "taskId" key, at any depth of m (on a copy). */
export function mapTaskIds(m: Msg, fn: (id: any) => any): Msg {
  const walk = (v: any): any => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== "object") return v;
    const o: any = {};
    for (const [k, x] of Object.entries(v)) o[k] = k === "taskId" ? fn(x) : walk(x);
    return o;
  };
  return walk(m);
}

/**
 * A listing that does not page: the first page of tasks/list is answered only once the proxy has followed every
 * page itself (its own requests, over stdio), with all the tasks on it and no next cursor.
 */
export function onePage(m: Msg, ctx: Ctx, s: Record<string, any>): Msg[] | undefined {
  const held: Map<string, { first: Msg; tasks: any[] }> = (s.onePage ??= new Map());
  const follow = (key: string, cursor: string) => {
    const id = `one-page-${(s.onePageN = (s.onePageN ?? 0) + 1)}`;
    held.set(id, held.get(key)!);
    if (key !== id) held.delete(key);
    ctx.inject("toServer", { jsonrpc: "2.0", id, method: "tasks/list", params: { cursor } });
  };
  if (!answers(m, ctx, "tasks/list")) return undefined;
  const own = typeof m.id === "string" && held.has(m.id);
  if (!own && (ctx.request?.params?.cursor !== undefined || !m.result)) return undefined;
  const key = own ? m.id : `first-${JSON.stringify(m.id)}`;
  if (!own) held.set(key, { first: m, tasks: [] });
  const h = held.get(key)!;
  if (!m.result) {
    held.delete(key);
    ctx.inject("toClient", h.first);
    return [];
  }
  h.tasks.push(...(m.result.tasks ?? []));
  if (typeof m.result.nextCursor === "string") {
    follow(key, m.result.nextCursor);
    return [];
  }
  held.delete(key);
  const all = clone(h.first);
  all.result.tasks = h.tasks;
  delete all.result.nextCursor;
  if (own) {
    ctx.inject("toClient", all);
    return [];
  }
  return [all];
}

/**
 * Input requests mixed up between tasks waiting at once: a server request for task X, sent while a request of task Y
 * is still unanswered, names Y (the related-task meta under `key`).
 */
export function otherWaitingTask(key: string) {
  return (m: Msg, ctx: Ctx, s: Record<string, any>): Msg[] | undefined => {
    const open: Map<string, string> = (s.open ??= new Map());
    if (ctx.dir === "toServer" && m.method === undefined && m.id !== undefined) open.delete(JSON.stringify(m.id));
    const id = m.params?._meta?.[key]?.taskId;
    if (ctx.dir !== "toClient" || typeof m.method !== "string" || m.id === undefined || typeof id !== "string") return undefined;
    const other = [...open.values()].find((x) => x !== id);
    open.set(JSON.stringify(m.id), id);
    if (other === undefined) return undefined;
    const c = clone(m);
    c.params._meta[key].taskId = other;
    return [c];
  };
}

/**
 * A server whose errors for a request it found invalid (its params, its task metadata, a cursor) say only "Error":
 * the cause it knew is not told (the errors conform expects by name keep theirs).
 */
export const genericInvalid = (m: Msg, ctx: Ctx): Msg[] | undefined =>
  ctx.dir === "toClient" && m.error?.code === -32602 && /^Invalid\b/.test(String(m.error.message)) ? [{ ...m, error: { ...m.error, message: "Error" } }] : undefined;
