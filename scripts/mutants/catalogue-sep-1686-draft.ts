/**
 * The mutants of sep-1686-draft: requestor-chosen ids, tasks/delete, results and their not-ready error,
 * status transitions, the related-task _meta, isolation, cancellation and the listing.
 */
import { SEP, isObject, resultOf, paramsOf, methodOf, tasksIn, eachTask, TERMINAL, owned, crossSession, listAll, flipAfter, errorReply, resultReply, track, type Mutant } from "./catalogue-shared.js";
import type { Msg } from "./proxy.js";

const sep = "sep-1686-draft";
const SEP_RT = "modelcontextprotocol.io/related-task";
export const sep1686: Mutant[] = [
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
