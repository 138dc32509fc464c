/**
 * The mutant catalogue: each entry is one bug a real server could have, simulated on the wire by the proxy
 * (scripts/mutants/proxy.ts) in front of the project's demo server, with the conform rule(s) that must catch
 * it. The entries know their spec's names (methods, fields): they are fixtures of particular servers.
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

const isObject = (v: unknown): v is Msg => typeof v === "object" && v !== null && !Array.isArray(v);
const resultOf = (m: Msg): Msg | undefined => (isObject(m.result) ? m.result : undefined);
const paramsOf = (m: Msg | undefined): Msg => (m && isObject(m.params) ? m.params : {});
const methodOf = (m: Msg | undefined): string | undefined => (m && typeof m.method === "string" ? m.method : undefined);

interface Names {
  id: string;
  status: string;
}
const M25: Names = { id: "taskId", status: "status" };
const SEP = M25;
const EXT = M25;
const JOBS: Names = { id: "jobId", status: "state" };
const LEAN: Names = { id: "runId", status: "status" };
const RELAY: Names = { id: "relayId", status: "phase" };

/** Every task object in a value: itself, a `task` field, arrays of tasks. */
function tasksIn(v: unknown, n: Names): Msg[] {
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
function eachTask(n: Names, methods: string[], fn: (t: Msg, ctx: MutantContext, via: string) => void, notifications = true): MutantHooks["onMessage"] {
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

const TERMINAL = new Set(["completed", "failed", "cancelled", "unknown", "done", "expired", "finished", "broken", "stopped", "delivered", "bounced", "dropped"]);

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
const owned = (ctx: MutantContext, id: string): boolean => ctx.state.get(`owner:${id}`) === ctx.session;

/** Serves requests naming another session's task as that session (the server forgot to check the requestor). */
function crossSession(n: Names, methods: string[]): Pick<MutantHooks, "onRequest" | "onMessage"> {
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
function listAll(n: Names, list: string): MutantHooks["onMessage"] {
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
function flipAfter(n: Names, methods: string[], ms: number, to: (s: string) => string): MutantHooks["onMessage"] {
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
const errorReply = (m: Msg, code: number, message: string) => ({ reply: { jsonrpc: "2.0", id: m.id, error: { code, message } } });
const resultReply = (m: Msg, result: Msg) => ({ reply: { jsonrpc: "2.0", id: m.id, result } });

/** Rewrites the error answers to `methods` whose code is `code`. */
function errorCode(n: Names, methods: string[], from: number, to: number, message?: string): MutantHooks["onMessage"] {
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
const chain =
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
const track =
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
function timestampMutants(spec: string, n: Names, methods: string[]): Mutant[] {
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

// ---------------------------------------------------------------------------
// mcp-2025-11-25
// ---------------------------------------------------------------------------
const m25 = "mcp-2025-11-25";
const M25_TASK_METHODS = ["tasks/get", "tasks/list", "tasks/cancel", "tools/call", "notifications/tasks/status"];

const mcp20251125: Mutant[] = [
  {
    name: `${m25}/result-of-failed-as-success`,
    spec: m25,
    rules: ["results"],
    bug: "tasks/result of a task whose tool returned isError answers the content with isError false",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) === "tasks/result" && r && r.isError === true) return { ...m, result: { ...r, isError: false } };
      return m;
    },
  },
  {
    name: `${m25}/result-of-cancelled-as-success`,
    spec: m25,
    rules: ["results"],
    bug: "tasks/result of a cancelled task answers an empty tool result instead of the declared error",
    onMessage: (m, req) => {
      if (methodOf(req) === "tasks/result" && isObject(m.error) && m.error.code === -32603 && String(m.error.message).includes("cancelled")) {
        return { jsonrpc: "2.0", id: m.id, result: { content: [], _meta: { "io.modelcontextprotocol/related-task": { taskId: paramsOf(req).taskId } } } };
      }
      return m;
    },
  },
  {
    name: `${m25}/result-of-protocol-error-as-success`,
    spec: m25,
    rules: ["results"],
    bug: "tasks/result of a task whose request failed with a JSON-RPC error answers a success instead of replaying the error",
    onMessage: (m, req) => {
      if (methodOf(req) === "tasks/result" && isObject(m.error) && String(m.error.message).includes("rate limit")) {
        return { jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "done" }], _meta: { "io.modelcontextprotocol/related-task": { taskId: paramsOf(req).taskId } } } };
      }
      return m;
    },
  },
  {
    name: `${m25}/terminal-reopens`,
    spec: m25,
    rules: ["terminal"],
    bug: "a task's status is recomputed from its work after it ended: a completed task reads as working again a moment later",
    onMessage: flipAfter(M25, ["tasks/get"], 250, () => "working"),
  },
  {
    name: `${m25}/terminal-changes`,
    spec: m25,
    rules: ["terminal"],
    bug: "a late failure overwrites a terminal status: completed becomes failed a moment after it was shown",
    onMessage: flipAfter(M25, ["tasks/get", "tasks/list"], 250, (s) => (s === "failed" ? "completed" : "failed")),
  },
  {
    name: `${m25}/status-notification-contradicts`,
    spec: m25,
    rules: ["notifications"],
    bug: "the status notification is built from a stale copy: it announces a terminal status other than the task's",
    onMessage: (m) => {
      if (methodOf(m) !== "notifications/tasks/status") return m;
      const p = paramsOf(m);
      if (p.status === "completed") return { ...m, params: { ...p, status: "failed" } };
      if (p.status === "failed") return { ...m, params: { ...p, status: "completed" } };
      return m;
    },
  },
  {
    name: `${m25}/status-notification-after-end`,
    spec: m25,
    rules: ["notifications"],
    bug: "a status notification queued before the end is sent after the terminal one (it says working)",
    onMessage: (m) => {
      if (methodOf(m) !== "notifications/tasks/status") return m;
      const p = paramsOf(m);
      if (TERMINAL.has(String(p.status))) return [m, { ...m, params: { ...p, status: "working" } }];
      return m;
    },
  },
  {
    name: `${m25}/status-notifications-reordered`,
    spec: m25,
    rules: ["notifications"],
    bug: "status notifications go out of order: the input_required one is held back until after the task ended",
    onMessage: (m, _req, ctx) => {
      if (methodOf(m) !== "notifications/tasks/status") return m;
      const p = paramsOf(m);
      const held = `held:${p.taskId}`;
      if (p.status === "input_required") {
        ctx.state.set(held, m);
        return null;
      }
      const h = ctx.state.get(held) as Msg | undefined;
      if (h && TERMINAL.has(String(p.status))) {
        ctx.state.delete(held);
        return [m, h];
      }
      return m;
    },
  },
  {
    name: `${m25}/status-notification-malformed`,
    spec: m25,
    rules: ["notifications", "types"],
    bug: "the status notification omits createdAt (the task is serialised by hand)",
    onMessage: (m) => {
      if (methodOf(m) !== "notifications/tasks/status") return m;
      const p = { ...paramsOf(m) };
      delete p.createdAt;
      return { ...m, params: p };
    },
  },
  {
    name: `${m25}/list-other-sessions`,
    spec: m25,
    rules: ["isolation"],
    bug: "tasks/list reads the whole store, not the requestor's tasks",
    onMessage: listAll(M25, "tasks/list"),
  },
  { name: `${m25}/get-other-session`, spec: m25, rules: ["isolation"], bug: "tasks/get finds a task by id alone, whoever asks", ...crossSession(M25, ["tasks/get"]) },
  { name: `${m25}/cancel-other-session`, spec: m25, rules: ["isolation"], bug: "tasks/cancel finds a task by id alone, whoever asks", ...crossSession(M25, ["tasks/cancel"]) },
  { name: `${m25}/result-other-session`, spec: m25, rules: ["isolation"], bug: "tasks/result finds a task by id alone, whoever asks", ...crossSession(M25, ["tasks/result"]) },
  ...timestampMutants(m25, M25, M25_TASK_METHODS),
  {
    name: `${m25}/progress-after-end`,
    spec: m25,
    rules: ["progress-token"],
    bug: "a progress notification of the work is flushed after the task ended",
    onMessage: (m, req, ctx) => {
      if (methodOf(req) === "tools/call") {
        const token = isObject(paramsOf(req)._meta) ? (paramsOf(req)._meta as Msg).progressToken : undefined;
        const task = tasksIn(resultOf(m), M25)[0];
        if (token !== undefined && task) ctx.state.set(`token:${task.taskId}`, token);
      }
      for (const t of tasksIn(req ? resultOf(m) : paramsOf(m), M25)) {
        const token = ctx.state.get(`token:${t.taskId}`);
        if (token !== undefined && TERMINAL.has(String(t.status)) && !ctx.state.has(`late:${t.taskId}`)) {
          ctx.state.set(`late:${t.taskId}`, true);
          const session = ctx.session;
          setTimeout(() => ctx.push({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 1e6, total: 1e6 } }, session), 500);
        }
      }
      return m;
    },
  },
  {
    name: `${m25}/progress-goes-back`,
    spec: m25,
    rules: ["progress-token"],
    bug: "progress is reported per step, not cumulatively: its value goes down",
    onMessage: (m, _req, ctx) => {
      if (methodOf(m) !== "notifications/progress") return m;
      const p = paramsOf(m);
      const k = `n:${String(p.progressToken)}`;
      const n = ((ctx.state.get(k) as number | undefined) ?? 0) + 1;
      ctx.state.set(k, n);
      return { ...m, params: { ...p, progress: n % 2 === 0 ? 0 : p.progress } };
    },
  },
  {
    name: `${m25}/cancel-served-unadvertised`,
    spec: m25,
    rules: ["capabilities"],
    bug: "the server drops tasks.cancel from its capabilities but still serves tasks/cancel",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "initialize" || !r || !isObject(r.capabilities) || !isObject(r.capabilities.tasks)) return m;
      const tasks = { ...r.capabilities.tasks };
      delete tasks.cancel;
      return { ...m, result: { ...r, capabilities: { ...r.capabilities, tasks } } };
    },
  },
  {
    name: `${m25}/list-served-unadvertised`,
    spec: m25,
    rules: ["capabilities"],
    bug: "the server drops tasks.list from its capabilities but still serves tasks/list",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "initialize" || !r || !isObject(r.capabilities) || !isObject(r.capabilities.tasks)) return m;
      const tasks = { ...r.capabilities.tasks };
      delete tasks.list;
      return { ...m, result: { ...r, capabilities: { ...r.capabilities, tasks } } };
    },
  },
  {
    name: `${m25}/augments-unadvertised`,
    spec: m25,
    rules: ["capabilities"],
    bug: "the server does not declare task-augmented tools/call (tasks.requests) but makes tasks of tool calls",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "initialize" || !r || !isObject(r.capabilities) || !isObject(r.capabilities.tasks)) return m;
      const tasks = { ...r.capabilities.tasks };
      delete tasks.requests;
      return { ...m, result: { ...r, capabilities: { ...r.capabilities, tasks } } };
    },
  },
  {
    name: `${m25}/no-tasks-capability`,
    spec: m25,
    rules: ["capabilities"],
    bug: "the server forgets to declare the tasks capability",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "initialize" || !r || !isObject(r.capabilities)) return m;
      const caps = { ...r.capabilities };
      delete caps.tasks;
      return { ...m, result: { ...r, capabilities: caps } };
    },
  },
  {
    name: `${m25}/list-no-next-cursor`,
    spec: m25,
    rules: ["listing"],
    bug: "tasks/list cuts the list at the page size and never says there is more",
    demo: { pageSize: 2 },
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "tasks/list" || !r) return m;
      const copy = { ...r };
      delete copy.nextCursor;
      return { ...m, result: copy };
    },
  },
  {
    name: `${m25}/list-cursor-ignored`,
    spec: m25,
    rules: ["listing"],
    bug: "tasks/list ignores the cursor and serves the first page again",
    demo: { pageSize: 2 },
    onRequest: (m) => {
      if (methodOf(m) !== "tasks/list" || paramsOf(m).cursor === "conform-forged-cursor") return m;
      const p = { ...paramsOf(m) };
      delete p.cursor;
      return { ...m, params: p };
    },
  },
  {
    name: `${m25}/list-page-loses-last`,
    spec: m25,
    rules: ["listing"],
    bug: "an off-by-one in paging: the last task of each full page is on neither page",
    demo: { pageSize: 2 },
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "tasks/list" || !r || !Array.isArray(r.tasks) || typeof r.nextCursor !== "string") return m;
      return { ...m, result: { ...r, tasks: (r.tasks as Msg[]).slice(0, -1) } };
    },
  },
  {
    name: `${m25}/list-forged-cursor-accepted`,
    spec: m25,
    rules: ["listing"],
    bug: "a cursor that does not decode is read as the start of the list",
    onRequest: (m) => {
      if (methodOf(m) !== "tasks/list" || paramsOf(m).cursor !== "conform-forged-cursor") return m;
      return { ...m, params: {} };
    },
  },
  {
    name: `${m25}/cancel-terminal-succeeds`,
    spec: m25,
    rules: ["cancellation"],
    bug: "tasks/cancel of a task already terminal answers the task instead of the declared error",
    onMessage: chain(track(M25), (m, req, ctx) => {
      if (methodOf(req) !== "tasks/cancel" || !isObject(m.error) || !String(m.error.message).startsWith("Cannot cancel")) return m;
      return { jsonrpc: "2.0", id: m.id, result: ctx.state.get(`task:${String(paramsOf(req).taskId)}`) as Msg };
    }),
  },
  {
    name: `${m25}/cancel-acknowledged-not-done`,
    spec: m25,
    rules: ["cancellation", "terminal"],
    bug: "tasks/cancel answers the task as cancelled but never stops it",
    onRequest: (m, ctx) => {
      // Only the owning session's: a cancel from another session is refused as before (not this bug).
      if (methodOf(m) !== "tasks/cancel" || !owned(ctx, String(paramsOf(m).taskId))) return m;
      const status = ctx.state.get(`status:${String(paramsOf(m).taskId)}`);
      if (status === undefined || TERMINAL.has(String(status))) return m;
      const task = ctx.state.get(`task:${String(paramsOf(m).taskId)}`) as Msg;
      return resultReply(m, { ...task, status: "cancelled", lastUpdatedAt: new Date().toISOString() });
    },
    onMessage: track(M25),
  },
  {
    name: `${m25}/unknown-id-internal-error`,
    spec: m25,
    rules: ["unknown-id"],
    bug: "a lookup of an unknown id throws, answered -32603",
    onMessage: errorCode(M25, ["tasks/get", "tasks/result", "tasks/cancel"], -32602, -32603, "Internal error"),
  },
  {
    name: `${m25}/not-found-message`,
    spec: m25,
    rules: ["error-message"],
    bug: "the not-found error carries the server's own wording",
    onMessage: (m, req) => {
      if (!req || !isObject(m.error) || m.error.message !== "Failed to retrieve task: Task not found") return m;
      return { ...m, error: { ...m.error, message: `Task ${String(paramsOf(req).taskId)} not found` } };
    },
  },
  {
    name: `${m25}/params-internal-error`,
    spec: m25,
    rules: ["params"],
    bug: "params are validated by code that throws: a missing taskId is answered -32603",
    onRequest: (m) => {
      const method = methodOf(m);
      // The methods that read a taskId (tasks/list takes none).
      if (!method?.startsWith("tasks/") || method === "tasks/list" || typeof paramsOf(m).taskId === "string") return m;
      return errorReply(m, -32603, "Cannot read properties of undefined (reading 'length')");
    },
  },
  {
    name: `${m25}/tool-switch-ignored`,
    spec: m25,
    rules: ["tool-switch"],
    bug: "a tool whose execution.taskSupport is forbidden runs a task request as a plain call",
    onRequest: (m) => {
      if (methodOf(m) !== "tools/call" || paramsOf(m).name !== "greet" || paramsOf(m).task === undefined) return m;
      const p = { ...paramsOf(m) };
      delete p.task;
      return { ...m, params: p };
    },
  },
  {
    name: `${m25}/related-task-missing-on-result`,
    spec: m25,
    rules: ["related-task"],
    bug: "tasks/result answers the stored result without the related-task _meta",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "tasks/result" || !r) return m;
      const copy = { ...r };
      delete copy._meta;
      return { ...m, result: copy };
    },
  },
  {
    name: `${m25}/related-task-on-get`,
    spec: m25,
    rules: ["related-task"],
    bug: "tasks/get adds the related-task _meta, which the spec says it does not carry",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "tasks/get" || !r) return m;
      return { ...m, result: { ...r, _meta: { "io.modelcontextprotocol/related-task": { taskId: r.taskId } } } };
    },
  },
  {
    name: `${m25}/ack-plain-result`,
    spec: m25,
    rules: ["creation", "types"],
    bug: "a task request is answered with the tool's content (no task) when the work is quick",
    onMessage: (m, req) => {
      if (methodOf(req) !== "tools/call" || paramsOf(req).name !== "failing_job" || !resultOf(m)) return m;
      return { jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "queued" }] } };
    },
  },
  {
    name: `${m25}/ack-reused-id`,
    spec: m25,
    rules: ["creation", "identity"],
    bug: "task ids come from a counter that is not shared: the second task of a session gets the first one's id",
    onMessage: (m, req, ctx) => {
      if (methodOf(req) !== "tools/call") return m;
      const t = tasksIn(resultOf(m), M25)[0];
      if (!t) return m;
      const k = `first:${ctx.session}`;
      if (!ctx.state.has(k)) ctx.state.set(k, t.taskId);
      else t.taskId = ctx.state.get(k);
      return m;
    },
  },
  {
    name: `${m25}/get-wrong-task`,
    spec: m25,
    rules: ["identity"],
    bug: "tasks/get answers the session's most recent task, not the one asked for",
    onMessage: (m, req, ctx) => {
      const t = tasksIn(resultOf(m), M25)[0];
      if (methodOf(req) === "tools/call" && t) ctx.state.set(`latest:${ctx.session}`, t.taskId);
      if (methodOf(req) === "tasks/get" && t && ctx.state.has(`latest:${ctx.session}`)) t.taskId = ctx.state.get(`latest:${ctx.session}`);
      return m;
    },
  },
  {
    name: `${m25}/undeclared-status`,
    spec: m25,
    rules: ["states", "types"],
    bug: "the store's own status name leaks onto the wire (running for working)",
    onMessage: eachTask(M25, [], (t) => {
      if (t.status === "working") t.status = "running";
    }),
  },
  {
    name: `${m25}/task-missing-ttl`,
    spec: m25,
    rules: ["types"],
    bug: "a task without a retention omits ttl instead of sending null",
    onMessage: eachTask(M25, ["tasks/get"], (t) => {
      delete t.ttl;
    }),
  },
  {
    name: `${m25}/tool-error-completes`,
    spec: m25,
    rules: ["outcomes"],
    bug: "a tool result with isError true ends the task completed, not failed",
    onMessage: chain(track(M25), (m, req, ctx) => {
      for (const t of tasksIn(req ? resultOf(m) : paramsOf(m), M25)) if (ctx.state.get(`tool:${t.taskId}`) === "failing_job" && t.status === "failed") t.status = "completed";
      return m;
    }),
  },
  {
    name: `${m25}/never-ends`,
    spec: m25,
    rules: ["progress"],
    bug: "the work's end is never written to the task: it stays working",
    onMessage: eachTask(M25, ["tasks/get", "tasks/list", "notifications/tasks/status"], (t) => {
      if (t.status === "completed") t.status = "working";
    }),
  },
  {
    name: `${m25}/result-before-end`,
    spec: m25,
    rules: ["results"],
    bug: "tasks/result answers at once with what the work has produced so far instead of waiting for the end",
    onMessage: track(M25),
    onRequest: (m, ctx) => {
      const id = String(paramsOf(m).taskId);
      if (methodOf(m) !== "tasks/result" || !owned(ctx, id)) return m;
      if (ctx.state.get(`status:${id}`) !== "working" || ctx.state.get(`tool:${id}`) !== "slow_compute") return m;
      return resultReply(m, { content: [], _meta: { "io.modelcontextprotocol/related-task": { taskId: id } } });
    },
  },
  {
    name: `${m25}/http-accept-ignored`,
    spec: m25,
    rules: ["http-accept"],
    bug: "the HTTP transport serves a POST whose Accept lacks text/event-stream",
    forwardHeaders: (h) => ({ ...h, accept: "application/json, text/event-stream" }),
  },
  {
    name: `${m25}/http-431-empty`,
    spec: m25,
    rules: ["http-header-limit"],
    bug: "a request with headers over the limit gets an empty 431",
    onHttp: (_method, headers) => (JSON.stringify(headers).length > 16_000 ? { status: 431, body: "" } : undefined),
  },
  {
    name: `${m25}/initialize-refused`,
    spec: m25,
    rules: ["handshake"],
    bug: "initialize is refused when the client declares task capabilities it does not know",
    onRequest: (m) => (methodOf(m) === "initialize" ? errorReply(m, -32602, "Unsupported capabilities") : m),
  },
  {
    name: `${m25}/get-internal-error`,
    spec: m25,
    rules: ["get"],
    bug: "tasks/get of a task whose work is running fails while the store row is locked",
    onMessage: (m, req) => {
      const t = tasksIn(resultOf(m), M25)[0];
      if (methodOf(req) !== "tasks/get" || !t || t.status !== "working") return m;
      return { jsonrpc: "2.0", id: m.id, error: { code: -32603, message: "Internal error" } };
    },
  },
  {
    name: `${m25}/list-not-json`,
    spec: m25,
    rules: ["transport", "listing"],
    bug: "tasks/list answers a body the client cannot read (the list is printed, not encoded)",
    onRequest: (m) => (methodOf(m) === "tasks/list" ? { reply: { jsonrpc: "2.0", id: m.id, result: "[object Object]" } as unknown as Msg } : m),
  },
  {
    name: `${m25}/input-request-dropped`,
    spec: m25,
    rules: ["progress", "input"],
    bug: "the elicitation of a task that needs input is never delivered on the result stream",
    onMessage: (m) => (methodOf(m) === "elicitation/create" && m.id !== undefined ? null : m),
  },
];

