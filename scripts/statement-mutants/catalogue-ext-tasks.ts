/**
 * Statement mutants of ext-tasks-2026-07-28: for each server statement seen at the wire, server bugs
 * written from the statement's text (a client declaring the io.modelcontextprotocol/tasks extension in
 * each request's _meta may get a CreateTaskResult, resultType "task"; tasks/get, tasks/update,
 * tasks/cancel answer resultType "complete"; HTTP headers and status codes of the core protocol), and the
 * statements no proxy can break.
 */
import { answers, AUTH_TOKENS, clone, errorFor, isRequest, mutant, type Ctx, type Msg, type Mutant, type Unmutable } from "./mutant.js";
import { editTasks, errorOf, genericInvalid, paramTaskId, resultOf, TERMINAL, Tracker } from "./wire.js";

const R = "ext-tasks-2026-07-28/";
const CAPS = "io.modelcontextprotocol/clientCapabilities";
const EXT = "io.modelcontextprotocol/tasks";
const SUB = "io.modelcontextprotocol/subscriptionId";

const declares = (m: Msg) => m.params?._meta?.[CAPS]?.extensions?.[EXT] !== undefined;
const withCapability = (m: Msg): Msg => {
  const c = clone(m);
  c.params ??= {};
  c.params._meta ??= {};
  c.params._meta[CAPS] ??= {};
  c.params._meta[CAPS].extensions = { ...(c.params._meta[CAPS].extensions ?? {}), [EXT]: {} };
  return c;
};
/** A CreateTaskResult answering a request that is not a tasks/* one. */
const created = (m: Msg, ctx: Ctx) => answers(m, ctx, /^(?!tasks\/)/) && m.result?.resultType === "task";
const get = (m: Msg, ctx: Ctx) => resultOf(m, ctx, "tasks/get");
/** The answer as a result (an error it was is dropped: a response carries one or the other). */
const setResult = (m: Msg, result: any): Msg[] => {
  const { error: _error, ...rest } = m;
  return [{ ...rest, result }];
};
const code = (m: Msg, c: number): Msg[] => [{ ...m, error: { ...m.error, code: c } }];
/** A notification that belongs to a subscriptions/listen stream. */
const onStream = (m: Msg, ctx: Ctx) => ctx.dir === "toClient" && typeof m.method === "string" && m.id === undefined && m.params?._meta?.[SUB] !== undefined;

const tracked = (name: string, description: string, fn: (m: Msg, ctx: Ctx, t: Tracker, s: Record<string, any>) => Msg[] | undefined) =>
  mutant(R + name, description, (m, ctx, s) => {
    const t: Tracker = (s.tracker ??= new Tracker());
    s.before = paramTaskId(ctx) ? t.status.get(paramTaskId(ctx)!) : undefined;
    t.observe(m, ctx);
    return fn(m, ctx, t, s);
  });

/** Keys of inputRequests shown under other names, translated back in tasks/update. */
function rekeyed(name: string, description: string, key: (real: string, index: number, task: string, s: Record<string, any>) => string): Mutant {
  return mutant(R + name, description, (m, ctx, s) => {
    const back: Map<string, Map<string, string>> = (s.back ??= new Map());
    if (ctx.dir === "toServer" && m.method === "tasks/update" && m.params?.inputResponses && back.has(m.params.taskId)) {
      const map = back.get(m.params.taskId)!;
      const c = clone(m);
      c.params.inputResponses = Object.fromEntries(Object.entries(m.params.inputResponses).map(([k, v]) => [map.get(k) ?? k, v]));
      return [c];
    }
    if (get(m, ctx) && m.result.inputRequests && typeof m.result.inputRequests === "object") {
      const map = new Map<string, string>();
      const c = clone(m);
      c.result.inputRequests = Object.fromEntries(
        Object.entries(m.result.inputRequests).map(([k, v], i) => {
          const a = key(k, i, m.result.taskId, s);
          map.set(a, k);
          return [a, v];
        }),
      );
      back.set(m.result.taskId, map);
      return [c];
    }
    return undefined;
  });
}

