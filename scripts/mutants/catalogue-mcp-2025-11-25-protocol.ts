/**
 * The mutants of mcp-2025-11-25 in what the server declares and answers: its capabilities, the listing
 * and its cursors, cancellation, error codes and messages, params, the related-task _meta, task creation
 * and identity, the wire types, the outcome of the work, and the HTTP transport.
 */
import { M25, isObject, resultOf, paramsOf, methodOf, tasksIn, eachTask, TERMINAL, owned, errorReply, resultReply, errorCode, chain, track, type Mutant } from "./catalogue-shared.js";
import type { Msg } from "./proxy.js";

const m25 = "mcp-2025-11-25";

export const mcp20251125Protocol: Mutant[] = [
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
{
    name: `${m25}/progress-stray-token`,
    spec: m25,
    rules: ["progress-token"],
    bug: "progress is also sent with a token no request gave (the token of another client's request)",
    onMessage: (m) => (methodOf(m) === "notifications/progress" ? [m, { ...m, params: { ...paramsOf(m), progressToken: "someone-elses-token" } }] : m),
  },
  {
    name: `${m25}/progress-without-related-task`,
    spec: m25,
    rules: ["related-task"],
    bug: "the progress notifications of a task's work do not carry the related-task meta",
    onMessage: (m) => {
      if (methodOf(m) !== "notifications/progress" || !isObject(paramsOf(m)._meta)) return m;
      const meta = { ...(paramsOf(m)._meta as Msg) };
      delete meta["io.modelcontextprotocol/related-task"];
      return { ...m, params: { ...paramsOf(m), _meta: meta } };
    },
  },
  {
    name: `${m25}/elicitation-without-related-task`,
    spec: m25,
    rules: ["related-task"],
    bug: "the elicitation a task sends for its input does not name the task in the related-task meta",
    onMessage: (m) => {
      if (methodOf(m) !== "elicitation/create" || m.id === undefined || !isObject(paramsOf(m)._meta)) return m;
      const meta = { ...(paramsOf(m)._meta as Msg) };
      delete meta["io.modelcontextprotocol/related-task"];
      return { ...m, params: { ...paramsOf(m), _meta: meta } };
    },
  },
  {
    name: `${m25}/replayed-error-differs`,
    spec: m25,
    rules: ["results"],
    bug: "tasks/result of a task whose work threw a JSON-RPC error answers another message than the work threw",
    onMessage: (m, req) => {
      const e = isObject(m.error) ? (m.error as Msg) : undefined;
      if (methodOf(req) !== "tasks/result" || !e || e.code !== -32603) return m;
      return { ...m, error: { ...e, message: "Internal error" } };
    },
  },
  {
    name: `${m25}/end-never-announced`,
    spec: m25,
    rules: ["status-push"],
    bug: "the status notification of a task's terminal status is never sent",
    onMessage: (m) => {
      const status = paramsOf(m).status;
      return methodOf(m) === "notifications/tasks/status" && ["completed", "failed", "cancelled"].includes(String(status)) ? null : m;
    },
  },
];