// ---------------------------------------------------------------------------
// sep-1686-draft
// ---------------------------------------------------------------------------
const sep = "sep-1686-draft";
const SEP_RT = "modelcontextprotocol.io/related-task";
const sep1686: Mutant[] = [
  {
    name: `${sep}/duplicate-id-accepted`,
    spec: sep,
    rules: ["duplicate-id"],
    bug: "a task request whose requestor-chosen id is taken makes a second task under another id instead of being refused",
    onRequest: (m, ctx) => {
      const meta = paramsOf(m)._meta;
      const t = isObject(meta) ? meta["modelcontextprotocol.io/task"] : undefined;
      if (!isObject(t) || typeof t.taskId !== "string") return m;
      const seen = `asked:${t.taskId}`;
      if (!ctx.state.has(seen)) {
        ctx.state.set(seen, true);
        return m;
      }
      const alias = `${t.taskId}-again-${Math.random().toString(36).slice(2, 6)}`;
      ctx.state.set(`alias:${alias}`, t.taskId);
      return { ...m, params: { ...paramsOf(m), _meta: { ...(meta as Msg), "modelcontextprotocol.io/task": { ...t, taskId: alias } } } };
    },
    onMessage: (m, _req, ctx) => {
      const text = JSON.stringify(m);
      const found = /"taskId":"([^"]*-again-[a-z0-9]{1,4})"/.exec(text);
      if (!found) return m;
      const orig = ctx.state.get(`alias:${found[1]}`);
      return typeof orig === "string" ? (JSON.parse(text.split(found[1]!).join(orig)) as Msg) : m;
    },
  },
  {
    name: `${sep}/delete-running`,
    spec: sep,
    rules: ["delete"],
    bug: "tasks/delete removes a task whatever its status (a running one included), so its work runs on unseen",
    onMessage: track(SEP),
    onRequest: (m, ctx) => {
      const id = String(paramsOf(m).taskId);
      if (ctx.state.get(`deleted:${id}`) && ["tasks/get", "tasks/result", "tasks/delete"].includes(methodOf(m) ?? "")) {
        return errorReply(m, -32602, "Failed to retrieve task: Task not found");
      }
      // Only the owning session's: another session's delete is refused as before (not this bug).
      if (methodOf(m) !== "tasks/delete" || !owned(ctx, id)) return m;
      const status = ctx.state.get(`status:${id}`);
      if (status === undefined || TERMINAL.has(String(status))) return m;
      ctx.state.set(`deleted:${id}`, true);
      return resultReply(m, { _meta: { [SEP_RT]: { taskId: id } } });
    },
  },
  {
    name: `${sep}/delete-keeps-task`,
    spec: sep,
    rules: ["delete"],
    bug: "tasks/delete answers success but the row stays: the task is still found afterwards",
    onMessage: track(SEP),
    onRequest: (m, ctx) =>
      methodOf(m) === "tasks/delete" && ctx.state.get(`owner:${String(paramsOf(m).taskId)}`) === ctx.session && TERMINAL.has(String(ctx.state.get(`status:${String(paramsOf(m).taskId)}`))) ? resultReply(m, { _meta: { [SEP_RT]: { taskId: paramsOf(m).taskId } } }) : m,
  },
  {
    name: `${sep}/deleted-still-listed`,
    spec: sep,
    rules: ["delete", "listing"],
    bug: "tasks/list reads a cache that still holds deleted tasks",
    onMessage: (m, req, ctx) => {
      for (const t of tasksIn(resultOf(m), SEP)) ctx.state.set(`task:${t.taskId}`, { ...t });
      if (methodOf(req) === "tasks/delete" && resultOf(m)) {
        const gone = (ctx.state.get(`gone:${ctx.session}`) as string[] | undefined) ?? [];
        ctx.state.set(`gone:${ctx.session}`, [...gone, String(paramsOf(req).taskId)]);
      }
      const r = resultOf(m);
      if (methodOf(req) !== "tasks/list" || !r || !Array.isArray(r.tasks) || r.nextCursor !== undefined) return m;
      const gone = ((ctx.state.get(`gone:${ctx.session}`) as string[] | undefined) ?? []).map((id) => ctx.state.get(`task:${id}`)).filter(isObject);
      return { ...m, result: { ...r, tasks: [...(r.tasks as Msg[]), ...gone] } };
    },
  },
  {
    name: `${sep}/result-of-failed-as-success`,
    spec: sep,
    rules: ["results"],
    bug: "tasks/result of a failed task answers an empty result instead of the not-ready error",
    onMessage: (m, req) => {
      if (methodOf(req) !== "tasks/result" || !isObject(m.error) || !String(m.error.message).includes("'failed'")) return m;
      return { jsonrpc: "2.0", id: m.id, result: { _meta: { [SEP_RT]: { taskId: paramsOf(req).taskId } } } };
    },
  },
  {
    name: `${sep}/not-ready-wrong-message`,
    spec: sep,
    rules: ["results", "error-message"],
    bug: "tasks/result before completion answers the not-found message (same code) instead of the not-ready one",
    onMessage: (m, req) => {
      if (methodOf(req) !== "tasks/result" || !isObject(m.error) || !String(m.error.message).startsWith("Cannot retrieve result")) return m;
      return { ...m, error: { ...m.error, message: "Failed to retrieve task: Task not found" } };
    },
  },
  {
    name: `${sep}/status-goes-back`,
    spec: sep,
    rules: ["transitions"],
    bug: "a task's status is read from a queue table: once working, it shows submitted again",
    onMessage: eachTask(SEP, ["tasks/get"], (t, ctx) => {
      const k = `working:${t.taskId}`;
      if (t.status === "working") {
        if (ctx.state.has(k)) t.status = "submitted";
        else ctx.state.set(k, true);
      }
    }),
  },
  {
    name: `${sep}/unknown-for-completed`,
    spec: sep,
    rules: ["outcomes", "results"],
    bug: "a task whose result was stored is marked unknown instead of completed (the store's write of the status failed over)",
    onMessage: eachTask(SEP, [], (t) => {
      if (t.status === "completed") t.status = "unknown";
    }),
  },
  {
    name: `${sep}/related-task-missing-on-get`,
    spec: sep,
    rules: ["related-task"],
    bug: "tasks/get answers without the related-task _meta the SEP puts on it",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "tasks/get" || !r) return m;
      const copy = { ...r };
      delete copy._meta;
      return { ...m, result: copy };
    },
  },
  {
    name: `${sep}/created-notification-without-id`,
    spec: sep,
    rules: ["creation", "types", "notifications"],
    bug: "notifications/tasks/created is sent without the related-task _meta naming the task",
    onMessage: (m) => (methodOf(m) === "notifications/tasks/created" ? { ...m, params: {} } : m),
  },
  { name: `${sep}/list-other-sessions`, spec: sep, rules: ["isolation"], bug: "tasks/list reads the whole store", onMessage: listAll(SEP, "tasks/list") },
  { name: `${sep}/get-other-session`, spec: sep, rules: ["isolation"], bug: "tasks/get finds a task by id alone", ...crossSession(SEP, ["tasks/get"]) },
  { name: `${sep}/delete-other-session`, spec: sep, rules: ["isolation"], bug: "tasks/delete finds a task by id alone", ...crossSession(SEP, ["tasks/delete", "tasks/result"]) },
  {
    name: `${sep}/cancel-notification-ignored`,
    spec: sep,
    rules: ["cancellation"],
    bug: "notifications/cancelled is not routed to the task of the request it names",
    onRequest: (m) => (methodOf(m) === "notifications/cancelled" ? { reply: [] } : m),
  },
  {
    name: `${sep}/terminal-reopens`,
    spec: sep,
    rules: ["terminal"],
    bug: "a completed task reads as working again a moment later",
    onMessage: flipAfter(SEP, ["tasks/get"], 250, () => "working"),
  },
  {
    name: `${sep}/list-no-next-cursor`,
    spec: sep,
    rules: ["listing"],
    bug: "tasks/list cuts the list at the page size and never says there is more",
    demo: { pageSize: 2 },
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "tasks/list" || !r) return m;
      const copy = { ...r };
      delete copy.nextCursor;
      return { ...m, result: copy };
    },
  },
  {
    name: `${sep}/list-page-repeats`,
    spec: sep,
    rules: ["listing"],
    bug: "the cursor points one task back: the last task of a page opens the next one too",
    demo: { pageSize: 2 },
    onMessage: (m, req, ctx) => {
      const r = resultOf(m);
      if (methodOf(req) !== "tasks/list" || !r || !Array.isArray(r.tasks)) return m;
      const k = `lastOfPage:${ctx.session}`;
      const prev = paramsOf(req).cursor !== undefined ? (ctx.state.get(k) as Msg | undefined) : undefined;
      const tasks = r.tasks as Msg[];
      ctx.state.set(k, tasks[tasks.length - 1]);
      return prev ? { ...m, result: { ...r, tasks: [prev, ...tasks] } } : m;
    },
  },
  {
    name: `${sep}/result-related-task-wrong`,
    spec: sep,
    rules: ["related-task"],
    bug: "tasks/result's related-task _meta names the request's JSON-RPC id instead of the task",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "tasks/result" || !r) return m;
      return { ...m, result: { ...r, _meta: { [SEP_RT]: { taskId: String(m.id) } } } };
    },
  },
];