export const extMutants: Mutant[] = [
  mutant(R + "negotiation.no-task-without-capability/capability-remembered", "a client that declared the extension once gets tasks on later requests that do not declare it", (m, ctx, s) => {
    if (ctx.dir !== "toServer" || !isRequest(m)) return undefined;
    if (declares(m)) s.declared = true;
    else if (s.declared && !/^tasks\//.test(m.method)) return [withCapability(m)];
    return undefined;
  }),
  mutant(R + "negotiation.missing-capability-error/method-not-found-code", "a request it can serve only as a task, from a non-declaring client, is answered -32601", (m, ctx) =>
    ctx.dir === "toClient" && m.error?.code === -32021 && ctx.request && !/^(tasks|subscriptions)\//.test(ctx.request.method) ? code(m, -32601) : undefined,
  ),
  mutant(R + "polymorphic.task-result-type/no-result-type", "a CreateTaskResult has no resultType", (m, ctx) => (created(m, ctx) ? setResult(m, { ...m.result, resultType: undefined }) : undefined)),
  mutant(R + "polymorphic.task-result-type/complete-on-task", "a CreateTaskResult says resultType complete", (m, ctx) => (created(m, ctx) ? setResult(m, { ...m.result, resultType: "complete" }) : undefined)),
  mutant(R + "polymorphic.task-only-on-create-task-result/task-on-get", "tasks/get results say resultType task", (m, ctx) => (get(m, ctx) ? setResult(m, { ...m.result, resultType: "task" }) : undefined)),
  mutant(R + "polymorphic.task-only-on-create-task-result/task-on-plain-result", "a plain tool result says resultType task", (m, ctx) =>
    resultOf(m, ctx, "tools/call") && m.result.resultType !== "task" ? setResult(m, { ...m.result, resultType: "task" }) : undefined,
  ),
  mutant(R + "status.failed-only-json-rpc/tool-error-failed", "a tool result with isError is shown as a failed task with a string error", (m, ctx) =>
    get(m, ctx) && m.result.status === "completed" && m.result.result?.isError
      ? setResult(m, { ...m.result, status: "failed", result: undefined, error: m.result.result.content?.[0]?.text ?? "tool error" })
      : undefined,
  ),
  tracked("creation.durable-before-answer/first-get-not-found", "the first tasks/get of a new task answers not found (the task is written after the answer)", (m, ctx, t, s) => {
    const seen: Set<string> = (s.seen ??= new Set());
    const id = paramTaskId(ctx);
    if (answers(m, ctx, "tasks/get") && id && t.status.has(id) && !seen.has(id)) {
      seen.add(id);
      return errorFor(m, -32602, "Failed to retrieve task: Task not found");
    }
    return undefined;
  }),
  tracked("creation.wait-for-consistency/first-cancel-not-found", "the first tasks/cancel or tasks/update of a new task answers not found (a replica not yet caught up)", (m, ctx, t, s) => {
    const seen: Set<string> = (s.seen ??= new Set());
    const id = paramTaskId(ctx);
    if (answers(m, ctx, /^tasks\/(cancel|update)$/) && id && t.status.has(id) && !seen.has(id)) {
      seen.add(id);
      return errorFor(m, -32602, "Failed to retrieve task: Task not found");
    }
    return undefined;
  }),
  mutant(R + "polling.may-rate-limit/limits-patient-poller", "rate-limits a tasks/get that came a full pollIntervalMs after the last one", (m, ctx, s) => {
    const last: Map<string, { at: number; every: number }> = (s.last ??= new Map());
    const id = paramTaskId(ctx);
    if (!answers(m, ctx, "tasks/get") || !id) return undefined;
    const prev = last.get(id);
    const now = Date.now();
    if (m.result) last.set(id, { at: now, every: m.result.pollIntervalMs ?? 1000 });
    if (prev && now - prev.at >= prev.every) return errorFor(m, -32000, "Too many requests: poll less often");
    return undefined;
  }),
  mutant(R + "polling.may-rate-limit/limits-patient-poller-declared", "refuses with the declared rate-limit error (-31010) a tasks/get that came a full pollIntervalMs after the last one", (m, ctx, s) => {
    const last: Map<string, { at: number; every: number }> = (s.last ??= new Map());
    const id = paramTaskId(ctx);
    if (!answers(m, ctx, "tasks/get") || !id) return undefined;
    const prev = last.get(id);
    const now = Date.now();
    if (m.result) last.set(id, { at: now, every: m.result.pollIntervalMs ?? 1000 });
    if (prev && now - prev.at >= prev.every) return errorFor(m, -31010, "Rate limit exceeded: tasks/get");
    return undefined;
  }),
  mutant(R + "get.respond-by-status/stale-status", "tasks/get answers the first state it read of a task (a stale cache)", (m, ctx, s) => {
    const cache: Map<string, any> = (s.cache ??= new Map());
    if (!get(m, ctx)) return undefined;
    if (!cache.has(m.result.taskId)) cache.set(m.result.taskId, clone(m.result));
    return setResult(m, cache.get(m.result.taskId));
  }),
  mutant(R + "get.working/in-progress", "a working task is shown as in_progress", (m, ctx) => (get(m, ctx) && m.result.status === "working" ? setResult(m, { ...m.result, status: "in_progress" }) : undefined)),
  mutant(R + "get.input-required/no-input-requests", "an input_required task is shown without inputRequests", (m, ctx) => (get(m, ctx) && m.result.inputRequests ? setResult(m, { ...m.result, inputRequests: undefined }) : undefined)),
  mutant(R + "get.all-outstanding-requests/first-request-only", "inputRequests holds only the first outstanding request", (m, ctx) =>
    get(m, ctx) && m.result.inputRequests ? setResult(m, { ...m.result, inputRequests: Object.fromEntries(Object.entries(m.result.inputRequests).slice(0, 1)) }) : undefined,
  ),
  mutant(R + "get.completed-result/no-result", "a completed task is shown without its result", (m, ctx) => (get(m, ctx) && m.result.status === "completed" ? setResult(m, { ...m.result, result: undefined }) : undefined)),
  mutant(R + "get.cancelled/canceled-spelling", "a cancelled task is shown as canceled", (m, ctx) => editTasks(m, ctx, (x) => x.status === "cancelled" && (x.status = "canceled"))),
  mutant(R + "get.failed-error/error-message-only", "a failed task's error is its message string, not the JSON-RPC error", (m, ctx) =>
    get(m, ctx) && m.result.status === "failed" && m.result.error ? setResult(m, { ...m.result, error: m.result.error.message ?? String(m.result.error) }) : undefined,
  ),
  mutant(R + "get.result-type-complete/no-result-type", "tasks/get results have no resultType", (m, ctx) => (get(m, ctx) ? setResult(m, { ...m.result, resultType: undefined }) : undefined)),
  mutant(R + "get.may-fail-after-ttl/failed-before-ttl", "a working task is marked failed (expired) on its second poll, long before its ttlMs", (m, ctx, s) => {
    const polls: Map<string, number> = (s.polls ??= new Map());
    if (!get(m, ctx)) return undefined;
    const id = m.result.taskId;
    const n = (polls.get(id) ?? 0) + 1;
    polls.set(id, n);
    if ((m.result.status === "working" && n >= 2) || s[`x${id}`]) {
      s[`x${id}`] = true;
      return setResult(m, { ...m.result, status: "failed", result: undefined, inputRequests: undefined, error: { code: -32603, message: "Task expired" } });
    }
    return undefined;
  }),
  rekeyed("update.keys-unique/positional-keys", "inputRequests keys are positions (input-1, input-2 ...) so a later request reuses a key", (k, i) => `input-${i + 1}`),
  rekeyed("update.no-key-reuse-after-response/key-per-method", "each inputRequests key is the request's method name, reused by the next request of that method", (k, i, task, s) => `elicitation${i === 0 ? "" : `-${i}`}`),
  rekeyed("update.no-key-for-two-requests/counter-reset", "inputRequests keys count from 1 on every tasks/get", (k, i) => String(i + 1)),
  mutant(R + "update.ack-empty/task-in-ack", "tasks/update acknowledges with the task's status in the result", (m, ctx) =>
    resultOf(m, ctx, "tasks/update") ? setResult(m, { ...m.result, taskId: paramTaskId(ctx), status: "working" }) : undefined,
  ),
  mutant(R + "update.unknown-task-error/unknown-acked", "tasks/update of an unknown taskId is acknowledged", (m, ctx) =>
    errorOf(m, ctx, "tasks/update", -32602) && /not found|unknown/i.test(m.error.message) ? setResult(m, { resultType: "complete" }) : undefined,
  ),
  mutant(R + "update.ignore-unknown-keys/unknown-key-refused", "tasks/update with a response to a key not outstanding is refused", (m, ctx, s) => {
    const open: Map<string, Set<string>> = (s.open ??= new Map());
    if (get(m, ctx)) open.set(m.result.taskId, new Set(Object.keys(m.result.inputRequests ?? {})));
    if (ctx.dir === "toServer" && m.method === "tasks/update" && m.params?.inputResponses) {
      const keys = open.get(m.params.taskId);
      if (keys && Object.keys(m.params.inputResponses).some((k) => !keys.has(k))) {
        ctx.inject("toClient", errorFor(m, -32602, "Unknown input response key")[0]!);
        return [];
      }
    }
    return undefined;
  }),
  mutant(R + "update.may-accept-partial/working-after-partial", "after a partial tasks/update the task is shown working with requests still outstanding", (m, ctx, s) => {
    const open: Map<string, Set<string>> = (s.open ??= new Map());
    const partial: Set<string> = (s.partial ??= new Set());
    if (get(m, ctx) && m.result.inputRequests) open.set(m.result.taskId, new Set(Object.keys(m.result.inputRequests)));
    if (ctx.dir === "toServer" && m.method === "tasks/update" && m.params?.inputResponses) {
      const keys = open.get(m.params.taskId);
      if (keys && Object.keys(m.params.inputResponses).length < keys.size) partial.add(m.params.taskId);
    }
    if (get(m, ctx) && partial.has(m.result.taskId) && m.result.status === "input_required") return setResult(m, { ...m.result, status: "working", inputRequests: undefined });
    return undefined;
  }),
  mutant(R + "update.result-type-complete/no-result-type", "tasks/update results have no resultType", (m, ctx) => (resultOf(m, ctx, "tasks/update") ? setResult(m, { ...m.result, resultType: undefined }) : undefined)),
  mutant(R + "cancel.ack-empty/task-in-ack", "tasks/cancel acknowledges with the task's id and status", (m, ctx) =>
    resultOf(m, ctx, "tasks/cancel") ? setResult(m, { ...m.result, taskId: paramTaskId(ctx), status: "cancelled" }) : undefined,
  ),
  mutant(R + "cancel.unknown-task-error/unknown-acked", "tasks/cancel of an unknown taskId is acknowledged", (m, ctx) =>
    errorOf(m, ctx, "tasks/cancel", -32602) && /not found|unknown/i.test(m.error.message) ? setResult(m, { resultType: "complete" }) : undefined,
  ),
  mutant(R + "cancel.may-end-otherwise/cancelled-shown-completed", "a task cancelled before its work finished is shown completed with an empty result", (m, ctx) =>
    get(m, ctx) && m.result.status === "cancelled" ? setResult(m, { ...m.result, status: "completed", result: { content: [] } }) : undefined,
  ),
  mutant(R + "cancel.result-type-complete/no-result-type", "tasks/cancel results have no resultType", (m, ctx) => (resultOf(m, ctx, "tasks/cancel") ? setResult(m, { ...m.result, resultType: undefined }) : undefined)),
  mutant(R + "notifications.missing-capability/listen-served", "subscriptions/listen asking for task notifications is served to a client that does not declare the extension", (m, ctx) =>
    ctx.dir === "toServer" && m.method === "subscriptions/listen" && !declares(m) ? [withCapability(m)] : undefined,
  ),
  mutant(R + "notifications.no-progress-on-stream/progress-on-listen", "sends notifications/progress on the subscriptions/listen stream", (m, ctx) =>
    onStream(m, ctx) && m.method === "notifications/tasks" ? [m, { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "task", progress: 1, _meta: { [SUB]: m.params._meta[SUB] } } }] : undefined,
  ),
  mutant(R + "errors.unknown-id-get/internal-error-code", "tasks/get of an unknown taskId is answered -32603", (m, ctx) =>
    errorOf(m, ctx, "tasks/get", -32602) && /not found|unknown/i.test(m.error.message) ? code(m, -32603) : undefined,
  ),
  mutant(R + "errors.unknown-id-get/failed-task", "tasks/get of an unknown taskId answers a failed task", (m, ctx) =>
    errorOf(m, ctx, "tasks/get", -32602) && /not found|unknown/i.test(m.error.message)
      ? setResult(m, { taskId: paramTaskId(ctx), status: "failed", error: { code: -32602, message: "Task not found" }, resultType: "complete" })
      : undefined,
  ),
  mutant(R + "errors.unknown-id-update-cancel/internal-error-code", "tasks/update and tasks/cancel of an unknown taskId are answered -32603", (m, ctx) =>
    errorOf(m, ctx, /^tasks\/(update|cancel)$/, -32602) && /not found|unknown/i.test(m.error.message) ? code(m, -32603) : undefined,
  ),
  mutant(R + "errors.internal/server-error-code", "internal errors are answered with the implementation code -32000", (m, ctx) => (ctx.dir === "toClient" && m.error?.code === -32603 ? code(m, -32000) : undefined)),
  mutant(R + "errors.missing-capability-listen/invalid-params-code", "subscriptions/listen from a non-declaring client is answered -32602", (m, ctx) =>
    errorOf(m, ctx, "subscriptions/listen", -32021) ? code(m, -32602) : undefined,
  ),
  mutant(R + "errors.missing-capability-task-methods/served-anyway", "tasks/get, tasks/update and tasks/cancel are served to a client that does not declare the extension", (m, ctx) =>
    ctx.dir === "toServer" && /^tasks\/(get|update|cancel)$/.test(m.method ?? "") && !declares(m) && m.params?._meta?.[CAPS] ? [withCapability(m)] : undefined,
  ),
  mutant(R + "errors.missing-capability-task-methods/invalid-request-code", "tasks/* from a non-declaring client is answered -32600", (m, ctx) =>
    errorOf(m, ctx, /^tasks\/(get|update|cancel)$/, -32021) ? code(m, -32600) : undefined,
  ),
  mutant(R + "errors.informative-messages/empty-messages", "every error has an empty message", (m, ctx) => (ctx.dir === "toClient" && m.error ? [{ ...m, error: { ...m.error, message: "" } }] : undefined)),
  mutant(R + "errors.informative-messages/generic-invalid-messages", "errors for an invalid request (params, _meta envelope, input responses) say only \"Error\"", genericInvalid),
  mutant(R + "execution.status-message/no-status-message", "a failed task has no statusMessage", (m, ctx) => (get(m, ctx) && m.result.status === "failed" ? setResult(m, { ...m.result, statusMessage: undefined }) : undefined)),
  mutant(R + "execution.error-field/no-error", "a failed task is shown without error", (m, ctx) => (get(m, ctx) && m.result.status === "failed" ? setResult(m, { ...m.result, error: undefined }) : undefined)),
  mutant(R + "execution.failed-not-for-tool-errors/is-error-failed", "a tool result with isError is shown as a failed task with a JSON-RPC error", (m, ctx) =>
    get(m, ctx) && m.result.status === "completed" && m.result.result?.isError ? setResult(m, { ...m.result, status: "failed", error: { code: -32603, message: "Tool failed" } }) : undefined,
  ),
  mutant(R + "execution.completed-with-error-result/error-in-status-message", "a completed task with a tool error shows the error in statusMessage and no result", (m, ctx) =>
    get(m, ctx) && m.result.status === "completed" && m.result.result?.isError ? setResult(m, { ...m.result, result: undefined, statusMessage: m.result.result.content?.[0]?.text ?? "error" }) : undefined,
  ),
  mutant(R + "execution.error-is-that-error/generic-error", "a failed task's error is a generic -32000 error, not the request's", (m, ctx) =>
    get(m, ctx) && m.result.status === "failed" ? setResult(m, { ...m.result, error: { code: -32000, message: "Task failed" } }) : undefined,
  ),
  mutant(R + "execution.result-is-that-result/summary-result", "a completed task's result is a summary of the work (\"Task completed\"), not the result the request completed with", (m, ctx) =>
    get(m, ctx) && m.result.status === "completed" && Array.isArray(m.result.result?.content) ? setResult(m, { ...m.result, result: { ...m.result.result, content: [{ type: "text", text: "Task completed" }] } }) : undefined,
  ),
  mutant(R + "execution.result-is-that-result/is-error-dropped", "a completed task's result drops isError", (m, ctx) =>
    get(m, ctx) && m.result.result?.isError !== undefined ? setResult(m, { ...m.result, result: { ...m.result.result, isError: undefined } }) : undefined,
  ),
  mutant(R + "core.result-type-present/cancel-and-update-untyped", "tasks/cancel and tasks/update results and CreateTaskResults have no resultType", (m, ctx) =>
    resultOf(m, ctx, /^tasks\/(cancel|update)$/) || created(m, ctx) ? setResult(m, { ...m.result, resultType: undefined }) : undefined,
  ),
  mutant(R + "core.result-type-advertised/extension-not-advertised", "server/discover does not advertise the tasks extension, yet tasks are returned", (m, ctx) => {
    if (!resultOf(m, ctx, "server/discover") || !m.result.capabilities?.extensions?.[EXT]) return undefined;
    const c = clone(m);
    delete c.result.capabilities.extensions[EXT];
    return [c];
  }),
  tracked("core.multiple-tasks/one-task-at-a-time", "refuses a new task while another one is running", (m, ctx, t, s) => {
    if (ctx.dir === "toServer" && m.method === "tools/call" && declares(m) && [...t.status.values()].some((x) => !TERMINAL.has(x))) {
      s.busy = (s.busy ?? new Set()).add(JSON.stringify(m.id));
    }
    if (created(m, ctx) && s.busy?.delete(JSON.stringify(m.id))) return errorFor(m, -32603, "Another task is already running");
    return undefined;
  }),
  tracked("core.explicit-task-identifier/current-task", "tasks/get answers the latest task created, whatever taskId it names", (m, ctx, t) => {
    const latest = [...t.status.keys()].at(-1);
    if (ctx.dir === "toServer" && m.method === "tasks/get" && latest && t.status.has(m.params?.taskId)) return [{ ...m, params: { ...m.params, taskId: latest } }];
    return undefined;
  }),
  mutant(
    R + "core.explicit-task-identifier/connection-bound",
    "keeps each task with the TCP connection that made it: tasks/get on another connection is answered as for an unknown task",
    (m, ctx, s) => {
      const madeOn: Map<string, number> = (s.madeOn ??= new Map());
      if (created(m, ctx) && ctx.socket !== undefined && typeof m.result.taskId === "string") madeOn.set(m.result.taskId, ctx.socket);
      const id = paramTaskId(ctx);
      const on = id === undefined ? undefined : madeOn.get(id);
      if (answers(m, ctx, "tasks/get") && on !== undefined && ctx.socket !== on) return errorFor(m, -32602, "Failed to retrieve task: Task not found");
      return undefined;
    },
    { transports: ["http"] },
  ),
  // With authorization (the demo run with --auth token-a --auth token-b, the server's own tokens).
  mutant(R + "core.authorization-status-codes/no-www-authenticate", "answers a request without valid credentials 401 with no WWW-Authenticate header", () => undefined, {
    transports: ["http"],
    auth: true,
    http: { onHttpResponse: (r) => void (r.status === 401 && delete r.headers["www-authenticate"]) },
  }),
  mutant(R + "core.authorization-status-codes/invalid-token-403", "answers a request whose bearer token it does not know 403 Forbidden, not 401", () => undefined, {
    transports: ["http"],
    auth: true,
    http: { onHttpResponse: (r) => void (r.status === 401 && r.request.headers.authorization !== undefined && (r.status = 403)) },
  }),
  mutant(R + "security.auth-every-request/any-token-accepted", "checks that a bearer token is there, not that it is one of its own: an unknown token is served as the first principal", () => undefined, {
    transports: ["http"],
    auth: true,
    http: { onHttpRequest: (r) => void (r.headers.authorization !== undefined && !AUTH_TOKENS.some((t) => r.headers.authorization === `Bearer ${t}`) && (r.headers.authorization = `Bearer ${AUTH_TOKENS[0]}`)) },
  }),
  mutant(R + "security.auth-every-request/missing-token-served", "serves a request without credentials as the first principal", () => undefined, {
    transports: ["http"],
    auth: true,
    http: { onHttpRequest: (r) => void (r.headers.authorization === undefined && (r.headers.authorization = `Bearer ${AUTH_TOKENS[0]}`)) },
  }),
  mutant(R + "core.missing-meta-invalid-params/invalid-request-code", "a request missing a required field is answered -32600", (m, ctx) =>
    ctx.dir === "toClient" && m.error?.code === -32602 && /invalid params|required|expected/i.test(m.error.message) ? code(m, -32600) : undefined,
  ),
  mutant(R + "core.missing-meta-http-400/status-200", "malformed requests and missing capabilities are answered with HTTP 200", () => undefined, {
    transports: ["http"],
    http: { onHttpResponse: (r) => void (r.status === 400 && r.messages.some((x) => x.error?.code === -32602 || x.error?.code === -32021) && (r.status = 200)) },
  }),
  mutant(R + "core.no-undeclared-capabilities/tasks-assumed", "every tools/call is treated as if the client declared the tasks extension", (m, ctx) =>
    ctx.dir === "toServer" && m.method === "tools/call" && !declares(m) ? [withCapability(m)] : undefined,
  ),
  mutant(R + "core.missing-capability-error/no-required-capabilities", "the -32021 error has no data.requiredCapabilities", (m, ctx) =>
    ctx.dir === "toClient" && m.error?.code === -32021 ? [{ ...m, error: { code: -32021, message: m.error.message } }] : undefined,
  ),
  mutant(R + "core.subscription-id-in-meta/no-subscription-id", "notifications on a subscriptions/listen stream carry no subscriptionId", (m, ctx) => {
    if (!onStream(m, ctx)) return undefined;
    const c = clone(m);
    delete c.params._meta[SUB];
    return [c];
  }),
  mutant(R + "core.subscription-only-requested/unrequested-notifications", "sends a tools/list_changed notification on a stream that asked only for tasks", (m, ctx) =>
    onStream(m, ctx) && m.method === "notifications/tasks" ? [m, { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUB]: m.params._meta[SUB] } } }] : undefined,
  ),
  mutant(R + "core.subscription-ack-first/ack-late", "sends the acknowledgement after the first task notification", (m, ctx, s) => {
    if (onStream(m, ctx) && m.method === "notifications/subscriptions/acknowledged") {
      s.ack = m;
      return [];
    }
    if (onStream(m, ctx) && s.ack) {
      const a = s.ack;
      s.ack = undefined;
      return [m, a];
    }
    return undefined;
  }),
  mutant(R + "core.subscription-nothing-before-ack/status-before-ack", "sends a task notification before the acknowledgement", (m, ctx) =>
    onStream(m, ctx) && m.method === "notifications/subscriptions/acknowledged"
      ? [{ jsonrpc: "2.0", method: "notifications/tasks", params: { taskId: (m.params.taskIds ?? m.params.filter?.taskIds ?? ["x"])[0], status: "working", _meta: { [SUB]: m.params._meta[SUB] } } }, m]
      : undefined,
  ),
  mutant(R + "core.cancelled-only-for-subscriptions/cancelled-for-task", "sends notifications/cancelled for the request that made a task when the task is cancelled", (m, ctx, s) => {
    if (created(m, ctx)) (s.req ??= new Map()).set(m.result.taskId, m.id);
    if (resultOf(m, ctx, "tasks/cancel") && s.req?.has(paramTaskId(ctx))) return [m, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: s.req.get(paramTaskId(ctx)), reason: "task cancelled" } }];
    return undefined;
  }),
  mutant(R + "core.cancelled-on-teardown/silent-teardown", "tears a subscriptions/listen stream down without notifications/cancelled", (m, ctx) =>
    ctx.dir === "toClient" && m.method === "notifications/cancelled" ? [] : undefined,
  ),
  mutant(R + "core.discover-implemented/method-not-found", "server/discover is answered -32601", (m, ctx) =>
    ctx.dir === "toServer" && m.method === "server/discover" ? (ctx.inject("toClient", errorFor(m, -32601, "Method not found")[0]!), []) : undefined,
  ),
  mutant(R + "core.method-not-found-404/status-200", "an unknown method is answered -32601 with HTTP 200", () => undefined, {
    transports: ["http"],
    http: { onHttpResponse: (r) => void (r.status === 404 && (r.status = 200)) },
  }),
  mutant(R + "core.header-mismatch-reject/check-skipped", "does not compare the Mcp-Name header with the body's taskId", () => undefined, {
    transports: ["http"],
    http: {
      onHttpRequest: (r) => {
        const t = r.messages[0]?.params?.taskId;
        const name = Object.keys(r.headers).find((k) => k === "mcp-name");
        if (name && typeof t === "string" && /^tasks\//.test(r.messages[0]?.method ?? "")) r.headers[name] = t;
      },
    },
  }),
  mutant(R + "core.header-mismatch-400/status-200", "a header mismatch is answered with HTTP 200", () => undefined, {
    transports: ["http"],
    http: { onHttpResponse: (r) => void (r.messages.some((x) => x.error?.code === -32020) && (r.status = 200)) },
  }),
  mutant(R + "core.header-mismatch-32020/invalid-params-code", "a header mismatch is answered -32602", (m, ctx) => (ctx.dir === "toClient" && m.error?.code === -32020 ? code(m, -32602) : undefined), {
    transports: ["http"],
  }),
  mutant(R + "core.header-decode-before-compare/raw-compare", "compares a Base64-encoded Mcp-Name without decoding it", () => undefined, {
    transports: ["http"],
    http: {
      onHttpRequest: (r) => {
        const v = r.headers["mcp-name"];
        if (v && /^=\?base64\?/i.test(v)) r.headers["mcp-name"] = v.replace(/^=\?base64\?/i, "").replace(/\?=$/, "");
      },
    },
  }),
];

