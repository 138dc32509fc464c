/**
 * Compositions drawn from the format's coverage matrix (spec/format-coverage.yaml): each varies rows of the
 * matrix a user's spec can vary (paging names, error data, retention bounds and defaults, replayed errors,
 * status pushes, behaviour settings naming states of every role, id constraints, the types of fields the
 * runtime fills, guards of every kind) and says which (FORMAT_VARIES). test/format-coverage.test.ts holds
 * every row of the matrix to a composition that varies it or a stated reason why none does (UNVARIED).
 */
import type { Doc, Json, Rand } from "./spec-mutants.js";

type Obj = Record<string, Json>;
const isObj = (v: Json | undefined): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const b = (doc: Doc): Obj => (isObj(doc.behaviour) ? doc.behaviour : (doc.behaviour = {}));
const types = (doc: Doc): Obj => (isObj(doc.types) ? doc.types : (doc.types = {}));
const taskFields = (doc: Doc): Obj | undefined => {
  const t = types(doc)[String(b(doc).taskType ?? "Task")];
  return isObj(t) && isObj(t.fields) ? t.fields : undefined;
};
const states = (doc: Doc): Record<string, Obj> => (isObj(doc.states) ? (doc.states as Record<string, Obj>) : {});

/** A field's type as an object (a shorthand `integer?` becomes `{ type: integer, optional: true }`). */
function asObject(fields: Obj, name: string): Obj | undefined {
  const v = fields[name];
  if (typeof v === "string") {
    const optional = v.endsWith("?");
    const o: Obj = { type: v.replace(/\?$/, ""), ...(optional ? { optional: true } : {}) };
    fields[name] = o;
    return o;
  }
  return isObj(v) ? v : undefined;
}

/** The behaviour's setting of `key` and the numeric task field it names (as an object), or undefined. */
function numericSetting(doc: Doc, key: string): { setting: Obj; f: Obj } | undefined {
  const setting = b(doc)[key];
  const fields = taskFields(doc);
  if (!isObj(setting) || typeof setting.field !== "string" || !fields) return undefined;
  const f = asObject(fields, setting.field);
  return f && (f.type === "integer" || f.type === "number") ? { setting, f } : undefined;
}

/** The object type a type name or an inline type names (one level of refs). */
function objectType(doc: Doc, t: Json | undefined): Obj | undefined {
  if (typeof t === "string") return objectType(doc, types(doc)[t.replace(/\?$/, "")]);
  if (!isObj(t)) return undefined;
  if (t.type === "ref" && typeof t.ref === "string") return objectType(doc, types(doc)[t.ref]);
  return isObj(t.fields) ? t : undefined;
}

function renameField(fields: Obj, from: string, to: string): boolean {
  if (!(from in fields)) return false;
  const entries = Object.entries(fields).map(([k, v]): [string, Json] => [k === from ? to : k, v]);
  for (const k of Object.keys(fields)) delete fields[k];
  for (const [k, v] of entries) fields[k] = v;
  return true;
}

export const ROLES = ["queued", "running", "paused", "input_required", "completed", "failed", "cancelled", "unknown"] as const;
const TERMINAL_ROLES = new Set(["completed", "failed", "cancelled"]);
/** The behaviour settings that name a state, by where they sit under `behaviour`. */
export const STATE_SETTINGS = [
  ["events", "cancel"],
  ["events", "expiry"],
  ["events", "exception"],
  ["events", "restart"],
  ["outcomes", "toolError"],
  ["outcomes", "protocolError"],
  ["outcomes", "unexpected"],
  ["input", "resume"],
  ["input", "status"],
] as const;
const INPUT_VIA = ["side-request", "result-stream", "inline-poll"] as const;

export type Composition = (doc: Doc, r: Rand) => string;

