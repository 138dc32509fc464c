/**
 * The model of one run of conform: the tasks the tester made as it knows them, the session it speaks on, what the
 * server offers, and the helpers every command uses to expect an answer, an error or a declared type.
 */
import type { z } from "zod";
import type { IRMethod } from "../ir.js";
import type { ExpectedError, SpecModel } from "./model.js";
import { CannotTestError, type ConformReport, type OutcomeName, type Outcomes } from "./report.js";
import { fail, type Rule } from "./rule.js";
import { minimalValue } from "./schemas.js";
import { Session, type Target } from "./session.js";
import type { Answer } from "./wire.js";
import { errorMessage } from "./rules/error-message.js";
import { transport } from "./rules/transport.js";

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

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
  /** When the request that made it was answered. */
  answeredAt?: number;
  /** Its end was checked (what it answers once ended). */
  endChecked?: boolean;
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

/** A request other than tools/call that the spec lets become a task, as the server under test offers it. */
export interface Augmentable {
  method: string;
  params: Record<string, unknown>;
}

export const count = (w: World, what: string) => (w.exercised[what] = (w.exercised[what] ?? 0) + 1);

export function expectAnswer(a: Answer, rule: Rule, what: string): asserts a is Answer & ({ result: Record<string, unknown> } | { error: { code: number; message: string } }) {
  if (a.timedOut) throw new CannotTestError("timeout", `${what}: no answer within the time allowed`);
  if (a.broken !== undefined) fail(transport, `${what}: ${a.broken}`);
}

export function expectError(a: Answer, err: ExpectedError | undefined, rule: Rule, what: string, fallbackCode?: number): void {
  expectAnswer(a, rule, what);
  if (!a.error) fail(rule, `${what} answered a result where the spec says it fails`, err ? { code: err.code, message: err.message } : { code: fallbackCode }, brief(a));
  const code = err?.code ?? fallbackCode;
  if (code !== undefined && a.error.code !== code) fail(rule, `${what} answered error ${a.error.code}, the spec declares ${code}${err ? ` (${err.name})` : ""}`, { code, message: err?.message }, a.error);
  if (err && !err.pattern.test(a.error.message)) fail(errorMessage, `${what}: the message does not match the declared one (${err.name})`, err.message, a.error.message);
}

export function checkSchema(schema: z.ZodType | undefined, value: unknown, rule: Rule, what: string): void {
  if (schema === undefined) return;
  const r = schema.safeParse(value);
  if (!r.success) fail(rule, `${what} does not match its declared type: ${issues(r)}`, undefined, value);
}

export function idParams(w: World, id: string): Record<string, unknown> {
  return { [w.model.idField]: id };
}

/** Params a method's type accepts, addressing task `id`: its other required fields get small valid values. */
export function validParams(w: World, method: IRMethod, id: string): Record<string, unknown> {
  const base = method.params === undefined ? {} : minimalValue(w.model.ir, method.params);
  return { ...(isObject(base) ? base : {}), [w.model.idField]: id };
}

export function isLimitError(m: SpecModel, code: number): boolean {
  const l = m.ir.behaviour.limits;
  return [m.error(l.rateLimitError)?.code, m.error(l.concurrencyError)?.code].includes(code);
}

/** Methods the tester may address a task with: the spec's client-sent methods that take the id. */
export function addressing(m: SpecModel): IRMethod[] {
  return ["get", "result", "cancel", "delete"].flatMap((o) => m.ops(o as never)).filter((x) => !(m.ir.behaviour.unsupportedMethods?.methods ?? []).includes(x.method));
}

/** The cancel method where the server offers it, else undefined. */
export function cancelMethodOf(w: World): string | undefined {
  const c = w.model.ir.behaviour.cancellation;
  return c.via === "method" && c.method !== undefined && w.offered(c.method) && w.model.ir.methods.some((x) => x.method === c.method) ? c.method : undefined;
}