export const extUnmutable: Unmutable[] = [
  { statement: R + "negotiation.may-return-task", reason: "a permission whose only misuse (a task for a client without the capability) is negotiation.no-task-without-capability, mutated there" },
  { statement: R + "task.ttl-may-change", reason: "a permission with no wrong use: any change of ttlMs is allowed" },
  { statement: R + "task.poll-interval-may-change", reason: "a permission with no wrong use: any change of pollIntervalMs is allowed" },
  { statement: R + "polling.interval-may-change", reason: "a permission with no wrong use: any change of pollIntervalMs is allowed" },
  { statement: R + "get.ttl-may-change", reason: "a permission with no wrong use: any change of ttlMs is allowed" },
  { statement: R + "update.may-ack-early", reason: "a permission with no wrong use: acknowledging before the status shows the answers is allowed" },
  { statement: R + "cancel.may-stay-working", reason: "a permission with no wrong use: a task may stay working after the cancel ack" },
  { statement: R + "notifications.may-push", reason: "a permission whose misuses are core.subscription-only-requested and notifications.no-progress-on-stream, mutated there" },
  { statement: R + "security.may-use-ids-as-bearer", reason: "a permission with no wrong use at the wire" },
  {
    statement: R + "creation.mrtr-before-task",
    reason: "resolving the multi round-trip exchange after the task is made changes when the server asks for input and what the work does with it: a proxy cannot replay the server's work with the answers moved",
  },
];

