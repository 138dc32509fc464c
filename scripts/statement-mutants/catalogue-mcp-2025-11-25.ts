/**
 * Statement mutants of mcp-2025-11-25: for each server statement seen at the wire, server bugs written
 * from the statement's text (a request augmented with params.task is answered with a CreateTaskResult;
 * tasks/get, tasks/result, tasks/list, tasks/cancel; notifications/tasks/status; related-task _meta),
 * and the statements no proxy can break.
 */
import { answers, clone, errorFor, isNotification, isRequest, mutant, servedAsOwner, sleep, withResult, type Ctx, type Msg, type Mutant, type Unmutable } from "./mutant.js";
import { editTasks, errorOf, genericInvalid, mapTaskIds, onePage, otherWaitingTask, paramTaskId, resultOf, TERMINAL, Tracker, withoutMeta } from "./wire.js";

const R = "mcp-2025-11-25/";
const REL = "io.modelcontextprotocol/related-task";

/** A mutant that sees every message through a Tracker (updated before fn runs); s.before is the status shown before. */
const tracked = (name: string, description: string, fn: (m: Msg, ctx: Ctx, t: Tracker, s: Record<string, any>) => Msg[] | undefined | Promise<Msg[] | undefined>, transports?: ("stdio" | "http")[]) =>
  mutant(
    R + name,
    description,
    (m, ctx, s) => {
      const t: Tracker = (s.tracker ??= new Tracker());
      s.before = paramTaskId(ctx) ? t.status.get(paramTaskId(ctx)!) : undefined;
      for (const x of ctx.dir === "toClient" && m.result ? [m.result, m.result.task, ...(m.result.tasks ?? [])] : []) if (x?.taskId) (s.last ??= new Map()).set(x.taskId, clone(x));
      t.observe(m, ctx);
      return fn(m, ctx, t, s);
    },
    { transports },
  );

/** Whether a client request asks for a task (params.task). */
const augmented = (m: Msg) => isRequest(m) && m.params?.task !== undefined;

/** Tool names by their execution.taskSupport, learnt from tools/list. */
function learnTools(m: Msg, ctx: Ctx, s: Record<string, any>): Map<string, string> {
  const tools: Map<string, string> = (s.tools ??= new Map());
  if (resultOf(m, ctx, "tools/list")) for (const t of m.result.tools ?? []) tools.set(t.name, t.execution?.taskSupport ?? "forbidden");
  return tools;
}

/** The session a message belongs to: over stdio each initialize starts one; over HTTP, its session id. */
function session(m: Msg, ctx: Ctx, s: Record<string, any>): string {
  if (ctx.dir === "toServer" && m.method === "initialize") s.epoch = (s.epoch ?? 0) + 1;
  return ctx.transport === "http" ? ctx.conn : `stdio#${s.epoch ?? 0}`;
}

/** The last task objects each session saw, served to another session's tasks/get, tasks/cancel or tasks/list. */
function leak(m: Msg, ctx: Ctx, s: Record<string, any>, what: RegExp): Msg[] | undefined {
  const sess = session(m, ctx, s);
  const known: Map<string, { sess: string; task: any }> = (s.known ??= new Map());
  if (ctx.dir === "toClient" && m.result) for (const x of [m.result, m.result.task, ...(m.result.tasks ?? [])]) if (typeof x?.taskId === "string" && x.status) known.set(x.taskId, { sess: known.get(x.taskId)?.sess ?? sess, task: clone(x) });
  const id = paramTaskId(ctx);
  const other = id ? known.get(id) : undefined;
  if (errorOf(m, ctx, what, -32602) && other && other.sess !== sess && ctx.request!.method !== "tasks/list") return [{ jsonrpc: "2.0", id: m.id, result: ctx.request!.method === "tasks/result" ? { content: [], _meta: { [REL]: { taskId: id } } } : other.task }];
  if (what.test("tasks/list") && resultOf(m, ctx, "tasks/list") && m.result.nextCursor === undefined) {
    const c = clone(m);
    const here = new Set(c.result.tasks.map((x: any) => x.taskId));
    for (const [tid, k] of known) if (k.sess !== sess && !here.has(tid)) c.result.tasks.push(k.task);
    return [c];
  }
  return undefined;
}

/** Task ids shown to the client under another name, translated back on the way in. */
function renamed(name: string, description: string, alias: (real: string, s: Record<string, any>, m: Msg, ctx: Ctx) => any): Mutant {
  return mutant(R + name, description, (m, ctx, s) => {
    const toAlias: Map<string, any> = (s.toAlias ??= new Map());
    const toReal: Map<string, string> = (s.toReal ??= new Map());
    if (ctx.dir === "toServer" && m.method === "initialize") s.epoch = (s.epoch ?? 0) + 1;
    if (ctx.dir === "toServer") return [mapTaskIds(m, (id) => toReal.get(JSON.stringify(id)) ?? id)];
    return [
      mapTaskIds(m, (id) => {
        if (typeof id !== "string") return id;
        if (!toAlias.has(id)) {
          const a = alias(id, s, m, ctx);
          toAlias.set(id, a);
          toReal.set(JSON.stringify(a), id);
        }
        return toAlias.get(id);
      }),
    ];
  });
}