// ---------------------------------------------------------------------------
// ext-tasks-2026-07-28
// ---------------------------------------------------------------------------
const ext = "ext-tasks-2026-07-28";
const extTasks: Mutant[] = [
  {
    name: `${ext}/result-type-missing-on-get`,
    spec: ext,
    rules: ["result-type", "types"],
    bug: "tasks/get answers the task without resultType",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "tasks/get" || !r) return m;
      const copy = { ...r };
      delete copy.resultType;
      return { ...m, result: copy };
    },
  },
  {
    name: `${ext}/result-type-missing-on-cancel`,
    spec: ext,
    rules: ["result-type", "types"],
    bug: "tasks/cancel answers an empty object without resultType",
    onMessage: (m, req) => (methodOf(req) === "tasks/cancel" && resultOf(m) ? { ...m, result: {} } : m),
  },
  {
    name: `${ext}/failed-carries-result`,
    spec: ext,
    rules: ["results", "types"],
    bug: "a failed task carries the JSON-RPC error as a result instead of in error",
    onMessage: eachTask(EXT, ["tasks/get"], (t) => {
      if (t.status === "failed" && isObject(t.error)) {
        t.result = { content: [{ type: "text", text: String(t.error.message) }], isError: true };
        delete t.error;
      }
    }),
  },
  {
    name: `${ext}/tool-error-as-success`,
    spec: ext,
    rules: ["results"],
    bug: "a tool result with isError true is inlined with isError dropped",
    onMessage: eachTask(EXT, ["tasks/get"], (t) => {
      if (isObject(t.result) && t.result.isError === true) {
        const r = { ...t.result };
        delete r.isError;
        t.result = r;
      }
    }),
  },
  {
    name: `${ext}/protocol-version-not-checked`,
    spec: ext,
    rules: ["envelope"],
    bug: "a request without a supported protocol version in _meta is served as the latest one",
    onRequest: (m) => {
      const meta = paramsOf(m)._meta;
      if (!isObject(meta) || meta["io.modelcontextprotocol/protocolVersion"] === "2026-07-28") return m;
      return { ...m, params: { ...paramsOf(m), _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } };
    },
    forwardHeaders: (h) => ({ ...h, "mcp-protocol-version": "2026-07-28" }),
  },
  {
    name: `${ext}/capability-not-required`,
    spec: ext,
    rules: ["capabilities"],
    bug: "tasks/get is served to a request that does not declare the tasks extension",
    onRequest: (m) => {
      const meta = paramsOf(m)._meta;
      if (!isObject(meta) || !methodOf(m)?.startsWith("tasks/")) return m;
      const caps = { extensions: { "io.modelcontextprotocol/tasks": {} } };
      return { ...m, params: { ...paramsOf(m), _meta: { ...meta, "io.modelcontextprotocol/clientCapabilities": caps } } };
    },
  },
  {
    name: `${ext}/unsupported-method-served`,
    spec: ext,
    rules: ["unsupported"],
    bug: "tasks/list, dropped by this revision, is still answered (with an empty list)",
    onRequest: (m) => (methodOf(m) === "tasks/list" ? resultReply(m, { tasks: [], resultType: "complete" }) : m),
  },
  {
    name: `${ext}/cancel-terminal-error`,
    spec: ext,
    rules: ["cancellation"],
    bug: "tasks/cancel of a terminal task answers an error, where the spec acknowledges it",
    onMessage: track(EXT),
    onRequest: (m, ctx) => {
      if (methodOf(m) !== "tasks/cancel" || !owned(ctx, String(paramsOf(m).taskId))) return m;
      const s = ctx.state.get(`status:${String(paramsOf(m).taskId)}`);
      return s !== undefined && TERMINAL.has(String(s)) ? errorReply(m, -32602, "Task already terminal") : m;
    },
  },
  {
    name: `${ext}/update-refused`,
    spec: ext,
    rules: ["input"],
    bug: "tasks/update answers -32603 when the responses are applied later than it expected",
    onRequest: (m) => (methodOf(m) === "tasks/update" ? errorReply(m, -32603, "Internal error") : m),
  },
  {
    name: `${ext}/terminal-reopens`,
    spec: ext,
    rules: ["terminal"],
    bug: "a completed task reads as working again a moment later",
    onMessage: (m, req, ctx) => {
      const out = (flipAfter(EXT, ["tasks/get"], 250, () => "working")!(m, req, ctx) as Msg | undefined) ?? m;
      const t = tasksIn(resultOf(out), EXT)[0];
      if (t && t.status === "working") {
        delete t.result;
        delete t.error;
      }
      return out;
    },
  },
  ...timestampMutants(ext, EXT, ["tasks/get", "tools/call"]),
  {
    name: `${ext}/unknown-id-wrong-code`,
    spec: ext,
    rules: ["unknown-id"],
    bug: "an unknown task id is answered -32601",
    onMessage: errorCode(EXT, ["tasks/get", "tasks/update", "tasks/cancel"], -32602, -32601, "Method not found"),
  },
];

