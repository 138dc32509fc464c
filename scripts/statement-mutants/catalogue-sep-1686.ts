/**
 * Statement mutants of sep-1686-draft: for each server statement seen at the wire, server bugs written
 * from the statement's text (the requestor names the task in _meta["modelcontextprotocol.io/task"], the
 * receiver announces it with notifications/tasks/created and answers tasks/get, tasks/list,
 * tasks/result, tasks/delete), and the statements no proxy can break.
 */
import { answers, clone, errorFor, isNotification, isRequest, mutant, servedAsOwner, sleep, withResult, type Ctx, type Msg, type Mutant, type Unmutable } from "./mutant.js";
import { editTasks, errorOf, every, genericInvalid, onePage, otherWaitingTask, paramTaskId, resultOf, TERMINAL, Tracker, withoutMeta } from "./wire.js";

const R = "sep-1686-draft/";
const TASK = "modelcontextprotocol.io/task";
const REL = "modelcontextprotocol.io/related-task";
const AUGMENTABLE = /^(tools\/call|prompts\/get|resources\/read)$/;
/** The demo's largest keepAlive (the spec's behaviour.retention.max). */
const MAX_KEEP_ALIVE = 86_400_000;

/** A mutant that sees every message through a Tracker of task statuses (updated before fn runs). */
const tracked = (name: string, description: string, fn: (m: Msg, ctx: Ctx, t: Tracker, s: Record<string, any>) => Msg[] | undefined) =>
  mutant(R + name, description, (m, ctx, s) => {
    const t: Tracker = (s.tracker ??= new Tracker());
    const before = ctx.dir === "toClient" && ctx.request?.method === "tasks/get" ? t.status.get(paramTaskId(ctx) ?? "") : undefined;
    s.before = before;
    t.observe(m, ctx);
    return fn(m, ctx, t, s);
  });

/** The session a message belongs to: over stdio each initialize starts one; over HTTP, its session id. */
function session(m: Msg, ctx: Ctx, s: Record<string, any>): string {
  if (ctx.dir === "toServer" && m.method === "initialize") s.epoch = (s.epoch ?? 0) + 1;
  return ctx.transport === "http" ? ctx.conn : `stdio#${s.epoch ?? 0}`;
}

const relTask = (m: Msg): string | undefined => m.params?._meta?.[REL]?.taskId ?? m.result?._meta?.[REL]?.taskId;

