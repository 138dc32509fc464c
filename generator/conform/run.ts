/**
 * `conform`: a stateful, property-based test of a running server against a
 * spec. fast-check draws sequences of commands (create a task of some outcome,
 * get, ask for its result, list, cancel, delete, move it, send what the spec
 * refuses); each command checks the server's answers against the model the
 * spec gives (types, transitions, terminal states, declared errors, paging).
 * A failing sequence is shrunk to the shortest one that still fails and
 * reported with the rule it breaks, what was expected and what came.
 */
import fc from "fast-check";
import type { z } from "zod";
import type { IRMethod, IRType } from "../ir.js";
import { specModel, type ExpectedError, type SpecModel } from "./model.js";
import { minimalValue } from "./schemas.js";
import { CLIENT_CAPABILITIES_KEY, CLIENT_INFO, clientCapabilities, Connector, DEFAULT_TIMING, envelope, PROTOCOL_VERSION_KEY, Session, taskIn, valueAt, type Target, type Timing } from "./session.js";
import { HttpWire, StdioWire, type Answer, type TranscriptEntry } from "./wire.js";
import type { IR } from "../ir.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A tool call that makes work of one outcome on the server under test. */
export interface ToolRecipe {
  name: string;
  arguments?: Record<string, unknown>;
}

/** How the tester makes work that completes, fails, errs, needs input or runs long. */
export interface Outcomes {
  complete?: ToolRecipe;
  fail?: ToolRecipe;
  error?: ToolRecipe;
  input?: ToolRecipe;
  long?: ToolRecipe;
}

export type OutcomeName = keyof Outcomes;

/** The tools of the project's own demo server and of an `init` scaffold. */
export const DEFAULT_OUTCOMES: Outcomes = {
  complete: { name: "slow_compute", arguments: { seconds: 0.2 } },
  fail: { name: "failing_job", arguments: { seconds: 0.2 } },
  error: { name: "protocol_error_job", arguments: {} },
  input: { name: "confirm_delete", arguments: {} },
  long: { name: "slow_compute", arguments: { seconds: 30 } },
};

export interface ConformOptions {
  ir: IR;
  target: Target;
  runs?: number;
  seed?: number;
  maxCommands?: number;
  outcomes?: Outcomes;
  /** Wall-clock bound of the whole run, shrinking included (ms). */
  timeLimitMs?: number;
  /** Rules whose violations are counted as known deviations instead of failing the run. */
  ignore?: readonly string[];
  /** Called as each run ends (for a progress line). */
  onRun?: (n: number) => void;
  /** How long to wait for a start-up and for an answer. */
  timing?: Timing;
  /** Over stdio, start the server afresh for every run rather than open a new session on one process. */
  freshProcess?: boolean;
}

export interface Violation {
  rule: string;
  message: string;
  expected?: unknown;
  observed?: unknown;
}

/**
 * What a run of conform found: every rule held; a rule broken; or the server could not be tested (it
 * could not be reached or started, an answer did not come in time, or it crashed), which says nothing
 * of the rules.
 */
export type Verdict = "held" | "violation" | "untestable";

export interface ConformReport {
  ok: boolean;
  verdict: Verdict;
  spec: string;
  seed: number;
  runs: number;
  /** Commands executed (all runs, shrinking included). */
  commands: number;
  /** What each kind of command did, and what was not exercised and why. */
  exercised: Record<string, number>;
  skipped: string[];
  /** Violations of the rules given to `ignore`: how often, and the first one. */
  deviations: Record<string, { count: number; first: Violation }>;
  /** Checks made once per run of `conform` (handshake, transport rules). */
  checks: Array<{ rule: string; ok: boolean; message: string }>;
  failure?: {
    /** A rule broken, or why the server could not be tested (`unreachable`, `timeout`, `crash`). */
    kind: "violation" | "unreachable" | "timeout" | "crash";
    violation: Violation;
    /** The shortest command sequence found that shows it (as it first failed where shrinking could not go on). */
    sequence: string[];
    shrunk: boolean;
    /** The messages of that sequence, both ways. */
    transcript: TranscriptEntry[];
  };
  durationMs: number;
  /** Server processes started (stdio). */
  serverStarts?: number;
}

/** The server could not be tested further: an answer did not come in time (no rule says how soon). */
export class CannotTestError extends Error {
  constructor(
    readonly kind: "unreachable" | "timeout",
    readonly reason: string,
  ) {
    super(reason);
  }
}

export class ViolationError extends Error {
  constructor(readonly violation: Violation) {
    super(`${violation.rule}: ${violation.message}`);
  }
}

function fail(rule: string, message: string, expected?: unknown, observed?: unknown): never {
  throw new ViolationError({ rule, message, ...(expected === undefined ? {} : { expected }), ...(observed === undefined ? {} : { observed }) });
}

function brief(a: Answer): unknown {
  if (a.error) return { error: a.error };
  if (a.result) return { result: a.result };
  if (a.timedOut) return "no answer in time";
  return a.broken ?? a;
}

function issues(r: z.ZodSafeParseResult<unknown>): string {
  return r.success ? "" : r.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}

/** One task the tester made, as the model knows it. */
interface ModelTask {
  id: string;
  outcome: OutcomeName;
  /** The last status the server showed. */
  status: string;
  cancelRequested: boolean;
  /** A requestor's move (a transition operation) ended it: its outcome no longer says how it ends. */
  endedByMove?: boolean;
  gone: boolean;
  /** The creation request still open (acknowledged by a notification). */
  pending?: Promise<Answer>;
  requestId?: number;
  /** The result request open to receive the task's input requests (result-stream input). */
  resultStream?: Promise<Answer>;
  /** The request that made it, where not a tool call of its outcome. */
  via?: string;
  /** Deleted by the tester. */
  deleted?: boolean;
  /** createdAt as first shown; lastUpdatedAt as last shown, when that value was first seen, and the last request sent that showed it with the same status. */
  createdAt?: string;
  updated?: { value: string; firstSeen: number; lastSentSame: number };
  /** The status its last status notification carried. */
  notified?: string;
  /** When the tester first saw it terminal. */
  endedAt?: number;
  /** The progress token its request carried, and the last progress reported. */
  progressToken?: string;
  progress?: number;
  /** When the request that made it was answered. */
  answeredAt?: number;
  /** Its end was checked (what it answers once ended). */
  endChecked?: boolean;
}

interface World {
  model: SpecModel;
  session: Session;
  tasks: ModelTask[];
  outcomes: Outcomes;
  tools: Map<string, Record<string, unknown>>;
  exercised: Record<string, number>;
  ignore: ReadonlySet<string>;
  deviations: ConformReport["deviations"];
  /** How many of the session's notifications have been checked. */
  notificationsSeen: number;
  /** Whether the server offers a method its capability gates (the spec's `capabilities.server.gates`). */
  offered: (method: string) => boolean;
  /** Whether the server declares a request as one it makes tasks of (the spec's `capabilities.server.augments`). */
  augmented: (method: string) => boolean;
  target: Target;
  /** Whether a second session can be opened to check that tasks are bound to theirs. */
  isolation: boolean;
  /** Ids of tasks made in earlier runs, by other sessions. */
  foreign: Set<string>;
  /** A session of another requestor, for the isolation checks. */
  otherSession: () => Session;
}

const count = (w: World, what: string) => (w.exercised[what] = (w.exercised[what] ?? 0) + 1);

function expectAnswer(a: Answer, rule: string, what: string): asserts a is Answer & ({ result: Record<string, unknown> } | { error: { code: number; message: string } }) {
  if (a.timedOut) throw new CannotTestError("timeout", `${what}: no answer within the time allowed`);
  if (a.broken !== undefined) fail("transport", `${what}: ${a.broken}`);
}

function expectError(a: Answer, err: ExpectedError | undefined, rule: string, what: string, fallbackCode?: number): void {
  expectAnswer(a, rule, what);
  if (!a.error) fail(rule, `${what} answered a result where the spec says it fails`, err ? { code: err.code, message: err.message } : { code: fallbackCode }, brief(a));
  const code = err?.code ?? fallbackCode;
  if (code !== undefined && a.error.code !== code) fail(rule, `${what} answered error ${a.error.code}, the spec declares ${code}${err ? ` (${err.name})` : ""}`, { code, message: err?.message }, a.error);
  if (err && !err.pattern.test(a.error.message)) fail("error-message", `${what}: the message does not match the declared one (${err.name})`, err.message, a.error.message);
}

function checkSchema(schema: z.ZodType | undefined, value: unknown, rule: string, what: string): void {
  if (schema === undefined) return;
  const r = schema.safeParse(value);
  if (!r.success) fail(rule, `${what} does not match its declared type: ${issues(r)}`, undefined, value);
}

/** The task type's MCP timestamps, where it declares them. */
function timeFields(m: SpecModel): { created?: string; updated?: string } {
  const fields = new Set<string>();
  const seen = new Set<string>();
  const collect = (t: IRType | undefined): void => {
    if (t === undefined) return;
    if (t.kind === "object") for (const f of t.fields) fields.add(f.name);
    else if (t.kind === "union") for (const v of t.variants) collect(v);
    else if (t.kind === "ref" && !seen.has(t.name)) {
      seen.add(t.name);
      collect(m.ir.types.find((d) => d.name === t.name)?.type);
    }
  };
  collect({ kind: "ref", name: m.ir.behaviour.taskType, nullable: false });
  return { ...(fields.has("createdAt") ? { created: "createdAt" } : {}), ...(fields.has("lastUpdatedAt") ? { updated: "lastUpdatedAt" } : {}) };
}

const ms = (v: unknown): number => (typeof v === "string" ? Date.parse(v) : NaN);

/**
 * createdAt never changes; lastUpdatedAt is never before it and never goes back (compared with what the same
 * channel showed last: answers with answers, notifications with notifications, which may come on another stream).
 */
function checkTimes(w: World, t: ModelTask, task: Record<string, unknown>, what: string, last: { value: string } | null = t.updated ?? null): void {
  const f = timeFields(w.model);
  const created = f.created === undefined ? undefined : task[f.created];
  const updated = f.updated === undefined ? undefined : task[f.updated];
  if (typeof created === "string") {
    if (t.createdAt !== undefined && created !== t.createdAt) fail("timestamps", `${what}: createdAt of task ${t.id} changed`, t.createdAt, created);
    t.createdAt = created;
  }
  if (Number.isNaN(ms(updated))) return;
  if (!Number.isNaN(ms(created)) && ms(updated) < ms(created)) fail("timestamps", `${what}: lastUpdatedAt of task ${t.id} is before its createdAt`, `at or after ${String(created)}`, updated);
  if (last !== null && ms(updated) < ms(last.value)) fail("timestamps", `${what}: lastUpdatedAt of task ${t.id} went back`, `at or after ${last.value}`, updated);
}

