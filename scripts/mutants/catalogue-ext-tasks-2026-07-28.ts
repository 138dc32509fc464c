/**
 * The mutants of ext-tasks-2026-07-28: resultType, inlined results and errors, the per-request envelope
 * (protocol version, capabilities), unsupported methods, cancellation, input, terminal statuses and timestamps.
 */
import { EXT, isObject, resultOf, paramsOf, methodOf, tasksIn, eachTask, TERMINAL, owned, flipAfter, errorReply, resultReply, errorCode, track, timestampMutants, type Mutant } from "./catalogue-shared.js";
import type { Msg } from "./proxy.js";

const ext = "ext-tasks-2026-07-28";
export const extTasks: Mutant[] = [
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
{
    name: `${ext}/mcp-name-not-checked`,
    spec: ext,
    rules: ["header-mismatch"],
    bug: "the Mcp-Name header of tasks/get, tasks/update and tasks/cancel is never compared with the body's taskId",
    onRequest: (m, _ctx, headers) => {
      const id = paramsOf(m).taskId;
      if (["tasks/get", "tasks/update", "tasks/cancel"].includes(methodOf(m) ?? "") && typeof id === "string") headers["mcp-name"] = id;
      return m;
    },
  },
  {
    name: `${ext}/task-without-opt-in`,
    spec: ext,
    rules: ["opt-in"],
    bug: "a tools/call whose client capabilities lack the tasks extension is made a task all the same",
    onRequest: (m) => {
      if (methodOf(m) !== "tools/call") return m;
      const meta = isObject(paramsOf(m)._meta) ? (paramsOf(m)._meta as Msg) : {};
      const key = "io.modelcontextprotocol/clientCapabilities";
      const caps = isObject(meta[key]) ? (meta[key] as Msg) : {};
      const extensions = isObject(caps.extensions) ? (caps.extensions as Msg) : {};
      if ("io.modelcontextprotocol/tasks" in extensions) return m;
      const opted = { ...caps, extensions: { ...extensions, "io.modelcontextprotocol/tasks": {} } };
      return { ...m, params: { ...paramsOf(m), _meta: { ...meta, [key]: opted } } };
    },
  },
  {
    name: `${ext}/task-marker-missing`,
    spec: ext,
    rules: ["result-type"],
    bug: "a tools/call made a task is answered with the task's fields but without resultType: task",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "tools/call" || !r || r.resultType !== "task") return m;
      const copy = { ...r };
      delete copy.resultType;
      return { ...m, result: copy };
    },
  },
  {
    name: `${ext}/missing-capability-without-data`,
    spec: ext,
    rules: ["error-data"],
    bug: "-32021 comes without data.requiredCapabilities",
    onMessage: (m) => {
      const e = isObject(m.error) ? (m.error as Msg) : undefined;
      if (!e || e.code !== -32021) return m;
      const copy = { ...e };
      delete copy.data;
      return { ...m, error: copy };
    },
  },
  {
    name: `${ext}/discover-without-extension`,
    spec: ext,
    rules: ["capabilities"],
    bug: "server/discover does not list the tasks extension among the server's capabilities",
    onMessage: (m, req) => {
      const r = resultOf(m);
      if (methodOf(req) !== "server/discover" || !r || !isObject(r.capabilities)) return m;
      const caps = { ...(r.capabilities as Msg) };
      if (isObject(caps.extensions)) {
        const extensions = { ...(caps.extensions as Msg) };
        delete extensions["io.modelcontextprotocol/tasks"];
        caps.extensions = extensions;
      }
      return { ...m, result: { ...r, capabilities: caps } };
    },
  },
{
    name: `${ext}/subscription-not-acknowledged`,
    spec: ext,
    rules: ["subscriptions"],
    bug: "a subscriptions/listen stream sends the tasks' notifications without first acknowledging the subscription",
    onMessage: (m) => (methodOf(m) === "notifications/subscriptions/acknowledged" ? null : m),
  },
  {
    name: `${ext}/subscription-acknowledges-any-id`,
    spec: ext,
    rules: ["subscriptions"],
    bug: "a subscription acknowledges every task id it was asked for, whoever made the task and whether it exists",
    onMessage: (m, _req, ctx) => {
      if (methodOf(m) === undefined) return m;
      if (methodOf(m) !== "notifications/subscriptions/acknowledged") return m;
      const asked = ctx.state.get("asked") as string[] | undefined;
      const notifications = isObject(paramsOf(m).notifications) ? (paramsOf(m).notifications as Msg) : {};
      return { ...m, params: { ...paramsOf(m), notifications: { ...notifications, taskIds: asked ?? notifications.taskIds } } };
    },
    onRequest: (m, ctx) => {
      if (methodOf(m) === "subscriptions/listen") {
        const n = paramsOf(m).notifications;
        if (isObject(n) && Array.isArray(n.taskIds)) ctx.state.set("asked", n.taskIds);
      }
      return m;
    },
  },
];