export const sepMutants: Mutant[] = [
  mutant(R + "created.notify/no-created-notification", "never sends notifications/tasks/created", (m) => (m.method === "notifications/tasks/created" ? [] : undefined)),
  mutant(R + "created.notify/created-after-result", "sends notifications/tasks/created only after the request's final response", (m, ctx, s) => {
    if (m.method === "notifications/tasks/created") {
      (s.held ??= []).push(m);
      return [];
    }
    if (ctx.dir === "toClient" && ctx.request && AUGMENTABLE.test(ctx.request.method) && (s.held?.length ?? 0) > 0) return [m, ...s.held.splice(0)];
    return undefined;
  }),
  mutant(R + "created.notify/created-wrong-task", "announces the created task under another task's id", (m, ctx, s) => {
    if (m.method !== "notifications/tasks/created") return undefined;
    const c = clone(m);
    const id = relTask(m);
    if (c.params?._meta?.[REL]) c.params._meta[REL].taskId = s.last ?? `${id}-x`;
    s.last = id;
    return [c];
  }),
  mutant(R + "support.ignore-unsupported/reject-task-meta", "answers a request it makes no tasks of with an error when it carries task _meta", (m, ctx) => {
    if (ctx.dir === "toServer" && isRequest(m) && !AUGMENTABLE.test(m.method) && !m.method.startsWith("tasks/") && m.params?._meta?.[TASK]) {
      ctx.inject("toClient", errorFor(m, -32602, "Task augmentation is not supported for this request")[0]!);
      return [];
    }
    return undefined;
  }),
  mutant(R + "support.ignore-unsupported/announce-unsupported", "sends notifications/tasks/created for a request it makes no task of", (m, ctx) => {
    if (ctx.dir === "toServer" && isRequest(m) && !AUGMENTABLE.test(m.method) && !m.method.startsWith("tasks/") && typeof m.params?._meta?.[TASK]?.taskId === "string")
      ctx.inject("toClient", { jsonrpc: "2.0", method: "notifications/tasks/created", params: { _meta: { [REL]: { taskId: m.params._meta[TASK].taskId } } } });
    return undefined;
  }),
  mutant(R + "id.string-server/row-id-in-get", "tasks/get shows the store's numeric row id as taskId", (m, ctx) =>
    resultOf(m, ctx, "tasks/get") ? editTasks(m, ctx, (t) => (t.taskId = 1)) : undefined,
  ),
  mutant(R + "id.string-server/row-id-in-list", "tasks/list shows numeric row ids as taskIds", (m, ctx) => {
    let i = 0;
    return resultOf(m, ctx, "tasks/list") ? editTasks(m, ctx, (t) => (t.taskId = ++i)) : undefined;
  }),
  mutant(R + "id.may-validate/reject-fresh-id", "its uniqueness check refuses every third new task id as already used", (m, ctx, s) => {
    if (ctx.dir === "toServer" && isRequest(m) && typeof m.params?._meta?.[TASK]?.taskId === "string" && every(s, "n", 3)) {
      ctx.inject("toClient", errorFor(m, -32602, `Task ID already exists: ${m.params._meta[TASK].taskId}`)[0]!);
      return [];
    }
    return undefined;
  }),
  tracked("lifecycle.valid-paths/working-back-to-submitted", "a working task is shown as submitted again on the next tasks/get", (m, ctx, t, s) =>
    resultOf(m, ctx, "tasks/get") && m.result.status === "working" && s.before === "working" ? editTasks(m, ctx, (x) => (x.status = "submitted")) : undefined,
  ),
  tracked("lifecycle.terminal-final/completed-then-working", "a completed task is shown working again on a later tasks/get", (m, ctx, t, s) =>
    resultOf(m, ctx, "tasks/get") && m.result.status === "completed" && s.before === "completed" ? editTasks(m, ctx, (x) => (x.status = "working")) : undefined,
  ),
  tracked("lifecycle.terminal-final/cancelled-then-completed", "a cancelled task whose work finished anyway is shown completed", (m, ctx, t, s) =>
    answers(m, ctx, /^tasks\/(get|list)$/) && m.result
      ? editTasks(m, ctx, (x) => {
          if (x.status === "cancelled" && (s.seenCancelled ??= new Set()).has(x.taskId)) x.status = "completed";
          else if (x.status === "cancelled") s.seenCancelled.add(x.taskId);
        })
      : undefined,
  ),
  mutant(R + "lifecycle.prefer-failed/unknown-instead-of-failed", "a task whose work failed is shown as unknown, with no error", (m, ctx) =>
    editTasks(m, ctx, (x) => {
      if (x.status === "failed") {
        x.status = "unknown";
        delete x.error;
      }
    }),
  ),
  mutant(R + "input.move-to-input-required/stays-working", "a task waiting on an elicitation is still shown working", (m, ctx) =>
    editTasks(m, ctx, (x) => x.status === "input_required" && (x.status = "working")),
  ),
  mutant(R + "input.related-task-on-request/elicitation-without-meta", "an elicitation/create sent for a task carries no related-task _meta", (m, ctx) =>
    ctx.dir === "toClient" && isRequest(m) ? withoutMeta(m, "params", REL) : undefined,
  ),
  mutant(R + "input.stay-until-all-answered/working-after-first-answer", "after one of two pending elicitations is answered the task shows working", (m, ctx, s) => {
    const pending: Map<string, Set<string>> = (s.pending ??= new Map());
    const early: Set<string> = (s.early ??= new Set());
    if (ctx.dir === "toClient" && isRequest(m) && relTask(m)) {
      const set = pending.get(relTask(m)!) ?? new Set();
      pending.set(relTask(m)!, set.add(JSON.stringify(m.id)));
    } else if (ctx.dir === "toServer" && !m.method && ctx.request) {
      const task = ctx.request.params?._meta?.[REL]?.taskId;
      const set = task ? pending.get(task) : undefined;
      if (set) {
        set.delete(JSON.stringify(m.id));
        if (set.size > 0) early.add(task);
        else early.delete(task);
      }
    }
    return editTasks(m, ctx, (x) => early.has(x.taskId) && x.status === "input_required" && (x.status = "working"));
  }),
  mutant(R + "keep-alive.actual-in-get/no-keep-alive", "tasks/get leaves out keepAlive", (m, ctx) => (resultOf(m, ctx, "tasks/get") ? editTasks(m, ctx, (x) => delete x.keepAlive) : undefined)),
  mutant(R + "keep-alive.actual-in-get/requested-not-actual", "tasks/get shows the keepAlive as a string of seconds, not the duration in ms", (m, ctx) =>
    resultOf(m, ctx, "tasks/get") ? editTasks(m, ctx, (x) => typeof x.keepAlive === "number" && (x.keepAlive = `${x.keepAlive / 1000}s`)) : undefined,
  ),
  mutant(R + "keep-alive.actual-in-get/echoes-requested", "tasks/get shows the keepAlive the requestor asked for (up to the max), while the server keeps the task for its default", (m, ctx, s) => {
    const asked: Map<string, number> = (s.asked ??= new Map());
    const task = m.params?._meta?.[TASK];
    if (ctx.dir === "toServer" && isRequest(m) && typeof task?.taskId === "string" && typeof task.keepAlive === "number") {
      asked.set(task.taskId, task.keepAlive);
      const c = clone(m);
      delete c.params._meta[TASK].keepAlive;
      return [c];
    }
    return resultOf(m, ctx, /^tasks\/(get|list)$/) ? editTasks(m, ctx, (x) => asked.has(x.taskId) && (x.keepAlive = Math.min(asked.get(x.taskId)!, MAX_KEEP_ALIVE))) : undefined;
  }),
  mutant(R + "keep-alive.actual-in-get/applies-a-quarter", "tasks/get shows the keepAlive asked for, while the server keeps the task a quarter of it", (m, ctx, s) => {
    const asked: Map<string, number> = (s.asked ??= new Map());
    const task = m.params?._meta?.[TASK];
    if (ctx.dir === "toServer" && isRequest(m) && typeof task?.taskId === "string" && typeof task.keepAlive === "number" && task.keepAlive > 0 && task.keepAlive <= MAX_KEEP_ALIVE) {
      asked.set(task.taskId, task.keepAlive);
      const c = clone(m);
      c.params._meta[TASK].keepAlive = Math.floor(task.keepAlive / 4);
      return [c];
    }
    return resultOf(m, ctx, /^tasks\/(get|list)$/) ? editTasks(m, ctx, (x) => asked.has(x.taskId) && (x.keepAlive = asked.get(x.taskId))) : undefined;
  }),
  tracked("keep-alive.may-delete/deleted-at-end", "deletes a task as soon as it ends, long before its keepAlive elapses", (m, ctx, t, s) =>
    errorIfEnded(m, ctx, s, (st) => st === "completed" || st === "failed"),
  ),
  mutant(R + "keep-alive.may-poll-frequency/poll-frequency-string", "tasks/get gives pollFrequency as a string with a unit", (m, ctx) =>
    resultOf(m, ctx, "tasks/get") ? editTasks(m, ctx, (x) => (x.pollFrequency = `${x.pollFrequency ?? 1000}ms`)) : undefined,
  ),
  tracked("result.only-when-completed/result-of-failed", "tasks/result of a failed or cancelled task returns an empty tool result", (m, ctx, t) => {
    const id = paramTaskId(ctx);
    return errorOf(m, ctx, "tasks/result") && id && ["failed", "cancelled"].includes(t.status.get(id) ?? "") ? [{ jsonrpc: "2.0", id: m.id, result: { content: [], _meta: { [REL]: { taskId: id } } } }] : undefined;
  }),
  tracked("result.error-otherwise/partial-result-while-working", "tasks/result of an unfinished task returns what there is so far instead of an error", (m, ctx, t) => {
    const id = paramTaskId(ctx);
    return errorOf(m, ctx, "tasks/result") && id && t.status.has(id) && !TERMINAL.has(t.status.get(id)!) ? [{ jsonrpc: "2.0", id: m.id, result: { content: [], _meta: { [REL]: { taskId: id } } } }] : undefined;
  }),
  mutant(R + "associate.all-messages-server/final-response-without-meta", "the final response of a task-augmented request has no related-task _meta", (m, ctx) =>
    ctx.dir === "toClient" && ctx.request && AUGMENTABLE.test(ctx.request.method) && m.result ? withoutMeta(m, "result", REL) : undefined,
  ),
  mutant(R + "associate.all-messages-server/progress-without-meta", "progress notifications of a task carry no related-task _meta", (m, ctx) =>
    ctx.dir === "toClient" && m.method === "notifications/progress" ? withoutMeta(m, "params", REL) : undefined,
  ),
  mutant(R + "associate.all-messages-server/log-without-meta", "the log messages (notifications/message) a task's work sends carry no related-task _meta", (m, ctx) =>
    ctx.dir === "toClient" && m.method === "notifications/message" ? withoutMeta(m, "params", REL) : undefined,
  ),
  mutant(R + "associate.all-messages-server/created-without-meta", "notifications/tasks/created carries no related-task _meta", (m, ctx) =>
    ctx.dir === "toClient" && m.method === "notifications/tasks/created" ? [{ ...m, params: {} }] : undefined,
  ),
  mutant(R + "associate.all-messages-server/result-wrong-task", "tasks/result answers with the related-task of the previous task asked for", (m, ctx, s) => {
    if (!resultOf(m, ctx, "tasks/result") || !m.result._meta?.[REL]) return undefined;
    const c = clone(m);
    const id = c.result._meta[REL].taskId;
    if (s.prev && s.prev !== id) c.result._meta[REL].taskId = s.prev;
    s.prev = id;
    return [c];
  }),
  mutant(R + "associate.elicitation-same-task/elicitation-other-task", "an elicitation names the task id with a suffix of the store's key", (m, ctx) => {
    if (ctx.dir !== "toClient" || !isRequest(m) || !relTask(m)) return undefined;
    const c = clone(m);
    c.params._meta[REL].taskId = `${relTask(m)}:1`;
    return [c];
  }),
  mutant(R + "associate.elicitation-same-task/other-waiting-task", "an elicitation sent while another task's elicitation is unanswered names that other task", otherWaitingTask(REL)),
  mutant(R + "cancel.move-to-cancelled/cancel-ignored", "ignores notifications/cancelled for a task-augmented request", (m, ctx) =>
    ctx.dir === "toServer" && m.method === "notifications/cancelled" ? [] : undefined,
  ),
  tracked("cancel.ignore-after-end/cancelled-after-completed", "a cancellation arriving after the task completed turns it cancelled", (m, ctx, t, s) => {
    const late: Set<string> = (s.late ??= new Set());
    if (ctx.dir === "toServer" && m.method === "notifications/cancelled") {
      const id = t.taskOfRequest(m.params?.requestId);
      if (id && t.isTerminal(id)) late.add(id);
    }
    return editTasks(m, ctx, (x) => late.has(x.taskId) && (x.status = "cancelled"));
  }),
  tracked("cancel.may-delete/deleted-at-once", "deletes a cancelled task at once, before its keepAlive elapses", (m, ctx, t, s) => errorIfEnded(m, ctx, s, (st) => st === "cancelled")),
  mutant(R + "cancel.ignore-pending-responses/answer-after-cancel-completes", "an elicitation answered after the task was cancelled completes the task", (m, ctx, s) => {
    const cancelled: Set<string> = (s.cancelled ??= new Set());
    const revived: Set<string> = (s.revived ??= new Set());
    for (const x of ctx.dir === "toClient" && m.result ? [m.result, ...(m.result.tasks ?? [])] : []) if (x?.status === "cancelled") cancelled.add(x.taskId);
    if (ctx.dir === "toServer" && !m.method && ctx.request) {
      const task = ctx.request.params?._meta?.[REL]?.taskId;
      if (task && cancelled.has(task)) revived.add(task);
    }
    return editTasks(m, ctx, (x) => revived.has(x.taskId) && (x.status = "completed"));
  }),
  mutant(R + "listing.paginate/cursor-ignored", "tasks/list ignores the cursor and answers the first page again", (m, ctx) => {
    if (ctx.dir !== "toServer" || m.method !== "tasks/list" || m.params?.cursor === undefined) return undefined;
    const c = clone(m);
    delete c.params.cursor;
    return [c];
  }),
  mutant(R + "listing.paginate/one-page", "tasks/list answers every task on one page, however many there are", onePage),
  mutant(R + "listing.next-cursor/no-next-cursor", "tasks/list leaves out nextCursor when more tasks are left", (m, ctx) => {
    if (!resultOf(m, ctx, "tasks/list") || m.result.nextCursor === undefined) return undefined;
    const c = clone(m);
    delete c.result.nextCursor;
    return [c];
  }),
  mutant(R + "listing.get-implies-list/ended-tasks-not-listed", "tasks/list shows only tasks still running", (m, ctx) => {
    if (!resultOf(m, ctx, "tasks/list") || !Array.isArray(m.result.tasks)) return undefined;
    const c = clone(m);
    c.result.tasks = c.result.tasks.filter((x: any) => !TERMINAL.has(x.status));
    return [c];
  }),
  mutant(R + "deletion.delete-everything/accepted-not-deleted", "acknowledges tasks/delete but keeps the task and its result", (m, ctx) => {
    if (ctx.dir === "toServer" && m.method === "tasks/delete" && typeof m.params?.taskId === "string") {
      ctx.inject("toClient", { jsonrpc: "2.0", id: m.id, result: { _meta: { [REL]: { taskId: m.params.taskId } } } });
      return [];
    }
    return undefined;
  }),
  mutant(R + "deletion.delete-everything/result-kept", "deletes the task but keeps its result: tasks/result of the deleted task still answers it", keepResult),
  mutant(R + "deletion.may-accept-or-reject/refused-but-deleted", "deletes the task, then answers tasks/delete with its refusal error (-32012) as if it had kept it", (m, ctx) =>
    resultOf(m, ctx, "tasks/delete") ? errorFor(m, -32012, "Task deletion refused") : undefined,
  ),
  mutant(R + "deletion.may-not-support/unsupported-but-deleted", "deletes the task, then answers tasks/delete with -32601 (Method not found) as if it supported no deletion", (m, ctx) =>
    resultOf(m, ctx, "tasks/delete") ? errorFor(m, -32601, "Method not found") : undefined,
  ),
  mutant(R + "errors.unknown-task-id/internal-error-code", "an unknown taskId in tasks/get, tasks/list or tasks/result is answered -32603", (m, ctx) =>
    errorOf(m, ctx, /^tasks\/(get|list|result)$/, -32602) && /not found|unknown/i.test(m.error.message) ? [{ ...m, error: { ...m.error, code: -32603 } }] : undefined,
  ),
  mutant(R + "errors.unknown-task-id/null-result", "tasks/get of an unknown taskId answers a null-status result", (m, ctx) =>
    errorOf(m, ctx, "tasks/get", -32602) && /not found|unknown/i.test(m.error.message) ? [{ jsonrpc: "2.0", id: m.id, result: { taskId: paramTaskId(ctx), status: null } }] : undefined,
  ),
  mutant(R + "errors.invalid-cursor/first-page", "a forged tasks/list cursor is answered with the first page", (m, ctx) => {
    if (ctx.dir !== "toServer" || m.method !== "tasks/list" || typeof m.params?.cursor !== "string" || /^ey/.test(m.params.cursor)) return undefined;
    const c = clone(m);
    delete c.params.cursor;
    return [c];
  }),
  mutant(R + "errors.invalid-cursor/invalid-request-code", "an invalid cursor is answered -32600", (m, ctx) =>
    errorOf(m, ctx, "tasks/list", -32602) && /cursor/i.test(m.error.message) ? [{ ...m, error: { ...m.error, code: -32600 } }] : undefined,
  ),
  mutant(R + "errors.duplicate-task-id/invalid-request-code", "a reused task id is answered -32600", (m, ctx) =>
    ctx.dir === "toClient" && m.error?.code === -32602 && /exist|already|duplicate/i.test(m.error.message) ? [{ ...m, error: { ...m.error, code: -32600 } }] : undefined,
  ),
  mutant(R + "errors.duplicate-task-id/second-task-accepted", "a reused task id is accepted and the request served without a task", (m, ctx, s) => {
    if (ctx.dir === "toServer" && isRequest(m) && typeof m.params?._meta?.[TASK]?.taskId === "string") {
      const seen: Set<string> = (s.seen ??= new Set());
      const id = m.params._meta[TASK].taskId;
      if (seen.has(id)) {
        const c = clone(m);
        delete c.params._meta[TASK];
        return [c];
      }
      seen.add(id);
    }
    return undefined;
  }),
  mutant(R + "errors.result-not-completed/internal-error-code", "tasks/result of an unfinished task is answered -32603", (m, ctx) =>
    errorOf(m, ctx, "tasks/result", -32602) && /status|not 'completed'|not completed/i.test(m.error.message) ? [{ ...m, error: { ...m.error, code: -32603 } }] : undefined,
  ),
  mutant(R + "errors.internal/server-error-code", "internal errors are answered with the implementation code -32000", (m, ctx) =>
    ctx.dir === "toClient" && m.error?.code === -32603 ? [{ ...m, error: { ...m.error, code: -32000 } }] : undefined,
  ),
  mutant(R + "errors.informative-messages/empty-messages", "every error has an empty message", (m, ctx) => (ctx.dir === "toClient" && m.error ? [{ ...m, error: { ...m.error, message: "" } }] : undefined)),
  mutant(R + "errors.informative-messages/generic-invalid-messages", "errors for an invalid request (params, task metadata, cursor) say only \"Error\"", genericInvalid),
  mutant(R + "errors.result-not-completed/ended-internal-error", "tasks/result of a task that ended failed or cancelled is answered -32603 (-32602 only while it runs)", (m, ctx) =>
    errorOf(m, ctx, "tasks/result", -32602) && /'(failed|cancelled)'/.test(m.error.message) ? [{ ...m, error: { ...m.error, code: -32603 } }] : undefined,
  ),
  mutant(R + "execution.error-field/no-error-field", "tasks/get of a failed task leaves out error", (m, ctx) => editTasks(m, ctx, (x) => x.status === "failed" && delete x.error)),
  // Over stdio a server process has one client (one requestor): another session is another HTTP session.
  mutant(R + "security.scope-reject-other/other-session-served", "tasks/get and tasks/result answer for a task of another session", (m, ctx, s) => leak(m, ctx, s, "get"), { transports: ["http"] }),
  servedAsOwner(R + "security.scope-bind-auth/get-other-principal", "tasks/get and tasks/cancel of another principal's task are served as for its owner", /^tasks\/(get|cancel)$/),
  mutant(R + "security.scope-bind-session/list-all-sessions", "tasks/list shows the tasks of every session", (m, ctx, s) => leak(m, ctx, s, "list")),
  mutant(R + "resources.max-keep-alive/unlimited-granted", "grants an unlimited keepAlive (null) whatever is asked", (m, ctx) =>
    resultOf(m, ctx, /^tasks\/(get|list)$/) ? editTasks(m, ctx, (x) => (x.keepAlive = null)) : undefined,
  ),
];