/** Checks a task the server showed and moves the model along; the status must be one the last could lead to. */
function observe(w: World, t: ModelTask, task: Record<string, unknown>, what: string, sentAt?: number): void {
  const m = w.model;
  const taskSchema = m.schemas.type(m.ir.behaviour.taskType);
  checkSchema(taskSchema, task, "types", `${what}: the task`);
  if (task[m.idField] !== t.id) fail("identity", `${what} shows task ${JSON.stringify(task[m.idField])}, not ${JSON.stringify(t.id)}`);
  const status = task[m.statusField];
  if (typeof status !== "string" || !m.states.has(status)) fail("states", `${what}: ${JSON.stringify(status)} is not a declared state`, [...m.states], status);
  if (m.terminal.has(t.status) && status !== t.status) fail("terminal", `${what}: task ${t.id} left the terminal state ${t.status} for ${status}`, t.status, status);
  if (!m.reach.get(t.status)?.has(status)) fail("transitions", `${what}: no transition path leads from ${t.status} to ${status}`, [...(m.reach.get(t.status) ?? [])], status);
  checkTimes(w, t, task, what);
  // A change of status is an update: a lastUpdatedAt seen unchanged well after it was first seen must move.
  const f = timeFields(m);
  const updated = f.updated === undefined ? undefined : task[f.updated];
  if (typeof updated === "string" && !Number.isNaN(ms(updated))) {
    const prev = t.updated;
    if (prev !== undefined && status !== t.status && updated === prev.value && prev.lastSentSame - prev.firstSeen >= 50) {
      fail("timestamps", `${what}: task ${t.id} moved from ${t.status} to ${status}, but its lastUpdatedAt stayed ${updated}`, `later than ${updated}`, updated);
    }
    if (prev === undefined || updated !== prev.value) t.updated = { value: updated, firstSeen: Date.now(), lastSentSame: -Infinity };
    else if (status === t.status && sentAt !== undefined) prev.lastSentSame = Math.max(prev.lastSentSame, sentAt);
  }
  if (m.terminal.has(status) && t.notified !== undefined && m.terminal.has(t.notified) && t.notified !== status) {
    fail("notifications", `${what} shows task ${t.id} ${status}, but its status notification said it ended ${t.notified}`, t.notified, status);
  }
  if (m.terminal.has(status)) t.endedAt ??= Date.now();
  t.status = status;
}

async function waitTerminal(w: World, t: ModelTask, ms: number): Promise<void> {
  const get = w.model.op("get")!;
  const deadline = Date.now() + ms;
  while (!w.model.terminal.has(t.status) && Date.now() < deadline) {
    // Any work may ask for input (a tool that samples, one that elicits): answer it as the spec routes it.
    if (w.model.roleOf[t.status] === "input_required") await answerInputRound(w, t);
    // A task held by a transition (paused) waits for one that lets it go on: the spec's own way out.
    await letGo(w, t);
    await new Promise((r) => setTimeout(r, 50));
    const sent = Date.now();
    const a = await w.session.request(get.method, idParams(w, t.id));
    expectAnswer(a, "get", `${get.method} of task ${t.id}`);
    if (a.error) fail("get", `${get.method} of a live task ${t.id} failed`, "the task", a.error);
    checkResultType(w, get.method, a.result!);
    observe(w, t, taskIn(w.model, a.result) ?? {}, get.method, sent);
  }
}

/** A task held by a transition (paused) is let go by the spec's own way out, which the server must accept. */
async function letGo(w: World, t: ModelTask): Promise<void> {
  if (w.model.roleOf[t.status] !== "paused") return;
  const out = w.model.ops("transition").find((m) => m.to !== undefined && m.to !== t.status && w.model.direct.get(t.status)?.has(m.to) && w.model.roleOf[m.to] !== "paused");
  if (!out) return;
  const a = await w.session.request(out.method, idParams(w, t.id));
  expectAnswer(a, "transitions", out.method);
  const guarded = w.model.ir.transitions.some((x) => x.from === t.status && x.to === out.to && x.guard !== undefined);
  if (a.error && !isLimitError(w.model, a.error.code) && !guarded) {
    await refresh(w, t);
    if (w.model.roleOf[t.status] === "paused") fail("transitions", `${out.method} of a task in ${t.status} failed, but the spec allows ${t.status} → ${out.to}`, "a result", a.error);
  }
}

function idParams(w: World, id: string): Record<string, unknown> {
  return { [w.model.idField]: id };
}

/** Params a method's type accepts, addressing task `id`: its other required fields get small valid values. */
function validParams(w: World, method: IRMethod, id: string): Record<string, unknown> {
  const base = method.params === undefined ? {} : minimalValue(w.model.ir, method.params);
  return { ...(isObject(base) ? base : {}), [w.model.idField]: id };
}

/** Answers a task's input round the way the spec routes it: on the result stream, or by the update method. */
async function answerInputRound(w: World, t: ModelTask): Promise<void> {
  const input = w.model.ir.behaviour.input;
  if (input === false) return;
  if (input.via === "result-stream") {
    // One result request open per task: its stream carries the input requests.
    const res = w.model.op("result");
    if (res && t.resultStream === undefined) t.resultStream = w.session.request(res.method, idParams(w, t.id), 15_000).finally(() => (t.resultStream = undefined));
    return;
  }
  if (input.via === "inline-poll" && input.updateMethod !== undefined && input.requestsField && input.responsesField) {
    const get = w.model.op("get")!;
    const a = await w.session.request(get.method, idParams(w, t.id));
    const task = taskIn(w.model, a.result);
    const asked = task === undefined ? undefined : task[input.requestsField];
    if (!isObject(asked)) return;
    const { answerInput } = await import("./session.js");
    const responses = Object.fromEntries(
      Object.entries(asked).map(([k, r]) => [k, answerInput(String(isObject(r) ? r.method : ""), isObject(r) && isObject(r.params) ? r.params : undefined)]),
    );
    const u = await w.session.request(input.updateMethod, { ...idParams(w, t.id), [input.responsesField]: responses });
    expectAnswer(u, "input", `${input.updateMethod} of task ${t.id}`);
    if (u.error) fail("input", `${input.updateMethod} answering the task's own input requests failed`, "a result", u.error);
    checkResultType(w, input.updateMethod, u.result!);
    checkSchema(w.model.schemas.result(input.updateMethod), u.result, "types", `${input.updateMethod} result`);
  }
}

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

abstract class Cmd implements fc.AsyncCommand<object, World, boolean> {
  check(_m: Readonly<object>): boolean {
    return true;
  }
  /** Runs the command; a violation of a rule the user chose to ignore is counted as a deviation instead. */
  async run(_m: object, w: World): Promise<void> {
    try {
      await this.exec(w);
      checkNotifications(w);
    } catch (e) {
      if (!(e instanceof ViolationError) || !w.ignore.has(e.violation.rule)) throw e;
      const d = (w.deviations[e.violation.rule] ??= { count: 0, first: e.violation });
      d.count++;
    }
  }
  abstract exec(w: World): Promise<void>;
  abstract toString(): string;
}

/** Picks a task of the model by a drawn index (so that shrinking keeps sequences meaningful). */
abstract class TaskCmd extends Cmd {
  constructor(readonly pick: number) {
    super();
  }
  task(w: World): ModelTask | undefined {
    const live = w.tasks.filter((t) => !t.gone);
    return live.length ? live[this.pick % live.length] : undefined;
  }
  /** A task not seen ended, where there is one (else any): what only a running task can show. */
  openTask(w: World): ModelTask | undefined {
    const live = w.tasks.filter((t) => !t.gone);
    const open = live.filter((t) => !w.model.terminal.has(t.status));
    const pool = open.length ? open : live;
    return pool.length ? pool[this.pick % pool.length] : undefined;
  }
}

/** A request other than tools/call that the spec lets become a task, as the server under test offers it. */
interface Augmentable {
  method: string;
  params: Record<string, unknown>;
}

class Create extends Cmd {
  /**
   * `via`: made through another augmentable request (its work completes), rather than a tool of an outcome;
   * `ttl`: the retention asked for.
   */
  constructor(
    readonly outcome: OutcomeName,
    readonly via?: Augmentable,
    readonly ttl = 60_000,
  ) {
    super();
  }
  toString() {
    return this.via ? `create(${this.via.method})` : `create(${this.outcome})`;
  }
  async exec(w: World): Promise<void> {
    const made = await this.make(w);
    // Read back what was made: the task as the spec's get shows it.
    if (made !== undefined) await refresh(w, made.t);
  }
  /**
   * Makes the task and adds it to the model: the task and the acknowledgement's record of it (none where a
   * notification acknowledges it); undefined where the server refused for a limit or served no task.
   */
  async make(w: World): Promise<{ t: ModelTask; task?: Record<string, unknown> } | undefined> {
    const m = w.model;
    const c = m.ir.behaviour.creation;
    const recipe = this.via ? undefined : w.outcomes[this.outcome]!;
    const method = this.via?.method ?? "tools/call";
    const label = recipe ? `tools/call of ${recipe.name}` : method;
    const requestorId = c.taskId.assignedBy === "requestor" ? `conform-${Math.random().toString(36).slice(2, 10)}` : undefined;
    const asked = w.session.taskParams(this.via?.params ?? { name: recipe!.name, arguments: recipe!.arguments ?? {} }, requestorId, this.ttl);
    // A progress token of its own, whose life the spec's progressTokenLifetime bounds.
    const progressToken = `conform-progress-${Math.random().toString(36).slice(2, 10)}`;
    const params = { ...asked, _meta: { ...(isObject(asked._meta) ? asked._meta : {}), progressToken } };
    const made = { ...(this.via ? { via: method } : {}), progressToken };
    count(w, this.via ? `create via ${method}` : "create");
    if (c.ack.mode === "notification") {
      const before = w.session.wire.notifications.length;
      let requestId: number | undefined;
      const pending = w.session.request(method, params, 60_000, (id) => (requestId = id));
      const deadline = Date.now() + 10_000;
      let ack: Record<string, unknown> | undefined;
      while (ack === undefined && Date.now() < deadline) {
        ack = w.session.wire.notifications.slice(before).find((n) => n.method === c.ack.notification && JSON.stringify(n.params ?? {}).includes(JSON.stringify(requestorId)))?.params;
        if (ack === undefined) {
          const early = await Promise.race([pending, new Promise<undefined>((r) => setTimeout(() => r(undefined), 25))]);
          if (early?.error && isLimitError(m, early.error.code)) return;
          if (early !== undefined && ack === undefined) {
            ack = w.session.wire.notifications.slice(before).find((n) => n.method === c.ack.notification)?.params;
            if (ack === undefined) fail("creation", `${method} with a task request answered before any ${c.ack.notification}`, c.ack.notification, brief(early));
          }
        }
      }
      if (ack === undefined) fail("creation", `no ${c.ack.notification} within 10 s of a task request`, c.ack.notification, "nothing");
      checkSchema(m.schemas.params(c.ack.notification!), ack, "types", `${c.ack.notification} params`);
      const t: ModelTask = { id: requestorId!, outcome: this.outcome, status: m.initial, cancelRequested: false, gone: false, pending, ...made, ...(requestId === undefined ? {} : { requestId }) };
      void pending.then(() => (t.answeredAt = Date.now()));
      w.tasks.push(t);
      return { t };
    }
    // An acknowledgement comes at once, whatever the work: a server that runs the work first answers late.
    const sent = Date.now();
    // The request's id: where the spec cancels a task with notifications/cancelled, it names this request.
    let requestId: number | undefined;
    const a = await w.session.request(method, params, 10_000, (id) => (requestId = id));
    const answeredAt = Date.now();
    expectAnswer(a, "creation", `${label} with a task request (an acknowledgement is due at once)`);
    if (a.error) {
      if (isLimitError(m, a.error.code)) return;
      fail("creation", `${label} as a task failed`, "a task", a.error);
    }
    // A request the server does not declare among those it makes tasks of is served plainly.
    if (!w.augmented(method)) {
      const served = taskIn(m, a.result);
      if (served !== undefined) fail("capabilities", `${label} with a task request made task ${String(served[m.idField])}, but the server does not declare ${method} among its task requests`, "a plain result", a.result);
      count(w, `create: ${method} served plainly`);
      return;
    }
    const ackType = typeof c.ack.resultType === "string" ? c.ack.resultType : undefined;
    if (c.ack.mode === "flat-result" && m.ir.behaviour.resultType !== false && c.decidedBy === "receiver") {
      const rt = m.ir.behaviour.resultType;
      if (a.result![rt.field] !== rt.task) {
        count(w, "create: served without a task");
        return;
      }
    }
    if (ackType !== undefined) checkSchema(m.schemas.type(ackType), a.result, "types", `the acknowledgement (${ackType})`);
    const task = taskIn(m, a.result);
    if (task === undefined) fail("creation", "the acknowledgement holds no task", `a task with ${m.idField} and ${m.statusField}`, a.result);
    const id = task[m.idField] as string;
    if (w.tasks.some((t) => t.id === id)) fail("creation", `the server handed out task id ${id} twice`);
    const t: ModelTask = { id, outcome: this.outcome, status: m.initial, cancelRequested: false, gone: false, answeredAt, ...made, ...(requestId === undefined ? {} : { requestId }) };
    observe(w, t, task, "the acknowledgement", sent);
    w.tasks.push(t);
    return { t, task };
  }
}

