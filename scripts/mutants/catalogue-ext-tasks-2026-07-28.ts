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
];