/**
 * Before the server deletes a task, the proxy reads its result (its own tasks/result, over stdio); once the delete
 * was accepted, tasks/result of the task answers that result where the server refuses it.
 */
function keepResult(m: Msg, ctx: Ctx, s: Record<string, any>): Msg[] | undefined {
  const held: Map<string, Msg> = (s.held ??= new Map());
  const kept: Map<string, any> = (s.kept ??= new Map());
  const deleted: Set<string> = (s.deleted ??= new Set());
  const passing: Set<Msg> = (s.passing ??= new Set());
  if (passing.delete(m)) return undefined;
  if (ctx.dir === "toServer" && m.method === "tasks/delete" && typeof m.params?.taskId === "string") {
    const id = `keep-result-${(s.n = (s.n ?? 0) + 1)}`;
    held.set(id, m);
    ctx.inject("toServer", { jsonrpc: "2.0", id, method: "tasks/result", params: { taskId: m.params.taskId } });
    return [];
  }
  if (ctx.dir === "toClient" && typeof m.id === "string" && held.has(m.id)) {
    const del = held.get(m.id)!;
    held.delete(m.id);
    if (m.result) kept.set(del.params.taskId, m.result);
    // The delete then goes on as the client sent it (this mutant lets it pass).
    passing.add(del);
    ctx.inject("toServer", del);
    return [];
  }
  const id = paramTaskId(ctx);
  if (resultOf(m, ctx, "tasks/delete") && id) deleted.add(id);
  if (errorOf(m, ctx, "tasks/result") && id && deleted.has(id) && kept.has(id)) return [{ jsonrpc: "2.0", id: m.id, result: kept.get(id) }];
  return undefined;
}

