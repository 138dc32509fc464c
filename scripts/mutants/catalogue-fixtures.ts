/**
 * The mutants of the fixture specs (test/fixtures/specs/): jobs (custom operations, pause and resume, an
 * expired state), lean (the least a task protocol needs: runs read through runs/get) and relay (a protocol of
 * its own on the per-request core).
 */
import { JOBS, LEAN, RELAY, isObject, resultOf, paramsOf, methodOf, eachTask, owned, crossSession, flipAfter, errorReply, resultReply, chain, track, timestampMutants, type Mutant } from "./catalogue-shared.js";
import type { Msg } from "./proxy.js";

const jobs = "jobs";
export const jobsMutants: Mutant[] = [
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
export const leanMutants: Mutant[] = [
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
export const relayMutants: Mutant[] = [
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