// ---------------------------------------------------------------------------
// Fixture specs
// ---------------------------------------------------------------------------
const jobs = "jobs";
const jobsMutants: Mutant[] = [
  {
    name: `${jobs}/custom-operation-error`,
    spec: jobs,
    rules: ["custom"],
    bug: "jobs/note's handler throws: every call is answered -32603",
    onRequest: (m) => (methodOf(m) === "jobs/note" ? errorReply(m, -32603, "Internal error") : m),
  },
  {
    name: `${jobs}/custom-operation-not-routed`,
    spec: jobs,
    rules: ["custom"],
    bug: "jobs/note is never registered: answered method not found",
    onRequest: (m) => (methodOf(m) === "jobs/note" ? errorReply(m, -32601, "Method not found") : m),
  },
  {
    name: `${jobs}/custom-operation-bad-result`,
    spec: jobs,
    rules: ["custom", "transport"],
    bug: "jobs/note answers an array (a list of notes) instead of its result object",
    onRequest: (m) => (methodOf(m) === "jobs/note" ? { reply: { jsonrpc: "2.0", id: m.id, result: [] } as unknown as Msg } : m),
  },
  {
    name: `${jobs}/pause-fails-job`,
    spec: jobs,
    rules: ["transitions", "terminal"],
    bug: "jobs/pause aborts the work, which ends the job failed",
    onMessage: eachTask(JOBS, ["jobs/pause"], (t) => {
      if (t.state === "paused") t.state = "failed";
    }),
  },
  {
    name: `${jobs}/resume-refused`,
    spec: jobs,
    rules: ["transitions"],
    bug: "jobs/resume of a paused job is refused",
    onMessage: track(JOBS),
    onRequest: (m, ctx) => (methodOf(m) === "jobs/resume" && ctx.state.get(`status:${String(paramsOf(m).jobId)}`) === "paused" ? errorReply(m, -32603, "Internal error") : m),
  },
  {
    name: `${jobs}/expiry-as-failed`,
    spec: jobs,
    rules: ["expiry"],
    bug: "a job whose retention ran out is failed, not moved to the declared expired state",
    onMessage: eachTask(JOBS, [], (t) => {
      if (t.state === "expired") t.state = "failed";
    }),
  },
  {
    name: `${jobs}/result-of-failed-as-success`,
    spec: jobs,
    rules: ["results"],
    bug: "jobs/result of a failed job answers an empty result",
    onMessage: (m, req) => {
      if (methodOf(req) !== "jobs/result" || !isObject(m.error) || !String(m.error.message).includes("failed")) return m;
      return { jsonrpc: "2.0", id: m.id, result: {} };
    },
  },
  ...timestampMutants(jobs, JOBS, ["jobs/status", "tools/call", "resources/read", "jobs/cancel", "jobs/pause", "jobs/resume"]),
  { name: `${jobs}/status-other-session`, spec: jobs, rules: ["isolation"], bug: "jobs/status finds a job by id alone", ...crossSession(JOBS, ["jobs/status"]) },
  { name: `${jobs}/cancel-other-session`, spec: jobs, rules: ["isolation"], bug: "jobs/cancel finds a job by id alone", ...crossSession(JOBS, ["jobs/cancel"]) },
  {
    name: `${jobs}/cancel-terminal-succeeds`,
    spec: jobs,
    rules: ["cancellation"],
    bug: "jobs/cancel of an ended job answers the job instead of the declared error",
    onMessage: chain(track(JOBS), (m, req, ctx) => {
      if (methodOf(req) !== "jobs/cancel" || !isObject(m.error) || !String(m.error.message).startsWith("The job already ended")) return m;
      return { jsonrpc: "2.0", id: m.id, result: ctx.state.get(`task:${String(paramsOf(req).jobId)}`) as Msg };
    }),
  },
  {
    name: `${jobs}/resource-task-unadvertised`,
    spec: jobs,
    rules: ["capabilities"],
    bug: "resources/read becomes a task though the server does not declare it among its task requests",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "initialize" || !r || !isObject(r.capabilities)) return m;
      const caps = JSON.parse(JSON.stringify(r.capabilities)) as Msg;
      const jobsCap = isObject(caps.experimental) && isObject(caps.experimental.jobs) ? caps.experimental.jobs : undefined;
      if (jobsCap && isObject(jobsCap.requests)) delete jobsCap.requests.resources;
      return { ...m, result: { ...r, capabilities: caps } };
    },
  },
];