/**
 * Permitted behaviours, written from the MAY statements that have no wrong use at the wire: a server using
 * the permission, which conform must not take for a bug (run through the proxy, it must hold, and the proxy must
 * have changed something). Named `<statement-id>/<behaviour>` like the mutants.
 */
export const extPermitted: Mutant[] = [
  mutant(R + "task.ttl-may-change/ttl-grows", "tasks/get answers a ttlMs a second longer at every poll", (m, ctx, s) => {
    if (!get(m, ctx) || typeof m.result.ttlMs !== "number") return undefined;
    s.n = (s.n ?? 0) + 1;
    return setResult(m, { ...m.result, ttlMs: m.result.ttlMs + 1000 * s.n });
  }),
  mutant(R + "get.ttl-may-change/ttl-alternates", "tasks/get answers ttlMs and half of it in turn", (m, ctx, s) => {
    if (!get(m, ctx) || typeof m.result.ttlMs !== "number") return undefined;
    s.n = (s.n ?? 0) + 1;
    return s.n % 2 === 0 ? setResult(m, { ...m.result, ttlMs: Math.floor(m.result.ttlMs / 2) }) : undefined;
  }),
  mutant(R + "task.poll-interval-may-change/interval-grows", "tasks/get answers a pollIntervalMs 100 ms longer at every poll", (m, ctx, s) => {
    if (!get(m, ctx)) return undefined;
    s.n = (s.n ?? 0) + 1;
    return setResult(m, { ...m.result, pollIntervalMs: (m.result.pollIntervalMs ?? 1000) + 100 * s.n });
  }),
  mutant(R + "polling.interval-may-change/interval-alternates", "tasks/get answers a pollIntervalMs of 500 and 5000 ms in turn", (m, ctx, s) => {
    if (!get(m, ctx)) return undefined;
    s.n = (s.n ?? 0) + 1;
    return setResult(m, { ...m.result, pollIntervalMs: s.n % 2 === 0 ? 5000 : 500 });
  }),
  mutant(R + "negotiation.may-return-task/quick-work-plain", "a tools/call of slow_compute (which may run either way) asking under a second is served without a task, though the client declared the extension", (m, ctx) =>
    ctx.dir === "toServer" && m.method === "tools/call" && m.params?.name === "slow_compute" && declares(m) && typeof m.params?.arguments?.seconds === "number" && m.params.arguments.seconds < 1
      ? [{ ...m, params: { ...m.params, _meta: { ...m.params._meta, [CAPS]: { ...m.params._meta[CAPS], extensions: {} } } } }]
      : undefined,
  ),
  mutant(R + "polling.may-rate-limit/limits-eager-poller", "refuses with the rate-limit error (-31010) a tasks/get that comes sooner than the pollIntervalMs after the last one answered", (m, ctx, s) => {
    const last: Map<string, { at: number; every: number }> = (s.last ??= new Map());
    const id = paramTaskId(ctx);
    if (!answers(m, ctx, "tasks/get") || !id) return undefined;
    const prev = last.get(id);
    const now = Date.now();
    if (prev && now - prev.at < prev.every) return errorFor(m, -31010, "Rate limit exceeded: tasks/get");
    if (m.result) last.set(id, { at: now, every: m.result.pollIntervalMs ?? 1000 });
    return undefined;
  }),
  tracked("update.may-ack-early/applied-late", "for 500 ms after a tasks/update ack answering a key for the first time, tasks/get shows the task as it was before the answers", (m, ctx, t, s) => {
    const last: Map<string, any> = (s.last ??= new Map());
    const acked: Map<string, number> = (s.acked ??= new Map());
    const answered: Set<string> = (s.answered ??= new Set());
    if (resultOf(m, ctx, "tasks/update")) {
      const id = paramTaskId(ctx);
      const keys = Object.keys(ctx.request?.params?.inputResponses ?? {}).map((k) => `${id} ${k}`);
      const fresh = keys.filter((k) => !answered.has(k));
      fresh.forEach((k) => answered.add(k));
      if (id && fresh.length && last.get(id)?.status === "input_required") acked.set(id, Date.now());
      return undefined;
    }
    if (!get(m, ctx)) return undefined;
    const id = m.result.taskId;
    const at = acked.get(id);
    if (at !== undefined && Date.now() - at < 500) return setResult(m, clone(last.get(id)));
    last.set(id, clone(m.result));
    return undefined;
  }),
  tracked("cancel.may-stay-working/working-after-ack", "for 500 ms after a tasks/cancel ack, tasks/get shows the task as it was before the cancel", (m, ctx, t, s) => {
    const last: Map<string, any> = (s.last ??= new Map());
    const acked: Map<string, number> = (s.acked ??= new Map());
    if (resultOf(m, ctx, "tasks/cancel")) {
      const id = paramTaskId(ctx);
      if (id && last.has(id) && !TERMINAL.has(last.get(id).status)) acked.set(id, Date.now());
      return undefined;
    }
    if (!get(m, ctx)) return undefined;
    const id = m.result.taskId;
    const at = acked.get(id);
    if (at !== undefined && Date.now() - at < 500) return setResult(m, clone(last.get(id)));
    last.set(id, clone(m.result));
    return undefined;
  }),
  tracked("cancel.may-end-otherwise/cancel-applied-late", "acknowledges a tasks/cancel of a live task at once but applies it 1.5 s later, so work that finishes meanwhile ends as it finished", (m, ctx, t, s) => {
    if (ctx.dir === "toServer" && m.method === "tasks/cancel" && String(m.id).startsWith("late-")) return undefined;
    if (ctx.dir === "toClient" && String(m.id).startsWith("late-")) return [];
    const id = typeof m.params?.taskId === "string" ? m.params.taskId : undefined;
    if (ctx.dir !== "toServer" || m.method !== "tasks/cancel" || id === undefined || !t.status.has(id) || t.isTerminal(id)) return undefined;
    ctx.inject("toClient", { jsonrpc: "2.0", id: m.id, result: { resultType: "complete" } });
    ctx.inject("toServer", { ...m, id: `late-${String(m.id)}` }, 1500);
    return [];
  }),
];