export const FORMAT_COMPOSE: Record<string, Composition> = {
  /** The list method's cursor, next cursor (and at times its items) under names of the spec's own. */
  pagingNames(doc, r) {
    const methods = isObj(doc.methods) ? doc.methods : {};
    // The list method: named by behaviour.listing (its operation implied), or declared with operation list.
    const listing = b(doc).listing;
    const named = isObj(listing) && typeof listing.method === "string" ? listing.method : undefined;
    const list = Object.entries(methods).find(([n, m]) => isObj(m) && (n === named || m.operation === "list"));
    if (!list || !isObj(list[1])) return "pagingNames (no-op)";
    const params = objectType(doc, list[1].params);
    const result = objectType(doc, list[1].result);
    const out: string[] = [];
    const cursor = r.pick(["after", "pageToken"]);
    const next = r.pick(["next", "nextPageToken"]);
    if (params && renameField(params.fields as Obj, "cursor", cursor)) out.push(`cursor → ${cursor}`);
    if (result && renameField(result.fields as Obj, "nextCursor", next)) out.push(`nextCursor → ${next}`);
    if (result && r.int(3) === 0) {
      const items = Object.keys(result.fields as Obj).find((k) => k !== next && k !== "_meta" && !(k in (params?.fields as Obj | undefined ?? {})) && /tasks|jobs|items|batches|reviews/i.test(k));
      if (items && renameField(result.fields as Obj, items, "entries")) out.push(`${items} → entries`);
    } else if (result && r.int(4) === 0) {
      const items = Object.keys(result.fields as Obj).find((k) => /tasks|jobs|items|batches|reviews/i.test(k));
      if (items) {
        (result.fields as Obj)[items] = "string[]";
        out.push(`${items}: string[]`);
      }
    }
    return out.length ? `${list[0]}: ${out.join(", ")}` : "pagingNames (no-op)";
  },
  /** A declared error given a `data` type with required fields. */
  errorData(doc, r) {
    const errors = isObj(doc.errors) ? (doc.errors as Record<string, Obj>) : {};
    const names = Object.keys(errors).filter((n) => errors[n]!.data === undefined);
    if (!names.length) return "errorData (no-op)";
    const e = r.pick(names);
    const idField = String(b(doc).taskIdField ?? "taskId");
    const shape = r.pick([
      { type: "object", fields: { [idField]: "string" } },
      { type: "object", fields: { reason: { type: "string", optional: true }, retryable: { type: "boolean", optional: true } } },
      { type: "object", fields: { [idField]: { type: "string", optional: true } }, open: true },
    ]);
    types(doc).ComposerErrorData = shape as Json;
    errors[e]!.data = "ComposerErrorData";
    return `error ${e} data ${JSON.stringify(shape)}`;
  },
  /** Bounds on the task's retention field, and the retention default and max within or outside them. */
  retentionBounds(doc, r) {
    const found = numericSetting(doc, "retention");
    if (!found) return "retentionBounds (no-op)";
    const { setting: ret, f } = found;
    // A minimum of 0 would let a default of 0 through: a spec that promises tasks gone as soon as they are made.
    const min = r.pick([1000, 5000]);
    const max = r.pick([600_000, 3_600_000, 86_400_000]);
    f.minimum = min;
    f.maximum = max;
    const def = r.pick([min, max, Math.max(min, 60_000), max + 1000, min - 1]);
    const cap = r.pick([max, max * 2, Math.max(min, 120_000)]);
    ret.default = def;
    ret.max = cap;
    return `${ret.field} in [${min}, ${max}], retention.default ${def}, retention.max ${cap}`;
  },
  /** Bounds on the task's poll interval field, and the poll default within or outside them. */
  pollBounds(doc, r) {
    const found = numericSetting(doc, "polling");
    if (!found) return "pollBounds (no-op)";
    const { setting: poll, f } = found;
    f.minimum = 100;
    f.maximum = 10_000;
    const def = r.pick([100, 1000, 10_000, 50, 20_000]);
    poll.default = def;
    return `${poll.field} in [100, 10000], polling.default ${def}`;
  },
  /** Whether the result method replays the error a task's work threw. */
  replaysErrors(doc, r) {
    const res = b(doc).results;
    if (!isObj(res)) return "replaysErrors (no-op)";
    const v = r.int(2) === 0;
    res.replaysErrors = v;
    return `results.replaysErrors = ${v}`;
  },
  /** Status notifications pushed, with one payload or the other. */
  statusPush(doc, r) {
    const s = b(doc).statusNotifications;
    if (!isObj(s)) return "statusPush (no-op)";
    s.delivery = "push";
    delete s.subscribeMethod;
    delete s.subscribeField;
    const payload = r.pick(["task", "detailed-task"]);
    s.payload = payload;
    return `statusNotifications push, payload ${payload}`;
  },
  /** A behaviour setting naming a state of some role (a state of that role added where the spec has none). */
  settingNamesRole(doc, r) {
    const [section, key] = r.pick([...STATE_SETTINGS]);
    const role = r.pick([...ROLES]);
    const beh = b(doc);
    const sec = beh[section];
    if (!isObj(sec)) return `settingNamesRole ${section}.${key} (no-op)`;
    const all = states(doc);
    let name = Object.keys(all).find((n) => all[n]!.role === role);
    if (name === undefined) {
      name = `composed_${role}`;
      all[name] = { role, ...(TERMINAL_ROLES.has(role) ? { terminal: true } : {}), description: `A state of role ${role}.` };
      const initial = Object.keys(all).find((n) => all[n]!.initial === true);
      if (initial !== undefined && Array.isArray(doc.transitions)) doc.transitions.push({ from: initial, to: [name] });
    }
    sec[key] = name;
    return `${section}.${key} = ${name} (${role})`;
  },
  /** How the work's questions reach the requestor. */
  inputVia(doc, r) {
    const input = b(doc).input;
    if (!isObj(input)) return "inputVia (no-op)";
    const via = r.pick([...INPUT_VIA]);
    input.via = via;
    return `input.via = ${via}`;
  },
  /** A constraint on the task id's type: kept by the runtime's ids, or broken by them. */
  idConstraint(doc, r) {
    const fields = taskFields(doc);
    const id = String(b(doc).taskIdField ?? "taskId");
    if (!fields || !(id in fields)) return "idConstraint (no-op)";
    const shape = r.pick<Obj>([
      { type: "string", format: "uuid" },
      { type: "string", pattern: "[0-9a-f-]+" },
      { type: "string", minLength: 36, maxLength: 36 },
      { type: "string", pattern: "job-[0-9]+" },
      { type: "string", maxLength: 12 },
      { type: "string", format: "uri" },
      { type: "integer" },
    ]);
    fields[id] = shape;
    return `task id ${JSON.stringify(shape)}`;
  },
  /** A field the runtime fills typed by the spec: as the runtime fills it, or otherwise. */
  runtimeFieldType(doc, r) {
    const fields = taskFields(doc);
    if (!fields) return "runtimeFieldType (no-op)";
    const beh = b(doc);
    const ret = isObj(beh.retention) ? beh.retention.field : undefined;
    const poll = isObj(beh.polling) ? beh.polling.field : undefined;
    const msg = isObj(beh.outcomes) ? beh.outcomes.statusMessageField : undefined;
    const failure = isObj(beh.outcomes) ? beh.outcomes.failureField : undefined;
    const status = String(beh.statusField ?? "status");
    const choices: Array<[string, Obj]> = [];
    if (status in fields) choices.push([status, { type: "string" }]);
    if (typeof failure === "string" && failure in fields && failure !== msg) choices.push([failure, { type: "integer", optional: true }]);
    if ("createdAt" in fields) choices.push(["createdAt", { type: "string", default: "2026-01-01T00:00:00Z" }]);
    for (const f of ["createdAt", "lastUpdatedAt"]) if (f in fields) choices.push([f, { type: "integer" }], [f, { type: "string", format: "date-time" }]);
    if (typeof ret === "string" && ret in fields) choices.push([ret, { type: "string", nullable: true }]);
    if (typeof poll === "string" && poll in fields) choices.push([poll, { type: "string", optional: true }]);
    if (typeof msg === "string" && msg in fields) choices.push([msg, { type: "integer", optional: true }]);
    if (!choices.length) return "runtimeFieldType (no-op)";
    const [f, t] = r.pick(choices);
    fields[f] = t;
    return `task field ${f}: ${JSON.stringify(t)}`;
  },
  /** A guard on a field of the task's own (boolean, integer or string, with a default), or on a field the runtime manages. */
  ownFieldGuard(doc, r) {
    const fields = taskFields(doc);
    const all = states(doc);
    const ts = Array.isArray(doc.transitions) ? (doc.transitions as Obj[]) : [];
    if (!fields || !ts.length) return "ownFieldGuard (no-op)";
    const kind = r.pick(["boolean", "integer", "string", "managed"] as const);
    const guards = isObj(doc.guards) ? doc.guards : (doc.guards = {});
    let guard: Obj;
    // Each guard holds on the field's default (no tool of the demo sets it): a guard that never held would keep
    // every task in its state for ever, which the spec would then promise.
    if (kind === "boolean") {
      const v = r.int(2) === 0;
      fields.composerFlag = { type: "boolean", default: v };
      guard = { field: "composerFlag", type: "boolean", ...(r.int(2) === 0 ? { equals: v } : { notEquals: !v }) };
    } else if (kind === "integer") {
      fields.composerCount = { type: "integer", default: 2 };
      guard = { field: "composerCount", type: "integer", ...r.pick<Obj>([{ atLeast: 1 }, { atMost: 5 }, { equals: 2 }, { notEquals: 0 }]) };
    } else if (kind === "string") {
      fields.composerLabel = { type: "string", default: "ready" };
      guard = { field: "composerLabel", type: "string", ...r.pick<Obj>([{ equals: "ready" }, { notEquals: "" }]) };
    } else {
      guard = { field: r.pick(["createdAt", String(b(doc).statusField ?? "status")]), type: "string", notEquals: "" };
    }
    guards.composerOwn = { ...guard, description: "A guard on the task's own field." };
    const edges = ts.filter((t) => t.guard === undefined);
    if (!edges.length) return "ownFieldGuard (no-op)";
    const t = r.pick(edges);
    t.guard = "composerOwn";
    const to = Array.isArray(t.to) ? t.to.map(String) : [String(t.to)];
    return `guard ${JSON.stringify(guard)} on ${JSON.stringify(t.from)} → ${to.join("|")} (${to.map((s) => all[s]?.role).join("|")})`;
  },
};