export const mcp2025Mutants: Mutant[] = [
  mutant(R + "cap.server-declares/no-tasks-capability", "initialize declares no tasks capability", (m, ctx) => {
    if (!resultOf(m, ctx, "initialize") || !m.result.capabilities?.tasks) return undefined;
    const c = clone(m);
    delete c.result.capabilities.tasks;
    return [c];
  }),
  mutant(R + "tool.forbidden-error/forbidden-tool-runs", "a task-augmented call of a taskSupport forbidden tool is run without a task", (m, ctx, s) => {
    const tools = learnTools(m, ctx, s);
    if (ctx.dir !== "toServer" || m.method !== "tools/call" || !augmented(m) || tools.get(m.params.name) !== "forbidden") return undefined;
    const c = clone(m);
    delete c.params.task;
    return [c];
  }),
  mutant(R + "tool.forbidden-error/invalid-params-code", "a task-augmented call of a forbidden tool is answered -32602", (m, ctx) =>
    errorOf(m, ctx, "tools/call", -32601) && ctx.request!.params?.task !== undefined ? [{ ...m, error: { ...m.error, code: -32602 } }] : undefined,
  ),
  mutant(R + "tool.required-error/invalid-request-code", "a plain call of a taskSupport required tool is answered -32600", (m, ctx) =>
    errorOf(m, ctx, "tools/call", -32601) && ctx.request!.params?.task === undefined ? [{ ...m, error: { ...m.error, code: -32600 } }] : undefined,
  ),
  mutant(R + "tool.required-error/required-tool-runs-plain", "a plain call of a taskSupport required tool is run without a task", (m, ctx, s) => {
    const tools = learnTools(m, ctx, s);
    if (ctx.dir === "toServer" && m.method === "tools/call" && !augmented(m) && tools.get(m.params?.name) === "required") {
      const c = clone(m);
      c.params.task = {};
      s.plain = (s.plain ?? new Set()).add(JSON.stringify(m.id));
      return [c];
    }
    if (answers(m, ctx, "tools/call") && s.plain?.has(JSON.stringify(m.id)) && m.result?.task) return [{ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "started" }] } }];
    return undefined;
  }),
  mutant(R + "get.transport-server/tasks-get-text-plain", "tasks/get answers are sent as Content-Type text/plain", () => undefined, {
    transports: ["http"],
    http: { onHttpResponse: (r) => void (r.requestMessages.some((x) => x.method === "tasks/get") && !r.sse && (r.headers["content-type"] = "text/plain")) },
  }),
  mutant(R + "result.transport-server/tasks-result-202", "tasks/result answers come with HTTP 202 Accepted", () => undefined, {
    transports: ["http"],
    http: { onHttpResponse: (r) => void (r.requestMessages.some((x) => x.method === "tasks/result") && (r.status = 202)) },
  }),
  mutant(R + "input.transport-server/sse-labelled-json", "the SSE stream that carries a task's requests is labelled application/json", () => undefined, {
    transports: ["http"],
    http: { onHttpResponse: (r) => void (r.sse && r.requestMessages.some((x) => x.method === "tasks/result" || x.method === "tools/call") && (r.headers["content-type"] = "application/json")) },
  }),
  // Session management and the GET stream of the Streamable HTTP transport the three statements bind servers to.
  mutant(R + "get.transport-server/get-answered-json", "a GET to the MCP endpoint is answered 200 with Content-Type application/json (neither an SSE stream nor 405)", () => undefined, {
    transports: ["http"],
    http: { onHttpResponse: (r) => void (r.request.method === "GET" && r.status === 200 && (r.headers["content-type"] = "application/json")) },
  }),
  mutant(R + "result.transport-server/unknown-session-400", "a request naming a session the server does not have (never given, or ended) is answered 400, not 404", () => undefined, {
    transports: ["http"],
    http: { onHttpResponse: (r) => void (r.status === 404 && r.request.headers["mcp-session-id"] !== undefined && (r.status = 400)) },
  }),
  mutant(R + "result.transport-server/delete-keeps-session", "a DELETE of the session is answered 200, but the session goes on serving requests", () => undefined, {
    transports: ["http"],
    http: {
      // The DELETE goes on as an OPTIONS, which the server refuses without ending anything; its answer is made a 200.
      onHttpRequest: (r) => void (r.method === "DELETE" && (r.method = "OPTIONS")),
      onHttpResponse: (r) => void (r.request.method === "DELETE" && r.status !== 200 && (r.status = 200)),
    },
  }),
  mutant(R + "input.transport-server/missing-session-404", "a request without the Mcp-Session-Id the server requires is answered 404 (as if the session had ended), not 400", () => undefined, {
    transports: ["http"],
    http: {
      onHttpResponse: (r) =>
        void (r.status === 400 && r.request.method === "POST" && r.request.headers["mcp-session-id"] === undefined && !r.requestMessages.some((x) => x.method === "initialize") && (r.status = 404)),
    },
  }),
  // Origin validation (DNS rebinding) and one stream per message, the transport's other server MUSTs.
  mutant(R + "get.transport-server/origin-unchecked", "the Origin header is not validated: a request from a foreign site's page (DNS rebinding) is served as any other", () => undefined, {
    transports: ["http"],
    http: { onHttpRequest: (r) => void delete r.headers.origin },
  }),
  mutant(R + "input.transport-server/broadcast", "the notifications sent on a request's stream are broadcast on the session's standalone GET stream as well", (m, ctx) => {
    if (ctx.dir === "toClient" && ctx.stream === "post" && isNotification(m)) ctx.inject("toClient", m, 0, "standalone");
    return undefined;
  }, { transports: ["http"] }),
  mutant(R + "result.transport-server/request-on-both-streams", "a request of the server's (input a task needs) sent on a request's stream goes out on the standalone GET stream too", (m, ctx) => {
    if (ctx.dir === "toClient" && ctx.stream === "post" && isRequest(m)) ctx.inject("toClient", m, 0, "standalone");
    return undefined;
  }, { transports: ["http"] }),
  tracked("status-notification.may-send/completed-too-early", "announces completed in notifications/tasks/status right after creating a task that is still working", (m, ctx) => {
    if (answers(m, ctx, "tools/call") && m.result?.task?.status === "working") return [m, { jsonrpc: "2.0", method: "notifications/tasks/status", params: { ...m.result.task, status: "completed" } }];
    return undefined;
  }),
  mutant(R + "support.undeclared-normal/reject-task-param", "a task-augmented request of a type it declares no tasks for is answered with an error", (m, ctx) => {
    if (ctx.dir === "toServer" && augmented(m) && m.method !== "tools/call") {
      ctx.inject("toClient", errorFor(m, -32601, `Tasks are not supported for ${m.method}`)[0]!);
      return [];
    }
    return undefined;
  }),
  mutant(R + "support.undeclared-normal/listing-with-task-meta", "tools/list asked with task metadata (a type it declares no tasks for) answers a listing without its tools", (m, ctx) =>
    resultOf(m, ctx, "tools/list") && ctx.request?.params?.task !== undefined ? [{ ...m, result: { ...m.result, tools: [] } }] : undefined,
  ),
  mutant(R + "support.may-require/optional-tool-required", "a plain call of a taskSupport optional tool is refused as if tasks were required", (m, ctx, s) => {
    const tools = learnTools(m, ctx, s);
    if (ctx.dir === "toServer" && m.method === "tools/call" && !augmented(m) && tools.get(m.params?.name) === "optional") {
      ctx.inject("toClient", errorFor(m, -32601, `Tool '${m.params.name}' requires task-augmented execution`)[0]!);
      return [];
    }
    return undefined;
  }),
  renamed("id.string/numeric-ids", "task ids are sent as numbers (the store's row id)", (real, s) => (s.n = (s.n ?? 0) + 1)),
  renamed("id.unique/per-session-counter", "task ids are a per-session counter, so two sessions' tasks share ids", (real, s, m, ctx) => {
    const sess = ctx.transport === "http" ? ctx.conn : String(s.epoch ?? 0);
    s.count ??= new Map();
    s.count.set(sess, (s.count.get(sess) ?? 0) + 1);
    return `task-${s.count.get(sess)}`;
  }),
  mutant(R + "id.unique/same-id-twice", "every second task is given the id of the task before it", (m, ctx, s) => {
    const alias: Map<string, string> = (s.alias ??= new Map());
    const back: Map<string, string[]> = (s.back ??= new Map());
    if (ctx.dir === "toServer") return [mapTaskIds(m, (id) => (typeof id === "string" && back.get(id) ? back.get(id)!.at(-1) : id))];
    return [
      mapTaskIds(m, (id) => {
        if (typeof id !== "string") return id;
        if (!alias.has(id)) {
          s.k = (s.k ?? 0) + 1;
          const a = s.k % 2 === 0 && s.prev ? s.prev : id;
          alias.set(id, a);
          back.set(a, [...(back.get(a) ?? []), id]);
          s.prev = id;
        }
        return alias.get(id);
      }),
    ];
  }),
  mutant(R + "lifecycle.begin-working/created-submitted", "a new task is created in the submitted status", (m, ctx) =>
    answers(m, ctx, "tools/call") && m.result?.task ? editTasks(m, ctx, (x) => (x.status = "submitted")) : undefined,
  ),
  mutant(R + "lifecycle.begin-working/created-input-required", "a new task is created already input_required", (m, ctx) =>
    answers(m, ctx, "tools/call") && m.result?.task ? editTasks(m, ctx, (x) => (x.status = "input_required")) : undefined,
  ),
  tracked("lifecycle.valid-paths/working-shown-pending", "a working task polled again is shown as pending (a status outside the set)", (m, ctx, t, s) =>
    resultOf(m, ctx, "tasks/get") && s.before === "working" && m.result.status === "working" ? editTasks(m, ctx, (x) => (x.status = "pending")) : undefined,
  ),
  tracked("lifecycle.terminal-final/completed-then-working", "a completed task is shown working again on a later tasks/get", (m, ctx, t, s) =>
    resultOf(m, ctx, "tasks/get") && s.before === "completed" && m.result.status === "completed" ? editTasks(m, ctx, (x) => (x.status = "working")) : undefined,
  ),
  tracked("lifecycle.terminal-final/failed-then-completed-notification", "after a failed status it notifies completed", (m, ctx) => {
    if (ctx.dir === "toClient" && m.method === "notifications/tasks/status" && m.params?.status === "failed") return [m, { ...m, params: { ...m.params, status: "completed" } }];
    return undefined;
  }),
  mutant(R + "input.no-sse-on-get/tasks-get-over-sse", "answers tasks/get on an SSE stream", () => undefined, {
    transports: ["http"],
    http: { onHttpResponse: (r) => void (r.requestMessages.some((x) => x.method === "tasks/get") && r.status === 200 && (r.sse = true)) },
  }),
  mutant(R + "input.move-to-input-required/stays-working", "a task waiting on an elicitation is still shown working", (m, ctx) =>
    editTasks(m, ctx, (x) => x.status === "input_required" && (x.status = "working")),
  ),
  mutant(R + "input.related-task-on-request/elicitation-without-meta", "an elicitation/create sent for a task carries no related-task _meta", (m, ctx) =>
    ctx.dir === "toClient" && isRequest(m) ? withoutMeta(m, "params", REL) : undefined,
  ),
  mutant(R + "input.leave-input-required/stuck-input-required", "a task that once waited for input is shown input_required until it ends", (m, ctx, s) => {
    const stuck: Set<string> = (s.stuck ??= new Set());
    return editTasks(m, ctx, (x) => {
      if (x.status === "input_required") stuck.add(x.taskId);
      else if (x.status === "working" && stuck.has(x.taskId)) x.status = "input_required";
    });
  }),
  mutant(R + "ttl.created-at/no-created-at", "tasks/get leaves out createdAt", (m, ctx) => (resultOf(m, ctx, "tasks/get") ? editTasks(m, ctx, (x) => delete x.createdAt) : undefined)),
  mutant(R + "ttl.created-at/epoch-millis", "createdAt is given as epoch milliseconds, not ISO 8601", (m, ctx) => editTasks(m, ctx, (x) => typeof x.createdAt === "string" && (x.createdAt = Date.parse(x.createdAt)))),
  mutant(R + "ttl.created-at/http-date-outside-get", "tasks/list items, the tasks/cancel reply and status notifications give createdAt as an HTTP date, not ISO 8601", (m, ctx) =>
    /^tasks\/(list|cancel)$/.test(ctx.request?.method ?? "") || m.method === "notifications/tasks/status"
      ? editTasks(m, ctx, (x) => typeof x.createdAt === "string" && (x.createdAt = new Date(x.createdAt).toUTCString()))
      : undefined,
  ),
  mutant(R + "ttl.last-updated-at/no-last-updated-at", "task responses leave out lastUpdatedAt", (m, ctx) => (ctx.request ? editTasks(m, ctx, (x) => delete x.lastUpdatedAt) : undefined)),
  mutant(R + "ttl.last-updated-at/locale-date", "lastUpdatedAt is a locale date string, not ISO 8601", (m, ctx) =>
    editTasks(m, ctx, (x) => typeof x.lastUpdatedAt === "string" && (x.lastUpdatedAt = new Date(x.lastUpdatedAt).toString())),
  ),
  mutant(R + "ttl.actual-in-get/no-ttl", "tasks/get leaves out ttl", (m, ctx) => (resultOf(m, ctx, "tasks/get") ? editTasks(m, ctx, (x) => delete x.ttl) : undefined)),
  mutant(R + "ttl.actual-in-get/ttl-in-seconds", "tasks/get gives ttl in seconds", (m, ctx) => (resultOf(m, ctx, "tasks/get") ? editTasks(m, ctx, (x) => typeof x.ttl === "number" && (x.ttl = x.ttl / 1000)) : undefined)),
  tracked("ttl.may-delete/deleted-at-end", "deletes a task as soon as it ends, long before its ttl elapses", (m, ctx, t, s) => {
    const gone: Set<string> = (s.gone ??= new Set());
    const id = paramTaskId(ctx);
    if (answers(m, ctx, /^tasks\/(get|result|cancel)$/) && id && gone.has(id)) return errorFor(m, -32602, "Failed to retrieve task: Task not found");
    if (resultOf(m, ctx, "tasks/get") && id && TERMINAL.has(m.result.status)) gone.add(id);
    return undefined;
  }),
  mutant(R + "ttl.may-poll-interval/poll-interval-string", "pollInterval is given as a string with a unit", (m, ctx) => editTasks(m, ctx, (x) => x.pollInterval !== undefined && (x.pollInterval = `${x.pollInterval}ms`))),
  mutant(R + "result.create-task-result/task-not-wrapped", "the CreateTaskResult puts the task's fields at the top instead of under task", (m, ctx) =>
    answers(m, ctx, "tools/call") && m.result?.task ? [{ ...m, result: { ...m.result.task } }] : undefined,
  ),
  mutant(R + "result.create-task-result/no-task-id", "the CreateTaskResult's task has no taskId", (m, ctx) =>
    answers(m, ctx, "tools/call") && m.result?.task ? [{ ...m, result: { ...m.result, task: { ...m.result.task, taskId: undefined } } }] : undefined,
  ),
  mutant(R + "result.asap/created-late", "answers the CreateTaskResult only after a 2 s wait", async (m, ctx) => {
    if (answers(m, ctx, "tools/call") && m.result?.task) await sleep(2000);
    return undefined;
  }),
  mutant(R + "result.asap/created-after-six-seconds", "answers the CreateTaskResult only after a 6 s wait", async (m, ctx) => {
    if (answers(m, ctx, "tools/call") && m.result?.task) await sleep(6000);
    return undefined;
  }),
  mutant(R + "result.terminal-final/error-as-empty-result", "tasks/result of a task that ended in a JSON-RPC error returns an empty result", (m, ctx) =>
    errorOf(m, ctx, "tasks/result") && m.error.code !== -32602 ? [{ jsonrpc: "2.0", id: m.id, result: { content: [], _meta: { [REL]: { taskId: paramTaskId(ctx) } } } }] : undefined,
  ),
  tracked("result.block/not-ready-error", "tasks/result of an unfinished task answers an error at once instead of waiting", (m, ctx, t, s) => {
    // The error it answers at once goes out; the server's own answer, later, is dropped.
    const early: Map<string, number> = (s.early ??= new Map());
    const key = JSON.stringify(m.id);
    if (ctx.dir === "toServer" && m.method === "tasks/result" && typeof m.params?.taskId === "string" && t.status.has(m.params.taskId) && !t.isTerminal(m.params.taskId)) {
      early.set(key, 0);
      ctx.inject("toClient", errorFor(m, -32602, "Task is not finished yet")[0]!);
    }
    if (answers(m, ctx, "tasks/result") && early.has(key)) {
      const n = early.get(key)!;
      early.set(key, n + 1);
      if (n > 0) early.delete(key);
      return n === 0 ? undefined : [];
    }
    return undefined;
  }),
  mutant(R + "result.exactly/is-error-dropped", "tasks/result drops isError from a tool result", (m, ctx) =>
    resultOf(m, ctx, "tasks/result") && m.result.isError !== undefined ? [{ ...m, result: { ...m.result, isError: undefined } }] : undefined,
  ),
  mutant(R + "result.exactly/content-rewrapped", "tasks/result returns the tool's text content as one JSON text item", (m, ctx) =>
    resultOf(m, ctx, "tasks/result") && Array.isArray(m.result.content) && m.result.content.length > 0 ? [{ ...m, result: { ...m.result, content: [{ type: "text", text: JSON.stringify(m.result.content) }] } }] : undefined,
  ),
  mutant(R + "assoc.all-messages-server/progress-without-meta", "progress notifications of a task carry no related-task _meta", (m, ctx) =>
    ctx.dir === "toClient" && m.method === "notifications/progress" ? withoutMeta(m, "params", REL) : undefined,
  ),
  mutant(R + "assoc.all-messages-server/log-without-meta", "the log messages (notifications/message) a task's work sends carry no related-task _meta", (m, ctx) =>
    ctx.dir === "toClient" && m.method === "notifications/message" ? withoutMeta(m, "params", REL) : undefined,
  ),
  mutant(R + "assoc.elicitation-same-task/elicitation-other-task", "an elicitation names another task (the one created before)", (m, ctx, s) => {
    if (answers(m, ctx, "tools/call") && m.result?.task?.taskId) (s.ids ??= []).push(m.result.task.taskId);
    const id = m.params?._meta?.[REL]?.taskId;
    if (ctx.dir !== "toClient" || !isRequest(m) || !id) return undefined;
    const c = clone(m);
    c.params._meta[REL].taskId = (s.ids ?? []).filter((x: string) => x !== id).at(-1) ?? `${id}-0`;
    return [c];
  }),
  mutant(R + "assoc.elicitation-same-task/other-waiting-task", "an elicitation sent while another task's elicitation is unanswered names that other task", otherWaitingTask(REL)),
  mutant(R + "assoc.taskid-param-source-of-truth/meta-wins", "tasks/get, tasks/result and tasks/cancel act on the _meta related-task instead of params.taskId", (m, ctx) => {
    const rel = m.params?._meta?.[REL]?.taskId;
    if (ctx.dir !== "toServer" || !/^tasks\/(get|result|cancel)$/.test(m.method ?? "") || typeof rel !== "string") return undefined;
    return [{ ...m, params: { ...m.params, taskId: rel } }];
  }),
  mutant(R + "assoc.ignore-meta-in-task-requests/meta-mismatch-rejected", "a task request whose _meta names another task is refused -32602", (m, ctx) => {
    const rel = m.params?._meta?.[REL]?.taskId;
    if (ctx.dir !== "toServer" || !/^tasks\//.test(m.method ?? "") || rel === undefined || rel === m.params?.taskId) return undefined;
    ctx.inject("toClient", errorFor(m, -32602, "related-task does not match taskId")[0]!);
    return [];
  }),
  mutant(R + "assoc.no-meta-on-task-results/meta-on-get", "tasks/get results carry related-task _meta", (m, ctx) =>
    resultOf(m, ctx, "tasks/get") ? [{ ...m, result: { ...m.result, _meta: { ...(m.result._meta ?? {}), [REL]: { taskId: m.result.taskId } } } }] : undefined,
  ),
  tracked("notifications.may-send/working-after-end", "after a task ended it notifies a status of working", (m, ctx) =>
    ctx.dir === "toClient" && m.method === "notifications/tasks/status" && TERMINAL.has(m.params?.status) ? [m, { ...m, params: { ...m.params, status: "working" } }] : undefined,
  ),
  mutant(R + "notifications.no-related-meta/meta-on-status", "notifications/tasks/status carry related-task _meta", (m, ctx) =>
    ctx.dir === "toClient" && m.method === "notifications/tasks/status" ? [{ ...m, params: { ...m.params, _meta: { [REL]: { taskId: m.params.taskId } } } }] : undefined,
  ),
  mutant(R + "listing.paginate/cursor-ignored", "tasks/list ignores the cursor and answers the first page again", (m, ctx) =>
    ctx.dir === "toServer" && m.method === "tasks/list" && m.params?.cursor !== undefined ? [{ ...m, params: { ...m.params, cursor: undefined } }] : undefined,
  ),
  mutant(R + "listing.paginate/one-page", "tasks/list answers every task on one page, however many there are", onePage),
  mutant(R + "listing.next-cursor/no-next-cursor", "tasks/list leaves out nextCursor when more tasks are left", (m, ctx) =>
    resultOf(m, ctx, "tasks/list") && m.result.nextCursor !== undefined ? [{ ...m, result: { ...m.result, nextCursor: undefined } }] : undefined,
  ),
  mutant(R + "listing.get-implies-list/ended-tasks-not-listed", "tasks/list shows only tasks still running", (m, ctx) =>
    resultOf(m, ctx, "tasks/list") ? [{ ...m, result: { ...m.result, tasks: (m.result.tasks ?? []).filter((x: any) => !TERMINAL.has(x.status)) } }] : undefined,
  ),
  tracked("cancel.terminal-error/ended-task-returned", "tasks/cancel of an ended task answers the task as it is instead of an error", (m, ctx, t, s) => {
    const id = paramTaskId(ctx);
    return errorOf(m, ctx, "tasks/cancel", -32602) && id && s.last?.get(id) ? [{ jsonrpc: "2.0", id: m.id, result: s.last.get(id) }] : undefined;
  }),
  mutant(R + "cancel.cancelled-before-reply/reply-still-working", "tasks/cancel answers with the task still working", (m, ctx) => (resultOf(m, ctx, "tasks/cancel") ? editTasks(m, ctx, (x) => (x.status = "working")) : undefined)),
  mutant(R + "cancel.cancelled-before-reply/reply-before-cancel", "the next tasks/get after a cancel still shows the task working", (m, ctx, s) => {
    const pending: Set<string> = (s.pending ??= new Set());
    if (resultOf(m, ctx, "tasks/cancel") && m.result.taskId) pending.add(m.result.taskId);
    if (resultOf(m, ctx, "tasks/get") && pending.delete(m.result.taskId) && m.result.status === "cancelled") return editTasks(m, ctx, (x) => (x.status = "working"));
    return undefined;
  }),
  mutant(R + "cancel.stays-cancelled/completed-after-cancel", "a cancelled task whose work finished anyway is shown completed later", (m, ctx, s) => {
    const seen: Set<string> = (s.seen ??= new Set());
    return editTasks(m, ctx, (x) => {
      if (x.status === "cancelled" && seen.has(x.taskId)) x.status = "completed";
      else if (x.status === "cancelled") seen.add(x.taskId);
    });
  }),
  mutant(R + "meta.all-messages-server/progress-other-task", "progress notifications name a task id with a stray suffix", (m, ctx) => {
    const id = m.params?._meta?.[REL]?.taskId;
    return ctx.dir === "toClient" && m.method === "notifications/progress" && id ? [{ ...m, params: { ...m.params, _meta: { ...m.params._meta, [REL]: { taskId: `${id}#` } } } }] : undefined;
  }),
  mutant(R + "meta.all-messages-server/log-previous-task", "a task's log messages name another task (the one created before)", (m, ctx, s) => {
    if (answers(m, ctx, "tools/call") && m.result?.task?.taskId) (s.ids ??= []).push(m.result.task.taskId);
    const id = m.params?._meta?.[REL]?.taskId;
    if (ctx.dir !== "toClient" || m.method !== "notifications/message" || !id) return undefined;
    const other = (s.ids ?? []).filter((x: string) => x !== id).at(-1) ?? `${id}-0`;
    return [{ ...m, params: { ...m.params, _meta: { ...m.params._meta, [REL]: { taskId: other } } } }];
  }),
  mutant(R + "meta.not-on-task-operations-server/meta-on-cancel-and-list", "tasks/cancel and tasks/list results carry related-task _meta", (m, ctx) =>
    resultOf(m, ctx, /^tasks\/(cancel|list)$/) ? [{ ...m, result: { ...m.result, _meta: { [REL]: { taskId: m.result.taskId ?? paramTaskId(ctx) ?? m.result.tasks?.[0]?.taskId ?? "" } } } }] : undefined,
  ),
  mutant(R + "meta.on-result-response/no-meta", "tasks/result responses carry no related-task _meta", (m, ctx) => (resultOf(m, ctx, "tasks/result") ? withoutMeta(m, "result", REL) : undefined)),
  mutant(R + "errors.unknown-task-id/internal-error-code", "an unknown taskId is answered -32603", (m, ctx) =>
    errorOf(m, ctx, /^tasks\/(get|result|cancel)$/, -32602) && /not found|unknown/i.test(m.error.message) ? [{ ...m, error: { ...m.error, code: -32603 } }] : undefined,
  ),
  mutant(R + "errors.unknown-task-id/cancel-unknown-acked", "tasks/cancel of an unknown taskId is acknowledged", (m, ctx) =>
    errorOf(m, ctx, "tasks/cancel", -32602) && /not found|unknown/i.test(m.error.message) ? [{ jsonrpc: "2.0", id: m.id, result: {} }] : undefined,
  ),
  mutant(R + "errors.invalid-cursor/first-page", "a forged tasks/list cursor is answered with the first page", (m, ctx) =>
    ctx.dir === "toServer" && m.method === "tasks/list" && typeof m.params?.cursor === "string" && !/^ey/.test(m.params.cursor) ? [{ ...m, params: { ...m.params, cursor: undefined } }] : undefined,
  ),
  mutant(R + "errors.invalid-cursor/invalid-request-code", "an invalid cursor is answered -32600", (m, ctx) =>
    errorOf(m, ctx, "tasks/list", -32602) && /cursor/i.test(m.error.message) ? [{ ...m, error: { ...m.error, code: -32600 } }] : undefined,
  ),
  mutant(R + "errors.cancel-terminal/invalid-request-code", "cancelling an ended task is answered -32600", (m, ctx) =>
    errorOf(m, ctx, "tasks/cancel", -32602) && /terminal|already/i.test(m.error.message) ? [{ ...m, error: { ...m.error, code: -32600 } }] : undefined,
  ),
  mutant(R + "errors.internal/server-error-code", "internal errors are answered with the implementation code -32000", (m, ctx) =>
    ctx.dir === "toClient" && m.error?.code === -32603 ? [{ ...m, error: { ...m.error, code: -32000 } }] : undefined,
  ),
  mutant(R + "errors.may-require-task/optional-refused-32600", "a plain call of a taskSupport optional tool is refused -32600", (m, ctx, s) => {
    const tools = learnTools(m, ctx, s);
    if (ctx.dir === "toServer" && m.method === "tools/call" && !augmented(m) && tools.get(m.params?.name) === "optional") {
      ctx.inject("toClient", errorFor(m, -32600, "Task augmentation required")[0]!);
      return [];
    }
    return undefined;
  }),
  mutant(R + "ttl.may-override/granted-not-shown", "grants at most 10 minutes of ttl, but the CreateTaskResult shows the ttl asked while tasks/get shows the one granted", (m, ctx) =>
    ctx.dir === "toClient" && ctx.request?.method !== "tools/call" ? editTasks(m, ctx, (x) => (x.ttl === null || x.ttl > 600_000) && (x.ttl = 600_000)) : undefined,
  ),
  tracked("cancel.may-delete/deleted-internal-error", "deletes a cancelled task as soon as its tasks/cancel is answered, and answers tasks/get, tasks/result and tasks/cancel of it -32603 (not the not-found error)", (m, ctx, t, s) => {
    const gone: Set<string> = (s.gone ??= new Set());
    if (resultOf(m, ctx, "tasks/cancel") && m.result.status === "cancelled" && typeof m.result.taskId === "string") {
      gone.add(m.result.taskId);
      return undefined;
    }
    const id = paramTaskId(ctx);
    return ctx.dir === "toClient" && id && gone.has(id) && /^tasks\/(get|result|cancel)$/.test(ctx.request!.method) ? errorFor(m, -32603, "Task deleted") : undefined;
  }),
  mutant(R + "errors.informative-messages/empty-messages", "every error has an empty message", (m, ctx) => (ctx.dir === "toClient" && m.error ? [{ ...m, error: { ...m.error, message: "" } }] : undefined)),
  mutant(R + "errors.informative-messages/generic-invalid-messages", "errors for an invalid request (params, task metadata, cursor) say only \"Error\"", genericInvalid),
  mutant(R + "exec.status-message/no-status-message", "tasks/get of a failed task has no statusMessage", (m, ctx) => editTasks(m, ctx, (x) => x.status === "failed" && delete x.statusMessage)),
  mutant(R + "exec.same-error/generic-error", "tasks/result of a failed task answers a generic -32000 error instead of the request's error", (m, ctx) =>
    errorOf(m, ctx, "tasks/result") && m.error.code !== -32602 ? [{ ...m, error: { code: -32000, message: "Task failed" } }] : undefined,
  ),
  mutant(R + "exec.success-result/task-instead-of-result", "tasks/result of a completed task returns the task object", (m, ctx) =>
    resultOf(m, ctx, "tasks/result") ? [{ ...m, result: { taskId: paramTaskId(ctx), status: "completed", _meta: m.result._meta } }] : undefined,
  ),
  // Over stdio a server process has one client (one requestor): another session is another HTTP session.
  mutant(R + "security.bind-auth-context/cancel-other-session", "tasks/cancel reaches a task of another session", (m, ctx, s) => leak(m, ctx, s, /^tasks\/cancel$/), { transports: ["http"] }),
  mutant(R + "security.reject-other-context/get-other-session", "tasks/get and tasks/result answer for a task of another session", (m, ctx, s) => leak(m, ctx, s, /^tasks\/(get|result)$/), { transports: ["http"] }),
  // With two principals (the demo run with --auth): what another principal asks of a task is served as its owner.
  servedAsOwner(R + "security.reject-other-context/result-other-principal", "tasks/result of another principal's running task waits for the task as for its owner (the owner is checked only once it ended)", /^tasks\/result$/, { runningOnly: true }),
  servedAsOwner(R + "security.bind-auth-context/get-other-principal", "tasks/get and tasks/cancel of another principal's task are served as for its owner", /^tasks\/(get|cancel)$/),
  mutant(R + "security.list-own-context/list-all-sessions", "tasks/list shows the tasks of every session", (m, ctx, s) => leak(m, ctx, s, /^tasks\/list$/)),
  mutant(R + "resources.max-ttl/unlimited-granted", "grants an unlimited ttl (null) whatever is asked", (m, ctx) => editTasks(m, ctx, (x) => (x.ttl = null))),
];