const lean = "lean";
const leanMutants: Mutant[] = [
  {
    name: `${lean}/broken-without-error`,
    spec: lean,
    rules: ["results"],
    bug: "a failed run is stored without its error object",
    onMessage: eachTask(LEAN, [], (t) => {
      if (t.status === "broken") delete t.error;
    }),
  },
  {
    name: `${lean}/finished-without-result`,
    spec: lean,
    rules: ["results"],
    bug: "a finished run's result is written after its status, so it is read without it",
    onMessage: eachTask(LEAN, [], (t) => {
      if (t.status === "finished") delete t.result;
    }),
  },
  {
    name: `${lean}/partial-result-while-active`,
    spec: lean,
    rules: ["results"],
    bug: "an active run already carries a (partial) result",
    onMessage: eachTask(LEAN, ["runs/get"], (t) => {
      if (t.status === "active") t.result = { partial: true };
    }),
  },
  {
    name: `${lean}/cancel-notification-ignored`,
    spec: lean,
    rules: ["cancellation"],
    bug: "notifications/cancelled does not reach the run",
    onRequest: (m) => (methodOf(m) === "notifications/cancelled" ? { reply: [] } : m),
  },
  { name: `${lean}/get-other-session`, spec: lean, rules: ["isolation"], bug: "runs/get finds a run by id alone", ...crossSession(LEAN, ["runs/get"]) },
  {
    name: `${lean}/terminal-reopens`,
    spec: lean,
    rules: ["terminal", "results"],
    bug: "a finished run reads as active again a moment later",
    onMessage: flipAfter(LEAN, ["runs/get"], 250, () => "active"),
  },
];

