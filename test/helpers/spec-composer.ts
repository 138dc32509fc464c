/**
 * Composes specs the way users write them, from a valid spec (a built-in or a fixture) and choices drawn
 * by fast-check: several states of one role (the new one declared first or last), guards on every kind of
 * edge (cancel and completion included), transition operations into every role, renamed task fields,
 * extra required fields, renamed meta keys, capabilities and notifications, own error codes in every
 * range; plus the semantic mutations of spec-mutants.ts. Each composed spec either validates, and then
 * its demo must pass its own conform, or is refused with located errors (test/spec-composer.test.ts,
 * scripts/compose-specs.ts).
 */
import { FORMAT_COMPOSE } from "./spec-composer-format.js";
import { SEMANTIC, type Doc, type Json, type Rand } from "./spec-mutants.js";

type States = Record<string, { role?: string; terminal?: boolean; initial?: boolean; [k: string]: Json | undefined }>;
type Transition = { from: Json; to: Json; guard?: Json; [k: string]: Json | undefined };

const list = (v: Json | undefined): string[] => (Array.isArray(v) ? v.map(String) : typeof v === "string" ? [v] : []);

function states(doc: Doc): States {
  return (doc.states ?? {}) as States;
}

function transitions(doc: Doc): Transition[] {
  return (doc.transitions ?? []) as unknown as Transition[];
}

function taskType(doc: Doc): string {
  return String((doc.behaviour as Record<string, Json> | undefined)?.taskType ?? "Task");
}

function idField(doc: Doc): string {
  return String((doc.behaviour as Record<string, Json> | undefined)?.taskIdField ?? "taskId");
}

/** Inserts `name: value` into a mapping, first or last, keeping the order of the rest. */
function insert(obj: Record<string, Json>, name: string, value: Json, first: boolean): void {
  const entries = Object.entries(obj);
  for (const k of Object.keys(obj)) delete obj[k];
  if (first) obj[name] = value;
  for (const [k, v] of entries) obj[k] = v;
  if (!first) obj[name] = value;
}

/** A guard that holds whenever no input is pending (the one guard every runtime gives a value). */
function ensureGuard(doc: Doc): string {
  const guards = ((doc.guards ??= {}) as Record<string, Json>);
  guards.composerNoPendingInput ??= { field: "pendingInputs", type: "integer", equals: 0, description: "No input request of the task is unanswered." };
  return "composerNoPendingInput";
}

export type Composition = (doc: Doc, r: Rand) => string;

