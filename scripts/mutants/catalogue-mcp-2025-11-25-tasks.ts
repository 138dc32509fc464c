/**
 * The mutants of mcp-2025-11-25 in what a task shows: its results, its terminal status, its status and
 * progress notifications, whose it is (isolation) and its timestamps.
 */
import { M25, isObject, resultOf, paramsOf, methodOf, tasksIn, TERMINAL, crossSession, listAll, flipAfter, timestampMutants, type Mutant } from "./catalogue-shared.js";
import type { Msg } from "./proxy.js";

const m25 = "mcp-2025-11-25";
const M25_TASK_METHODS = ["tasks/get", "tasks/list", "tasks/cancel", "tools/call", "notifications/tasks/status"];

export const mcp20251125Tasks: Mutant[] = [
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
];
