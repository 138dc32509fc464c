/**
 * What a spec says a server must do, read from the IR once: the states and
 * where each may lead, the methods by what they do, the errors to expect, how
 * a task is requested and acknowledged. The tester's commands read only this;
 * nothing here knows a revision or a built-in spec's names.
 */
import { pagingFields } from "../emit/descriptor.js";
import type { IR, IRError, IRMethod } from "../ir.js";
import type { Operation } from "../operations.js";
import type { z } from "zod";
import { specSchemas, type SpecSchemas } from "./schemas.js";

export interface ExpectedError {
  name: string;
  code: number;
  /** The declared message with each `{placeholder}` matching any text but none (a placeholder is filled). */
  pattern: RegExp;
  message: string;
  /** The declared type of its `data`, where it declares one. */
  data?: z.ZodType;
  /** The HTTP status it is answered with over Streamable HTTP, where the spec declares one. */
  http?: number;
}

export interface SpecModel {
  ir: IR;
  schemas: SpecSchemas;
  idField: string;
  statusField: string;
  states: ReadonlySet<string>;
  terminal: ReadonlySet<string>;
  initial: string;
  roleOf: Readonly<Record<string, string>>;
  /** Every state reachable from each state through the transition table (itself included). */
  reach: ReadonlyMap<string, ReadonlySet<string>>;
  /** Direct transitions, guards ignored. */
  direct: ReadonlyMap<string, ReadonlySet<string>>;
  /** The first method declared for each operation, and every method of `transition`/`custom`. */
  op(operation: Operation): IRMethod | undefined;
  ops(operation: Operation): IRMethod[];
  error(name: string | undefined): ExpectedError | undefined;
  notFound: ExpectedError | undefined;
  /** The `_meta` key of a meta name. */
  metaKey(name: string | undefined): string | undefined;
  /** States a task of each outcome may end in. */
  endStates: { complete: ReadonlySet<string>; fail: ReadonlySet<string>; error: ReadonlySet<string>; cancel: ReadonlySet<string> };
  perRequest: boolean;
  /** The list method's names for the cursor it reads, the next cursor it answers and the page's items. */
  paging: { cursor: string; next: string; items?: string };
}

export function errorPattern(e: Pick<IRError, "segments">): RegExp {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${e.segments.map((s) => ("text" in s ? esc(s.text) : "[\\s\\S]+")).join("")}$`, "s");
}

function closure(direct: Map<string, Set<string>>, from: string): Set<string> {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length) {
    for (const n of direct.get(queue.shift()!) ?? []) {
      if (!seen.has(n)) {
        seen.add(n);
        queue.push(n);
      }
    }
  }
  return seen;
}

export function specModel(ir: IR): SpecModel {
  const b = ir.behaviour;
  const direct = new Map<string, Set<string>>(ir.states.map((s) => [s.name, new Set<string>()]));
  for (const t of ir.transitions) direct.get(t.from)?.add(t.to);
  const reach = new Map(ir.states.map((s) => [s.name, closure(direct, s.name)]));
  const roleOf = Object.fromEntries(ir.states.map((s) => [s.name, s.role]));
  const withRole = (role: string) => new Set(ir.states.filter((s) => s.role === role).map((s) => s.name));
  const schemas = specSchemas(ir);
  const errors = new Map<string, ExpectedError>(
    ir.errors.map((e) => [e.name, { name: e.name, code: e.code, pattern: errorPattern(e), message: e.message, ...(e.data === undefined ? {} : { data: schemas.of(e.data) }), ...(e.http === undefined ? {} : { http: e.http }) }]),
  );
  const error = (name: string | undefined) => (name === undefined ? undefined : errors.get(name));
  const requests = ir.methods.filter((m) => m.kind === "request" && m.from !== "server");
  const one = (s: string | undefined) => new Set(s === undefined ? [] : [s]);
  const outcome = (declared: string | undefined, role: string) => (declared !== undefined && roleOf[declared] !== undefined ? one(declared) : withRole(role));
  const events = b.events ?? {};
  return {
    ir,
    schemas,
    idField: b.taskIdField ?? "taskId",
    statusField: b.statusField ?? "status",
    states: new Set(ir.states.map((s) => s.name)),
    terminal: new Set(ir.terminalStates),
    initial: ir.initialState,
    roleOf,
    reach,
    direct,
    op: (o) => requests.find((m) => m.operation === o),
    ops: (o) => requests.filter((m) => m.operation === o),
    error,
    notFound: error(b.notFoundError ?? "taskNotFound"),
    metaKey: (name) => ir.meta.find((m) => m.name === name)?.key,
    endStates: {
      complete: withRole("completed"),
      fail: outcome(b.outcomes.toolError, "failed"),
      error: outcome(b.outcomes.protocolError, "failed"),
      cancel: outcome(events.cancel, "cancelled"),
    },
    perRequest: ir.spec.protocol.lifecycle === "per-request",
    paging: pagingNames(ir, requests.find((m) => m.operation === "list")),
  };
}

/**
 * The list method's paging names, as the runtime and the generated client read them (`pagingFields`), and the field
 * of its result that holds the page's items.
 */
export function pagingNames(ir: IR, list: IRMethod | undefined): SpecModel["paging"] {
  const { cursor, nextCursor } = pagingFields(ir, list);
  const result = list?.result;
  const resolved = result?.kind === "ref" ? ir.types.find((d) => d.name === result.name)?.type : result;
  const items = resolved?.kind === "object" ? resolved.fields.find((f) => f.type.kind === "array")?.name : undefined;
  return { cursor, next: nextCursor, ...(items === undefined ? {} : { items }) };
}