export const COMPOSE: Record<string, Composition> = {
  /**
   * A second state of a role that has one, declared first or last, leading where the first leads:
   * reachable wherever the first is, or only from the first (then the state of that role the initial
   * state reaches is not the first declared).
   */
  stateOfSameRole(doc, r) {
    const all = states(doc);
    const candidates = Object.entries(all).filter(([, s]) => s.initial !== true && typeof s.role === "string" && s.role !== "unknown");
    if (!candidates.length) return "stateOfSameRole (no-op)";
    const [name, s] = r.pick(candidates);
    const twin = `${name}_also`;
    const first = r.int(2) === 0;
    const onlyAfter = s.terminal !== true && r.int(2) === 0;
    insert(all as Record<string, Json>, twin, { ...(s as Record<string, Json>), description: `Also ${s.role}.` }, first);
    const outgoing = transitions(doc).filter((t) => list(t.from).includes(name));
    if (onlyAfter) transitions(doc).push({ from: name, to: [twin] });
    else for (const t of transitions(doc)) if (list(t.to).includes(name)) t.to = [...list(t.to), twin];
    for (const t of outgoing) transitions(doc).push({ ...t, from: twin, to: list(t.to).filter((x) => x !== twin && x !== name).concat(list(t.to).includes(name) ? [name] : []) });
    return `state ${twin} (${s.role}) declared ${first ? "first" : "last"}, reached ${onlyAfter ? `only from ${name}` : `wherever ${name} is`}`;
  },
  /** A guard on one edge: into a cancelled, completed, failed or other state. */
  guardEdge(doc, r) {
    const all = states(doc);
    const roles = [...new Set(Object.values(all).map((s) => String(s.role)))];
    const role = r.pick(roles);
    const edges: Array<{ t: Transition; to: string }> = [];
    for (const t of transitions(doc)) for (const to of list(t.to)) if (all[to]?.role === role && t.guard === undefined) edges.push({ t, to });
    if (!edges.length) return `guardEdge ${role} (no-op)`;
    const { t, to } = r.pick(edges);
    const guard = ensureGuard(doc);
    t.to = list(t.to).filter((x) => x !== to);
    const split: Transition = { from: t.from, to: [to], guard };
    transitions(doc).push(split);
    if (list(t.to).length === 0) doc.transitions = transitions(doc).filter((x) => x !== t) as unknown as Json;
    return `guard ${guard} on ${list(t.from).join("|")} → ${to} (${role})`;
  },
  /** A transition operation into a state of some role (a completed one is refused by validate). */
  operationInto(doc, r) {
    const all = states(doc);
    const roles = [...new Set(Object.values(all).map((s) => String(s.role)))].filter((x) => x !== "unknown");
    const role = r.pick(roles);
    const targets = Object.entries(all).filter(([, s]) => s.role === role);
    if (!targets.length) return `operationInto ${role} (no-op)`;
    const [to] = r.pick(targets);
    const from = Object.entries(all).filter(([n, s]) => s.terminal !== true && n !== to);
    if (!from.length) return `operationInto ${role} (no-op)`;
    const [src] = r.pick(from);
    if (!transitions(doc).some((t) => list(t.from).includes(src) && list(t.to).includes(to))) transitions(doc).push({ from: src, to: [to] });
    const methods = ((doc.methods ??= {}) as Record<string, Json>);
    const method = `composer/move_${to}`;
    methods[method] = { kind: "request", operation: "transition", to, from: "client", params: { type: "object", fields: { [idField(doc)]: "string" } }, result: taskType(doc) };
    return `${method}: ${src} → ${to} (${role})`;
  },
  /** The task's retention or poll field renamed, with the behaviour that names it. */
  renameTaskField(doc, r) {
    const b = (doc.behaviour ?? {}) as Record<string, Json>;
    const task = ((doc.types as Record<string, Json> | undefined)?.[taskType(doc)] ?? {}) as Record<string, Json>;
    const fields = (task.fields ?? {}) as Record<string, Json>;
    const named: Array<[string, Record<string, Json>]> = [];
    for (const key of ["retention", "polling"]) {
      const sub = b[key];
      if (sub && typeof sub === "object" && !Array.isArray(sub) && typeof sub.field === "string" && sub.field in fields) named.push([sub.field, sub as Record<string, Json>]);
    }
    if (!named.length) return "renameTaskField (no-op)";
    const [field, sub] = r.pick(named);
    const to = `${field}Composed`;
    const entries = Object.entries(fields).map(([k, v]): [string, Json] => [k === field ? to : k, v]);
    for (const k of Object.keys(fields)) delete fields[k];
    for (const [k, v] of entries) fields[k] = v;
    sub.field = to;
    return `task field ${field} → ${to}`;
  },
  /** A required field more: on the task type with a default (the runtime starts every task with it), or on the result of a custom operation. */
  extraRequiredField(doc, r) {
    const types = (doc.types ?? {}) as Record<string, Record<string, Json>>;
    const task = types[taskType(doc)];
    if (!task || typeof task.fields !== "object" || task.fields === null) return "extraRequiredField (no-op)";
    const kind = r.pick(["string", "integer", "boolean"] as const);
    const value = kind === "string" ? "composed" : kind === "integer" ? 3 : true;
    (task.fields as Record<string, Json>).composerExtra = { type: kind, default: value };
    return `task field composerExtra: ${kind} = ${JSON.stringify(value)}`;
  },
  /** Every meta entry under a key of the spec's own, and every type field named after the old key with it. */
  renameMetaKeys(doc) {
    const meta = (doc.meta ?? {}) as Record<string, Record<string, Json>>;
    const names = Object.keys(meta);
    if (!names.length) return "renameMetaKeys (no-op)";
    let text = JSON.stringify(doc);
    for (const n of names) text = text.split(JSON.stringify(String(meta[n]!.key))).join(JSON.stringify(`com.example.composer/${n}`));
    const renamed = JSON.parse(text) as Doc;
    for (const k of Object.keys(doc)) delete doc[k];
    Object.assign(doc, renamed);
    return `meta keys → com.example.composer/*`;
  },
  /** The server capability under another path. */
  renameCapability(doc) {
    const caps = (doc.behaviour as Record<string, Json> | undefined)?.capabilities as Record<string, Json> | undefined;
    const server = caps?.server;
    if (!server || typeof server !== "object" || Array.isArray(server) || !Array.isArray(server.path)) return "renameCapability (no-op)";
    server.path = ["composerTasks"];
    return "capabilities.server.path = [composerTasks]";
  },
  /** Own error codes, one range per error: the server range, an application code, a positive one. */
  ownErrorCodes(doc, r) {
    const errors = (doc.errors ?? {}) as Record<string, Record<string, Json>>;
    const out: string[] = [];
    let i = 0;
    for (const [n, e] of Object.entries(errors)) {
      // The standard codes keep their meaning: a -32602 or -32601 a spec chose stays.
      if (typeof e.code === "number" && e.code <= -32600 && e.code >= -32700) continue;
      const code = r.pick([-32000 - (i % 20), -32050 - (i % 40), -31000 - i, 1000 + i, -1 - i]);
      e.code = code;
      out.push(`${n}=${code}`);
      i++;
    }
    return out.length ? `error codes ${out.join(", ")}` : "ownErrorCodes (no-op)";
  },
};

export const COMPOSE_KINDS = Object.keys(COMPOSE);

/**
 * Compositions, the semantic mutations (renamed states, methods and notifications, errors, ...) and the
 * compositions drawn from the format's coverage matrix (spec-composer-format.ts) together.
 */
export const ALL: Record<string, Composition> = { ...COMPOSE, ...SEMANTIC, ...FORMAT_COMPOSE };
export const ALL_KINDS = Object.keys(ALL);
/** The kinds without the matrix's compositions: the draws of a seed made from these replay as they were drawn. */
export const COMPOSE_SEMANTIC_KINDS = [...Object.keys(COMPOSE), ...Object.keys(SEMANTIC)];
