/**
 * The IR: a checked spec lowered into one immutable, fully resolved structure.
 * Shorthands are expanded, `extends` is flattened, defaults are filled in,
 * error templates are split into segments. Emitters read only this.
 */
import { createHash } from "node:crypto";
import type { Behaviour, Spec, TypeExpr } from "./format.js";
import { methodOperations, type Operation } from "./operations.js";
import { fieldsOf, methodNames, parseShorthand, stronglyConnected } from "./spec-helpers.js";

export type IRType =
  | { kind: "string"; format?: "date-time" | "uri" | "uuid"; minLength?: number; maxLength?: number; pattern?: string; nullable: boolean; description?: string }
  | { kind: "integer" | "number"; minimum?: number; maximum?: number; nullable: boolean; description?: string }
  | { kind: "boolean" | "null" | "unknown"; nullable: boolean; description?: string }
  | { kind: "literal"; value: string | number | boolean; nullable: boolean; description?: string }
  | { kind: "enum"; values: readonly string[]; nullable: boolean; description?: string }
  | { kind: "ref"; name: string; nullable: boolean; description?: string }
  | { kind: "array"; items: IRType; minItems?: number; maxItems?: number; nullable: boolean; description?: string }
  | { kind: "record"; values: IRType; nullable: boolean; description?: string }
  | { kind: "union"; variants: readonly IRType[]; discriminator?: string; nullable: boolean; description?: string }
  | { kind: "object"; fields: readonly IRField[]; open: boolean; strict: boolean; nullable: boolean; description?: string };

export interface IRField {
  name: string;
  type: IRType;
  optional: boolean;
  description?: string;
  deprecated: boolean;
  /** The value a new task starts with (fields of the task type). */
  default?: unknown;
}

export interface IRTypeDecl {
  name: string;
  type: IRType;
  description?: string;
  /** Part of a reference cycle: validators must refer to it lazily. */
  recursive: boolean;
}

export interface IRState {
  name: string;
  role: string;
  initial: boolean;
  terminal: boolean;
  description?: string;
}

export interface IRTransition {
  from: string;
  to: string;
  guard?: string;
  description?: string;
}

export interface IRGuard {
  name: string;
  field: string;
  valueType: "integer" | "boolean" | "string";
  op: "equals" | "notEquals" | "atLeast" | "atMost";
  value: number | boolean | string;
  description?: string;
}

export interface IRMethod {
  method: string;
  kind: "request" | "notification";
  /** The TypeScript name stem, e.g. GetTask. */
  name: string;
  /** The name of the params type (a declared type, or `<name>Params` for an inline one). */
  paramsName?: string;
  /** The name of the result type (a declared type, or `<name>Result` for an inline one). */
  resultName?: string;
  /** `<name>Request` or `<name>Notification`. */
  messageName: string;
  from: "client" | "server" | "either";
  params?: IRType;
  result?: IRType;
  errors: readonly string[];
  /** What the request does to tasks (requests only; from the method or the behaviour naming it). */
  operation?: Operation;
  /** operation transition: the state it moves the addressed task to. */
  to?: string;
  description?: string;
}

export type IRMessageSegment = { text: string } | { param: string };

export interface IRError {
  name: string;
  code: number;
  message: string;
  segments: readonly IRMessageSegment[];
  context: readonly { name: string; type: IRType }[];
  data?: IRType;
  http?: number;
  description?: string;
}

export interface IRMeta {
  name: string;
  key: string;
  type: IRType;
  on: readonly ("request" | "notification" | "result")[];
  description?: string;
}

export interface IRExample {
  name: string;
  description?: string;
  kind: "request" | "notification" | "result" | "error" | "meta" | "type";
  method?: string;
  type?: string;
  message: unknown;
  source?: string;
}