function isLimitError(m: SpecModel, code: number): boolean {
  const l = m.ir.behaviour.limits;
  return [m.error(l.rateLimitError)?.code, m.error(l.concurrencyError)?.code].includes(code);
}

class Get extends TaskCmd {
  toString() {
    return `get(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const t = this.task(w);
    const get = w.model.op("get");
    if (!t || !get) return;
    count(w, "get");
    const sent = Date.now();
    const a = await w.session.request(get.method, idParams(w, t.id));
    expectAnswer(a, "get", `${get.method}`);
    if (a.error) {
      if (isLimitError(w.model, a.error.code)) return;
      fail("get", `${get.method} of live task ${t.id} failed`, "the task", a.error);
    }
    checkResultType(w, get.method, a.result!);
    checkSchema(w.model.schemas.result(get.method), a.result, "types", `${get.method} result`);
    const task = taskIn(w.model, a.result);
    if (!task) fail("get", `${get.method} answered no task`, undefined, a.result);
    observe(w, t, task, get.method, sent);
    checkInline(w, t, task, get.method);
    checkRelated(w, t, get.method, a.result!);
  }
}

/**
 * The notifications the spec declares (status notifications, creation acknowledgements) match their declared
 * params, and a status they carry is a declared state.
 */
function checkNotifications(w: World): void {
  const all = w.session.wire.notifications;
  const m = w.model;
  const sn = m.ir.behaviour.statusNotifications;
  for (; w.notificationsSeen < all.length; w.notificationsSeen++) {
    const n = all[w.notificationsSeen]!;
    if (n.method === "notifications/progress") checkProgress(w, n);
    if (sn !== false && n.method === sn.method) {
      const shown = taskIn(m, n.params);
      const t = shown === undefined ? undefined : w.tasks.find((x) => x.id === shown[m.idField]);
      const status = shown?.[m.statusField];
      if (t !== undefined && typeof status === "string" && m.states.has(status)) {
        count(w, "status notification");
        const prev = t.notified;
        if (prev !== undefined && m.terminal.has(prev) && status !== prev) fail("notifications", `${n.method} says task ${t.id} is ${status} after one said it ended ${prev}`, prev, status);
        if (prev !== undefined && !m.reach.get(prev)?.has(status)) fail("notifications", `${n.method} for task ${t.id} came out of order: ${prev}, then ${status}, which no transition path allows`, [...(m.reach.get(prev) ?? [])], status);
        if (m.terminal.has(status) && m.terminal.has(t.status) && status !== t.status) fail("notifications", `${n.method} says task ${t.id} ended ${status}; the task shows ${t.status}`, t.status, status);
        t.notified = status;
        // Not compared with earlier lastUpdatedAt values: notifications of one task may come on several streams.
        checkTimes(w, t, shown!, n.method, null);
      }
    }
    const decl = w.model.ir.methods.find((m) => m.method === n.method && m.kind === "notification");
    if (decl === undefined) continue;
    count(w, "notification");
    checkSchema(w.model.schemas.params(n.method), n.params ?? {}, "notifications", `${n.method} params`);
    const task = taskIn(w.model, n.params);
    const status = task?.[w.model.statusField];
    if (task !== undefined && (typeof status !== "string" || !w.model.states.has(status))) {
      fail("notifications", `${n.method} carries ${JSON.stringify(status)}, which is not a declared state`, [...w.model.states], status);
    }
  }
}

/**
 * Progress for a task's request: its value increases, and none comes once the task was seen terminal (nor,
 * where the token lives only as long as the request, once the request was answered).
 */
function checkProgress(w: World, n: { params?: Record<string, unknown>; at: number }): void {
  const token = n.params?.progressToken;
  const t = token === undefined ? undefined : w.tasks.find((x) => x.progressToken === token);
  if (t === undefined) return;
  count(w, "progress notification");
  const p = n.params?.progress;
  if (typeof p === "number" && t.progress !== undefined && p <= t.progress) fail("progress-token", `progress for task ${t.id} went from ${t.progress} to ${p}; it must increase`, `more than ${t.progress}`, p);
  if (typeof p === "number") t.progress = p;
  // A margin for a notification sent just before the end that came on another stream than the answer.
  if (t.endedAt !== undefined && n.at - t.endedAt > 250) fail("progress-token", `a progress notification for task ${t.id} came ${n.at - t.endedAt} ms after the task was seen ${t.status}`, "no progress after the end", n.params);
  if (w.model.ir.behaviour.creation.progressTokenLifetime === "request" && t.answeredAt !== undefined && n.at - t.answeredAt > 250) {
    fail("progress-token", `a progress notification for task ${t.id} came after its request was answered; the spec's token lives as long as the request`, "no progress after the answer", n.params);
  }
}

/** The related-task `_meta` entry: on the results the spec lists it for (naming the task), absent where it says not. */
function checkRelated(w: World, t: ModelTask, method: string, result: Record<string, unknown>): void {
  const rel = w.model.ir.behaviour.relatedTask;
  if (rel === false) return;
  const key = w.model.metaKey(rel.meta);
  if (key === undefined) return;
  const entry = valueAt(result, ["_meta", key]);
  if (rel.results.includes(method)) {
    if (!isObject(entry) || entry.taskId !== t.id) fail("related-task", `${method} result of task ${t.id} does not carry _meta["${key}"] naming it`, { taskId: t.id }, entry ?? "nothing");
  } else if ((rel.notOnResults ?? []).includes(method) && entry !== undefined) {
    fail("related-task", `${method} result carries _meta["${key}"], which the spec says it does not`, "nothing", entry);
  }
}

/** Results carried in the task itself: present exactly when the task is terminal in the matching role. */
function checkInline(w: World, t: ModelTask, task: Record<string, unknown>, what: string): void {
  const r = w.model.ir.behaviour.results;
  if (r.mode !== "inline" || r.resultField === undefined) return;
  const role = w.model.roleOf[t.status];
  if (role === "completed" && !(r.resultField in task) && !(r.errorField !== undefined && r.errorField in task)) {
    fail("results", `${what}: a completed task carries neither ${r.resultField} nor ${r.errorField ?? "an error"}`, r.resultField, task);
  }
  if (!w.model.terminal.has(t.status) && r.resultField in task) fail("results", `${what}: a task in ${t.status} already carries ${r.resultField}`, undefined, task);
  // A task that did not complete has no result: a failure carries its error, never a success.
  if (w.model.terminal.has(t.status) && role !== "completed" && r.resultField in task) fail("results", `${what}: a task that ended ${t.status} carries ${r.resultField}`, r.errorField ?? "no result", task);
  if (role === "failed" && r.errorField !== undefined && t.outcome !== "long" && !(r.errorField in task)) fail("results", `${what}: a task that failed (${t.status}) carries no ${r.errorField}`, r.errorField, task);
  if (role === "completed" && t.outcome === "fail" && t.via === undefined && r.resultField in task) {
    const res = task[r.resultField];
    if (!isObject(res) || res.isError !== true) fail("results", `${what}: task ${t.id}, whose tool returned an error, carries a result without isError: true`, { isError: true }, res);
  }
}

/**
 * The result of an ended task through the result method: a completed task's result (with isError where its
 * tool failed), and for any other end the declared error, never a success (a tool's error result aside).
 */
function checkEndResult(w: World, t: ModelTask, a: Answer & { result?: Record<string, unknown>; error?: { code: number; message: string } }, method: string): void {
  const m = w.model;
  const r = m.ir.behaviour.results;
  const role = m.roleOf[t.status];
  if (role === "completed") {
    if (a.error) fail("results", `${method} of a task that completed (${t.status}) answered an error`, "the result", a.error);
    if (t.outcome === "fail" && t.via === undefined && a.result?.isError !== true) fail("results", `${method} of task ${t.id}, whose tool returned an error, answered a result without isError: true`, { isError: true }, a.result);
    return;
  }
  if (a.result) {
    const toolError = t.outcome === "fail" && t.via === undefined && r.mode === "block-until-terminal" && a.result.isError === true;
    if (!toolError) fail("results", `${method} of a task that ended ${t.status} answered a success`, "the declared error", a.result);
    return;
  }
  if (role === "cancelled" && r.mode === "block-until-terminal") {
    const declared = m.error(r.cancelledError) ?? m.error(m.ir.behaviour.internalError ?? "internalError");
    if (declared && a.error?.code !== declared.code) fail("results", `${method} of a cancelled task answered error ${a.error?.code}, the spec declares ${declared.code} (${declared.name})`, { code: declared.code, message: declared.message }, a.error);
  }
}