/** The combinations of the matrix a setting naming a state of a role is (the names spec/format-coverage.yaml gives). */
function roleCombinations(): string[] {
  const out: string[] = [];
  for (const [section, key] of STATE_SETTINGS)
    for (const role of ROLES) {
      const base = `behaviour.${section}.${key} names a state of role ${role}`;
      if (section === "input" && key === "status") for (const via of INPUT_VIA) out.push(`${base}, input via ${via}`);
      else out.push(base);
    }
  return out;
}

/**
 * The rows (paths) and combinations of the matrix each draw kind varies. A kind of spec-composer.ts or
 * spec-mutants.ts (SEMANTIC) is listed here too.
 */
export const VARIES: Record<string, readonly string[]> = {
  pagingNames: ["methods.*.params", "methods.*.result", "behaviour.listing.method", "the list result holding its tasks under another name", "the list result's tasks typed other than a list of tasks (e.g. string[])"],
  pollBounds: ["behaviour.polling.default", "the poll default outside the poll field's minimum or maximum"],
  errorData: ["errors.*.data", "<type>.open", "<type>.optional"],
  retentionBounds: [
    "behaviour.retention.default",
    "behaviour.retention.max",
    "<type>.minimum",
    "<type>.maximum",
    "the retention default outside the retention field's minimum or maximum",
    "the retention max above the retention field's maximum",
  ],
  replaysErrors: ["behaviour.results.replaysErrors"],
  statusPush: [
    "behaviour.statusNotifications.delivery",
    "behaviour.statusNotifications.delivery=push",
    "behaviour.statusNotifications.payload",
    "behaviour.statusNotifications.payload=task",
    "behaviour.statusNotifications.payload=detailed-task",
    "statusNotifications delivery push under lifecycle initialize",
  ],
  settingNamesRole: [
    ...STATE_SETTINGS.map(([s, k]) => `behaviour.${s}.${k}`),
    ...ROLES.map((r) => `states.*.role=${r}`),
    ...roleCombinations(),
  ],
  inputVia: [
    "behaviour.input.via",
    ...INPUT_VIA.map((v) => `behaviour.input.via=${v}`),
    "input via inline-poll under lifecycle initialize, results mode inline",
    "input via inline-poll under lifecycle initialize, results mode block-until-terminal or error-until-completed",
    "input via inline-poll under lifecycle per-request, results mode inline",
    "input via inline-poll under lifecycle per-request, results mode block-until-terminal or error-until-completed",
    "input via side-request under lifecycle initialize",
    "input via side-request under lifecycle per-request",
    "input via result-stream under lifecycle initialize",
    "input via result-stream under lifecycle per-request",
  ],
  idConstraint: [
    "behaviour.taskIdField",
    "<type>.format",
    "<type>.format=uuid",
    "<type>.format=uri",
    "<type>.pattern",
    "<type>.minLength",
    "<type>.maxLength",
    "the task id typed other than a string (e.g. integer)",
    "the task id a string with a pattern the generated UUIDs break",
    "the task id a string with a format other than uuid, or a length limit a UUID breaks",
    "the task id a string of format uuid",
  ],
  runtimeFieldType: [
    "<type>.format=date-time",
    "<type>.nullable",
    "<type>.type=integer",
    "createdAt or lastUpdatedAt typed other than a string (e.g. integer)",
    "createdAt or lastUpdatedAt a string of format date-time",
    "the retention field typed other than a number (e.g. string)",
    "the poll interval field typed other than a number",
    "the status message field typed other than a string",
    "the status field typed other than the status type",
    "the failure field typed against its failureShape (a message in a number, an error object in a string)",
    "a default on a field the runtime fills, or outside the task type's own fields (the task request, params, other types)",
  ],
  ownFieldGuard: [
    "guards.*.type",
    "guards.*.type=boolean",
    "guards.*.type=integer",
    "guards.*.type=string",
    "guards.*.equals",
    "guards.*.notEquals",
    "guards.*.atLeast",
    "guards.*.atMost",
    "guards.*.field",
    "transitions[].guard",
    "<type>.default",
    "<type>.type=boolean",
    "a guard on a boolean field of the task's own (guards.*.type boolean)",
    "a guard on a field the runtime never gives a guard (a managed field, or none of the task's)",
  ],
  // spec-composer.ts
  stateOfSameRole: ["states", "states.*", "states.*.role", "states.*.terminal", "transitions", "transitions[].from", "transitions[].to"],
  guardEdge: ["guards", "guards.*", "guards.*.description", "a guard on pendingInputs"],
  operationInto: ["methods.*.operation", "methods.*.operation=transition", "methods.*.to", "methods.*.kind=request", "methods.*.from=client"],
  renameTaskField: ["behaviour.retention.field", "behaviour.polling.field"],
  extraRequiredField: ["<type>.type=string"],
  renameMetaKeys: ["meta.*.key"],
  renameCapability: ["behaviour.capabilities.server.path"],
  ownErrorCodes: ["errors.*.code"],
  // spec-mutants.ts (SEMANTIC)
  renameState: ["statusType", "behaviour.cancellation.deletableStatuses"],
  renameMethod: ["methods", "methods.*", "behaviour.cancellation.method", "behaviour.results.method"],
  renameError: ["errors", "errors.*", "methods.*.errors", "behaviour.notFoundError"],
  errorCode: ["errors.*.code"],
  errorMessage: ["errors.*.message"],
  outcome: ["behaviour.outcomes.toolError", "behaviour.outcomes.protocolError", "behaviour.outcomes.unexpected"],
  cancelTerminal: ["behaviour.cancellation.terminal", "behaviour.cancellation.terminal=ack", "behaviour.cancellation.terminal=error", "behaviour.cancellation.terminal=ignore"],
  pageSize: ["behaviour.listing.pageSize"],
};