/** The behaviour with its optional parts made explicit (false: the spec has none). */
export type IRBehaviour = Omit<Behaviour, "taskType" | "retention" | "polling" | "input"> & {
  taskType: string;
  retention: Exclude<Behaviour["retention"], undefined>;
  polling: Exclude<Behaviour["polling"], undefined>;
  input: Exclude<Behaviour["input"], undefined>;
};

export interface IR {
  generator: { name: string; version: string };
  spec: {
    name: string;
    /** sha256 of the spec source (LF line endings), hex. */
    hash: string;
    file: string;
    protocol: Spec["protocol"];
    description?: string;
  };
  statusType: string;
  types: readonly IRTypeDecl[];
  states: readonly IRState[];
  initialState: string;
  terminalStates: readonly string[];
  /** role → the first state declared with it (for readers: the runtime derives each move from the table) */
  roles: Readonly<Record<string, string>>;
  transitions: readonly IRTransition[];
  guards: readonly IRGuard[];
  methods: readonly IRMethod[];
  errors: readonly IRError[];
  meta: readonly IRMeta[];
  behaviour: IRBehaviour;
  examples: readonly IRExample[];
}

export interface LowerOptions {
  generator: { name: string; version: string };
  file: string;
  sourceText: string;
}

export function lower(spec: Spec, opts: LowerOptions): IR {
  const statusType = spec.statusType ?? "TaskStatus";
  const stateNames = Object.keys(spec.states);

  const lowerType = (t: TypeExpr): IRType => {
    if (typeof t === "string") {
      const p = parseShorthand(t)!;
      let base: IRType;
      switch (p.base) {
        case "string":
          base = { kind: "string", nullable: false };
          break;
        case "integer":
        case "number":
          base = { kind: p.base, nullable: false };
          break;
        case "boolean":
        case "null":
        case "unknown":
          base = { kind: p.base, nullable: false };
          break;
        case "object":
          base = { kind: "object", fields: [], open: true, strict: false, nullable: false };
          break;
        default:
          base = { kind: "ref", name: p.base, nullable: false };
      }
      for (let i = 0; i < p.arrayDepth; i++) base = { kind: "array", items: base, nullable: false };
      return base;
    }
    const nullable = t.nullable === true;
    const description = t.description;
    const d = description === undefined ? {} : { description };
    switch (t.type) {
      case "string":
        return { kind: "string", format: t.format, minLength: t.minLength, maxLength: t.maxLength, pattern: t.pattern, nullable, ...d };
      case "integer":
      case "number":
        return { kind: t.type, minimum: t.minimum, maximum: t.maximum, nullable, ...d };
      case "boolean":
      case "null":
      case "unknown":
        return { kind: t.type, nullable, ...d };
      case "literal":
        return { kind: "literal", value: t.value, nullable, ...d };
      case "enum":
        return { kind: "enum", values: t.values, nullable, ...d };
      case "ref":
        return { kind: "ref", name: t.ref, nullable, ...d };
      case "array":
        return { kind: "array", items: lowerType(t.items), minItems: t.minItems, maxItems: t.maxItems, nullable, ...d };
      case "record":
        return { kind: "record", values: lowerType(t.values), nullable, ...d };
      case "union":
        return { kind: "union", variants: t.variants.map(lowerType), discriminator: t.discriminator, nullable, ...d };
      case "object": {
        const all = fieldsOf(spec, t) ?? {};
        const fields: IRField[] = Object.entries(all).map(([name, f]) => lowerField(name, f));
        return { kind: "object", fields, open: t.open === true, strict: t.strict === true, nullable, ...d };
      }
    }
  };
  const lowerField = (name: string, f: TypeExpr): IRField => {
    const optional = typeof f === "string" ? parseShorthand(f)!.optional : f.optional === true;
    const description = typeof f === "string" ? undefined : f.description;
    const deprecated = typeof f === "string" ? false : f.deprecated === true;
    const dflt = typeof f === "string" ? undefined : f.default;
    return {
      name,
      type: lowerType(f),
      optional,
      deprecated,
      ...(description === undefined ? {} : { description }),
      ...(dflt === undefined ? {} : { default: dflt }),
    };
  };

  const statusDecl: IRTypeDecl = {
    name: statusType,
    type: { kind: "enum", values: stateNames, nullable: false },
    description: "The status of a task.",
    recursive: false,
  };
  const declared: IRTypeDecl[] = Object.entries(spec.types).map(([name, t]) => ({
    name,
    type: lowerType(t),
    description: typeof t === "string" ? undefined : t.description,
    recursive: false,
  }));
  const types = [statusDecl, ...declared];
  markRecursive(types);

  const states: IRState[] = Object.entries(spec.states).map(([name, s]) => ({
    name,
    role: s.role,
    initial: s.initial === true,
    terminal: s.terminal === true,
    ...(s.description === undefined ? {} : { description: s.description }),
  }));
  const transitions: IRTransition[] = [];
  for (const tr of spec.transitions) {
    for (const from of [tr.from].flat()) {
      for (const to of [tr.to].flat()) {
        if (transitions.some((x) => x.from === from && x.to === to)) continue;
        transitions.push({ from, to, ...(tr.guard ? { guard: tr.guard } : {}), ...(tr.description ? { description: tr.description } : {}) });
      }
    }
  }
  // Order transitions by the declared order of states, so output does not depend on how they were grouped.
  const order = new Map(stateNames.map((n, i) => [n, i]));
  transitions.sort((a, b) => order.get(a.from)! - order.get(b.from)! || order.get(a.to)! - order.get(b.to)!);

  const guards: IRGuard[] = Object.entries(spec.guards ?? {}).map(([name, g]) => {
    const op = (["equals", "notEquals", "atLeast", "atMost"] as const).find((k) => g[k] !== undefined) ?? "notEquals";
    const value = g[op] ?? false;
    return {
      name,
      field: g.field,
      valueType: g.type ?? (typeof value === "boolean" ? "boolean" : typeof value === "string" ? "string" : "integer"),
      op,
      value,
      ...(g.description === undefined ? {} : { description: g.description }),
    };
  });

  const { operations } = methodOperations(spec);
  const methods: IRMethod[] = Object.entries(spec.methods).map(([method, m]) => ({
    method,
    kind: m.kind,
    ...methodNames(method, m),
    from: m.from,
    ...(m.params === undefined ? {} : { params: lowerType(m.params) }),
    ...(m.result === undefined ? {} : { result: lowerType(m.result) }),
    errors: m.errors ?? [],
    ...(operations.has(method) ? { operation: operations.get(method)!.operation } : {}),
    ...(m.to === undefined ? {} : { to: m.to }),
    ...(m.description === undefined ? {} : { description: m.description }),
  }));

  const errors: IRError[] = Object.entries(spec.errors).map(([name, e]) => ({
    name,
    code: e.code,
    message: e.message,
    segments: splitTemplate(e.message),
    context: Object.entries(e.context ?? {}).map(([n, t]) => ({ name: n, type: lowerType(t) })),
    ...(e.data === undefined ? {} : { data: lowerType(e.data) }),
    ...(e.http === undefined ? {} : { http: e.http }),
    ...(e.description === undefined ? {} : { description: e.description }),
  }));

  const meta: IRMeta[] = Object.entries(spec.meta).map(([name, m]) => ({
    name,
    key: m.key,
    type: lowerType(m.type),
    on: m.on,
    ...(m.description === undefined ? {} : { description: m.description }),
  }));

  // The first state declared with each role, for readers of the generated code (STATE_ROLES, the descriptor); the runtime derives where a task moves from the table (runtime/machine.ts).
  const roles: Record<string, string> = {};
  for (const s of states) if (!(s.role in roles)) roles[s.role] = s.name;

  const ir: IR = {
    generator: opts.generator,
    spec: {
      name: spec.spec,
      hash: createHash("sha256").update(opts.sourceText.replace(/\r\n?/g, "\n")).digest("hex"),
      file: opts.file,
      protocol: spec.protocol,
      ...(spec.description === undefined ? {} : { description: spec.description.trim() }),
    },
    statusType,
    types,
    states,
    initialState: states.find((s) => s.initial)!.name,
    terminalStates: states.filter((s) => s.terminal).map((s) => s.name),
    roles,
    transitions,
    guards,
    methods,
    errors,
    meta,
    behaviour: {
      ...spec.behaviour,
      taskType: spec.behaviour.taskType ?? "Task",
      retention: spec.behaviour.retention ?? false,
      polling: spec.behaviour.polling ?? false,
      input: spec.behaviour.input ?? false,
    },
    examples: (spec.examples ?? []) as IRExample[],
  };
  return deepFreeze(stripUndefined(ir));
}