const relay = "relay";
const relayMutants: Mutant[] = [
  {
    name: `${relay}/result-type-missing`,
    spec: relay,
    rules: ["result-type", "types"],
    bug: "relays/status answers the relay without resultType",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "relays/status" || !r) return m;
      const copy = { ...r };
      delete copy.resultType;
      return { ...m, result: copy };
    },
  },
  {
    name: `${relay}/bounced-carries-output`,
    spec: relay,
    rules: ["results"],
    bug: "a bounced relay carries its fault as output",
    onMessage: eachTask(RELAY, ["relays/status"], (t) => {
      if (t.phase === "bounced" && isObject(t.fault)) {
        t.output = { fault: t.fault };
        delete t.fault;
      }
    }),
  },
  {
    name: `${relay}/answer-refused`,
    spec: relay,
    rules: ["input"],
    bug: "relays/answer is refused (-32603)",
    onRequest: (m) => (methodOf(m) === "relays/answer" ? errorReply(m, -32603, "Internal error") : m),
  },
  {
    name: `${relay}/capability-not-required`,
    spec: relay,
    rules: ["capabilities"],
    bug: "relays/status is served without the relays extension declared on the request",
    onRequest: (m) => {
      const meta = paramsOf(m)._meta;
      if (!isObject(meta) || !methodOf(m)?.startsWith("relays/")) return m;
      return { ...m, params: { ...paramsOf(m), _meta: { ...meta, "io.modelcontextprotocol/clientCapabilities": { extensions: { "com.example/relays": {} } } } } };
    },
  },
  {
    name: `${relay}/unsupported-method-wrong-error`,
    spec: relay,
    rules: ["unsupported"],
    bug: "relays/list, which the spec drops, is answered -32603 instead of the declared error",
    onRequest: (m) => (methodOf(m) === "relays/list" ? errorReply(m, -32603, "Internal error") : m),
  },
  ...timestampMutants(relay, RELAY, ["relays/status", "tools/call", "resources/read"]),
  {
    name: `${relay}/stop-ignored`,
    spec: relay,
    rules: ["cancellation"],
    bug: "relays/stop acknowledges but never stops the relay",
    onMessage: track(RELAY),
    onRequest: (m, ctx) => (methodOf(m) === "relays/stop" && owned(ctx, String(paramsOf(m).relayId)) && ctx.state.has(`status:${String(paramsOf(m).relayId)}`) ? resultReply(m, { resultType: "complete" }) : m),
  },
];

export const CATALOGUE: readonly Mutant[] = [...mcp20251125, ...sep1686, ...extTasks, ...jobsMutants, ...leanMutants, ...relayMutants];
