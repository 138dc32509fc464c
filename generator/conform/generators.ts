/**
 * The command generators: which commands a run of conform draws, from what the spec declares and the server
 * offers. Only the commands that can do something are drawn, and creation as often as the task commands together.
 */
import fc from "fast-check";
import type { Cmd } from "./commands/base.js";
import { Cancel } from "./commands/cancel.js";
import { Create } from "./commands/create.js";
import { Delete } from "./commands/delete.js";
import { Expire } from "./commands/expire.js";
import { Intrude } from "./commands/intrude.js";
import { List } from "./commands/list.js";
import { MissingField, requiredCreationFields } from "./commands/missing-field.js";
import { Custom, Move } from "./commands/move.js";
import { Get, Reread, Wait } from "./commands/read.js";
import { Duplicate, Envelope, Gate, Switch, switchCandidates, Unknown, WrongParams } from "./commands/refusals.js";
import { HeaderMismatch, WithoutOptIn } from "./commands/per-request.js";
import { Result } from "./commands/result.js";
import { Retention } from "./commands/retention.js";
import { Subscribe } from "./commands/subscribe.js";
import type { SpecModel } from "./model.js";
import type { OutcomeName } from "./report.js";
import { addressing, type Augmentable } from "./world.js";

/** What the runner learnt of the spec and the server before its runs. */
export interface DrawContext {
  model: SpecModel;
  /** Whether the server offers a method its capability gates. */
  offered: (method: string) => boolean;
  tools: ReadonlyMap<string, Record<string, unknown>>;
  /** The outcomes the server offers a tool for. */
  available: readonly OutcomeName[];
  /** The other requests the server lets become tasks. */
  augmentable: readonly Augmentable[];
  /** Whether another requestor can be had for the isolation checks. */
  isolation: boolean;
  /** Whether the server is reached over Streamable HTTP. */
  http: boolean;
  /** The methods the server's capability gates (the spec's `capabilities.server.gates`). */
  gates: Readonly<Record<string, readonly string[]>>;
}

/** The arbitraries of the commands a run draws. */
export function drawnCommands({ model, offered, tools, available, augmentable, isolation, http, gates }: DrawContext): Array<fc.Arbitrary<Cmd>> {
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
    ...(model.ir.behaviour.creation.via === "client-capability" && model.perRequest && available.includes("complete") ? [fc.nat(7).map((n): Cmd => new WithoutOptIn(n))] : []),
    ...(model.ir.behaviour.statusNotifications !== false && model.ir.behaviour.statusNotifications.delivery === "subscription" ? [fc.tuple(fc.nat(7), fc.nat(7)).map(([p, n]): Cmd => new Subscribe(p, n))] : []),
    ...(model.ir.behaviour.http !== false && http ? [fc.tuple(fc.nat(7), fc.nat(7)).map(([p, n]): Cmd => new HeaderMismatch(p, n))] : []),
  ];
  if (isolation) commandArbs.push(fc.tuple(fc.nat(7), fc.nat(7)).map(([p, n]) => new Intrude(p, n)));
  const unadvertised = Object.keys(gates).filter((m) => !offered(m)).length + (model.ir.behaviour.unsupportedMethods?.methods.length ?? 0);
  if (unadvertised > 0) commandArbs.push(fc.tuple(fc.nat(7), fc.nat(7)).map(([p, n]) => new Gate(p, n)));
  if (model.ir.behaviour.creation.taskId.assignedBy === "requestor") commandArbs.push(fc.nat(7).map((n) => new Duplicate(n)));
  if (requiredCreationFields(model).length && available.includes("complete")) commandArbs.push(fc.nat(7).map((n) => new MissingField(n)));
  if (model.ir.behaviour.retention !== false && model.ir.behaviour.creation.retentionField !== undefined && available.includes("long")) commandArbs.push(fc.nat(7).map((n) => new Retention(n)));
  // Twice: among the many commands, a run would seldom let a retention run out otherwise.
  if (model.ir.behaviour.events?.expiry !== undefined && available.includes("long")) commandArbs.push(fc.constant(new Expire()), fc.constant(new Expire()));
  if (model.ops("custom").length) commandArbs.push(fc.tuple(fc.nat(7), fc.nat(7)).map(([p, n]) => new Custom(p, n)));
  // Most commands need a task: creation is drawn as often as the task commands together.
  if (available.length) commandArbs.push(...Array.from({ length: 4 }, () => fc.constantFrom(...available).map((o) => new Create(o))));
  // The other requests the spec lets become tasks, as the server offers them (their work completes).
  if (augmentable.length) commandArbs.push(fc.constantFrom(...augmentable).map((via) => new Create("complete", via)));
  // Nothing the spec lets the tester do here: runs of a command that does nothing, the run checks alone.
  if (!commandArbs.length) commandArbs.push(fc.constant(new List()));
  return commandArbs;
}