/** A message template as text and placeholders; `{{` and `}}` are literal braces. */
export function splitTemplate(message: string): IRMessageSegment[] {
  const out: IRMessageSegment[] = [];
  let text = "";
  let last = 0;
  for (const m of message.matchAll(/\{\{|\}\}|\{([^{}]*)\}/g)) {
    text += message.slice(last, m.index);
    last = m.index! + m[0].length;
    if (m[1] === undefined) {
      text += m[0][0];
      continue;
    }
    if (text !== "") out.push({ text });
    text = "";
    out.push({ param: m[1] });
  }
  text += message.slice(last);
  if (text !== "") out.push({ text });
  return out;
}

/** Types on a reference cycle must be emitted lazily. */
function markRecursive(types: IRTypeDecl[]): void {
  const byName = new Map(types.map((t) => [t.name, t]));
  const edges = new Map(
    types.map((t) => {
      const refs = new Set<string>();
      collectRefs(t.type, refs);
      return [t.name, [...refs].filter((r) => byName.has(r))] as const;
    }),
  );
  for (const scc of stronglyConnected([...byName.keys()], (n) => edges.get(n) ?? [])) {
    if (scc.length > 1 || (edges.get(scc[0]!) ?? []).includes(scc[0]!)) for (const n of scc) byName.get(n)!.recursive = true;
  }
}