/**
 * Rows no draw kind varies, by prefix, and why. "bases" rows are set one way or another by the base specs
 * (the built-in specs and test/fixtures/specs/*.yaml) the composer starts from, not varied by a draw.
 */
export const UNVARIED: ReadonlyArray<{ prefix: string; why: string }> = [
  { prefix: "$schema", why: "names the JSON Schema for editors; the compiler reads no part of it" },
  { prefix: "spec", why: "the spec's name: it names generated files and nothing on the wire" },
  { prefix: "description", why: "documentation, copied into doc comments: nothing on the wire depends on it" },
  { prefix: "protocol.name", why: "documentation" },
  { prefix: "protocol.revision", why: "documentation" },
  { prefix: "protocol.source", why: "documentation" },
  { prefix: "protocol.status", why: "documentation" },
  { prefix: "examples", why: "examples are checked by validate against their types and served by nothing" },
  { prefix: "<type>.description", why: "documentation" },
  { prefix: "<type>.deprecated", why: "a doc comment (@deprecated): nothing on the wire depends on it" },
  { prefix: "states.*.description", why: "documentation" },
  { prefix: "transitions[].description", why: "documentation" },
  { prefix: "meta.*.description", why: "documentation" },
  { prefix: "methods.*.description", why: "documentation" },
  { prefix: "methods.*.name", why: "names generated symbols only" },
  { prefix: "errors.*.description", why: "documentation" },
  { prefix: "guards.*.description", why: "documentation" },
  { prefix: "statusNotifications delivery subscription under lifecycle per-request", why: "bases: ext-tasks-2026-07-28 is the base that subscribes; statusPush turns subscriptions into pushes, not the other way" },
  { prefix: "statusNotifications delivery subscription under lifecycle initialize", why: "not drawn: a subscription needs a subscribe method the initialize bases do not declare; refused by validate where it is written (its code in the matrix)" },
  { prefix: "a _meta entry a behaviour places on messages its `on` leaves out (relatedTask results, requests, notifications; the creation meta on requests)", why: "not drawn: refused by validate (its code in the matrix)" },
  { prefix: "creation via client-capability with capabilities.client false", why: "not drawn: refused by validate (its code in the matrix)" },
  { prefix: "creation.capability other than the last segment of capabilities.client.path", why: "not drawn: refused by validate (its code in the matrix)" },
  { prefix: "creation via client-capability under lifecycle initialize", why: "not drawn: refused by validate (its code in the matrix)" },
  { prefix: "a capability value that does not fit its declared type", why: "not drawn: refused by validate (its code in the matrix)" },
  { prefix: "relatedTask.onInlineResult true where results are inlined (results mode inline, or detailed-task status notifications)", why: "not drawn by itself: statusPush draws detailed-task payloads on bases that set onInlineResult" },
  { prefix: "<type>", why: "bases: the type language is varied by the base specs' own types and by the syntactic mutations of spec-mutants.ts (test/spec-fuzz.test.ts), which validate or are refused, not composed into served specs" },
  { prefix: "types", why: "bases: every base declares its own types; the kinds above vary the fields the runtime reads" },
  { prefix: "protocol", why: "bases: the lifecycle and protocol version are each base's (initialize: sep-1686-draft, mcp-2025-11-25, the fixtures; per-request: ext-tasks-2026-07-28)" },
  { prefix: "states.*.initial", why: "bases: a second initial state is refused (MTG040); the initial state is each base's" },
  { prefix: "meta", why: "bases: the meta entries are each base's; renameMetaKeys varies their keys" },
  { prefix: "methods", why: "bases: the methods are each base's; renameMethod, operationInto and pagingNames vary them" },
  { prefix: "errors.*.context", why: "bases: placeholders are each base's (batches.yaml fills {state}); errorMessage varies the message around them" },
  { prefix: "errors.*.http", why: "bases: relay-status.yaml and ext-tasks-2026-07-28 set it" },
  { prefix: "behaviour", why: "bases: set one way or another by the base specs; not varied by a draw yet" },
];

/** Whether a row (a path or a combination's name) has a draw kind, or a stated reason for none. */
export function composerCoverage(row: string, kinds: readonly string[]): { kind?: string; why?: string } {
  const kind = kinds.find((k) => (VARIES[k] ?? []).includes(row));
  if (kind !== undefined) return { kind };
  const reason = UNVARIED.find((u) => row === u.prefix || row.startsWith(`${u.prefix}.`) || row.startsWith(`${u.prefix}[`) || row.startsWith(`${u.prefix}=`));
  return reason === undefined ? {} : { why: reason.why };
}