class Wait extends TaskCmd {
  toString() {
    return `wait(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const t = this.task(w);
    if (!t || !w.model.op("get") || t.outcome === "long") return;
    count(w, "wait");
    await seeToEnd(w, t);
  }
}

/** Waits for a task whose work ends on its own; it ends as its outcome says and answers what its end declares. */
async function seeToEnd(w: World, t: ModelTask): Promise<void> {
  await waitTerminal(w, t, 15_000);
  if (!w.model.terminal.has(t.status)) fail("progress", `task ${t.id} (${t.outcome}) is still ${t.status} after 15 s`, "a terminal state", t.status);
  // Long work is seen to its end only once cancelled.
  const expected = t.cancelRequested || t.outcome === "long" ? new Set([...w.model.endStates.cancel, ...w.model.terminal]) : w.model.endStates[t.outcome === "input" ? "complete" : t.outcome];
  if (!expected.has(t.status) && !t.endedByMove) fail("outcomes", `task ${t.id} of outcome ${t.outcome} ended ${t.status}`, [...expected], t.status);
  await endChecks(w, t);
}

/**
 * The end of a run: what the drawn commands left is checked, so that no task a run made goes unexamined however
 * the commands fell. Every task still there whose work ends on its own (or that was cancelled) is seen to its
 * end, as `wait` sees one; a task still held by a transition (paused) is let go by the spec's way out.
 */
const END_OF_RUN = "endOfRun()";

class EndOfRun extends Cmd {
  toString() {
    return END_OF_RUN;
  }
  async exec(w: World): Promise<void> {
    if (!w.model.op("get")) return;
    for (const t of w.tasks) {
      if (t.gone || t.endChecked) continue;
      if (t.outcome === "long" && !t.cancelRequested) {
        // A blocking result asked of running work, once in a whole test where no drawn command asked one: that it
        // does not answer early is then checked whatever the draws.
        if (w.model.ir.behaviour.results.mode === "block-until-terminal" && (w.exercised["result before the end"] ?? 0) === 0) {
          const live = w.tasks.filter((x) => !x.gone);
          await new Result(live.indexOf(t)).exec(w);
        }
        await refresh(w, t);
        // Running work the spec does not let be deleted: its delete is refused.
        const c = w.model.ir.behaviour.cancellation;
        const deletable = c.deletableStatuses === undefined ? w.model.terminal.has(t.status) : c.deletableStatuses.includes(t.status);
        if (w.model.op("delete") && !deletable && !w.model.terminal.has(t.status)) {
          count(w, "end of run: delete refused");
          await deleteTask(w, t);
          if (t.gone) continue;
        }
        if (w.model.roleOf[t.status] === "paused") count(w, "end of run: let go");
        await letGo(w, t);
        // Where notifications/cancelled cancels (no reply to check, so only the end shows it), the run's last
        // cancel of running work is a checked one rather than the clean-up's.
        if (w.model.ir.behaviour.cancellation.via === "cancelled-notification" && t.requestId !== undefined && !w.model.terminal.has(t.status)) {
          count(w, "end of run: cancelled");
          await cancelByNotification(w, t);
        }
        // By the cancel method, once in a whole test where no drawn command cancelled running work: that an
        // acknowledged cancel stops the work is then checked whatever the draws.
        const method = cancelMethodOf(w);
        if (method !== undefined && (w.exercised["cancel of running work"] ?? 0) === 0 && !w.model.terminal.has(t.status)) {
          count(w, "end of run: cancelled");
          await cancelByMethod(w, t, method);
        }
        continue;
      }
      count(w, "end of run: seen to its end");
      await seeToEnd(w, t);
    }
  }
}

class Result extends TaskCmd {
  toString() {
    return `result(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const t = this.task(w);
    const res = w.model.op("result");
    const r = w.model.ir.behaviour.results;
    if (!t || !res) return;
    if (r.mode === "block-until-terminal" && !w.model.terminal.has(t.status) && t.outcome === "long" && !t.cancelRequested) {
      // It blocks: no answer may come while the work runs.
      count(w, "result before the end");
      const early = await w.session.probe(res.method, idParams(w, t.id), 1500);
      if (early.timedOut || (early.error && isLimitError(w.model, early.error.code))) return;
      expectAnswer(early, "results", res.method);
      await refresh(w, t);
      if (!w.model.terminal.has(t.status)) fail("results", `${res.method} of task ${t.id} answered while the task is still ${t.status}`, "no answer until the task ends", brief(early));
      return;
    }
    if (r.mode === "block-until-terminal" && !w.model.terminal.has(t.status) && (t.outcome === "long" || t.outcome === "input")) return;
    count(w, "result");
    const a = await w.session.request(res.method, idParams(w, t.id), 20_000);
    if (a.timedOut && r.mode === "block-until-terminal" && (t.outcome === "complete" || t.outcome === "fail")) {
      // No answer while the server still answers the rest: the quick work never ended (a broken rule), not a
      // server out of reach (which the get below reports as such).
      const get = w.model.op("get");
      const g = get ? await w.session.request(get.method, idParams(w, t.id)) : undefined;
      const task = g?.result ? taskIn(w.model, g.result) : undefined;
      if (task) observe(w, t, task, get!.method);
      if (task && !w.model.terminal.has(t.status)) fail("progress", `task ${t.id} (${t.outcome}) is still ${t.status} after 20 s: ${res.method} never answered`, "a terminal state", t.status);
    }
    expectAnswer(a, "results", res.method);
    if (r.mode === "error-until-completed") {
      if (a.error && isLimitError(w.model, a.error.code)) return;
      if (a.error) {
        const notReady = w.model.error(r.notReadyError);
        if (notReady && a.error.code === notReady.code) {
          if (w.model.roleOf[t.status] === "completed") fail("results", `${res.method} of a task the server showed completed answered not ready`, "the result", a.error);
          // Several declared errors may share the code: the message tells which one came.
          if (!w.model.terminal.has(t.status)) expectError(a, notReady, "results", `${res.method} of a task not completed`);
          return;
        }
        if (!w.model.terminal.has(t.status) || w.model.roleOf[t.status] === "completed") expectError(a, notReady, "results", `${res.method} of a task not completed`);
        return;
      }
      checkSchema(w.model.schemas.result(res.method), a.result, "types", `${res.method} result`);
      checkRelated(w, t, res.method, a.result!);
      // A result: the task completed, now if not when last seen.
      if (w.model.roleOf[t.status] !== "completed") await refresh(w, t);
      if (w.model.terminal.has(t.status)) checkEndResult(w, t, a, res.method);
      else fail("results", `${res.method} answered a result for task ${t.id}, which is still ${t.status}`, "the declared not-ready error", a.result);
      return;
    }
    // Blocking: the answer comes once the task is terminal, and the task must then be terminal.
    if (a.error && isLimitError(w.model, a.error.code)) return;
    if (a.result) {
      checkSchema(w.model.schemas.result(res.method), a.result, "types", `${res.method} result`);
      checkRelated(w, t, res.method, a.result);
    }
    const get = w.model.op("get");
    if (get) {
      const g = await w.session.request(get.method, idParams(w, t.id));
      const task = taskIn(w.model, g.result);
      if (task) {
        observe(w, t, task, `${get.method} after ${res.method}`);
        if (!w.model.terminal.has(t.status)) fail("results", `${res.method} answered while the task is still ${t.status}`, "a terminal task", t.status);
        checkEndResult(w, t, a, res.method);
      }
    }
  }
}

class Cancel extends TaskCmd {
  toString() {
    return `cancel(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    // A running task, where there is one: what a cancel of an ended one answers, every ended task's checks ask.
    const t = this.openTask(w);
    const method = cancelMethodOf(w);
    if (t && w.model.ir.behaviour.cancellation.via === "cancelled-notification" && t.requestId !== undefined) {
      count(w, "cancel");
      await cancelByNotification(w, t);
      return;
    }
    if (!t || method === undefined) return;
    count(w, "cancel");
    await cancelByMethod(w, t, method);
  }
}

/** The cancel method where the server offers it, else undefined. */
function cancelMethodOf(w: World): string | undefined {
  const c = w.model.ir.behaviour.cancellation;
  return c.via === "method" && c.method !== undefined && w.offered(c.method) && w.model.ir.methods.some((x) => x.method === c.method) ? c.method : undefined;
}

/**
 * The cancel method asked of task `t`: a terminal task's cancel is answered as the spec says; a live task's
 * cancel succeeds and the task ends where the spec's cancel leads (long work does not end otherwise).
 */
async function cancelByMethod(w: World, t: ModelTask, method: string): Promise<void> {
  const c = w.model.ir.behaviour.cancellation;
  await refresh(w, t);
  const wasTerminal = w.model.terminal.has(t.status);
  const a = await w.session.request(method, idParams(w, t.id));
  expectAnswer(a, "cancellation", method);
  if (a.error && isLimitError(w.model, a.error.code)) return;
  if (wasTerminal) {
    if (c.terminal === "error") expectError(a, w.model.error(c.terminalError), "cancellation", `${method} of a task already ${t.status}`);
    else if (a.error && isLimitError(w.model, a.error.code)) return;
    else if (a.error) fail("cancellation", `${method} of a terminal task failed; the spec says it is ${c.terminal === "ack" ? "acknowledged" : "ignored"}`, "a result", a.error);
    return;
  }
  if (a.error) {
    // The task may have ended just before the request arrived: then the declared terminal error is right.
    const terminalErr = w.model.error(c.terminalError);
    if (c.terminal === "error" && terminalErr && a.error.code === terminalErr.code) {
      await refresh(w, t);
      if (!w.model.terminal.has(t.status)) fail("cancellation", `${method} said the task is terminal, but it is ${t.status}`, "a terminal task", t.status);
      return;
    }
    fail("cancellation", `${method} of a live task failed`, "a result", a.error);
  }
  checkResultType(w, method, a.result!);
  checkSchema(w.model.schemas.result(method), a.result, "types", `${method} result`);
  t.cancelRequested = true;
  if (c.reply === "task" && c.timing === "before-reply") {
    const task = taskIn(w.model, a.result);
    if (task) {
      observe(w, t, task, `${method} reply`);
      if (!w.model.endStates.cancel.has(t.status) && !w.model.terminal.has(t.status)) fail("cancellation", `${method} replied with a task still ${t.status}`, [...w.model.endStates.cancel], t.status);
    }
  }
  if (t.outcome === "long") count(w, "cancel of running work");
  if (w.model.op("get")) {
    await waitTerminal(w, t, 10_000);
    if (!w.model.terminal.has(t.status)) fail("cancellation", `task ${t.id} is still ${t.status} 10 s after ${method}`, [...w.model.endStates.cancel], t.status);
    // Long work does not end on its own meanwhile: its acknowledged cancel ends it where the spec's cancel leads.
    if (t.outcome === "long" && !w.model.endStates.cancel.has(t.status)) {
      fail("cancellation", `task ${t.id} (long work) ended ${t.status} after ${method} was acknowledged`, [...w.model.endStates.cancel], t.status);
    }
  }
}

/**
 * Cancelling the request that made the task cancels the task, whether or not that request was answered (an
 * acknowledgement may have answered it); the spec sends no reply.
 */
async function cancelByNotification(w: World, t: ModelTask): Promise<void> {
  await refresh(w, t);
  const wasTerminal = w.model.terminal.has(t.status);
  await w.session.wire.notify("notifications/cancelled", { requestId: t.requestId, reason: "conform" });
  if (!wasTerminal) t.cancelRequested = true;
  if (w.model.op("get")) {
    await waitTerminal(w, t, 10_000);
    if (!w.model.terminal.has(t.status)) fail("cancellation", `task ${t.id} is still ${t.status} 10 s after notifications/cancelled`, [...w.model.endStates.cancel], t.status);
    // Long work does not end on its own meanwhile: cancelled, it ends where the spec's cancel leads.
    if (!wasTerminal && t.outcome === "long" && !w.model.endStates.cancel.has(t.status)) {
      fail("cancellation", `task ${t.id} (long work) ended ${t.status} after notifications/cancelled named its request`, [...w.model.endStates.cancel], t.status);
    }
  }
}

async function refresh(w: World, t: ModelTask): Promise<void> {
  const get = w.model.op("get");
  if (!get) return;
  const sent = Date.now();
  const g = await w.session.request(get.method, idParams(w, t.id));
  const task = taskIn(w.model, g.result);
  if (task) {
    observe(w, t, task, get.method, sent);
    checkInline(w, t, task, get.method);
  }
}

/** Where the spec declares a result type field, the answers to task methods other than creation say `complete`. */
function checkResultType(w: World, method: string, result: Record<string, unknown>): void {
  const rt = w.model.ir.behaviour.resultType;
  if (rt === false) return;
  if (result[rt.field] !== rt.complete) fail("result-type", `${method} answered without ${rt.field}: ${JSON.stringify(rt.complete)}`, rt.complete, result[rt.field] ?? "nothing");
}

class List extends Cmd {
  toString() {
    return "list()";
  }
  async exec(w: World): Promise<void> {
    const list = w.model.op("list");
    if (list && !w.offered(list.method)) return;
    const listing = w.model.ir.behaviour.listing;
    if (!list) return;
    count(w, "list");
    // Enough tasks for a small page size to page.
    const recipe = w.outcomes.complete !== undefined && w.tools.has(w.outcomes.complete.name) ? "complete" : undefined;
    for (let i = w.tasks.filter((t) => !t.gone).length; recipe !== undefined && i < 3; i++) await new Create(recipe).make(w);
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const a = await w.session.request(list.method, cursor === undefined ? {} : { cursor });
      expectAnswer(a, "listing", list.method);
      if (a.error) {
        if (isLimitError(w.model, a.error.code)) return;
        fail("listing", `${list.method} failed`, "a page", a.error);
      }
      checkSchema(w.model.schemas.result(list.method), a.result, "types", `${list.method} result`);
      const items = Object.values(a.result!).find(Array.isArray) as unknown[] | undefined;
      for (const item of items ?? []) {
        const id = isObject(item) ? item[w.model.idField] : undefined;
        if (typeof id === "string") {
          if (seen.has(id)) fail("listing", `${list.method} listed task ${id} twice across its pages`);
          seen.add(id);
        }
      }
      const next = a.result!.nextCursor;
      if (typeof next !== "string") break;
      cursor = next;
    }
    for (const t of w.tasks) {
      if (!t.gone && !seen.has(t.id)) fail("listing", `${list.method} does not list task ${t.id}, which its requestor made and can still read`, t.id, [...seen]);
      if (t.deleted && seen.has(t.id)) fail("delete", `${list.method} still lists task ${t.id}, which was deleted`, "not listed", t.id);
    }
    const theirs = [...seen].find((id) => w.isolation && w.foreign.has(id));
    if (theirs !== undefined) fail("isolation", `${list.method} lists task ${theirs}, which another session made`, "only this session's tasks", theirs);
    if (listing !== false) {
      const forged = await w.session.request(list.method, { cursor: "conform-forged-cursor" });
      expectError(forged, w.model.error(listing.invalidCursorError), "listing", `${list.method} with a forged cursor`);
    }
  }
}

/** Methods that address one task, asked about an id no one was given. */
class Unknown extends Cmd {
  constructor(readonly which: number) {
    super();
  }
  toString() {
    return `unknownId(${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const methods = addressing(w.model).filter((m) => w.offered(m.method));
    if (!methods.length) return;
    const method = methods[this.which % methods.length]!;
    count(w, "unknown id");
    const a = await w.session.request(method.method, validParams(w, method, `conform-unknown-${this.which}`));
    expectError(a, w.model.notFound, "unknown-id", `${method.method} of an unknown task id`, -32602);
  }
}

/**
 * Expiry, where the spec declares an expiry state: a long task asked for a short retention (counted from
 * creation) moves to that state once the retention it was granted ran out (or is answered with the declared
 * expired error, or is gone). A server may grant another retention than asked: over 5 s, nothing is checked.
 */
class Expire extends Cmd {
  toString() {
    return "expire(long)";
  }
  async exec(w: World): Promise<void> {
    const m = w.model;
    const b = m.ir.behaviour;
    const to = b.events?.expiry;
    const ret = b.retention;
    const recipe = w.outcomes.long;
    const get = m.op("get");
    if (to === undefined || ret === false || ret.countedFrom !== "creation" || b.creation.retentionField === undefined || !recipe || !get) return;
    if (b.creation.ack.mode === "notification" || b.creation.taskId.assignedBy === "requestor") return;
    const made = await new Create("long", undefined, 1500).make(w);
    if (made?.task === undefined) return;
    const { t, task } = made;
    const granted = task[ret.field];
    if (typeof granted !== "number" || granted > 5_000) return;
    count(w, "expiry");
    const expired = m.error(ret.expiredError);
    const deadline = Date.now() + granted + 5_000;
    while (Date.now() < deadline) {
      const g = await w.session.request(get.method, idParams(w, t.id));
      expectAnswer(g, "expiry", `${get.method} of a task whose retention runs out`);
      if (g.error) {
        if (g.error.code === expired?.code || g.error.code === m.notFound?.code) {
          t.gone = true;
          return;
        }
        fail("expiry", `${get.method} of a task whose retention ran out answered error ${g.error.code}`, `the task in ${to}, or the expired error`, g.error);
      }
      const now = taskIn(m, g.result);
      if (now === undefined) fail("get", `${get.method} answered without a task`, "a task", g.result);
      observe(w, t, now, `${get.method} while its retention runs out`);
      if (t.status === to) {
        count(w, `expiry: ${to}`);
        return;
      }
      // A long task ends by its retention here, nothing else: another terminal state is not the declared one.
      if (m.terminal.has(t.status)) fail("expiry", `task ${t.id} ended ${t.status} when its retention ran out, not in the declared expiry state`, to, t.status);
      await new Promise((r) => setTimeout(r, 200));
    }
    fail("expiry", `task ${t.id} is still ${t.status} 5 s after the retention it was granted (${granted} ms) ran out`, to, t.status);
  }
}

/**
 * A custom operation, called with params of its declared type (naming one of the requestor's tasks where
 * the type has the id field): what it does is the handler's, but it answers, and a result has the declared
 * result type.
 */
class Custom extends TaskCmd {
  constructor(
    pick: number,
    readonly which: number,
  ) {
    super(pick);
  }
  toString() {
    return `custom(${this.which}, #${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const methods = w.model.ops("custom").filter((m) => m.kind === "request" && m.from !== "server" && w.offered(m.method));
    if (!methods.length) return;
    const method = methods[this.which % methods.length]!;
    const base = method.params === undefined ? {} : minimalValue(w.model.ir, method.params);
    const params: Record<string, unknown> = isObject(base) ? { ...base } : {};
    const t = this.task(w);
    if (t && w.model.idField in params) params[w.model.idField] = t.id;
    count(w, "custom");
    const a = await w.session.request(method.method, params, 20_000);
    expectAnswer(a, "custom", `${method.method} with ${JSON.stringify(params)}`);
    if (a.error) {
      if (!Number.isInteger(a.error.code)) fail("custom", `${method.method} answered an error without an integer code`, "a JSON-RPC error", a.error);
      if (isLimitError(w.model, a.error.code)) return;
      // An error is an answer only where the spec declares it for this operation (or for an id it cannot see).
      const declared = (method.errors ?? []).map((e) => w.model.error(e)?.code);
      const unseen = w.model.idField in params && (t === undefined || t.gone) && a.error.code === (w.model.notFound?.code ?? -32602);
      if (!declared.includes(a.error.code) && !unseen) fail("custom", `${method.method} answered error ${a.error.code}, which the spec does not declare for it`, method.errors ?? "a result", a.error);
      return;
    }
    checkSchema(w.model.schemas.result(method.method), a.result, "types", `${method.method} result`);
  }
}

/** Methods the tester may address a task with: the spec's client-sent methods that take the id. */
function addressing(m: SpecModel): IRMethod[] {
  return ["get", "result", "cancel", "delete"].flatMap((o) => m.ops(o as never)).filter((x) => !(m.ir.behaviour.unsupportedMethods?.methods ?? []).includes(x.method));
}

class WrongParams extends Cmd {
  constructor(readonly which: number) {
    super();
  }
  toString() {
    return `wrongParams(${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const methods = addressing(w.model).filter((m) => w.offered(m.method));
    if (!methods.length) return;
    const method = methods[this.which % methods.length]!;
    count(w, "wrong params");
    const bad = this.which % 2 === 0 ? {} : { [w.model.idField]: 42 };
    const a = await w.session.request(method.method, bad);
    expectAnswer(a, "params", `${method.method} with ${JSON.stringify(bad)}`);
    if (!a.error) fail("params", `${method.method} with params its type refuses (${JSON.stringify(bad)}) answered a result`, { code: -32602 }, a.result);
    if (a.error.code !== -32602 && !(w.model.notFound && a.error.code === w.model.notFound.code)) {
      fail("params", `${method.method} with params its type refuses answered error ${a.error.code}`, { code: -32602 }, a.error);
    }
  }
}

class Delete extends TaskCmd {
  toString() {
    return `delete(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    // Half the draws a running task where there is one (whose delete the spec may refuse), the others any.
    const t = this.pick % 2 === 0 ? this.openTask(w) : this.task(w);
    if (!t || !w.model.op("delete")) return;
    count(w, "delete");
    await refresh(w, t);
    await deleteTask(w, t);
  }
}

/** Deletes a task: refused outside the deletable statuses, else gone from the list and from the get method. */
async function deleteTask(w: World, t: ModelTask): Promise<void> {
  {
    const del = w.model.op("delete")!;
    const c = w.model.ir.behaviour.cancellation;
    const deletable = c.deletableStatuses === undefined ? w.model.terminal.has(t.status) : c.deletableStatuses.includes(t.status);
    const a = await w.session.request(del.method, idParams(w, t.id));
    expectAnswer(a, "delete", del.method);
    if (a.error && isLimitError(w.model, a.error.code)) return;
    if (!deletable) {
      if (a.error) {
        expectError(a, w.model.error(c.deleteRefusedError), "delete", `${del.method} of a task in ${t.status}`);
        return;
      }
      // It ended between the look and the request: then deleting it is right, unless it could not have ended.
      const held = (t.outcome === "long" && !t.cancelRequested) || w.model.roleOf[t.status] === "paused";
      if (held) fail("delete", `${del.method} of task ${t.id} in ${t.status}, which the spec does not let be deleted, answered a result`, w.model.error(c.deleteRefusedError)?.message ?? "an error", a.result);
      t.gone = true;
      t.deleted = true;
      return;
    }
    if (a.error) fail("delete", `${del.method} of a task in ${t.status} (deletable) failed`, "a result", a.error);
    checkSchema(w.model.schemas.result(del.method), a.result, "types", `${del.method} result`);
    t.gone = true;
    t.deleted = true;
    const list = w.model.op("list");
    if (list !== undefined && w.offered(list.method)) {
      let cursor: string | undefined;
      for (let page = 0; page < 50; page++) {
        const l = await w.session.request(list.method, cursor === undefined ? {} : { cursor });
        if (!l.result) break;
        const items = (Object.values(l.result).find(Array.isArray) as unknown[] | undefined) ?? [];
        if (items.some((x) => isObject(x) && x[w.model.idField] === t.id)) fail("delete", `${list.method} still lists task ${t.id} after ${del.method}`, "not listed", t.id);
        if (typeof l.result.nextCursor !== "string") break;
        cursor = l.result.nextCursor;
      }
    }
    const get = w.model.op("get");
    if (get) {
      const g = await w.session.request(get.method, idParams(w, t.id));
      expectError(g, w.model.notFound, "delete", `${get.method} of a deleted task`, -32602);
    }
  }
}

/** Plain arguments that a tool's input schema accepts: its required properties, each with a value of its type. */
function argumentsFor(tool: Record<string, unknown>): Record<string, unknown> {
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string") : [];
  const out: Record<string, unknown> = {};
  for (const k of required) {
    const p = isObject(props[k]) ? (props[k] as Record<string, unknown>) : {};
    out[k] = Array.isArray(p.enum) && p.enum.length ? p.enum[0] : p.type === "boolean" ? true : p.type === "number" || p.type === "integer" ? 1 : p.type === "array" ? [] : p.type === "object" ? {} : "conform";
  }
  return out;
}

/** A tool's setting of the spec's per-tool switch (the spec's default where the tool gives none). */
function switchSetting(m: SpecModel, tool: Record<string, unknown>): string | undefined {
  const sw = m.ir.behaviour.creation.toolSwitch;
  if (sw === false) return undefined;
  const v = valueAt(tool, sw.field.split("."));
  return typeof v === "string" ? v : sw.default;
}

/** The tools whose switch forbids or requires a task. */
function switchCandidates(m: SpecModel, tools: ReadonlyMap<string, Record<string, unknown>>): Array<Record<string, unknown>> {
  return [...tools.values()].filter((t) => switchSetting(m, t) === "forbidden" || switchSetting(m, t) === "required");
}

/** The spec's per-tool switch: a tool that forbids tasks refuses a task request, one that requires them a plain call. */
class Switch extends Cmd {
  constructor(readonly which: number) {
    super();
  }
  toString() {
    return `toolSwitch(${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const sw = w.model.ir.behaviour.creation.toolSwitch;
    if (sw === false) return;
    const setting = (t: Record<string, unknown>) => switchSetting(w.model, t);
    const candidates = switchCandidates(w.model, w.tools);
    if (!candidates.length) return;
    const tool = candidates[this.which % candidates.length]!;
    const forbidden = setting(tool) === "forbidden";
    count(w, "tool switch");
    const call = { name: tool.name, arguments: argumentsFor(tool) };
    const a = await w.session.request("tools/call", forbidden ? w.session.taskParams(call, undefined, 60_000) : call, 10_000);
    if (a.error && isLimitError(w.model, a.error.code)) return;
    const err = w.model.error(forbidden ? sw.forbiddenError : sw.requiredError);
    expectError(a, err, "tool-switch", `tools/call of ${String(tool.name)} (${sw.field}: ${setting(tool)}) ${forbidden ? "with" : "without"} a task request`);
  }
}

/**
 * The per-request lifecycle's envelope: a request whose `_meta` protocol version is absent, empty or one the
 * spec does not speak is refused, and a task method the client capability gates (`requiredBy`) is refused
 * without that capability, with the declared error.
 */
class Envelope extends Cmd {
  constructor(readonly which: number) {
    super();
  }
  toString() {
    return `envelope(${this.which})`;
  }
  async exec(w: World): Promise<void> {
    if (!w.model.perRequest) return;
    const cap = w.model.ir.behaviour.capabilities.client;
    const kind = this.which % 4;
    if (kind === 3) {
      if (cap === false || !cap.requiredBy?.length || cap.missingError === undefined) return;
      const name = cap.requiredBy[this.which % cap.requiredBy.length]!;
      const method = w.model.ir.methods.find((m) => m.method === name);
      if (method === undefined) return;
      count(w, "missing capability");
      const declared = w.model.metaKey(w.model.ir.behaviour.creation.capabilityMeta);
      const params = { ...validParams(w, method, `conform-unknown-envelope-${this.which}`), _meta: { [CLIENT_CAPABILITIES_KEY]: {}, ...(declared === undefined ? {} : { [declared]: {} }) } };
      const a = await w.session.request(name, params);
      expectError(a, w.model.error(cap.missingError), "capabilities", `${name} without the client capability ${cap.path.join(".")}`);
      return;
    }
    // A request that succeeds with a good envelope, so that only the protocol version can refuse it.
    const version = ([undefined, "", "1999-01-01"] as const)[kind];
    count(w, "envelope");
    const a = await w.session.request("tools/list", {}, 10_000, undefined, version === undefined ? { omit: [PROTOCOL_VERSION_KEY] } : { set: { [PROTOCOL_VERSION_KEY]: version } });
    expectAnswer(a, "envelope", "tools/list");
    if (!a.error) fail("envelope", `tools/list whose _meta protocol version is ${version === undefined ? "absent" : JSON.stringify(version)} was served`, "an error", a.result);
  }
}

class Move extends TaskCmd {
  constructor(
    pick: number,
    readonly which: number,
  ) {
    super(pick);
  }
  toString() {
    return `transition(#${this.pick}, ${this.which})`;
  }
  async exec(w: World): Promise<void> {
    // A move of an ended task can only be refused.
    const t = this.openTask(w);
    const moves = w.model.ops("transition");
    if (!t || !moves.length) return;
    count(w, "transition");
    await refresh(w, t);
    // Half the draws take a move the spec allows from where the task is (where one does), so that held states
    // are reached and left; the others any move, allowed or not.
    const legal = moves.filter((m) => m.to !== undefined && w.model.direct.get(t.status)?.has(m.to));
    const among = legal.length && this.which % 2 === 0 ? legal : moves;
    const mv = among[Math.floor(this.which / 2) % among.length]!;
    const from = t.status;
    const a = await w.session.request(mv.method, idParams(w, t.id));
    expectAnswer(a, "transitions", mv.method);
    if (a.error && isLimitError(w.model, a.error.code)) return;
    const allowed = mv.to !== undefined && (w.model.direct.get(from)?.has(mv.to) ?? false);
    if (a.result) {
      checkSchema(w.model.schemas.result(mv.method), a.result, "types", `${mv.method} result`);
      // A task in the answer is the task as the move left it.
      const shown = taskIn(w.model, a.result);
      if (shown !== undefined) observe(w, t, shown, `${mv.method} result`);
      await refresh(w, t);
      const movedTo = mv.to !== undefined && (t.status === mv.to || (w.model.reach.get(mv.to)?.has(t.status) ?? false));
      if (allowed && movedTo && w.model.terminal.has(t.status) && !w.model.terminal.has(from)) t.endedByMove = true;
      if (!allowed && t.status === from && mv.to !== from) return; // ignored where it could not apply
      if (mv.to !== undefined && !w.model.reach.get(mv.to)?.has(t.status) && !(t.status === from)) {
        fail("transitions", `${mv.method} moved task ${t.id} from ${from} to ${t.status}; the spec moves it to ${mv.to}`, mv.to, t.status);
      }
      return;
    }
    if (allowed) {
      await refresh(w, t);
      if (t.status === from && !w.model.terminal.has(from)) {
        // Guards may refuse it; a guarded transition's refusal is the spec's own.
        const guarded = w.model.ir.transitions.some((x) => x.from === from && x.to === mv.to && x.guard !== undefined);
        if (!guarded) fail("transitions", `${mv.method} of a task in ${from} failed, but the spec allows ${from} → ${mv.to}`, "a result", a.error);
      }
    }
  }
}

/**
 * Terminal stability: an ended task, read again after a pause, is as it ended (rule `terminal`), and its
 * result is what its end declares (rule `results`): a completed task's result, any other end's error.
 */
class Reread extends TaskCmd {
  toString() {
    return `reread(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const t = this.task(w);
    if (!t || !w.model.op("get") || (t.outcome === "long" && !t.cancelRequested)) return;
    if (!w.model.terminal.has(t.status)) await waitTerminal(w, t, 15_000);
    if (!w.model.terminal.has(t.status)) return;
    count(w, "reread");
    await new Promise((r) => setTimeout(r, 300));
    await refresh(w, t);
    await endChecks(w, t);
  }
}

/** What an ended task answers: its result (or error) as its end declares, and to a cancel what the spec says of a terminal task. */
async function endChecks(w: World, t: ModelTask): Promise<void> {
  t.endChecked = true;
  // An inline result is checked on the task itself.
  if (w.model.ir.behaviour.results.mode === "inline") await refresh(w, t);
  const res = w.model.op("result");
  if (res !== undefined && w.model.ir.behaviour.results.mode !== "inline") {
    const a = await w.session.request(res.method, idParams(w, t.id), 10_000);
    expectAnswer(a, "results", `${res.method} of a task that ended ${t.status}`);
    if (!(a.error && isLimitError(w.model, a.error.code))) checkEndResult(w, t, a, res.method);
    if (a.result) checkRelated(w, t, res.method, a.result);
  }
  // Cancelling it now does what the spec says of a terminal task, and leaves it as it ended.
  const c = w.model.ir.behaviour.cancellation;
  const cancel = c.via === "method" && c.method !== undefined && w.offered(c.method) ? c.method : undefined;
  if (cancel === undefined) return;
  count(w, "cancel after the end");
  const a = await w.session.request(cancel, idParams(w, t.id));
  expectAnswer(a, "cancellation", cancel);
  if (a.error && isLimitError(w.model, a.error.code)) return;
  if (c.terminal === "error") expectError(a, w.model.error(c.terminalError), "cancellation", `${cancel} of a task already ${t.status}`);
  else if (a.error) fail("cancellation", `${cancel} of a terminal task failed; the spec says it is ${c.terminal === "ack" ? "acknowledged" : "ignored"}`, "a result", a.error);
  await refresh(w, t);
}

/**
 * Requestor isolation, where the spec binds tasks to the session: a second session (its own handshake) can
 * neither read, fetch the result of, cancel, delete nor list a task of the first; it is told the task does
 * not exist.
 */
class Intrude extends TaskCmd {
  constructor(
    pick: number,
    readonly which: number,
  ) {
    super(pick);
  }
  toString() {
    return `otherSession(#${this.pick}, ${this.which})`;
  }
  async exec(w: World): Promise<void> {
    // The drawn task is read; a running one, where there is one, is cancelled and deleted (those of an ended
    // task may be refused with the not-found error's code anyway, and a blocking result of it served at once).
    const read = this.task(w);
    const t = this.openTask(w);
    if (!read || !t || !w.isolation) return;
    const list = w.model.op("list");
    // Every way in, each group starting from a drawn one: the reading ones first, so that where a reading is
    // served (a deviation the user may choose to ignore), no cancel or delete of another session changes the task.
    const rotate = <T,>(xs: T[]): T[] => xs.map((_, i) => xs[(this.which + i) % xs.length]!);
    const destructive = (m: IRMethod | "list") => m !== "list" && (m.operation === "cancel" || m.operation === "delete");
    const all: Array<IRMethod | "list"> = [...addressing(w.model).filter((m) => w.offered(m.method)), ...(list && w.offered(list.method) ? (["list"] as const) : [])];
    const methods = [...rotate(all.filter((m) => !destructive(m))), ...rotate(all.filter(destructive))];
    if (!methods.length) return;
    const other = w.otherSession();
    let touched = false;
    let notified = false;
    try {
      const h = await other.open();
      if (h !== undefined && !h.result) return;
      count(w, "other session");
      for (const method of methods) {
        if (method === "list") {
          let cursor: string | undefined;
          for (let page = 0; page < 20; page++) {
            const a = await other.request(list!.method, cursor === undefined ? {} : { cursor });
            if (!a.result) break;
            const items = (Object.values(a.result).find(Array.isArray) as unknown[] | undefined) ?? [];
            const mine = items.map((x) => (isObject(x) ? x[w.model.idField] : undefined)).find((id) => w.tasks.some((x) => x.id === id));
            if (mine !== undefined) fail("isolation", `${list!.method} from another session lists task ${String(mine)} of this one`, "only that session's tasks", mine);
            if (typeof a.result.nextCursor !== "string") break;
            cursor = a.result.nextCursor;
          }
          continue;
        }
        const subject = destructive(method) ? t : read;
        // A blocking result method waits for the end: asked of a live task, it could only time out.
        if (method.operation === "result" && w.model.ir.behaviour.results.mode === "block-until-terminal" && !w.model.terminal.has(subject.status)) continue;
        touched ||= method.operation === "cancel" || method.operation === "delete";
        const a = await other.request(method.method, validParams(w, method, subject.id), 10_000);
        expectAnswer(a, "isolation", `${method.method} of another session's task`);
        if (a.error && isLimitError(w.model, a.error.code)) continue;
        if (!a.error && method.operation === "delete") t.gone = t.deleted = true;
        else if (!a.error && method.operation === "cancel") await refresh(w, t);
        if (!a.error) fail("isolation", `${method.method} from another session was served task ${subject.id} of this one`, w.model.notFound ? { code: w.model.notFound.code, message: w.model.notFound.message } : "an error", brief(a));
        if (w.model.notFound && a.error.code !== w.model.notFound.code) fail("isolation", `${method.method} from another session answered error ${a.error.code}, not the not-found error that hides the task`, { code: w.model.notFound.code }, a.error);
        // Another declared error of the same code (e.g. "already ended") tells the other session that the task exists.
        const nf = w.model.notFound;
        const told = nf && !nf.pattern.test(a.error.message) ? w.model.ir.errors.map((e) => w.model.error(e.name)).find((e) => e !== undefined && e.name !== nf.name && e.code === a.error!.code && e.pattern.test(a.error!.message)) : undefined;
        if (nf && told) {
          fail("isolation", `${method.method} from another session answered ${told.name} ("${a.error.message}"), which tells that the task exists, not the not-found error that hides it (${nf.name})`, { code: nf.code, message: nf.message }, a.error);
        }
      }
      // Where notifications/cancelled cancels the task its request made: sent by another session, the same
      // request id names none of this session's requests (long work, so that an end can only be that cancel).
      if (w.model.ir.behaviour.cancellation.via === "cancelled-notification" && t.requestId !== undefined && t.outcome === "long" && !t.cancelRequested && !w.model.terminal.has(t.status)) {
        await other.wire.notify("notifications/cancelled", { requestId: t.requestId, reason: "conform: another session" });
        notified = true;
      }
    } finally {
      await other.close();
    }
    if (notified) {
      await new Promise((r) => setTimeout(r, 300));
      await refresh(w, t);
      if (w.model.terminal.has(t.status)) fail("isolation", `task ${t.id} ended ${t.status} after another session's notifications/cancelled named the id of the request that made it`, "the task still running", t.status);
      return;
    }
    // The task is untouched.
    if (touched) await refresh(w, t);
  }
}

/**
 * Capabilities as gates both ways: a method the server's capability gates, where the server does not declare
 * that part, is refused (rule `capabilities`); a method the spec lists as unsupported gets its declared error
 * (rule `unsupported`).
 */
class Gate extends TaskCmd {
  constructor(
    pick: number,
    readonly which: number,
  ) {
    super(pick);
  }
  toString() {
    return `ungated(#${this.pick}, ${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const caps = w.model.ir.behaviour.capabilities.server;
    const gates = caps === false ? {} : (caps.gates ?? {});
    const unsupported = w.model.ir.behaviour.unsupportedMethods;
    const all = [...Object.keys(gates).filter((m) => !w.offered(m)).map((m) => ({ method: m, gated: true })), ...(unsupported?.methods ?? []).map((m) => ({ method: m, gated: false }))];
    if (!all.length) return;
    const { method, gated } = all[this.which % all.length]!;
    const t = this.task(w);
    const decl = w.model.ir.methods.find((m) => m.method === method);
    const base = decl?.params === undefined ? {} : minimalValue(w.model.ir, decl.params);
    const params: Record<string, unknown> = isObject(base) ? { ...base } : {};
    if (w.model.idField in params || decl === undefined) params[w.model.idField] = t?.id ?? "conform-unknown-gated";
    count(w, gated ? "undeclared method" : "unsupported method");
    const a = await w.session.request(method, params, 10_000);
    if (gated) {
      expectAnswer(a, "capabilities", method);
      if (a.error && isLimitError(w.model, a.error.code)) return;
      if (!a.error) fail("capabilities", `${method} was served, but the server does not declare ${caps === false ? "" : [...caps.path, ...gates[method]!].join(".")} in its capabilities`, { code: -32601 }, a.result);
      if (t && (w.model.op("cancel")?.method === method || w.model.ops("cancel").some((x) => x.method === method))) await refresh(w, t);
      return;
    }
    expectError(a, w.model.error(unsupported!.error), "unsupported", `${method}, which the spec does not serve`);
  }
}

/** Requestor-chosen ids: a task request with the id of a task that exists is refused with the declared error. */
class Duplicate extends TaskCmd {
  toString() {
    return `duplicateId(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const c = w.model.ir.behaviour.creation;
    const t = this.task(w);
    const recipe = w.outcomes.complete;
    if (c.taskId.assignedBy !== "requestor" || !t || !recipe || !w.tools.has(recipe.name)) return;
    count(w, "duplicate id");
    const params = w.session.taskParams({ name: recipe.name, arguments: recipe.arguments ?? {} }, t.id, 60_000);
    const a = await w.session.request("tools/call", params, 15_000);
    if (a.error && isLimitError(w.model, a.error.code)) return;
    expectError(a, w.model.error(c.taskId.duplicateError), "duplicate-id", `a task request with the id of task ${t.id}, which exists`);
  }
}

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------

/** Checks of the server's transport that need no model (Streamable HTTP's own rules). */
async function transportChecks(target: Target, model: SpecModel, timing: Timing): Promise<ConformReport["checks"] | CannotTestError> {
  if (!("url" in target)) return [];
  const out: ConformReport["checks"] = [];
  const wire = new HttpWire(target.url);
  // A request the server would serve, so that only the rule under test differs.
  const method = model.perRequest ? "server/discover" : "initialize";
  const e = envelope(model, method, model.perRequest ? {} : { protocolVersion: model.ir.spec.protocol.protocolVersion ?? "2025-06-18", capabilities: {}, clientInfo: CLIENT_INFO }, clientCapabilities(model));
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: e.params });
  const base = { "content-type": "application/json", ...e.headers, ...(target.headers ?? {}) };
  try {
    const r = await wire.post(body, { ...base, accept: "application/json" }, timing.requestMs);
    out.push({ rule: "http-accept", ok: r.status === 406, message: `a POST whose Accept lacks text/event-stream got HTTP ${r.status} (expected 406)` });
    const big = await wire.post(body, { ...base, accept: "application/json, text/event-stream", "x-conform-padding": "x".repeat(20_000) }, timing.requestMs);
    let jsonBody = false;
    try {
      jsonBody = isObject(JSON.parse(big.text));
    } catch {
      jsonBody = false;
    }
    out.push({
      rule: "http-header-limit",
      ok: big.status < 400 || jsonBody,
      message: big.status < 400 ? `20 kB of headers accepted (HTTP ${big.status})` : `20 kB of headers refused with HTTP ${big.status} and ${jsonBody ? "a JSON-RPC error body" : "no JSON-RPC body"}`,
    });
  } catch (e) {
    const why = (e as Error).name === "AbortError" ? `no answer within ${timing.requestMs / 1000} s` : (e as Error).message;
    return new CannotTestError("unreachable", `the server could not be reached at ${target.url}: ${why}`);
  }
  return out;
}

/** Whether the spec lets a server's `method` become a task (tools/call aside). */
function mayAugment(model: SpecModel, method: string): boolean {
  const server = model.ir.behaviour.creation.requests.server;
  return server.includes("*") || server.includes(method);
}

/**
 * Whether the server declares `method` as one it makes tasks of, where the spec gates that on a capability
 * (`augments`); a server that does not must serve a task request of it plainly.
 */
function augmentDeclared(model: SpecModel, serverCapabilities: Record<string, unknown> | undefined, method: string): boolean {
  const caps = model.ir.behaviour.capabilities.server;
  const augments = caps === false ? undefined : caps.augments;
  if (augments === undefined || caps === false || serverCapabilities === undefined) return true;
  const path = Object.prototype.hasOwnProperty.call(augments, method) ? augments[method] : undefined;
  return path === undefined || valueAt(serverCapabilities, [...caps.path, ...path]) !== undefined;
}

/**
 * resources/read and prompts/get as tasks, where the spec allows it and the server offers a resource or a
 * prompt (the first it lists; a prompt's required arguments filled); where the server does not declare the
 * request among its task requests, it must serve it plainly.
 */
async function otherAugmentable(session: Session, model: SpecModel): Promise<Augmentable[]> {
  const out: Augmentable[] = [];
  if (mayAugment(model, "resources/read") && isObject(session.serverCapabilities) && session.serverCapabilities.resources !== undefined) {
    const a = await session.request("resources/list", {});
    const r = (Array.isArray(a.result?.resources) ? a.result.resources : []).find((x: unknown) => isObject(x) && typeof x.uri === "string");
    if (r) out.push({ method: "resources/read", params: { uri: r.uri } });
  }
  if (mayAugment(model, "prompts/get") && isObject(session.serverCapabilities) && session.serverCapabilities.prompts !== undefined) {
    const a = await session.request("prompts/list", {});
    const p = (Array.isArray(a.result?.prompts) ? a.result.prompts : []).find((x: unknown) => isObject(x) && typeof x.name === "string");
    if (p) {
      const args = Array.isArray(p.arguments) ? p.arguments.filter((x: unknown) => isObject(x) && x.required === true && typeof x.name === "string") : [];
      out.push({ method: "prompts/get", params: { name: p.name, arguments: Object.fromEntries(args.map((x: { name: string }) => [x.name, "conform"])) } });
    }
  }
  return out;
}

/** The tools the server offers; undefined where it did not answer (it could not be tested). */
async function listTools(session: Session): Promise<Map<string, Record<string, unknown>> | undefined> {
  const a = await session.request("tools/list", {});
  if (a.timedOut || (a.broken !== undefined && session.wire.closedReason !== undefined)) return undefined;
  const tools = new Map<string, Record<string, unknown>>();
  for (const t of Array.isArray(a.result?.tools) ? a.result.tools : []) if (isObject(t) && typeof t.name === "string") tools.set(t.name, t);
  return tools;
}

export async function conform(opts: ConformOptions): Promise<ConformReport> {
  const started = Date.now();
  const model = specModel(opts.ir);
  const seed = opts.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  const runs = opts.runs ?? 20;
  const outcomes = opts.outcomes ?? DEFAULT_OUTCOMES;
  const timing = opts.timing ?? DEFAULT_TIMING;
  const connector = new Connector(model, opts.target, timing, opts.freshProcess ?? false);
  try {
    return await conformWith(opts, connector, { started, model, seed, runs, outcomes });
  } finally {
    await connector.close();
  }
}

/** The report of a run that could not test the server, with what it saw. */
function untestable(
  base: Omit<ConformReport, "ok" | "verdict" | "failure" | "durationMs">,
  started: number,
  kind: "unreachable" | "timeout" | "crash",
  message: string,
  sequence: string[],
  transcript: TranscriptEntry[],
): ConformReport {
  return { ...base, ok: false, verdict: "untestable", failure: { kind, violation: { rule: kind, message }, sequence, shrunk: false, transcript }, durationMs: Date.now() - started };
}

async function conformWith(
  opts: ConformOptions,
  connector: Connector,
  { started, model, seed, runs, outcomes }: { started: number; model: SpecModel; seed: number; runs: number; outcomes: Outcomes },
): Promise<ConformReport> {
  const exercised: Record<string, number> = {};
  const skipped: string[] = [];
  const ignore = new Set(opts.ignore ?? []);
  const deviations: ConformReport["deviations"] = {};
  const base = () => ({ spec: opts.ir.spec.name, seed, runs: 0, commands: 0, exercised, skipped, deviations, checks: [] as ConformReport["checks"], serverStarts: connector.starts });
  const transport = await transportChecks(opts.target, model, connector.timing);
  if (transport instanceof CannotTestError) return untestable(base(), started, transport.kind, transport.reason, [], []);
  const checks = transport;

  // One probe session: the handshake, the tools offered, which outcomes can be made here.
  const probe = connector.session();
  const hello = await probe.open();
  if (hello !== undefined && !hello.result) {
    await probe.close();
    const transcript = probe.wire.transcript.slice(-10);
    if (hello.timedOut) {
      const t = connector.timing;
      const stdio = "stdio" in opts.target;
      return untestable({ ...base(), checks }, started, "timeout", `no answer to initialize within ${(stdio ? t.startupMs : t.requestMs) / 1000} s (${stdio ? "--startup-timeout" : "--request-timeout"})${stderrTail(probe)}`, ["initialize"], transcript);
    }
    if (hello.broken !== undefined) return untestable({ ...base(), checks }, started, "unreachable", `initialize: ${hello.broken}${stderrTail(probe)}`, ["initialize"], transcript);
    return {
      ...base(),
      checks,
      ok: false,
      verdict: "violation",
      failure: { kind: "violation", violation: { rule: "handshake", message: `initialize failed: error ${hello.error?.code} ${hello.error?.message}` }, sequence: ["initialize"], shrunk: false, transcript },
      durationMs: Date.now() - started,
    };
  }
  const caps = model.ir.behaviour.capabilities.server;
  if (hello !== undefined && caps !== false) {
    const at = valueAt(probe.serverCapabilities, caps.path);
    checks.push({ rule: "capabilities", ok: at !== undefined, message: `the server ${at === undefined ? "does not declare" : "declares"} the capability at ${caps.path.join(".")}` });
  }
  const tools = await listTools(probe);
  if (tools === undefined) {
    await probe.close();
    return untestable({ ...base(), checks }, started, probe.wire.closedReason === undefined ? "timeout" : "unreachable", `tools/list: ${probe.wire.closedReason ?? `no answer in time (--startup-timeout ${connector.timing.startupMs / 1000} s, --request-timeout ${connector.timing.requestMs / 1000} s)`}${stderrTail(probe)}`, ["tools/list"], probe.wire.transcript.slice(-10));
  }
  const augmentable = await otherAugmentable(probe, model);
  await probe.close();
  // A method the server's capability gates is offered only where the server declares that part of it.
  const gates = caps === false ? {} : (caps.gates ?? {});
  const offered = (method: string): boolean => {
    const gate = Object.prototype.hasOwnProperty.call(gates, method) ? gates[method] : undefined;
    return gate === undefined || hello === undefined || caps === false || valueAt(probe.serverCapabilities, [...caps.path, ...gate]) !== undefined;
  };
  const augmented = (method: string): boolean => hello === undefined || augmentDeclared(model, probe.serverCapabilities, method);
  // Tasks bound to the session can be kept from another session over HTTP; those bound to the auth context, from
  // another principal where the tester is given one (--other-header). Over stdio a process is one requestor: the
  // other is another server process on the same store (--other-stdio), which the user starts as another requestor.
  const binding = model.ir.behaviour.sessionBinding;
  const bySession = !model.perRequest && (binding === "session" || binding === "session-and-auth");
  const byAuth = binding === "auth" || binding === "session-and-auth";
  const isolation = "url" in opts.target ? bySession || (byAuth && opts.target.otherHeaders !== undefined) : opts.target.other !== undefined && binding !== "none";
  if (!isolation) {
    skipped.push(
      `isolation: ${
        binding === "none"
          ? "tasks are bound to nothing"
          : "url" in opts.target
            ? "tasks are bound to the auth context, and the tester has one principal (--other-header gives it another)"
            : "over stdio the server process is one requestor (--other-stdio names another process on the same store)"
      }`,
    );
  }
  const foreign = new Set<string>();
  for (const method of Object.keys(gates)) if (!offered(method)) skipped.push(`${method}: the server does not declare it (capability ${caps === false ? "" : [...caps.path, ...gates[method]!].join(".")})`);
  const available: OutcomeName[] = [];
  for (const [name, recipe] of Object.entries(outcomes) as Array<[OutcomeName, ToolRecipe | undefined]>) {
    if (recipe === undefined) continue;
    if (!tools.has(recipe.name)) skipped.push(`outcome ${name}: the server offers no tool ${recipe.name}`);
    else if (name === "input" && model.ir.behaviour.input === false) skipped.push("outcome input: the spec declares no input");
    else available.push(name);
  }
  for (const [what, op] of [["get", "get"], ["result", "result"], ["list", "list"], ["delete", "delete"], ["transition", "transition"]] as const) {
    if (!model.op(op)) skipped.push(`${what}: the spec declares no ${op} method`);
  }

  // Only the commands that can do something with this spec and server: a draw spent on one that cannot is a
  // command the run lacks (a spec with few methods would otherwise seldom get to the checks it has).
  const b = model.ir.behaviour;
  const list = model.op("list");
  const cancels = b.cancellation.via === "cancelled-notification" || (b.cancellation.method !== undefined && offered(b.cancellation.method));
  const commandArbs: Array<fc.Arbitrary<Cmd>> = [
    ...(model.op("get") ? [fc.nat(7).map((n): Cmd => new Get(n)), fc.nat(7).map((n): Cmd => new Wait(n)), fc.nat(7).map((n): Cmd => new Reread(n))] : []),
    ...(model.op("result") ? [fc.nat(7).map((n): Cmd => new Result(n))] : []),
    ...(cancels ? [fc.nat(7).map((n): Cmd => new Cancel(n))] : []),
    ...(list && offered(list.method) ? [fc.constant<Cmd>(new List())] : []),
    ...(addressing(model).some((m) => offered(m.method)) ? [fc.nat(7).map((n): Cmd => new Unknown(n)), fc.nat(7).map((n): Cmd => new WrongParams(n))] : []),
    ...(model.op("delete") ? [fc.nat(7).map((n): Cmd => new Delete(n))] : []),
    ...(model.ops("transition").length ? [fc.tuple(fc.nat(7), fc.nat(7)).map(([p, n]): Cmd => new Move(p, n))] : []),
    ...(switchCandidates(model, tools).length ? [fc.nat(7).map((n): Cmd => new Switch(n))] : []),
    ...(model.perRequest ? [fc.nat(7).map((n): Cmd => new Envelope(n))] : []),
  ];
  if (isolation) commandArbs.push(fc.tuple(fc.nat(7), fc.nat(7)).map(([p, n]) => new Intrude(p, n)));
  const unadvertised = Object.keys(gates).filter((m) => !offered(m)).length + (model.ir.behaviour.unsupportedMethods?.methods.length ?? 0);
  if (unadvertised > 0) commandArbs.push(fc.tuple(fc.nat(7), fc.nat(7)).map(([p, n]) => new Gate(p, n)));
  if (model.ir.behaviour.creation.taskId.assignedBy === "requestor") commandArbs.push(fc.nat(7).map((n) => new Duplicate(n)));
  // Twice: among the many commands, a run would seldom let a retention run out otherwise.
  if (model.ir.behaviour.events?.expiry !== undefined && available.includes("long")) commandArbs.push(fc.constant(new Expire()), fc.constant(new Expire()));
  if (model.ops("custom").length) commandArbs.push(fc.tuple(fc.nat(7), fc.nat(7)).map(([p, n]) => new Custom(p, n)));
  // Most commands need a task: creation is drawn as often as the task commands together.
  if (available.length) commandArbs.push(...Array.from({ length: 4 }, () => fc.constantFrom(...available).map((o) => new Create(o))));
  // The other requests the spec lets become tasks, as the server offers them (their work completes).
  if (augmentable.length) commandArbs.push(fc.constantFrom(...augmentable).map((via) => new Create("complete", via)));
  for (const method of ["resources/read", "prompts/get"]) {
    if (mayAugment(model, method) && !augmentable.some((a) => a.method === method)) skipped.push(`creation through ${method}: the server offers nothing to ask it of, or does not declare it as a task request`);
  }

  // Nothing the spec lets the tester do here: runs of a command that does nothing, the run checks alone.
  if (!commandArbs.length) commandArbs.push(fc.constant(new List()));
  let commands = 0;
  type Run = { transcript: TranscriptEntry[]; sequence: string[] };
  let last: (Run & { violation: Violation; atEnd: boolean }) | undefined;
  let previous: Run | undefined;
  let runsDone = 0;
  // Once the server could not be tested, nothing more is asked of it: the runs left (and shrinking) pass at once.
  let cannot: { kind: "unreachable" | "timeout" | "crash"; message: string; sequence: string[]; transcript: TranscriptEntry[] } | undefined;
  const property = fc.asyncProperty(fc.commands(commandArbs, { maxCommands: opts.maxCommands ?? 12, size: "+1" }), async (cmds) => {
    if (cannot !== undefined) return;
    // A stdio server that died after the last run's commands: that run crashed it.
    const died = connector.died();
    if (died !== undefined) {
      cannot = { kind: "crash", message: `the server stopped answering: ${died} after the run below ended${connector.stderrTail()}`, sequence: previous?.sequence ?? [], transcript: previous?.transcript ?? [] };
      return;
    }
    const session = connector.session();
    const world: World = { model, session, tasks: [], outcomes, tools, exercised, ignore, deviations, offered, augmented, target: opts.target, isolation, foreign, notificationsSeen: 0, otherSession: () => connector.otherSession() };
    const from = session.wire.transcript.length;
    // The commands that ran, and the end-of-run checks once they started.
    let atEnd = false;
    const sequence = () => (atEnd ? [...ran(cmds), END_OF_RUN] : ran(cmds));
    try {
      const h = await session.open();
      if (h?.timedOut) throw new CannotTestError("timeout", `no answer to initialize within ${connector.timing.requestMs / 1000} s (--request-timeout)`);
      if (h !== undefined && !h.result) fail("handshake", "initialize failed", "a result", brief(h));
      await fc.asyncModelRun(() => ({ model: {}, real: world }), cmds);
      atEnd = true;
      await new EndOfRun().run({}, world);
    } catch (e) {
      if (e instanceof CannotTestError) {
        cannot = { kind: e.kind, message: e.reason, sequence: sequence(), transcript: session.wire.transcript.slice(from) };
        return;
      }
      const violation = e instanceof ViolationError ? e.violation : { rule: "tester", message: `the tester itself failed: ${(e as Error).stack ?? String(e)}` };
      // A server that stopped answering (its process exited, its port closed) crashed: no rule can be checked.
      if (gone(violation)) {
        const served = connector.sessionsBefore > 0 ? ` (its process had served ${connector.sessionsBefore} sessions before this one)` : "";
        cannot = { kind: "crash", message: `the server stopped answering: ${violation.message}${served}${connector.stderrTail()}`, sequence: sequence(), transcript: session.wire.transcript.slice(from) };
        return;
      }
      last = { violation, transcript: session.wire.transcript.slice(from), sequence: sequence(), atEnd };
      throw e;
    } finally {
      commands += ran(cmds).length;
      // Over stdio every run speaks on the one connection of its process: its tasks are not another requestor's.
      if ("url" in opts.target) for (const t of world.tasks) foreign.add(t.id);
      previous = { transcript: session.wire.transcript.slice(from), sequence: sequence() };
      // A server that does not answer in time would keep the cleanup waiting as long for each task.
      if (cannot === undefined) await cleanup(world);
      await session.close();
      opts.onRun?.(++runsDone);
    }
  });
  const result = await fc.check(property, {
    numRuns: runs,
    seed,
    ...(opts.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: opts.timeLimitMs }),
  });
  const ok = !result.failed && checks.every((c) => c.ok || ignore.has(c.rule));
  const report: ConformReport = {
    ok,
    verdict: ok ? "held" : "violation",
    serverStarts: connector.starts,
    spec: opts.ir.spec.name,
    seed,
    runs: result.numRuns,
    commands,
    exercised,
    skipped,
    deviations,
    checks,
    durationMs: Date.now() - started,
  };
  if (result.failed && last) {
    // The last failing run is the counterexample's: where its end-of-run checks failed, they end the sequence.
    const sequence = result.counterexample ? [...ran(result.counterexample[0] as Iterable<unknown>), ...(last.atEnd ? [END_OF_RUN] : [])] : last.sequence;
    report.failure = { kind: "violation", violation: last.violation, sequence, shrunk: true, transcript: last.transcript };
  } else if (cannot !== undefined) {
    report.ok = false;
    report.verdict = "untestable";
    const hint = cannot.kind === "timeout" ? " (the server may be too slow on this machine: raise --request-timeout, or --startup-timeout for its start-up)" : "";
    report.failure = { kind: cannot.kind, violation: { rule: cannot.kind, message: `${cannot.message}${hint}` }, sequence: cannot.sequence, shrunk: false, transcript: cannot.transcript };
  }
  return report;
}

/** The last lines the server wrote to stderr (stdio), to show why it did not answer. */
function stderrTail(session: Session): string {
  const err = session.wire instanceof StdioWire ? session.wire.stderr.join("").trim() : "";
  return err === "" ? "" : `; its stderr ends: ${err.slice(-600)}`;
}

/** The commands of a drawn sequence that ran (fast-check marks them; those after a failure did not). */
function ran(cmds: Iterable<unknown>): string[] {
  return [...cmds].filter((c) => (c as { hasRan?: boolean }).hasRan !== false).map(String);
}

/** Whether a violation says the server is gone (its process exited, its port stopped answering). */
function gone(v: Violation): boolean {
  return /HTTP request failed|process exited|could not start/.test(`${v.message} ${typeof v.observed === "string" ? v.observed : ""}`);
}

/** Leaves no work running behind a run: cancels what the model still knows as live (best effort). */
async function cleanup(w: World): Promise<void> {
  const c = w.model.ir.behaviour.cancellation;
  const cancel = c.via === "method" && c.method !== undefined && w.offered(c.method) ? c.method : undefined;
  for (const t of w.tasks) {
    if (t.gone || w.model.terminal.has(t.status)) continue;
    if (cancel !== undefined) await w.session.request(cancel, idParams(w, t.id), 3000).catch(() => undefined);
    else if (c.via === "cancelled-notification" && t.requestId !== undefined) await w.session.wire.notify("notifications/cancelled", { requestId: t.requestId, reason: "conform" });
  }
}