/** Declaration order with every type after the non-recursive types it refers to (depth first, without recursion). */
export function topoOrder(types: readonly IRTypeDecl[]): IRTypeDecl[] {
  const byName = new Map(types.map((t) => [t.name, t]));
  const out: IRTypeDecl[] = [];
  const state = new Map<string, 1 | 2>();
  const refsOf = (t: IRTypeDecl) => {
    const refs = new Set<string>();
    collectRefs(t.type, refs);
    return [...refs];
  };
  for (const root of types) {
    if (state.get(root.name)) continue;
    state.set(root.name, 1);
    const work: [IRTypeDecl, string[], number][] = [[root, refsOf(root), 0]];
    while (work.length) {
      const top = work[work.length - 1]!;
      const [t, refs, i] = top;
      if (i < refs.length) {
        top[2]++;
        const d = byName.get(refs[i]!);
        if (d && !state.get(d.name)) {
          state.set(d.name, 1);
          work.push([d, refsOf(d), 0]);
        }
        continue;
      }
      work.pop();
      state.set(t.name, 2);
      out.push(t);
    }
  }
  return out;
}

export function collectRefs(t: IRType, acc: Set<string>): void {
  switch (t.kind) {
    case "ref":
      acc.add(t.name);
      break;
    case "array":
      collectRefs(t.items, acc);
      break;
    case "record":
      collectRefs(t.values, acc);
      break;
    case "union":
      t.variants.forEach((v) => collectRefs(v, acc));
      break;
    case "object":
      t.fields.forEach((f) => collectRefs(f.type, acc));
      break;
  }
}

function stripUndefined<T>(v: T): T {
  if (Array.isArray(v)) return v.map(stripUndefined) as T;
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = stripUndefined(x);
    return out as T;
  }
  return v;
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
