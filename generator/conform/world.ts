/**
 * The model of one run of conform: the tasks the tester made as it knows them, the session it speaks on, what the
 * server offers, and the helpers every command uses to expect an answer, an error or a declared type.
 */
import { createHash } from "node:crypto";
import type { z } from "zod";
import type { IRMethod } from "../ir.js";
import type { ExpectedError, SpecModel } from "./model.js";
import { CannotTestError, type ConformReport, type OutcomeName, type Outcomes } from "./report.js";
import { checked, fail, type Rule } from "./rule.js";
import { minimalValue } from "./schemas.js";
import { BASE_CAPABILITIES, CLIENT_CAPABILITIES_KEY, Session, type Target } from "./session.js";
import { type Answer, isObject, type JsonRpcError } from "./wire.js";
import { errorData } from "./rules/error-data.js";
import { checkErrorMessages, errorMessage } from "./rules/error-message.js";
import { transport } from "./rules/transport.js";

export { isObject } from "./wire.js";

export function brief(a: Answer): unknown {
  if (a.error) return { error: a.error };
  if (a.result) return { result: a.result };
  if (a.timedOut) return "no answer in time";
  return a.broken ?? a;
}

export function issues(r: z.ZodSafeParseResult<unknown>): string {
  return r.success ? "" : r.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
}

/** One task the tester made, as the model knows it. */
export interface ModelTask {
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
  /** When the server acknowledged it (the notification that announced it came, or its request was answered). */
  acknowledgedAt?: number;
  /** When the request that made it was answered. */
  answeredAt?: number;
  /** The retention (behaviour.retention.field) the acknowledgement granted it. */
  granted?: unknown;
  /** The retention it was last shown with (a number of ms, or null: unlimited). */
  retained?: number | null;
  /** Its end was checked (what it answers once ended). */
  endChecked?: boolean;
  /**
   * When the tester sent the last get the server answered with the task, the poll interval the task then showed,
   * and how long the session's transcript was then.
   */
  polled?: { at: number; every?: number; mark: number };
}

export interface World {
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
  /** How many of the session's server requests have been checked. */
  serverRequestsSeen: number;
  /** How many of the HTTP responses to the session's requests have been checked. */
  httpResponsesSeen: number;
  /** Whether the server offers a method its capability gates (the spec's `capabilities.server.gates`). */
  offered: (method: string) => boolean;
  /** Whether the server declares a request as one it makes tasks of (the spec's `capabilities.server.augments`). */
  augmented: (method: string) => boolean;
  target: Target;
  /** Whether a second session can be opened to check that tasks are bound to theirs. */
  isolation: boolean;
  /** Ids of tasks made in earlier runs, by other sessions. */
  foreign: Set<string>;
  /** What all runs made: tasks, task requests served plainly, the outcomes seen to their end. */
  made: Made;
  /** A session of another requestor, for the isolation checks. */
  otherSession: () => Session;
}

/** What the runs of one invocation made, shared by them: what says whether anything was tested. */
export interface Made {
  tasks: number;
  plainly: number;
  ended: Set<OutcomeName>;
  /** Every progress token the tester gave, and every task id it was handed (all runs). */
  tokens: Set<string>;
  ids: Set<string>;
  /** The tasks the tester saw in a terminal state (all runs): their work is over. */
  endedIds: Set<string>;
  /**
   * The task ids the server handed out (not the requestor's own) while the tasks it made before are still its own:
   * every run of the invocation and every session, unless each run has a fresh server process (`--fresh-process`).
   */
  handedOut: Set<string>;
  /** The error each tool answers when called without a task (null: none to compare with). */
  plainErrors: Map<string, JsonRpcError | null>;
  /** The result each tool answers when called without a task, its _meta aside (null: none to compare with). */
  plainResults: Map<string, Record<string, unknown> | null>;
}

/** A request other than tools/call that the spec lets become a task, as the server under test offers it. */
export interface Augmentable {
  method: string;
  params: Record<string, unknown>;
}

export const count = (w: World, what: string) => (w.exercised[what] = (w.exercised[what] ?? 0) + 1);

export function expectAnswer(a: Answer, rule: Rule, what: string): asserts a is Answer & ({ result: Record<string, unknown> } | { error: { code: number; message: string } }) {
  if (a.timedOut) throw new CannotTestError("timeout", `${what}: no answer within the time allowed`);
  checked(transport);
  if (a.broken !== undefined) fail(transport, `${what}: ${a.broken}`);
}