/** After a task was shown in an ending status, tasks/get and tasks/result of it answer "not found". */
function errorIfEnded(m: Msg, ctx: Ctx, s: Record<string, any>, ended: (status: string) => boolean): Msg[] | undefined {
  const gone: Set<string> = (s.gone ??= new Set());
  const id = paramTaskId(ctx);
  if (answers(m, ctx, /^tasks\/(get|result)$/) && id && gone.has(id)) return errorFor(m, -32602, "Failed to retrieve task: Task not found");
  if (resultOf(m, ctx, "tasks/get") && id && ended(m.result.status)) gone.add(id);
  return undefined;
}

/** The tasks each session saw (their last tasks/get result): served to another session too. */
function leak(m: Msg, ctx: Ctx, s: Record<string, any>, what: "get" | "list"): Msg[] | undefined {
  const sess = session(m, ctx, s);
  const known: Map<string, { sess: string; task: any }> = (s.known ??= new Map());
  if (resultOf(m, ctx, "tasks/get") && typeof m.result.taskId === "string") known.set(m.result.taskId, { sess, task: clone(m.result) });
  if (resultOf(m, ctx, "tasks/list")) for (const t of m.result.tasks ?? []) if (!known.has(t.taskId)) known.set(t.taskId, { sess, task: clone(t) });
  const id = paramTaskId(ctx);
  if (what === "get" && errorOf(m, ctx, /^tasks\/(get|result)$/, -32602) && id && known.get(id) && known.get(id)!.sess !== sess) {
    const t = known.get(id)!.task;
    return ctx.request!.method === "tasks/get" ? [{ jsonrpc: "2.0", id: m.id, result: t }] : [{ jsonrpc: "2.0", id: m.id, result: { content: [], _meta: { [REL]: { taskId: id } } } }];
  }
  if (what === "list" && resultOf(m, ctx, "tasks/list") && m.result.nextCursor === undefined) {
    const c = clone(m);
    const here = new Set(c.result.tasks.map((t: any) => t.taskId));
    for (const [tid, k] of known) if (k.sess !== sess && !here.has(tid)) c.result.tasks.push(k.task);
    return [c];
  }
  return undefined;
}