export const mcp2025Unmutable: Unmutable[] = [
  { statement: R + "id.receiver-generated", reason: "the client sends no id of its own in this revision, so an id copied from client data cannot be told from one the receiver made" },
];

/** Behaviours the MAY statements of this revision permit, which conform must hold against. */
export const mcp2025Permitted: Mutant[] = [
  mutant(R + "support.may-require/optional-listed-required", "requires tasks for every tool that can run as one: tools/list shows each optional tool as required, and a plain call of one is refused -32601 as tool.required-error says", (m, ctx, s) => {
    const tools = learnTools(m, ctx, s);
    if (resultOf(m, ctx, "tools/list")) {
      return withResult(m, (r) => {
        for (const t of r.tools ?? []) if (t.execution?.taskSupport === "optional") t.execution.taskSupport = "required";
      });
    }
    if (ctx.dir === "toServer" && m.method === "tools/call" && !augmented(m) && tools.get(m.params?.name) === "optional") {
      ctx.inject("toClient", errorFor(m, -32601, `Tool '${m.params.name}' requires task-augmented execution`)[0]!);
      return [];
    }
    return undefined;
  }),
  tracked("cancel.may-delete/deleted-at-once", "deletes a cancelled task as soon as its tasks/cancel is answered: tasks/get, tasks/result and tasks/cancel of it answer the not-found error, tasks/list shows it no more, and no status notification of it follows", (m, ctx, t, s) => {
    const gone: Set<string> = (s.gone ??= new Set());
    if (resultOf(m, ctx, "tasks/cancel") && m.result.status === "cancelled" && typeof m.result.taskId === "string") {
      gone.add(m.result.taskId);
      return undefined;
    }
    if (gone.size === 0 || ctx.dir !== "toClient") return undefined;
    const id = paramTaskId(ctx);
    if (id !== undefined && gone.has(id) && /^tasks\/(get|result|cancel)$/.test(ctx.request?.method ?? "") && m.id !== undefined) return errorFor(m, -32602, "Failed to retrieve task: Task not found");
    if (resultOf(m, ctx, "tasks/list") && (m.result.tasks ?? []).some((x: any) => gone.has(x?.taskId))) return withResult(m, (r) => void (r.tasks = r.tasks.filter((x: any) => !gone.has(x?.taskId))));
    if (m.method === "notifications/tasks/status" && gone.has(m.params?.taskId)) return [];
    return undefined;
  }),
  mutant(R + "ttl.may-override/capped-ten-minutes", "grants at most 10 minutes of ttl (an unlimited one too) and shows that in the CreateTaskResult and every later answer", (m, ctx) =>
    ctx.dir === "toClient" ? editTasks(m, ctx, (x) => "ttl" in x && (x.ttl === null || x.ttl > 600_000) && (x.ttl = 600_000)) : undefined,
  ),
];