export function expectError(a: Answer, err: ExpectedError | undefined, rule: Rule, what: string, fallbackCode?: number): void {
  expectAnswer(a, rule, what);
  checked(rule);
  if (err) checked(errorMessage);
  if (!a.error) fail(rule, `${what} answered a result where the spec says it fails`, err ? { code: err.code, message: err.message } : { code: fallbackCode }, brief(a));
  const code = err?.code ?? fallbackCode;
  if (code !== undefined && a.error.code !== code) fail(rule, `${what} answered error ${a.error.code}, the spec declares ${code}${err ? ` (${err.name})` : ""}`, { code, message: err?.message }, a.error);
  if (err && !err.pattern.test(a.error.message)) fail(errorMessage, `${what}: the message does not match the declared one (${err.name})`, err.message, a.error.message);
  // An error that declares data carries it, of its declared type.
  if (err?.data !== undefined) checkSchema(err.data, a.error.data, errorData, `${what}: the data of ${err.name}`);
  // Over Streamable HTTP, with the status the spec declares for it.
  if (err?.http !== undefined && a.http !== undefined && a.http !== err.http) fail(rule, `${what} answered ${err.name} with HTTP ${a.http}, the spec declares ${err.http}`, err.http, a.http);
}

/** The errors the server answered on the session since the last look, each checked for a message that says what went wrong. */
export function checkErrorsAnswered(w: World): void {
  const seen = w.session.errors.splice(0);
  for (const _ of seen) count(w, "error answered");
  checkErrorMessages(w.model, seen);
}

export function checkSchema(schema: z.ZodType | undefined, value: unknown, rule: Rule, what: string): void {
  if (schema === undefined) return;
  checked(rule);
  const r = schema.safeParse(value);
  if (!r.success) fail(rule, `${what} does not match its declared type: ${issues(r)}`, undefined, value);
}

export function idParams(w: World, id: string): Record<string, unknown> {
  return { [w.model.idField]: id };
}

/** Params a method's type accepts, addressing task `id`: its other required fields get small valid values. */
export function validParams(w: World, method: IRMethod, id: string): Record<string, unknown> {
  const base = method.params === undefined ? {} : minimalValue(w.model.ir, method.params);
  const params = { ...(isObject(base) ? base : {}), [w.model.idField]: id };
  // An id type of the spec's own (a pattern, a format) may refuse the label: then an id no one was given that it
  // accepts, a UUID made from the label (the same in every run), since the ids a server makes are compared
  // with that type too.
  const schema = w.model.schemas.params(method.method);
  if (schema === undefined || schema.safeParse(params).success) return params;
  const fitting = { ...params, [w.model.idField]: uuidOf(id) };
  return schema.safeParse(fitting).success ? fitting : params;
}

/** A version 4 UUID made from `label`'s sha256 (the same for the same label). */
function uuidOf(label: string): string {
  const h = createHash("sha256").update(label).digest();
  h[6] = (h[6]! & 0x0f) | 0x40;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** JSON-RPC's Method not found: among others what a server that supports no deletion at all answers its delete method. */
export const METHOD_NOT_FOUND = -32601;

export function isLimitError(m: SpecModel, code: number): boolean {
  const l = m.ir.behaviour.limits;
  return [m.error(l.rateLimitError)?.code, m.error(l.concurrencyError)?.code].includes(code);
}

/** Methods the tester may address a task with: the spec's client-sent methods that take the id, the input's update method among them. */
export function addressing(m: SpecModel): IRMethod[] {
  const input = m.ir.behaviour.input;
  const update = input === false || input.updateMethod === undefined ? [] : m.ir.methods.filter((x) => x.method === input.updateMethod && x.kind === "request");
  const all = [...["get", "result", "cancel", "delete"].flatMap((o) => m.ops(o as never)), ...update];
  return all.filter((x, i) => all.indexOf(x) === i && !(m.ir.behaviour.unsupportedMethods?.methods ?? []).includes(x.method));
}

/** The cancel method where the server offers it, else undefined. */
export function cancelMethodOf(w: World): string | undefined {
  const c = w.model.ir.behaviour.cancellation;
  return c.via === "method" && c.method !== undefined && w.offered(c.method) && w.model.ir.methods.some((x) => x.method === c.method) ? c.method : undefined;
}

/** Whether the spec lets a server's `method` become a task (tools/call aside). */
export function mayAugment(model: SpecModel, method: string): boolean {
  const server = model.ir.behaviour.creation.requests.server;
  return server.includes("*") || server.includes(method);
}

/**
 * A tool call that asks for no task: without the task param or meta entry, and where the requestor opts in per
 * request (a client capability), without that capability in the request's envelope; with a progress token.
 */
export function plainCall(w: World, name: string, args: Record<string, unknown>, timeoutMs = 15_000): Promise<Answer> {
  const c = w.model.ir.behaviour.creation;
  // With a progress token, so that what the work reports comes on the request's own stream (and on no other one).
  const progressToken = `conform-progress-${Math.random().toString(36).slice(2, 10)}`;
  w.made.tokens.add(progressToken);
  const params = { name, arguments: args, _meta: { progressToken } };
  if (c.via !== "client-capability" || !w.model.perRequest) return w.session.request("tools/call", params, timeoutMs);
  const key = w.model.metaKey(c.capabilityMeta) ?? CLIENT_CAPABILITIES_KEY;
  return w.session.request("tools/call", params, timeoutMs, undefined, { set: { [key]: structuredClone({ ...BASE_CAPABILITIES }) } });
}