export const sepUnmutable: Unmutable[] = [
  { statement: R + "capabilities.server-declares", reason: "the demo of this revision declares no tasks capability at all (it follows the seed's rationale: support is found by trying), so there is nothing at the wire to take away" },
  { statement: R + "support.choose-types", reason: "a type not chosen is served as support.ignore-unsupported says: its wrong use is that statement's, mutated there" },
  { statement: R + "lifecycle.may-complete-at-once", reason: "a permission whose misuse (a task shown ended while its work goes on) is what lifecycle.terminal-final forbids, mutated there (completed-then-working); its use is a permitted behaviour" },
  { statement: R + "input.may-leave", reason: "a permission whose misuse (leaving input_required while a request for the task still waits) is what input.move-to-input-required and input.stay-until-all-answered forbid, mutated there; its use is a permitted behaviour" },
  { statement: R + "keep-alive.may-override", reason: "a permission whose misuse (a keepAlive granted that is not the one shown, or above the max) is only seen through keep-alive.actual-in-get, keep-alive.may-delete and resources.max-keep-alive, mutated there" },
];

/** Behaviours the MAY statements of this revision permit, which conform must hold against. */
export const sepPermitted: Mutant[] = [
  mutant(R + "support.choose-types/resources-and-prompts-plain", "supports tasks for tools/call only: resources/read and prompts/get asked as tasks reach it without the task _meta and are served plainly", (m, ctx) => {
    if (ctx.dir !== "toServer" || !isRequest(m) || !/^(resources\/read|prompts\/get)$/.test(m.method) || m.params?._meta?.[TASK] === undefined) return undefined;
    const c = clone(m);
    delete c.params._meta[TASK];
    return [c];
  }),
  mutant(R + "keep-alive.may-override/capped-ten-minutes", "grants at most 10 minutes of keepAlive (an unlimited one too) and shows that everywhere", (m, ctx) =>
    ctx.dir === "toClient" ? editTasks(m, ctx, (x) => "keepAlive" in x && (x.keepAlive === null || x.keepAlive > 600_000) && (x.keepAlive = 600_000)) : undefined,
  ),
  mutant(R + "deletion.may-accept-or-reject/refuses-every-other", "refuses every other tasks/delete of one of its tasks with its refusal error (-32012), whatever the task's status, and keeps the task", (m, ctx, s) => {
    const known: Set<string> = (s.known ??= new Set());
    if (ctx.dir === "toServer" && typeof m.params?._meta?.[TASK]?.taskId === "string") known.add(m.params._meta[TASK].taskId);
    if (ctx.dir !== "toServer" || m.method !== "tasks/delete" || !known.has(m.params?.taskId) || !every(s, "n", 2)) return undefined;
    ctx.inject("toClient", errorFor(m, -32012, "Task deletion refused")[0]!);
    return [];
  }),
  mutant(
    R + "lifecycle.may-complete-at-once/quick-work-shown-ended",
    "moves quick work straight from submitted to its end: the first tasks/get of a task that would show it submitted or working waits up to 600 ms for its work, and shows it completed when the request that made it was answered with a result meanwhile",
    async (m, ctx, s) => {
      const shown: Set<string> = (s.shown ??= new Set());
      const ended: Map<string, boolean> = (s.ended ??= new Map());
      const waiters: Map<string, (() => void)[]> = (s.waiters ??= new Map());
      // The request that made a task answered: its work ended (with a result, or a JSON-RPC error).
      const made = ctx.dir === "toClient" && ctx.request !== undefined && AUGMENTABLE.test(ctx.request.method) ? ctx.request.params?._meta?.[TASK]?.taskId : undefined;
      if (typeof made === "string" && (m.result !== undefined || m.error !== undefined)) {
        ended.set(made, m.result !== undefined);
        for (const wake of waiters.get(made) ?? []) wake();
        waiters.delete(made);
        return undefined;
      }
      if (resultOf(m, ctx, "tasks/list")) for (const x of m.result.tasks ?? []) shown.add(x?.taskId);
      if (!resultOf(m, ctx, "tasks/get") || typeof m.result.taskId !== "string") return undefined;
      const id: string = m.result.taskId;
      const first = !shown.has(id) && (m.result.status === "submitted" || m.result.status === "working");
      if (first && !ended.has(id)) await new Promise<void>((r) => (waiters.set(id, [...(waiters.get(id) ?? []), r]), setTimeout(r, 600)));
      shown.add(id);
      return first && ended.get(id) === true ? withResult(m, (r) => void (r.status = "completed")) : undefined;
    },
  ),
  mutant(
    R + "input.may-leave/working-after-answers",
    "once all of a task's elicitations are answered, moves it back to working for a second before it ends: tasks/get and tasks/list show it working, tasks/result answers it not ready, and the answer of the request that made it waits until then",
    async (m, ctx, s) => {
      const pending: Map<string, Set<string>> = (s.pending ??= new Map());
      const until: Map<string, number> = (s.until ??= new Map());
      if (ctx.dir === "toClient" && isRequest(m) && relTask(m)) {
        pending.set(relTask(m)!, (pending.get(relTask(m)!) ?? new Set()).add(JSON.stringify(m.id)));
        return undefined;
      }
      if (ctx.dir === "toServer" && !m.method && ctx.request) {
        const task = ctx.request.params?._meta?.[REL]?.taskId;
        const set = typeof task === "string" ? pending.get(task) : undefined;
        if (set?.delete(JSON.stringify(m.id)) && set.size === 0) until.set(task, Date.now() + 1000);
        return undefined;
      }
      const now = Date.now();
      const working = (id: unknown) => typeof id === "string" && (until.get(id) ?? 0) > now;
      if (ctx.dir !== "toClient" || until.size === 0) return undefined;
      const made = ctx.request !== undefined && AUGMENTABLE.test(ctx.request.method) ? ctx.request.params?._meta?.[TASK]?.taskId : undefined;
      if (working(made)) {
        await sleep(until.get(made)! - now);
        return undefined;
      }
      if (answers(m, ctx, "tasks/result") && working(paramTaskId(ctx)) && m.result !== undefined) return errorFor(m, -32602, "Cannot retrieve result: Task status is 'working', not 'completed'");
      return editTasks(m, ctx, (x) => working(x.taskId) && (x.status === "completed" || x.status === "failed") && ((x.status = "working"), delete x.error));
    },
  ),
  mutant(R + "deletion.may-not-support/no-delete-method", "supports no deletion at all: every tasks/delete is answered -32601 (Method not found)", (m, ctx) => {
    if (ctx.dir !== "toServer" || m.method !== "tasks/delete") return undefined;
    ctx.inject("toClient", errorFor(m, -32601, "Method not found: tasks/delete")[0]!);
    return [];
  }),
];
