/**
 * `mcp-task-gen diff`: what changed between two specs, computed on their IRs
 * (never on the YAML text), each change classified breaking or compatible for a
 * client and for a server, with a one-line migration hint.
 *
 * Pure: `diffSpecs(oldIR, newIR)` returns a `Diff`; `renderDiffMarkdown` and
 * `renderDiffJson` turn it into text; `diffFails` applies `--fail-on`.
 *
 * ## What "breaking" means
 *
 * A change is **breaking for a side** (client or server) when an implementation of
 * that side written against the old spec must change to conform to the new one;
 * left alone, it fails against a peer that follows the new spec. **Compatible**:
 * it keeps working unchanged, and adopting the change is optional. Descriptions,
 * examples and the spec's own metadata are not compared.
 *
 * ## Producers, consumers and sides
 *
 * Every rule in `RULES` says what a change does to the two parties of the thing it
 * touches, the *producer* and the *consumer*. Who they are depends on the rule's
 * `roles`:
 *
 * | roles   | producer                                   | consumer                         |
 * |---------|--------------------------------------------|----------------------------------|
 * | `data`  | the side that sends the value              | the side that reads it           |
 * | `call`  | the side that sends the method             | the side that handles it         |
 * | `error` | the side that answers with the error       | the side that receives it        |
 * | `task`  | the task receiver (runs tasks, reports status) | the requestor                |
 *
 * Each change carries the `directions` in which its producer → consumer relation
 * holds, worked out from both IRs (their union): method `from`; where a type, meta
 * key or error is used (followed through references); and
 * `behaviour.creation.requests` for task roles. `client-to-server` means the client
 * is the producer. A side's impact is the worst over the directions it takes part
 * in; with no direction known, both are assumed. So "a new required field in a
 * request's params" (rule `field.added.required`: producer breaking, consumer
 * compatible) is breaking for clients and compatible for servers when clients send
 * that request, and breaking for both when either side may send it.
 *
 * ## The JSON shape (`--json`, format `mcp-task-gen.diff/1`)
 *
 * ```
 * {
 *   "format": "mcp-task-gen.diff/1",
 *   "old": { "name", "protocol", "revision", "protocolVersion"?, "status"? },
 *   "new": { ...same... },
 *   "summary": {
 *     "changes": number,
 *     "breaking": { "client": number, "server": number, "any": number },
 *     "sections": { "<section>": { "changes", "breakingForClient", "breakingForServer" }, ... }
 *   },
 *   "changes": [{
 *     "section":  one of SECTIONS,
 *     "rule":     a key of RULES, e.g. "field.removed.required",
 *     "path":     a readable path, e.g. "types.Task.ttl", "methods.tasks/get", "behaviour.results.mode",
 *     "subject":  the named thing it belongs to (type, method, error, meta entry, state,
 *                 "from → to", guard, or the behaviour group such as "results"),
 *     "summary":  one line, Markdown inline code allowed,
 *     "before"?:  JSON: the old value (a type rendered as text, a behaviour value as data),
 *     "after"?:   JSON: the new value; absent for additions (before) and removals (after),
 *     "client":   "breaking" | "compatible",
 *     "server":   "breaking" | "compatible",
 *     "directions": ["client-to-server" | "server-to-client", ...]   (producer → consumer),
 *     "priority": 1..9 (1 = read first),
 *     "hint":     one line: what to do
 *   }, ...]
 * }
 * ```
 * Sections always appear in `SECTIONS` order; changes are ordered by section, then
 * in the order of the specs' declarations. Fields are only ever added to this shape;
 * a change of meaning bumps the format.
 */
import { editDistance } from "./format.js";
import { collectRefs, type IR, type IRError, type IRField, type IRMeta, type IRMethod, type IRState, type IRType } from "./ir.js";
import { parseShorthand } from "./spec-helpers.js";

export const DIFF_FORMAT = "mcp-task-gen.diff/1";

export type Impact = "breaking" | "compatible";
export type Side = "client" | "server";
export type Direction = "client-to-server" | "server-to-client";
export type Roles = "data" | "call" | "error" | "task";
export type FailOn = "breaking" | "any" | "none";
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Sections, in the order a migration guide reads them. */
export const SECTIONS = ["methods", "behaviour", "states", "transitions", "guards", "errors", "meta", "types", "fields"] as const;
export type Section = (typeof SECTIONS)[number];

export const SECTION_TITLES: Record<Section, string> = {
  methods: "Methods",
  behaviour: "Behaviour",
  states: "States",
  transitions: "Transitions",
  guards: "Guards",
  errors: "Errors",
  meta: "Meta keys",
  types: "Types",
  fields: "Fields",
};

// ---------------------------------------------------------------------------
// The classification rules: one table
// ---------------------------------------------------------------------------

const B: Impact = "breaking";
const C: Impact = "compatible";

interface Rule {
  roles: Roles;
  /** The impact on the producer, or "computed" (see `what`). */
  producer: Impact | "computed";
  consumer: Impact | "computed";
  /** 1 = read first … 9 = cosmetic. Orders the "most important" list and each section. */
  priority: number;
  /** What the rule covers and why it is classified so. */
  what: string;
}

/**
 * Every classification the diff makes. `producer`/`consumer` are mapped to client
 * and server through the change's directions (see the module comment). Behaviour
 * paths are mapped to these rules by `BEHAVIOUR_RULES` below.
 */
export const RULES = {
  // --- methods (call: producer = sender, consumer = handler) -------------------
  "method.added": { roles: "call", producer: C, consumer: B, priority: 2, what: "a new request: handlers must implement it to conform; senders may use it" },
  "method.removed": { roles: "call", producer: B, consumer: C, priority: 1, what: "a request is gone: senders that call it get an error; handlers may drop it" },
  "method.kind": { roles: "call", producer: B, consumer: B, priority: 1, what: "a request became a notification or the reverse" },
  "method.direction": { roles: "call", producer: "computed", consumer: "computed", priority: 3, what: "who sends it changed: breaking for a side that may no longer send a request, or that must now handle one" },
  "method.name": { roles: "call", producer: C, consumer: C, priority: 9, what: "the generated TypeScript names change; the wire does not" },
  "method.operation": { roles: "call", producer: B, consumer: B, priority: 2, what: "what a request does to tasks changed (its operation, or the state a transition leads to): both sides must follow" },
  "notification.added": { roles: "call", producer: C, consumer: C, priority: 6, what: "a new notification: optional to send, and unknown notifications are ignored" },
  "notification.removed": { roles: "call", producer: C, consumer: B, priority: 3, what: "a notification is no longer sent: receivers waiting for it must stop" },
  "method.params.added": { roles: "data", producer: B, consumer: C, priority: 4, what: "a method now takes params: senders must send them" },
  "method.params.removed": { roles: "data", producer: C, consumer: B, priority: 4, what: "a method no longer takes params: handlers must not need them" },
  "method.result.added": { roles: "data", producer: B, consumer: C, priority: 4, what: "a request now has a result: handlers must return it" },
  "method.result.removed": { roles: "data", producer: C, consumer: B, priority: 4, what: "a request no longer has a result: senders must not need it" },
  "method.error.added": { roles: "error", producer: C, consumer: C, priority: 7, what: "a method may answer one more error; generic error handling covers it" },
  "method.error.removed": { roles: "error", producer: C, consumer: C, priority: 8, what: "a method no longer answers an error; handling it is dead code" },

  // --- types and fields (data: producer = sender of the value, consumer = reader) ---
  "type.added": { roles: "data", producer: C, consumer: C, priority: 8, what: "a new type; it matters where a method, field or behaviour uses it" },
  "type.removed": { roles: "data", producer: B, consumer: B, priority: 5, what: "a type is gone: code that builds or reads values of it must change" },
  "field.added.required": { roles: "data", producer: B, consumer: C, priority: 4, what: "senders must send the new field; readers may use it" },
  "field.added.optional": { roles: "data", producer: C, consumer: C, priority: 7, what: "a new optional field: readers already ignore unknown keys" },
  "field.removed.required": { roles: "data", producer: C, consumer: B, priority: 4, what: "readers relied on the field being there; extra keys from old senders are ignored" },
  "field.removed.optional": { roles: "data", producer: C, consumer: C, priority: 6, what: "readers already handle its absence" },
  "field.renamed": { roles: "data", producer: "computed", consumer: "computed", priority: 4, what: "a field removed and a similarly named one added in the same object; classified as the worse of that removal and that addition" },
  "field.required": { roles: "data", producer: B, consumer: C, priority: 4, what: "an optional field became required: senders must always send it" },
  "field.optional": { roles: "data", producer: C, consumer: B, priority: 5, what: "a required field became optional: readers must handle its absence" },
  "field.deprecated": { roles: "data", producer: C, consumer: C, priority: 8, what: "deprecation (or its end) is advice, not a wire change" },
  "value.nullable": { roles: "data", producer: C, consumer: B, priority: 5, what: "a value may now be null: readers must handle null" },
  "value.not-nullable": { roles: "data", producer: B, consumer: C, priority: 5, what: "a value may no longer be null: senders must stop sending null" },
  "value.widened": { roles: "data", producer: C, consumer: B, priority: 5, what: "a value accepts more (integer → number, new enum values, looser constraints): readers must accept the new values" },
  "value.narrowed": { roles: "data", producer: B, consumer: C, priority: 5, what: "a value accepts less (number → integer, fewer enum values, tighter constraints): senders must send only what is still valid" },
  "value.changed": { roles: "data", producer: B, consumer: B, priority: 4, what: "a value's type changed incompatibly: both sides must change" },
  "value.renamed": { roles: "data", producer: C, consumer: C, priority: 8, what: "now refers to a differently named type of the same shape: generated names change, the wire does not" },
  "variant.added": { roles: "data", producer: C, consumer: B, priority: 5, what: "a union gains a variant: readers must handle it" },
  "variant.removed": { roles: "data", producer: B, consumer: C, priority: 5, what: "a union loses a variant: senders must stop sending it" },
  "object.strict": { roles: "data", producer: B, consumer: C, priority: 6, what: "undeclared keys are now rejected: senders must not send any" },
  "object.not-strict": { roles: "data", producer: C, consumer: B, priority: 6, what: "undeclared keys are now allowed: readers must accept them" },
  "object.open": { roles: "data", producer: C, consumer: C, priority: 9, what: "only the generated TypeScript index signature changes; extra keys are always kept on the wire" },

  // --- errors (error: producer = the answering side, consumer = the receiving side) ---
  "error.added": { roles: "error", producer: C, consumer: C, priority: 7, what: "a new error; generic JSON-RPC error handling covers it" },
  "error.removed": { roles: "error", producer: C, consumer: C, priority: 7, what: "an error is no longer part of the spec; code matching it is dead (what replaces it is reported where it changed)" },
  "error.code": { roles: "error", producer: B, consumer: B, priority: 2, what: "answerers must send the new code; receivers that match on the code break" },
  "error.message": { roles: "error", producer: C, consumer: C, priority: 8, what: "JSON-RPC messages are informative; the code is the contract" },
  "error.http": { roles: "error", producer: B, consumer: C, priority: 6, what: "answerers must use the new HTTP status; the JSON-RPC body still carries the code" },
  "error.context": { roles: "error", producer: C, consumer: C, priority: 9, what: "only the generated error helper's arguments change" },

  // --- meta keys (data) ----------------------------------------------------------
  "meta.added": { roles: "data", producer: C, consumer: C, priority: 7, what: "a new _meta key: optional unless a behaviour requires it (reported there)" },
  "meta.removed": { roles: "data", producer: C, consumer: B, priority: 3, what: "readers relying on the key must stop; extra _meta keys are ignored" },
  "meta.key": { roles: "data", producer: B, consumer: B, priority: 2, what: "the key string changed: both sides must use the new one" },
  "meta.on.added": { roles: "data", producer: C, consumer: C, priority: 8, what: "the key may appear on more kinds of messages" },
  "meta.on.removed": { roles: "data", producer: C, consumer: B, priority: 5, what: "the key no longer appears on some kinds of messages: readers must not expect it there" },

  // --- states, transitions, guards (task: producer = task receiver, consumer = requestor) ---
  "state.added": { roles: "task", producer: C, consumer: B, priority: 2, what: "requestors must handle a status they have never seen; receivers may report it" },
  "state.removed": { roles: "task", producer: B, consumer: C, priority: 2, what: "receivers must stop reporting the status; requestors never see it again" },
  "state.role": { roles: "task", producer: B, consumer: B, priority: 2, what: "a status means something else" },
  "state.initial": { roles: "task", producer: B, consumer: C, priority: 2, what: "receivers must create tasks in another status; requestors already know every status they can see" },
  "state.terminal": { roles: "task", producer: B, consumer: B, priority: 2, what: "a status became terminal or stopped being terminal: when to stop polling changes for both sides" },
  "state.type-name": { roles: "task", producer: C, consumer: C, priority: 9, what: "the generated status type is renamed; the wire does not change" },
  "transition.added": { roles: "task", producer: C, consumer: C, priority: 7, what: "receivers may take a new transition between statuses requestors already know" },
  "transition.removed": { roles: "task", producer: B, consumer: C, priority: 4, what: "receivers must no longer take the transition" },
  "transition.guard.added": { roles: "task", producer: B, consumer: C, priority: 5, what: "receivers must check a condition before the transition" },
  "transition.guard.removed": { roles: "task", producer: C, consumer: C, priority: 7, what: "the transition is no longer conditional" },
  "transition.guard.changed": { roles: "task", producer: B, consumer: C, priority: 5, what: "receivers must check another condition" },
  "guard.added": { roles: "task", producer: C, consumer: C, priority: 8, what: "a new guard; it matters where a transition uses it" },
  "guard.removed": { roles: "task", producer: C, consumer: C, priority: 8, what: "a guard is gone; transitions that used it are reported themselves" },
  "guard.changed": { roles: "task", producer: B, consumer: C, priority: 5, what: "receivers must evaluate the guard differently" },

  // --- behaviour (task); paths are mapped by BEHAVIOUR_RULES ------------------------
  "behaviour.changed": { roles: "task", producer: B, consumer: B, priority: 3, what: "a declared behaviour changed: both sides implement it" },
  "behaviour.added": { roles: "task", producer: B, consumer: C, priority: 3, what: "a feature appears: receivers must provide it; requestors may use it" },
  "behaviour.removed": { roles: "task", producer: C, consumer: B, priority: 3, what: "a feature disappears: requestors relying on it must stop; receivers may drop it" },
  "behaviour.detail": { roles: "task", producer: B, consumer: B, priority: 6, what: "a property that goes with a changed `via` or `mode` next to it" },
  "behaviour.receiver": { roles: "task", producer: B, consumer: C, priority: 4, what: "an obligation of the receiver alone (id generation, binding, durability, retention)" },
  "behaviour.optional": { roles: "task", producer: C, consumer: C, priority: 6, what: "an optional feature: requestors must not rely on it anyway" },
  "behaviour.tuning": { roles: "task", producer: C, consumer: C, priority: 9, what: "a default or limit: a run-time setting, not a wire rule" },
  "behaviour.requests.added": { roles: "task", producer: C, consumer: C, priority: 5, what: "more requests may become tasks: receivers may, requestors may ask" },
  "behaviour.requests.removed": { roles: "task", producer: C, consumer: B, priority: 3, what: "fewer requests may become tasks: requestors that ask for the others lose them" },
  "behaviour.input.added": { roles: "task", producer: C, consumer: B, priority: 4, what: "receivers may ask for a new kind of input: requestors must answer it" },
  "behaviour.input.removed": { roles: "task", producer: B, consumer: C, priority: 5, what: "receivers must no longer ask for that kind of input" },
} as const satisfies Record<string, Rule>;

export type RuleId = keyof typeof RULES;

/**
 * Behaviour paths → rules. The longest matching path wins (a path matches itself
 * and everything below it; `priority` applies to the path itself only); `on`
 * restricts an entry to additions, removals or in-place changes. Unlisted paths:
 * `behaviour.added` (false/absent → value), `behaviour.removed` (value →
 * false/absent), `behaviour.changed` otherwise (priority 2 for a `via`, `mode` or
 * `assignedBy`), and `behaviour.detail` for a property that appears or disappears
 * next to a `via`/`mode`/`assignedBy` that changed too. Lists of requests
 * (`creation.requests.*`, `input.requests`) are compared as sets.
 */
export const BEHAVIOUR_RULES: readonly { path: string; rule: RuleId; on?: "added" | "removed" | "changed"; priority?: number }[] = [
  { path: "behaviour.polling.default", rule: "behaviour.tuning" },
  { path: "behaviour.retention.default", rule: "behaviour.tuning" },
  { path: "behaviour.retention.max", rule: "behaviour.tuning" },
  { path: "behaviour.listing.pageSize", rule: "behaviour.tuning" },
  { path: "behaviour.listing.maxPageSize", rule: "behaviour.tuning" },
  { path: "behaviour.limits", rule: "behaviour.tuning" },
  { path: "behaviour.sessionBinding", rule: "behaviour.receiver" },
  { path: "behaviour.creation.taskId.unguessable", rule: "behaviour.receiver" },
  { path: "behaviour.creation.durableBeforeAck", rule: "behaviour.receiver" },
  { path: "behaviour.creation.progressTokenLifetime", rule: "behaviour.changed" },
  { path: "behaviour.retention.reachableWholeTime", rule: "behaviour.receiver" },
  { path: "behaviour.retention.countedFrom", rule: "behaviour.changed" },
  { path: "behaviour.statusNotifications", rule: "behaviour.optional" },
  { path: "behaviour.unsupportedMethods", rule: "behaviour.optional" },
  { path: "behaviour.capabilities", rule: "behaviour.changed", priority: 3 },
  { path: "behaviour.http", rule: "behaviour.changed", priority: 2 },
  { path: "behaviour.resultType", rule: "behaviour.changed", priority: 2 },
  { path: "behaviour.taskType", rule: "behaviour.changed", priority: 2 },
  { path: "behaviour.relatedTask", rule: "behaviour.removed", on: "removed", priority: 2 },
  { path: "behaviour.relatedTask", rule: "behaviour.changed", on: "added", priority: 2 },
  { path: "behaviour.creation.toolSwitch", rule: "behaviour.changed", priority: 3 },
];

/** Directions for behaviour paths whose producer is a fixed side rather than "the task receiver". */
const BEHAVIOUR_DIRECTIONS: Readonly<Record<string, Dir>> = {
  "behaviour.creation.requests.server": "s2c",
  "behaviour.creation.requests.client": "c2s",
};

// ---------------------------------------------------------------------------
// The Diff
// ---------------------------------------------------------------------------

export interface SpecRef {
  name: string;
  protocol: string;
  revision: string;
  protocolVersion?: string;
  status?: string;
}

export interface Change {
  section: Section;
  rule: RuleId;
  path: string;
  subject: string;
  summary: string;
  before?: Json;
  after?: Json;
  client: Impact;
  server: Impact;
  directions: Direction[];
  priority: number;
  hint: string;
}

export interface SectionCounts {
  changes: number;
  breakingForClient: number;
  breakingForServer: number;
}

export interface Diff {
  format: typeof DIFF_FORMAT;
  old: SpecRef;
  new: SpecRef;
  summary: {
    changes: number;
    breaking: { client: number; server: number; any: number };
    sections: Record<Section, SectionCounts>;
  };
  changes: Change[];
}

export const isBreaking = (c: Change): boolean => c.client === "breaking" || c.server === "breaking";

/** `--fail-on`: breaking (default) fails on a change breaking for either side, any on any change, none never. */
export function diffFails(d: Diff, failOn: FailOn = "breaking"): boolean {
  if (failOn === "none") return false;
  if (failOn === "any") return d.changes.length > 0;
  return d.changes.some(isBreaking);
}

// ---------------------------------------------------------------------------
// Directions: who produces what, from one IR
// ---------------------------------------------------------------------------

type Dir = "c2s" | "s2c";
type Dirs = ReadonlySet<Dir>;
const BOTH: Dirs = new Set<Dir>(["c2s", "s2c"]);
const flip = (d: Iterable<Dir>): Set<Dir> => new Set([...d].map((x) => (x === "c2s" ? "s2c" : "c2s")));
const union = (...ds: (Iterable<Dir> | undefined)[]): Set<Dir> => new Set(ds.flatMap((d) => (d ? [...d] : [])));
const senders = (from: IRMethod["from"]): Set<Dir> => new Set<Dir>(from === "client" ? ["c2s"] : from === "server" ? ["s2c"] : ["c2s", "s2c"]);

interface Usage {
  /** Declared type → directions its values travel in (sender → reader). */
  types: Map<string, Set<Dir>>;
  /** Error → directions it is answered in (answerer → receiver). */
  errors: Map<string, Set<Dir>>;
  /** Meta entry → directions it travels in. */
  meta: Map<string, Set<Dir>>;
  /** Task receiver → requestor. */
  task: Set<Dir>;
}

/** The type named by a behaviour's raw type expression (a shorthand or a ref), if any. */
function typeExprName(t: unknown): string | undefined {
  if (typeof t === "string") return parseShorthand(t)?.base;
  if (t && typeof t === "object" && (t as { type?: unknown }).type === "ref") return (t as { ref: string }).ref;
  return undefined;
}

function usage(ir: IR): Usage {
  const types = new Map<string, Set<Dir>>();
  const errors = new Map<string, Set<Dir>>();
  const meta = new Map<string, Set<Dir>>();
  const add = (m: Map<string, Set<Dir>>, k: string | undefined, d: Iterable<Dir>) => {
    if (k === undefined) return;
    const s = m.get(k) ?? new Set<Dir>();
    for (const x of d) s.add(x);
    m.set(k, s);
  };
  const addType = (t: IRType | undefined, d: Iterable<Dir>) => {
    if (!t) return;
    const refs = new Set<string>();
    collectRefs(t, refs);
    for (const r of refs) add(types, r, d);
  };
  const b = ir.behaviour;
  const cr = b.creation;
  // The requestor sends the task-augmented request: servers receive them when requests.server is non-empty.
  const request = new Set<Dir>([...(cr.requests.server.length ? (["c2s"] as const) : []), ...(cr.requests.client.length ? (["s2c"] as const) : [])]);
  const task = flip(request);
  let requests = new Set<Dir>(request);
  let notifications = new Set<Dir>();
  for (const m of ir.methods) {
    const d = senders(m.from);
    addType(m.params, d);
    addType(m.result, flip(d));
    for (const e of m.errors) add(errors, e, flip(d));
    if (m.kind === "request") requests = union(requests, d);
    else notifications = union(notifications, d);
  }
  for (const me of ir.meta) {
    const d = union(...me.on.map((on) => (on === "request" ? requests : on === "result" ? flip(requests) : notifications)));
    add(meta, me.name, d);
    addType(me.type, d);
  }
  add(types, typeExprName(cr.paramType), request);
  add(types, typeExprName(cr.ack.resultType), flip(request));
  if (b.capabilities.server) add(types, typeExprName(b.capabilities.server.type), ["s2c"]);
  if (b.capabilities.client) add(types, typeExprName(b.capabilities.client.type), ["c2s"]);
  for (const e of [cr.requiredTaskError, cr.taskId.duplicateError, cr.toolSwitch ? cr.toolSwitch.forbiddenError : undefined, cr.toolSwitch ? cr.toolSwitch.requiredError : undefined]) {
    add(errors, e, flip(request));
  }
  if (b.unsupportedMethods) add(errors, b.unsupportedMethods.error, flip(requests));
  for (const e of ir.errors) addType(e.data, errors.get(e.name) ?? BOTH);
  // Follow references until nothing changes.
  const decls = new Map(ir.types.map((t) => [t.name, t]));
  let changed = true;
  while (changed) {
    changed = false;
    for (const [name, d] of [...types]) {
      const decl = decls.get(name);
      if (!decl) continue;
      const refs = new Set<string>();
      collectRefs(decl.type, refs);
      for (const r of refs) {
        const before = types.get(r)?.size ?? 0;
        add(types, r, d);
        if (types.get(r)!.size !== before) changed = true;
      }
    }
  }
  return { types, errors, meta, task };
}

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

const DIRECTION_NAMES: Record<Dir, Direction> = { c2s: "client-to-server", s2c: "server-to-client" };

function sidesOf(rule: RuleId, dirs: Dirs, override?: { producer: Impact; consumer: Impact }) {
  const r = RULES[rule] as Rule;
  const producer = override?.producer ?? (r.producer === "computed" ? B : r.producer);
  const consumer = override?.consumer ?? (r.consumer === "computed" ? B : r.consumer);
  const d = dirs.size ? dirs : BOTH;
  const worst = (xs: Impact[]): Impact => (xs.includes(B) ? B : C);
  const client = worst([...(d.has("c2s") ? [producer] : []), ...(d.has("s2c") ? [consumer] : [])]);
  const server = worst([...(d.has("c2s") ? [consumer] : []), ...(d.has("s2c") ? [producer] : [])]);
  return { client, server };
}

/** Who the producer and consumer are, in words, for hints. */
function who(roles: Roles, dirs: Dirs): { P: string; C: string } {
  const d = dirs.size ? dirs : BOTH;
  if (d.size === 1) return d.has("c2s") ? { P: "clients", C: "servers" } : { P: "servers", C: "clients" };
  return {
    data: { P: "senders", C: "readers" },
    call: { P: "callers", C: "handlers" },
    error: { P: "handlers", C: "callers" },
    task: { P: "task receivers", C: "requestors" },
  }[roles];
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** `a.b`, `a["x.y"]`: a readable path segment. */
const seg = (base: string, name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `${base}.${name}` : `${base}["${name}"]`);

/** A compact, one-line rendering of a type. */
export function typeText(t: IRType, depth = 0): string {
  const n = t.nullable && t.kind !== "null" ? " | null" : "";
  const paren = (s: string, x: IRType) => (x.kind === "union" || (x.nullable && x.kind !== "null") ? `(${s})` : s);
  switch (t.kind) {
    case "string":
      return `string${t.format ? `(${t.format})` : ""}${n}`;
    case "integer":
    case "number":
    case "boolean":
    case "null":
    case "unknown":
      return t.kind + n;
    case "literal":
      return JSON.stringify(t.value) + n;
    case "enum":
      return t.values.map((v) => JSON.stringify(v)).join(" | ") + n;
    case "ref":
      return t.name + n;
    case "array":
      return paren(typeText(t.items, depth + 1), t.items) + "[]" + n;
    case "record":
      return `record<${typeText(t.values, depth + 1)}>${n}`;
    case "union": {
      const parts = t.variants.map((v) => typeText(v, depth + 1));
      const text = parts.join(" | ");
      if (text.length <= 60) return text + n;
      return `union of ${t.variants.length}${t.discriminator ? ` by ${t.discriminator}` : ""}${n}`;
    }
    case "object": {
      if (depth > 1) return `{ … }${n}`;
      const names = t.fields.map((f) => f.name + (f.optional ? "?" : ""));
      const shown = names.slice(0, 6).join(", ") + (names.length > 6 ? `, … ${names.length - 6} more` : "");
      return (names.length ? `{ ${shown} }` : "{}") + n;
    }
  }
}

/** A compact one-line rendering of a JSON value (behaviour values). */
export function brief(v: unknown, max = 90): string {
  const flow = (x: unknown): string => {
    if (x === undefined) return "(none)";
    if (x === null || typeof x !== "object") return typeof x === "string" ? (x === "*" ? "* (any)" : x) : String(x);
    if (Array.isArray(x)) return `[${x.map(flow).join(", ")}]`;
    const entries = Object.entries(x as Record<string, unknown>);
    return entries.length ? `{ ${entries.map(([k, y]) => `${k}: ${flow(y)}`).join(", ")} }` : "{}";
  };
  const s = flow(v);
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

/** Deep equality of plain data, ignoring descriptions. */
function canon(v: unknown): string {
  return JSON.stringify(v, (k, x) => {
    if (k === "description") return undefined;
    if (x && typeof x === "object" && !Array.isArray(x)) {
      return Object.fromEntries(Object.keys(x).sort().map((key) => [key, (x as Record<string, unknown>)[key]]));
    }
    return x;
  });
}
const same = (a: unknown, b: unknown) => canon(a) === canon(b);

const toJson = (v: unknown): Json => JSON.parse(JSON.stringify(v ?? null)) as Json;

// ---------------------------------------------------------------------------
// The diff
// ---------------------------------------------------------------------------

interface Ctx {
  old: IR;
  new: IR;
  ou: Usage;
  nu: Usage;
  out: Change[];
}

function emit(
  ctx: Ctx,
  c: { section: Section; rule: RuleId; path: string; subject: string; summary: string; before?: unknown; after?: unknown; dirs: Dirs; hint: string; priority?: number },
  override?: { producer: Impact; consumer: Impact } | { client: Impact; server: Impact },
) {
  const sides = override && "client" in override ? override : sidesOf(c.rule, c.dirs, override);
  const dirs = c.dirs.size ? c.dirs : BOTH;
  ctx.out.push({
    section: c.section,
    rule: c.rule,
    path: c.path,
    subject: c.subject,
    summary: c.summary,
    ...(c.before === undefined ? {} : { before: toJson(c.before) }),
    ...(c.after === undefined ? {} : { after: toJson(c.after) }),
    client: sides.client,
    server: sides.server,
    directions: (["c2s", "s2c"] as const).filter((d) => dirs.has(d)).map((d) => DIRECTION_NAMES[d]),
    priority: c.priority ?? (RULES[c.rule] as Rule).priority,
    hint: c.hint,
  });
}

/** Where a value comparison happens. */
interface Loc {
  section: Section;
  /** `fields` instead of `section` once inside a field (for declared types). */
  fieldSection: Section;
  subject: string;
  path: string;
  /** What the user reads, e.g. `Task.ttl`. */
  label: string;
  inField: boolean;
  dirs: Dirs;
}

const sectionOf = (l: Loc) => (l.inField ? l.fieldSection : l.section);

export function diffSpecs(oldIR: IR, newIR: IR): Diff {
  const ctx: Ctx = { old: oldIR, new: newIR, ou: usage(oldIR), nu: usage(newIR), out: [] };
  diffMethods(ctx);
  diffBehaviour(ctx, oldIR.behaviour, newIR.behaviour, "behaviour", undefined);
  diffStates(ctx);
  diffErrors(ctx);
  diffMeta(ctx);
  diffTypes(ctx);
  const order = new Map(SECTIONS.map((s, i) => [s, i]));
  const changes = ctx.out
    .map((c, i) => ({ c, i }))
    .sort((a, b) => order.get(a.c.section)! - order.get(b.c.section)! || a.i - b.i)
    .map(({ c }) => c);
  const sections = Object.fromEntries(
    SECTIONS.map((s) => {
      const cs = changes.filter((c) => c.section === s);
      return [s, { changes: cs.length, breakingForClient: cs.filter((c) => c.client === B).length, breakingForServer: cs.filter((c) => c.server === B).length }];
    }),
  ) as Record<Section, SectionCounts>;
  const ref = (ir: IR): SpecRef => ({
    name: ir.spec.name,
    protocol: ir.spec.protocol.name,
    revision: ir.spec.protocol.revision,
    ...(ir.spec.protocol.protocolVersion === undefined ? {} : { protocolVersion: ir.spec.protocol.protocolVersion }),
    ...(ir.spec.protocol.status === undefined ? {} : { status: ir.spec.protocol.status }),
  });
  return {
    format: DIFF_FORMAT,
    old: ref(oldIR),
    new: ref(newIR),
    summary: {
      changes: changes.length,
      breaking: {
        client: changes.filter((c) => c.client === B).length,
        server: changes.filter((c) => c.server === B).length,
        any: changes.filter(isBreaking).length,
      },
      sections,
    },
    changes,
  };
}

// --- methods ------------------------------------------------------------------

function diffMethods(ctx: Ctx) {
  const oldM = new Map(ctx.old.methods.map((m) => [m.method, m]));
  const newM = new Map(ctx.new.methods.map((m) => [m.method, m]));
  const sideName = (from: IRMethod["from"]) => (from === "either" ? "either side" : `${from}s`);
  for (const m of ctx.old.methods) {
    const n = newM.get(m.method);
    const path = `methods.${m.method}`;
    const dirs = senders(m.from);
    const w = who(m.kind === "request" ? "call" : "data", dirs);
    if (!n) {
      const unsupported = ctx.new.behaviour.unsupportedMethods?.methods.includes(m.method);
      const answer = unsupported ? ctx.new.errors.find((e) => e.name === ctx.new.behaviour.unsupportedMethods!.error) : undefined;
      if (m.kind === "request") {
        emit(ctx, {
          section: "methods", rule: "method.removed", path, subject: m.method, dirs,
          summary: `Request \`${m.method}\` removed${answer ? ` (now answered with ${answer.code} "${answer.message}")` : ""}`,
          hint: `${cap(w.P)} must stop calling \`${m.method}\`${replacementHint(ctx, m.method)}; ${w.C} may drop its handler.`,
        });
      } else {
        emit(ctx, {
          section: "methods", rule: "notification.removed", path, subject: m.method, dirs,
          summary: `Notification \`${m.method}\` removed`,
          hint: `${cap(w.C)} must stop waiting for \`${m.method}\`${replacementHint(ctx, m.method)}; ${w.P} stop sending it.`,
        });
      }
      continue;
    }
    if (m.kind !== n.kind) {
      emit(ctx, {
        section: "methods", rule: "method.kind", path, subject: m.method, dirs: union(dirs, senders(n.from)),
        summary: `\`${m.method}\` is now a ${n.kind} (was a ${m.kind})`, before: m.kind, after: n.kind,
        hint: `Re-implement \`${m.method}\` on both sides as a ${n.kind}.`,
      });
    }
    if (m.from !== n.from) {
      const os = senders(m.from);
      const ns = senders(n.from);
      const sends = (s: ReadonlySet<Dir>, side: Side) => s.has(side === "client" ? "c2s" : "s2c");
      const handles = (s: ReadonlySet<Dir>, side: Side) => sends(s, side === "client" ? "server" : "client");
      const impact = (side: Side): Impact =>
        n.kind === "request" && ((sends(os, side) && !sends(ns, side)) || (handles(ns, side) && !handles(os, side))) ? B : C;
      const lost = [...os].filter((d) => !ns.has(d)).map((d) => (d === "c2s" ? "clients" : "servers"));
      const gained = [...ns].filter((d) => !os.has(d)).map((d) => (d === "c2s" ? "clients" : "servers"));
      emit(
        ctx,
        {
          section: "methods", rule: "method.direction", path: `${path}.from`, subject: m.method, dirs: union(os, ns),
          summary: `\`${m.method}\` is now sent by ${sideName(n.from)} (was ${sideName(m.from)})`, before: m.from, after: n.from,
          hint: [
            lost.length ? `${cap(lost.join(" and "))} may no longer send \`${m.method}\`` : "",
            gained.length ? `${gained.join(" and ")} may now send it, so ${gained.map((g) => (g === "clients" ? "servers" : "clients")).join(" and ")} must handle it` : "",
          ]
            .filter(Boolean)
            .join("; ") + ".",
        },
        { client: impact("client"), server: impact("server") },
      );
    }
    if (m.name !== n.name) {
      emit(ctx, {
        section: "methods", rule: "method.name", path: `${path}.name`, subject: m.method, dirs,
        summary: `Generated names of \`${m.method}\`: ${m.name}* → ${n.name}*`, before: m.name, after: n.name,
        hint: `Rename uses of ${m.messageName} and related generated names to ${n.messageName} etc.; the wire does not change.`,
      });
    }
    const op = (x: typeof m) => (x.operation === undefined ? "none" : x.operation === "transition" ? `transition to ${x.to ?? "?"}` : x.operation);
    if (op(m) !== op(n)) {
      emit(ctx, {
        section: "methods", rule: "method.operation", path: `${path}.operation`, subject: m.method, dirs,
        summary: `\`${m.method}\` does another thing: ${op(m)} → ${op(n)}`, before: op(m), after: op(n),
        hint: `Servers answer \`${n.method}\` as the ${op(n)} operation; clients that call it for the ${op(m)} operation must change.`,
      });
    }
    const nd = union(dirs, senders(n.from));
    diffSlot(ctx, m, n, "params", nd);
    diffSlot(ctx, m, n, "result", flip(nd));
    const ed = flip(nd);
    const ew = who("error", ed);
    for (const e of n.errors.filter((x) => !m.errors.includes(x))) {
      const err = ctx.new.errors.find((x) => x.name === e);
      emit(ctx, {
        section: "methods", rule: "method.error.added", path: `${path}.errors.${e}`, subject: m.method, dirs: ed, after: e,
        summary: `\`${m.method}\` may answer \`${e}\`${err ? ` (${err.code})` : ""}`,
        hint: `${cap(ew.C)} may now get \`${e}\` from \`${m.method}\`; handle it like other errors of the method.`,
      });
    }
    for (const e of m.errors.filter((x) => !n.errors.includes(x))) {
      emit(ctx, {
        section: "methods", rule: "method.error.removed", path: `${path}.errors.${e}`, subject: m.method, dirs: ed, before: e,
        summary: `\`${m.method}\` no longer answers \`${e}\``,
        hint: `${cap(ew.P)} stop answering \`${e}\` to \`${m.method}\`; handling it there is dead code.`,
      });
    }
  }
  for (const n of ctx.new.methods) {
    if (oldM.has(n.method)) continue;
    const dirs = senders(n.from);
    const w = who(n.kind === "request" ? "call" : "data", dirs);
    const path = `methods.${n.method}`;
    const replaces = replacedBy(ctx, n.method);
    if (n.kind === "request") {
      emit(ctx, {
        section: "methods", rule: "method.added", path, subject: n.method, dirs,
        summary: `Request \`${n.method}\` added${n.description ? `: ${firstSentence(n.description)}` : ""}`,
        hint: `${cap(w.C)} must implement \`${n.method}\`${replaces ? ` (it takes over from ${replaces})` : ""}; ${w.P} may call it.`,
      });
    } else {
      emit(ctx, {
        section: "methods", rule: "notification.added", path, subject: n.method, dirs,
        summary: `Notification \`${n.method}\` added${n.description ? `: ${firstSentence(n.description)}` : ""}`,
        hint: `${cap(w.P)} may send \`${n.method}\`${replaces ? ` (it takes over from ${replaces})` : ""}; ${w.C} may listen for it.`,
      });
    }
  }
}

function firstSentence(s: string): string {
  const t = s.replace(/\s+/g, " ").trim();
  const m = /^(.*?[.;])(\s|$)/.exec(t);
  const out = (m ? m[1] : t).replace(/[.;]$/, "");
  return out.length > 110 ? out.slice(0, 109) + "…" : out;
}

/**
 * A removed method's successor: a new method declared in the same behaviour role
 * (cancel, result, listing, status push, ack, delete, input update).
 */
const METHOD_ROLES: readonly [string, (b: IR["behaviour"]) => string | false | undefined][] = [
  ["the task acknowledgement", (b) => b.creation.ack.notification],
  ["cancellation", (b) => b.cancellation.method ?? (b.cancellation.via === "cancelled-notification" ? "notifications/cancelled" : undefined)],
  ["deletion", (b) => b.cancellation.deleteMethod],
  ["the result", (b) => (b.results.mode === "inline" ? "tasks/get" : b.results.method)],
  ["listing", (b) => (b.listing ? b.listing.method : undefined)],
  ["status push", (b) => (b.statusNotifications ? b.statusNotifications.method : undefined)],
  ["input", (b) => (b.input ? (b.input.updateMethod ?? (b.input.via === "result-stream" ? b.results.method : undefined)) : undefined)],
];

function replacementHint(ctx: Ctx, method: string): string {
  for (const [role, get] of METHOD_ROLES) {
    if (get(ctx.old.behaviour) !== method) continue;
    const now = get(ctx.new.behaviour);
    if (now && now !== method) return ` (${role} now goes through \`${now}\`)`;
    if (!now) return ` (${role} has no method any more)`;
  }
  return "";
}

function replacedBy(ctx: Ctx, method: string): string | undefined {
  for (const [role, get] of METHOD_ROLES) {
    if (get(ctx.new.behaviour) !== method) continue;
    const was = get(ctx.old.behaviour);
    if (was && was !== method) return `\`${was}\` for ${role}`;
  }
  return undefined;
}

function diffSlot(ctx: Ctx, m: IRMethod, n: IRMethod, slot: "params" | "result", dirs: Dirs) {
  const a = m[slot];
  const b = n[slot];
  const path = `methods.${m.method}.${slot}`;
  const w = who("data", dirs);
  if (!a && !b) return;
  if (!a || !b) {
    const rule: RuleId = `method.${slot}.${a ? "removed" : "added"}`;
    emit(ctx, {
      section: "methods", rule, path, subject: m.method, dirs,
      summary: `\`${m.method}\` ${a ? "no longer has" : "now has"} ${slot} (${typeText((a ?? b)!)})`,
      ...(a ? { before: typeText(a) } : { after: typeText(b!) }),
      hint: a ? `${cap(w.C)} must not need the ${slot} of \`${m.method}\` any more.` : `${cap(w.P)} must send the ${slot} of \`${m.method}\`: ${typeText(b!)}.`,
    });
    return;
  }
  // Named types are compared once, under Types; only inline shapes and changed names are compared here.
  if (a.kind === "ref" && b.kind === "ref" && a.name === b.name && a.nullable === b.nullable) return;
  const label = `${m.method} ${slot}`;
  compareValue(ctx, a, b, { section: "methods", fieldSection: "methods", subject: m.method, path, label, inField: false, dirs });
}

// --- values: types, fields, params, results, error data, meta types -------------

/** Deep equality of two types resolved through their own IRs (same shape, whatever the names). */
function sameShape(ctx: Ctx, a: IRType, b: IRType, seen = new Set<string>()): boolean {
  const resolve = (ir: IR, t: IRType): IRType => {
    if (t.kind !== "ref") return t;
    const d = ir.types.find((x) => x.name === t.name);
    return d ? { ...d.type, nullable: d.type.nullable || t.nullable } : t;
  };
  if (a.kind === "ref" && b.kind === "ref") {
    const key = `${a.name}|${b.name}`;
    if (seen.has(key)) return true;
    seen = new Set(seen).add(key);
  }
  const x = resolve(ctx.old, a);
  const y = resolve(ctx.new, b);
  if (x.kind === "ref" || y.kind === "ref") return x.kind === y.kind && (x as { name: string }).name === (y as { name: string }).name && x.nullable === y.nullable;
  if (x.kind !== y.kind || x.nullable !== y.nullable) return false;
  switch (x.kind) {
    case "object": {
      const yf = (y as typeof x).fields;
      return x.fields.length === yf.length && x.fields.every((f) => {
        const g = yf.find((h) => h.name === f.name);
        return g !== undefined && g.optional === f.optional && sameShape(ctx, f.type, g.type, seen);
      }) && x.strict === (y as typeof x).strict;
    }
    case "array":
      return sameShape(ctx, x.items, (y as typeof x).items, seen) && x.minItems === (y as typeof x).minItems && x.maxItems === (y as typeof x).maxItems;
    case "record":
      return sameShape(ctx, x.values, (y as typeof x).values, seen);
    case "union": {
      const yv = (y as typeof x).variants;
      return x.variants.length === yv.length && x.variants.every((v, i) => sameShape(ctx, v, yv[i], seen));
    }
    default:
      return same(x, y);
  }
}

type Variance = "same" | "widened" | "narrowed" | "changed";
const combine = (a: Variance, b: Variance): Variance => (a === "same" ? b : b === "same" ? a : a === b ? a : "changed");

/** Variance of optional numeric bounds: a lower bound that rises (or appears) narrows. */
function bound(a: number | undefined, b: number | undefined, lower: boolean): Variance {
  if (a === b) return "same";
  if (a === undefined) return "narrowed";
  if (b === undefined) return "widened";
  return (lower ? b > a : b < a) ? "narrowed" : "widened";
}
function present<T>(a: T | undefined, b: T | undefined): Variance {
  if (a === b) return "same";
  if (a === undefined) return "narrowed";
  if (b === undefined) return "widened";
  return "changed";
}

/** How b relates to a when their kinds differ. */
function kindVariance(a: IRType, b: IRType): Variance {
  const bare = (t: IRType) => ({ ...t, nullable: false, description: undefined });
  if (a.kind === "integer" && b.kind === "number") return "widened";
  if (a.kind === "number" && b.kind === "integer") return "narrowed";
  if (b.kind === "unknown") return "widened";
  if (a.kind === "unknown") return "narrowed";
  if (b.kind === "union" && b.variants.some((v) => same(bare(v), bare(a)))) return "widened";
  if (a.kind === "union" && a.variants.some((v) => same(bare(v), bare(b)))) return "narrowed";
  const prim = (t: IRType) => (t.kind === "literal" ? (typeof t.value === "string" ? "string" : typeof t.value === "number" ? "number" : "boolean") : t.kind === "enum" ? "string" : t.kind);
  if (a.kind === "literal" && b.kind === "enum") return b.values.includes(String(a.value)) ? "widened" : "changed";
  if (a.kind === "enum" && b.kind === "literal") return a.values.includes(String(b.value)) ? "narrowed" : "changed";
  if ((a.kind === "literal" || a.kind === "enum") && prim(a) === b.kind) return "widened";
  if ((b.kind === "literal" || b.kind === "enum") && prim(b) === a.kind) return "narrowed";
  if (a.kind === "literal" && typeof a.value === "number" && b.kind === "number") return "widened";
  return "changed";
}

function compareValue(ctx: Ctx, a: IRType, b: IRType, loc: Loc) {
  if (same(a, b)) return;
  const w = who("data", loc.dirs);
  const section = sectionOf(loc);
  const base = { section, subject: loc.subject, path: loc.path, dirs: loc.dirs };
  if (a.nullable !== b.nullable && a.kind !== "null" && b.kind !== "null") {
    emit(ctx, {
      ...base, path: `${loc.path}.nullable`, rule: b.nullable ? "value.nullable" : "value.not-nullable", before: typeText(a), after: typeText(b),
      summary: `\`${loc.label}\` ${b.nullable ? "may now be null" : "may no longer be null"}`,
      hint: b.nullable ? `${cap(w.C)} must handle null in \`${loc.label}\`.` : `${cap(w.P)} must stop sending null in \`${loc.label}\`.`,
    });
    a = { ...a, nullable: false };
    b = { ...b, nullable: false };
    if (same(a, b)) return;
  }
  const variance = (v: Variance, what: string) => {
    if (v === "same") return;
    const rule: RuleId = v === "widened" ? "value.widened" : v === "narrowed" ? "value.narrowed" : "value.changed";
    emit(ctx, {
      ...base, rule, before: typeText(a), after: typeText(b),
      summary: `\`${loc.label}\` ${what}: ${typeText(a)} → ${typeText(b)}`,
      hint:
        v === "widened"
          ? `${cap(w.C)} must accept ${typeText(b)} in \`${loc.label}\`.`
          : v === "narrowed"
            ? `${cap(w.P)} must send only ${typeText(b)} in \`${loc.label}\`.`
            : `Both sides must switch \`${loc.label}\` to ${typeText(b)}.`,
    });
  };
  if (a.kind === "ref" || b.kind === "ref") {
    if (a.kind === b.kind && (a as { name: string }).name === (b as { name: string }).name) return;
    if (sameShape(ctx, a, b)) {
      emit(ctx, {
        ...base, rule: "value.renamed", before: typeText(a), after: typeText(b),
        summary: `\`${loc.label}\` now refers to ${typeText(b)} (was ${typeText(a)}, same shape)`,
        hint: `Use the generated type ${typeText(b)} instead of ${typeText(a)}; the wire does not change.`,
      });
      return;
    }
    if (a.kind === b.kind) return variance("changed", "changed type");
  }
  if (a.kind === "object" && b.kind === "union" && b.discriminator) {
    const keys = b.variants.map((v) => (v.kind === "object" ? v.fields.find((f) => f.name === b.discriminator) : undefined)).map((f) => (f && f.type.kind === "literal" ? String(f.type.value) : "?"));
    emit(ctx, {
      ...base, rule: "value.changed", before: typeText(a), after: typeText(b),
      summary: `\`${loc.label}\` is now one of ${b.variants.length} shapes told apart by \`${b.discriminator}\` (${keys.join(", ")}); was one object`,
      hint: `${cap(w.C)} must branch on \`${b.discriminator}\` to read the fields of each shape; ${w.P} must send the shape that matches it.`,
    });
    return;
  }
  if (a.kind !== b.kind) {
    const v = kindVariance(a, b);
    return variance(v, v === "widened" ? "accepts more" : v === "narrowed" ? "accepts less" : "changed type");
  }
  switch (a.kind) {
    case "object":
      return compareObject(ctx, a, b as typeof a, loc);
    case "array": {
      variance(combine(bound(a.minItems, (b as typeof a).minItems, true), bound(a.maxItems, (b as typeof a).maxItems, false)), "changed its length bounds");
      return compareValue(ctx, a.items, (b as typeof a).items, { ...loc, path: `${loc.path}[]`, label: `${loc.label}[]` });
    }
    case "record":
      return compareValue(ctx, a.values, (b as typeof a).values, { ...loc, path: `${loc.path}{}`, label: `${loc.label}{}` });
    case "union":
      return compareUnion(ctx, a, b as typeof a, loc);
    case "enum": {
      const added = (b as typeof a).values.filter((v) => !a.values.includes(v));
      const removed = a.values.filter((v) => !(b as typeof a).values.includes(v));
      const v = combine(added.length ? "widened" : "same", removed.length ? "narrowed" : "same");
      const parts = [added.length ? `adds ${added.map((x) => `"${x}"`).join(", ")}` : "", removed.length ? `drops ${removed.map((x) => `"${x}"`).join(", ")}` : ""];
      return variance(v, parts.filter(Boolean).join(" and "));
    }
    case "literal":
      return variance("changed", "changed value");
    case "string": {
      const y = b as typeof a;
      return variance(
        [present(a.format, y.format), bound(a.minLength, y.minLength, true), bound(a.maxLength, y.maxLength, false), present(a.pattern, y.pattern)].reduce(combine, "same"),
        "changed its constraints",
      );
    }
    case "integer":
    case "number": {
      const y = b as typeof a;
      return variance(combine(bound(a.minimum, y.minimum, true), bound(a.maximum, y.maximum, false)), "changed its bounds");
    }
    default:
      return;
  }
}

/** Two names that read like one renamed field: one extends the other, or they differ by one letter. */
function similarNames(a: string, b: string): boolean {
  if (a === b) return false;
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  if (Math.min(x.length, y.length) >= 3 && (x.startsWith(y) || y.startsWith(x))) return true;
  return Math.min(x.length, y.length) >= 4 && editDistance(x, y) <= 1;
}

function compareObject(ctx: Ctx, a: Extract<IRType, { kind: "object" }>, b: Extract<IRType, { kind: "object" }>, loc: Loc) {
  const w = who("data", loc.dirs);
  const newNames = new Set(b.fields.map((f) => f.name));
  const oldNames = new Set(a.fields.map((f) => f.name));
  const removed = a.fields.filter((f) => !newNames.has(f.name));
  const added = b.fields.filter((f) => !oldNames.has(f.name));
  const renames = new Map<string, IRField>();
  // Kindred types: the same kind, or both numbers (ttl: number → ttlMs: integer).
  const numeric = (t: IRType) => t.kind === "integer" || t.kind === "number";
  const kindred = (x: IRType, y: IRType) => x.kind === y.kind || (numeric(x) && numeric(y));
  for (const r of removed) {
    const cands = added.filter((x) => similarNames(r.name, x.name) && kindred(r.type, x.type));
    const back = cands.length === 1 ? removed.filter((y) => similarNames(y.name, cands[0].name) && kindred(y.type, cands[0].type)) : [];
    if (cands.length === 1 && back.length === 1) renames.set(r.name, cands[0]);
  }
  const renamedTo = new Set([...renames.values()].map((f) => f.name));
  const fieldLoc = (f: IRField): Loc => ({ ...loc, path: seg(loc.path, f.name), label: seg(loc.label, f.name), inField: true });
  const fieldText = (f: IRField) => `${f.name}${f.optional ? "?" : ""}: ${typeText(f.type)}`;
  const fsec = loc.fieldSection;
  for (const f of a.fields) {
    const l = fieldLoc(f);
    const g = b.fields.find((x) => x.name === f.name);
    if (g) {
      if (f.optional !== g.optional) {
        emit(ctx, {
          section: fsec, subject: loc.subject, path: `${l.path}.optional`, dirs: loc.dirs, before: fieldText(f), after: fieldText(g),
          rule: g.optional ? "field.optional" : "field.required",
          summary: `\`${l.label}\` is now ${g.optional ? "optional" : "required"}`,
          hint: g.optional ? `${cap(w.C)} must handle \`${l.label}\` being absent.` : `${cap(w.P)} must always send \`${l.label}\`.`,
        });
      }
      if (f.deprecated !== g.deprecated) {
        emit(ctx, {
          section: fsec, subject: loc.subject, path: `${l.path}.deprecated`, dirs: loc.dirs, before: f.deprecated, after: g.deprecated,
          rule: "field.deprecated",
          summary: `\`${l.label}\` is ${g.deprecated ? "now deprecated" : "no longer deprecated"}`,
          hint: g.deprecated ? `Plan to stop using \`${l.label}\`.` : `Nothing to do.`,
        });
      }
      compareValue(ctx, f.type, g.type, l);
      continue;
    }
    const to = renames.get(f.name);
    if (to) {
      const rm = RULES[f.optional ? "field.removed.optional" : "field.removed.required"];
      const ad = RULES[to.optional ? "field.added.optional" : "field.added.required"];
      const worst = (x: Impact, y: Impact): Impact => (x === B || y === B ? B : C);
      emit(
        ctx,
        {
          section: fsec, subject: loc.subject, path: l.path, dirs: loc.dirs, rule: "field.renamed", before: fieldText(f), after: fieldText(to),
          summary: `\`${l.label}\` renamed to \`${to.name}\`${same(f.type, to.type) ? "" : ` (${typeText(f.type)} → ${typeText(to.type)})`}`,
          hint:
            f.optional && to.optional
              ? `Optional on both sides: send and read \`${to.name}\` (${typeText(to.type)}) instead of \`${f.name}\` when you upgrade.`
              : `Send and read \`${to.name}\` (${typeText(to.type)}) instead of \`${f.name}\`${to.optional ? "" : `; ${w.P} must always send it`}.`,
        },
        { producer: worst(rm.producer, ad.producer), consumer: worst(rm.consumer, ad.consumer) },
      );
      continue;
    }
    emit(ctx, {
      section: fsec, subject: loc.subject, path: l.path, dirs: loc.dirs, before: fieldText(f),
      rule: f.optional ? "field.removed.optional" : "field.removed.required",
      summary: `\`${l.label}\` removed (was ${f.optional ? "optional" : "required"}: ${typeText(f.type)})`,
      hint: f.optional ? `${cap(w.P)} can stop sending \`${f.name}\`; ${w.C} already cope without it.` : `${cap(w.C)} must stop relying on \`${l.label}\`; ${w.P} can stop sending it.`,
    });
  }
  for (const g of added) {
    if (renamedTo.has(g.name)) continue;
    const l = fieldLoc(g);
    emit(ctx, {
      section: fsec, subject: loc.subject, path: l.path, dirs: loc.dirs, after: fieldText(g),
      rule: g.optional ? "field.added.optional" : "field.added.required",
      summary: `\`${l.label}\` added (${g.optional ? "optional" : "required"}: ${typeText(g.type)})`,
      hint: g.optional ? `${cap(w.C)} may read \`${g.name}\` when present; nothing else to do.` : `${cap(w.P)} must send \`${g.name}\` (${typeText(g.type)}); ${w.C} may read it.`,
    });
  }
  if (a.strict !== b.strict) {
    emit(ctx, {
      section: sectionOf(loc), subject: loc.subject, path: `${loc.path}.strict`, dirs: loc.dirs, before: a.strict, after: b.strict,
      rule: b.strict ? "object.strict" : "object.not-strict",
      summary: `\`${loc.label}\` ${b.strict ? "now rejects" : "now allows"} undeclared keys`,
      hint: b.strict ? `${cap(w.P)} must not send keys \`${loc.label}\` does not declare.` : `${cap(w.C)} must accept undeclared keys in \`${loc.label}\`.`,
    });
  }
  if (a.open !== b.open) {
    emit(ctx, {
      section: sectionOf(loc), subject: loc.subject, path: `${loc.path}.open`, dirs: loc.dirs, before: a.open, after: b.open,
      rule: "object.open",
      summary: `\`${loc.label}\` is ${b.open ? "now open" : "no longer open"} (TypeScript index signature)`,
      hint: `Nothing to do on the wire; the generated type ${b.open ? "gains" : "loses"} an index signature.`,
    });
  }
}

function compareUnion(ctx: Ctx, a: Extract<IRType, { kind: "union" }>, b: Extract<IRType, { kind: "union" }>, loc: Loc) {
  const w = who("data", loc.dirs);
  if (a.discriminator !== b.discriminator) {
    emit(ctx, {
      section: sectionOf(loc), subject: loc.subject, path: `${loc.path}.discriminator`, dirs: loc.dirs, rule: "value.changed",
      before: a.discriminator ?? null, after: b.discriminator ?? null,
      summary: `\`${loc.label}\` is told apart by ${b.discriminator ? `\`${b.discriminator}\`` : "shape"} (was ${a.discriminator ? `\`${a.discriminator}\`` : "shape"})`,
      hint: `Both sides must tell the variants of \`${loc.label}\` apart the new way.`,
    });
  }
  const key = (v: IRType, disc: string | undefined): string => {
    if (v.kind === "ref") return v.name;
    if (v.kind === "object" && disc) {
      const f = v.fields.find((x) => x.name === disc);
      if (f && f.type.kind === "literal") return `${disc}=${String(f.type.value)}`;
    }
    if (v.kind === "literal") return JSON.stringify(v.value);
    if (v.kind === "array") return `${key(v.items, undefined)}[]`;
    return v.kind;
  };
  const ka = a.variants.map((v) => key(v, a.discriminator));
  const kb = b.variants.map((v) => key(v, b.discriminator));
  a.variants.forEach((v, i) => {
    const j = kb.indexOf(ka[i]);
    const vl = `${loc.label}<${ka[i]}>`;
    if (j >= 0) {
      compareValue(ctx, v, b.variants[j], { ...loc, path: `${loc.path}<${ka[i]}>`, label: vl });
      return;
    }
    emit(ctx, {
      section: sectionOf(loc), subject: loc.subject, path: `${loc.path}<${ka[i]}>`, dirs: loc.dirs, rule: "variant.removed", before: typeText(v),
      summary: `\`${loc.label}\` loses the variant ${ka[i]}`,
      hint: `${cap(w.P)} must stop sending ${ka[i]} as \`${loc.label}\`.`,
    });
  });
  b.variants.forEach((v, j) => {
    if (ka.includes(kb[j])) return;
    emit(ctx, {
      section: sectionOf(loc), subject: loc.subject, path: `${loc.path}<${kb[j]}>`, dirs: loc.dirs, rule: "variant.added", after: typeText(v),
      summary: `\`${loc.label}\` gains the variant ${kb[j]}`,
      hint: `${cap(w.C)} must handle ${kb[j]} in \`${loc.label}\`.`,
    });
  });
}

// --- types ------------------------------------------------------------------------

function diffTypes(ctx: Ctx) {
  const skip = new Set([ctx.old.statusType, ctx.new.statusType]);
  const oldT = new Map(ctx.old.types.filter((t) => !skip.has(t.name)).map((t) => [t.name, t]));
  const newT = new Map(ctx.new.types.filter((t) => !skip.has(t.name)).map((t) => [t.name, t]));
  const dirsOf = (name: string) => union(ctx.ou.types.get(name), ctx.nu.types.get(name));
  for (const [name, t] of oldT) {
    const n = newT.get(name);
    const dirs = dirsOf(name);
    if (!n) {
      emit(ctx, {
        section: "types", rule: "type.removed", path: `types.${name}`, subject: name, dirs, before: typeText(t.type),
        summary: `Type \`${name}\` removed (${typeText(t.type)})`,
        hint: `Remove uses of \`${name}\`; the methods and fields that used it say what replaces it.`,
      });
      continue;
    }
    compareValue(ctx, t.type, n.type, { section: "types", fieldSection: "fields", subject: name, path: `types.${name}`, label: name, inField: false, dirs });
  }
  for (const [name, t] of newT) {
    if (oldT.has(name)) continue;
    emit(ctx, {
      section: "types", rule: "type.added", path: `types.${name}`, subject: name, dirs: dirsOf(name), after: typeText(t.type),
      summary: `Type \`${name}\` added (${typeText(t.type)})${t.description ? `: ${firstSentence(t.description)}` : ""}`,
      hint: `Nothing to do until you use it.`,
    });
  }
}

// --- states, transitions, guards ------------------------------------------------

function diffStates(ctx: Ctx) {
  const dirs = union(ctx.ou.task, ctx.nu.task);
  const w = who("task", dirs);
  const emitS = (section: Section, c: Omit<Parameters<typeof emit>[1], "section" | "dirs">, override?: { producer: Impact; consumer: Impact }) =>
    emit(ctx, { section, dirs, ...c }, override);
  if (ctx.old.statusType !== ctx.new.statusType) {
    emitS("states", {
      rule: "state.type-name", path: "statusType", subject: ctx.new.statusType, before: ctx.old.statusType, after: ctx.new.statusType,
      summary: `The status type is now \`${ctx.new.statusType}\` (was \`${ctx.old.statusType}\`)`,
      hint: `Rename uses of the generated \`${ctx.old.statusType}\`; the wire does not change.`,
    });
  }
  const oldS = new Map(ctx.old.states.map((s) => [s.name, s]));
  const newS = new Map(ctx.new.states.map((s) => [s.name, s]));
  const stateText = (s: IRState) => `${s.name} (${s.role}${s.initial ? ", initial" : ""}${s.terminal ? ", terminal" : ""})`;
  const edges = (ir: IR, s: string) => ir.transitions.filter((t) => t.from === s || t.to === s).map((t) => `${t.from} → ${t.to}`);
  for (const s of ctx.old.states) {
    const n = newS.get(s.name);
    const path = `states.${s.name}`;
    if (!n) {
      const es = edges(ctx.old, s.name);
      emitS("states", {
        rule: "state.removed", path, subject: s.name, before: { role: s.role, initial: s.initial, terminal: s.terminal },
        summary: `Status \`${s.name}\` removed (${s.role}${s.initial ? ", was initial" : ""}${s.terminal ? ", terminal" : ""})${es.length ? ` with its ${count(es.length, "transition")}` : ""}`,
        hint: `${cap(w.P)} must no longer report \`${s.name}\`${substitute(ctx, s)}; ${w.C} can drop its handling.`,
      });
      continue;
    }
    if (s.role !== n.role) {
      emitS("states", {
        rule: "state.role", path: `${path}.role`, subject: s.name, before: s.role, after: n.role,
        summary: `Status \`${s.name}\` now has role ${n.role} (was ${s.role})`,
        hint: `Treat \`${s.name}\` as ${n.role} on both sides.`,
      });
    }
    if (s.terminal !== n.terminal) {
      emitS("states", {
        rule: "state.terminal", path: `${path}.terminal`, subject: s.name, before: s.terminal, after: n.terminal,
        summary: `Status \`${s.name}\` is ${n.terminal ? "now terminal" : "no longer terminal"}`,
        hint: n.terminal
          ? `${cap(w.C)} stop polling at \`${s.name}\`; ${w.P} must not move a task out of it.`
          : `${cap(w.C)} must keep polling past \`${s.name}\`; ${w.P} may move tasks on from it.`,
      });
    }
  }
  if (ctx.old.initialState !== ctx.new.initialState) {
    const o = ctx.old.initialState;
    const nn = ctx.new.initialState;
    emitS("states", {
      rule: "state.initial", path: "states.initial", subject: nn, before: o, after: nn,
      summary: `Tasks now start in \`${nn}\` (was \`${o}\`)`,
      hint: `${cap(w.P)} must create tasks in \`${nn}\`; ${w.C} must not expect \`${o}\` first.`,
    });
  }
  for (const n of ctx.new.states) {
    if (oldS.has(n.name)) continue;
    const es = edges(ctx.new, n.name);
    emitS("states", {
      rule: "state.added", path: `states.${n.name}`, subject: n.name, after: { role: n.role, initial: n.initial, terminal: n.terminal },
      summary: `Status \`${stateText(n)}\` added${es.length ? ` with ${count(es.length, "transition")}: ${es.join(", ")}` : ""}`,
      hint: `${cap(w.C)} must handle the status \`${n.name}\`; ${w.P} may report it.`,
    });
  }

  // Transitions between states both specs know; the others went with their states.
  const known = (t: { from: string; to: string }) => oldS.has(t.from) && oldS.has(t.to) && newS.has(t.from) && newS.has(t.to);
  const key = (t: { from: string; to: string }) => `${t.from} → ${t.to}`;
  const oldTr = new Map(ctx.old.transitions.filter(known).map((t) => [key(t), t]));
  const newTr = new Map(ctx.new.transitions.filter(known).map((t) => [key(t), t]));
  for (const [k, t] of oldTr) {
    const n = newTr.get(k);
    const path = `transitions.${t.from}->${t.to}`;
    if (!n) {
      emitS("transitions", { rule: "transition.removed", path, subject: k, before: k, summary: `Transition ${k} removed`, hint: `${cap(w.P)} must no longer move a task ${k}.` });
      continue;
    }
    if (t.guard !== n.guard) {
      const rule: RuleId = !t.guard ? "transition.guard.added" : !n.guard ? "transition.guard.removed" : "transition.guard.changed";
      emitS("transitions", {
        rule, path: `${path}.guard`, subject: k, before: t.guard ?? null, after: n.guard ?? null,
        summary: `Transition ${k}: guard ${t.guard ? `\`${t.guard}\`` : "none"} → ${n.guard ? `\`${n.guard}\`` : "none"}`,
        hint: n.guard ? `${cap(w.P)} must check \`${n.guard}\` before moving a task ${k}.` : `Nothing to do: ${k} no longer needs \`${t.guard}\`.`,
      });
    }
  }
  for (const [k, n] of newTr) {
    if (oldTr.has(k)) continue;
    emitS("transitions", {
      rule: "transition.added", path: `transitions.${n.from}->${n.to}`, subject: k, after: k,
      summary: `Transition ${k} added${n.guard ? ` (guard \`${n.guard}\`)` : ""}`,
      hint: `${cap(w.P)} may now move a task ${k}; ${w.C} see only statuses they know.`,
    });
  }

  const guardText = (g: IR["guards"][number]) => `${g.field} ${g.op} ${JSON.stringify(g.value)} (${g.valueType})`;
  const oldG = new Map(ctx.old.guards.map((g) => [g.name, g]));
  const newG = new Map(ctx.new.guards.map((g) => [g.name, g]));
  for (const [name, g] of oldG) {
    const n = newG.get(name);
    if (!n) {
      emitS("guards", { rule: "guard.removed", path: `guards.${name}`, subject: name, before: guardText(g), summary: `Guard \`${name}\` removed (${guardText(g)})`, hint: `Nothing to do beyond the transitions that used it.` });
    } else if (guardText(g) !== guardText(n)) {
      emitS("guards", {
        rule: "guard.changed", path: `guards.${name}`, subject: name, before: guardText(g), after: guardText(n),
        summary: `Guard \`${name}\`: ${guardText(g)} → ${guardText(n)}`,
        hint: `${cap(w.P)} must evaluate \`${name}\` as ${guardText(n)}.`,
      });
    }
  }
  for (const [name, n] of newG) {
    if (!oldG.has(name)) emitS("guards", { rule: "guard.added", path: `guards.${name}`, subject: name, after: guardText(n), summary: `Guard \`${name}\` added (${guardText(n)})`, hint: `Nothing to do beyond the transitions that use it.` });
  }
}

/** What a removed status's tasks report now: the state holding the same role, or the outcome that took over. */
function substitute(ctx: Ctx, s: IRState): string {
  const byRole = ctx.new.roles[s.role];
  if (byRole) return `; use \`${byRole}\`, which now holds its role`;
  const o = ctx.old.behaviour.outcomes;
  for (const k of ["unexpected", "protocolError", "toolError"] as const) {
    if (o[k] === s.name) return `; report \`${ctx.new.behaviour.outcomes[k]}\` instead (outcomes.${k})`;
  }
  if (s.initial) return `; create tasks in \`${ctx.new.initialState}\``;
  return "";
}

// --- errors ----------------------------------------------------------------------

function diffErrors(ctx: Ctx) {
  const newE = new Map(ctx.new.errors.map((e) => [e.name, e]));
  const oldE = new Map(ctx.old.errors.map((e) => [e.name, e]));
  const dirsOf = (name: string) => union(ctx.ou.errors.get(name), ctx.nu.errors.get(name));
  const text = (e: IRError) => `${e.code} "${e.message}"${e.http ? ` (HTTP ${e.http})` : ""}`;
  const ctxText = (e: IRError) => e.context.map((c) => `${c.name}: ${typeText(c.type)}`).join(", ");
  for (const e of ctx.old.errors) {
    const n = newE.get(e.name);
    const dirs = dirsOf(e.name);
    const w = who("error", dirs);
    const path = `errors.${e.name}`;
    if (!n) {
      const sameCode = ctx.new.errors.find((x) => x.code === e.code && x.message === e.message);
      emit(ctx, {
        section: "errors", rule: "error.removed", path, subject: e.name, dirs, before: text(e),
        summary: `Error \`${e.name}\` removed (${text(e)})`,
        hint: sameCode ? `Now declared as \`${sameCode.name}\`; nothing changes on the wire.` : `${cap(w.P)} stop answering it; ${w.C} may drop code that matches it.`,
      });
      continue;
    }
    if (e.code !== n.code) {
      emit(ctx, {
        section: "errors", rule: "error.code", path: `${path}.code`, subject: e.name, dirs, before: e.code, after: n.code,
        summary: `Error \`${e.name}\`: code ${e.code} → ${n.code}`,
        hint: `${cap(w.P)} must answer ${n.code}; ${w.C} that match on ${e.code} must match ${n.code}.`,
      });
    }
    if (e.message !== n.message) {
      emit(ctx, {
        section: "errors", rule: "error.message", path: `${path}.message`, subject: e.name, dirs, before: e.message, after: n.message,
        summary: `Error \`${e.name}\`: message "${e.message}" → "${n.message}"`,
        hint: `Update the text; code that matches on the message (rather than the code) must change.`,
      });
    }
    if (e.http !== n.http) {
      emit(ctx, {
        section: "errors", rule: "error.http", path: `${path}.http`, subject: e.name, dirs, before: e.http ?? null, after: n.http ?? null,
        summary: `Error \`${e.name}\`: HTTP status ${e.http ?? "none"} → ${n.http ?? "none"}`,
        hint: n.http ? `${cap(w.P)} must answer it with HTTP ${n.http} over Streamable HTTP.` : `${cap(w.P)} answer it with the transport's usual status.`,
      });
    }
    if (ctxText(e) !== ctxText(n)) {
      emit(ctx, {
        section: "errors", rule: "error.context", path: `${path}.context`, subject: e.name, dirs, before: ctxText(e), after: ctxText(n),
        summary: `Error \`${e.name}\`: message values (${ctxText(e) || "none"}) → (${ctxText(n) || "none"})`,
        hint: `Pass (${ctxText(n) || "nothing"}) to the generated error helper.`,
      });
    }
    const loc: Loc = { section: "errors", fieldSection: "errors", subject: e.name, path: `${path}.data`, label: `${e.name}.data`, inField: false, dirs };
    if (e.data && n.data) compareValue(ctx, e.data, n.data, loc);
    else if (e.data || n.data) {
      emit(ctx, {
        section: "errors", rule: n.data ? "field.added.optional" : "field.removed.optional", path: loc.path, subject: e.name, dirs,
        ...(e.data ? { before: typeText(e.data) } : { after: typeText(n.data!) }),
        summary: `Error \`${e.name}\` ${n.data ? `now carries data (${typeText(n.data)})` : "no longer carries data"}`,
        hint: n.data ? `${cap(w.C)} may read \`data\` (${typeText(n.data)}).` : `${cap(w.C)} must not expect \`data\`.`,
      });
    }
  }
  for (const n of ctx.new.errors) {
    if (oldE.has(n.name)) continue;
    const dirs = dirsOf(n.name);
    const w = who("error", dirs);
    const sameCode = ctx.old.errors.find((x) => x.code === n.code && x.message === n.message);
    emit(ctx, {
      section: "errors", rule: "error.added", path: `errors.${n.name}`, subject: n.name, dirs, after: text(n),
      summary: `Error \`${n.name}\` added (${text(n)})${n.description ? `: ${firstSentence(n.description)}` : ""}`,
      hint: sameCode ? `Was declared as \`${sameCode.name}\`; nothing changes on the wire.` : `${cap(w.C)} may get ${n.code}; handle it${usedBy(ctx.new, n.name)}.`,
    });
  }
}

function usedBy(ir: IR, error: string): string {
  const ms = ir.methods.filter((m) => m.errors.includes(error)).map((m) => `\`${m.method}\``);
  return ms.length ? ` on ${ms.join(", ")}` : "";
}

// --- meta keys ---------------------------------------------------------------------

function diffMeta(ctx: Ctx) {
  const newM = new Map(ctx.new.meta.map((m) => [m.name, m]));
  const oldM = new Map(ctx.old.meta.map((m) => [m.name, m]));
  const dirsOf = (name: string) => union(ctx.ou.meta.get(name), ctx.nu.meta.get(name));
  const text = (m: IRMeta) => `${m.key} on ${m.on.join(", ")}`;
  for (const m of ctx.old.meta) {
    const n = newM.get(m.name);
    const dirs = dirsOf(m.name);
    const w = who("data", dirs);
    const path = `meta.${m.name}`;
    if (!n) {
      emit(ctx, {
        section: "meta", rule: "meta.removed", path, subject: m.name, dirs, before: text(m),
        summary: `Meta key \`${m.key}\` removed (was on ${m.on.join(", ")})`,
        hint: `${cap(w.C)} must stop reading \`_meta["${m.key}"]\`; ${w.P} can stop sending it.`,
      });
      continue;
    }
    if (m.key !== n.key) {
      emit(ctx, {
        section: "meta", rule: "meta.key", path: `${path}.key`, subject: m.name, dirs, before: m.key, after: n.key,
        summary: `Meta key \`${m.key}\` is now \`${n.key}\``,
        hint: `Send and read \`_meta["${n.key}"]\` instead of \`_meta["${m.key}"]\`.`,
      });
    }
    const gained = n.on.filter((x) => !m.on.includes(x));
    const lost = m.on.filter((x) => !n.on.includes(x));
    if (gained.length) {
      emit(ctx, {
        section: "meta", rule: "meta.on.added", path: `${path}.on`, subject: m.name, dirs, before: [...m.on], after: [...n.on],
        summary: `Meta key \`${n.key}\` may now also appear on ${gained.join(", ")}`,
        hint: `${cap(w.C)} may read it there too.`,
      });
    }
    if (lost.length) {
      emit(ctx, {
        section: "meta", rule: "meta.on.removed", path: `${path}.on`, subject: m.name, dirs, before: [...m.on], after: [...n.on],
        summary: `Meta key \`${n.key}\` no longer appears on ${lost.join(", ")}`,
        hint: `${cap(w.C)} must not expect it on ${lost.join(", ")}.`,
      });
    }
    compareValue(ctx, m.type, n.type, { section: "meta", fieldSection: "meta", subject: m.name, path: `${path}.type`, label: `_meta["${n.key}"]`, inField: false, dirs });
  }
  for (const n of ctx.new.meta) {
    if (oldM.has(n.name)) continue;
    const dirs = dirsOf(n.name);
    const w = who("data", dirs);
    emit(ctx, {
      section: "meta", rule: "meta.added", path: `meta.${n.name}`, subject: n.name, dirs, after: text(n),
      summary: `Meta key \`${n.key}\` added on ${n.on.join(", ")} (${typeText(n.type)})${n.description ? `: ${firstSentence(n.description)}` : ""}`,
      hint: metaUse(ctx.new, n.name) ?? `${cap(w.P)} may send it; ${w.C} may read it.`,
    });
  }
}

/** "Used by behaviour.x" for a meta entry that a behaviour names. */
function metaUse(ir: IR, name: string): string | undefined {
  const paths: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (isObj(v)) for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    else if (v === name && /meta$/i.test(path)) paths.push(path);
  };
  walk(ir.behaviour, "behaviour");
  return paths.length ? `Required where \`${paths.join("`, `")}\` applies: see Behaviour.` : undefined;
}

// --- behaviour -----------------------------------------------------------------------

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const isPrimList = (v: unknown): v is (string | number | boolean)[] => Array.isArray(v) && v.every((x) => x === null || typeof x !== "object");

/** What some behaviour values mean, for hints ("<path>=<value>" → words). */
const MEANINGS: Readonly<Record<string, string>> = {
  "creation.via=meta": "a `_meta` key on the request asks for a task",
  "creation.via=param": "a `params` field of the request asks for a task",
  "creation.via=client-capability": "the client opts in per request with a client capability, and the receiver decides",
  "creation.decidedBy=requestor": "the requestor decides that a request becomes a task",
  "creation.decidedBy=receiver": "the receiver alone decides whether a request becomes a task",
  "creation.taskId.assignedBy=requestor": "the requestor makes up the task id",
  "creation.taskId.assignedBy=receiver": "the receiver assigns the task id",
  "creation.ack.mode=notification": "a notification acknowledges the task and the request is answered later with its real result",
  "creation.ack.mode=result": "the request is answered at once with `{ task }`",
  "creation.ack.mode=flat-result": "the request is answered at once with the task's own fields",
  "results.mode=error-until-completed": "the result method answers an error until the task has completed",
  "results.mode=block-until-terminal": "the result method waits until the task is terminal, then returns the original request's outcome",
  "results.mode=inline": "`tasks/get` carries the result (or error) of a finished task; there is no result method",
  "results.replaysErrors=true": "a request that failed with a JSON-RPC error yields that error from the result channel",
  "results.replaysErrors=false": "a failed request's JSON-RPC error is not replayed",
  "outcomes.failureShape=message": "a failure is described by a string",
  "outcomes.failureShape=error-object": "a failure is described by a JSON-RPC error object",
  "cancellation.via=cancelled-notification": "tasks are cancelled with `notifications/cancelled`",
  "cancellation.via=method": "tasks are cancelled with a request",
  "cancellation.reply=none": "cancelling answers nothing",
  "cancellation.reply=task": "cancelling answers the (cancelled) task",
  "cancellation.reply=ack": "cancelling answers an empty acknowledgement",
  "cancellation.timing=before-reply": "the task is cancelled by the time the answer leaves",
  "cancellation.timing=eventual": "the task is cancelled eventually, and may still end otherwise",
  "cancellation.terminal=ignore": "cancelling a finished task is ignored",
  "cancellation.terminal=error": "cancelling a finished task is an error",
  "cancellation.terminal=ack": "cancelling a finished task is acknowledged like any other",
  "input.via=side-request": "the receiver sends input requests (elicitation, sampling) directly, tagged with the task",
  "input.via=result-stream": "input requests reach the requestor on the blocking result call",
  "input.via=inline-poll": "`tasks/get` carries pending input requests and the requestor answers them with an update request",
  "statusNotifications.delivery=push": "status notifications are pushed on the session",
  "statusNotifications.delivery=subscription": "status notifications are sent only on a subscription stream",
  "retention.countedFrom=creation": "retention is counted from the task's creation",
  "retention.countedFrom=terminal": "retention is counted from the moment the task ends",
  "sessionBinding=session": "tasks are bound to the transport session",
  "sessionBinding=auth": "tasks are bound to the auth context",
  "sessionBinding=session-and-auth": "tasks are bound to the session and the auth context",
  "sessionBinding=none": "tasks are bound to nothing",
  "creation.progressTokenLifetime=request": "the request's progressToken is valid until the original request is answered",
  "creation.progressTokenLifetime=task": "the request's progressToken stays valid for the task's whole life",
  "creation.taskId.unguessable=true": "task ids must be unguessable (128-bit random): receivers must generate them so",
  "creation.taskId.unguessable=false": "task ids need not be unguessable",
  "creation.durableBeforeAck=true": "receivers must store a task where tasks/get finds it before acknowledging it",
  "retention.reachableWholeTime=true": "a task must stay reachable through its whole retention time",
  "retention.reachableWholeTime=false": "receivers may delete a task before its retention time is up",
  "retention.nullMeansUnlimited=true": "null asks for (and grants) unlimited retention",
  "relatedTask.requests=true": "requests the receiver sends for a task carry the related-task key",
  "relatedTask.requests=false": "requests the receiver sends for a task no longer carry the related-task key",
  "relatedTask.notifications=true": "notifications a task's work sends carry the related-task key",
  "relatedTask.notifications=false": "notifications a task's work sends no longer carry the related-task key",
  "relatedTask.taskMethodRequests=true": "requestors put the related-task key on tasks/* requests",
  "relatedTask.taskMethodRequests=false": "requestors no longer put the related-task key on tasks/* requests",
  "relatedTask.onInlineResult=true": "a result inlined into a status carries the related-task key",
  "relatedTask.onInlineResult=false": "a result inlined into a status does not carry the related-task key",
  "input.partial=true": "answers to input requests may arrive in several parts",
  "input.partial=false": "all answers to input requests arrive together",
};

/** What to do, per behaviour path (the part after "behaviour."). */
const ACTIONS: Readonly<Record<string, string>> = {
  "creation.via": "change how requestors ask for a task and how receivers recognise the ask",
  "creation.decidedBy": "requestors must accept whichever answer the receiver chooses (a task or a plain result)",
  "creation.taskId.assignedBy": "task ids come from the other side now; stop generating (or expecting) them",
  "creation.ack.mode": "change how the first answer to a task-augmented request is produced and read",
  "creation.requests.server": "only these requests may become tasks on servers",
  "creation.requests.client": "only these requests may become tasks on clients",
  "results.mode": "change how requestors obtain a task's result and how receivers deliver it",
  "results.method": "fetch results through the new method",
  "outcomes.toolError": "a tool result with isError: true now ends the task in this status",
  "outcomes.protocolError": "a request that ends in a JSON-RPC error now ends the task in this status",
  "outcomes.unexpected": "unexplained endings now use this status",
  "outcomes.failureField": "read and write failure details in this field",
  "outcomes.failureShape": "produce and parse failures in the new shape",
  "cancellation.via": "change how requestors cancel and how receivers observe cancellation",
  "cancellation.method": "cancel through the new method",
  "cancellation.reply": "produce and read the new answer to a cancel request",
  "cancellation.timing": "requestors must not assume more than that about when the task stops",
  "cancellation.terminal": "handle cancelling a finished task the new way",
  "input.via": "change how input requests reach the requestor and how answers come back",
  "polling.field": "read the suggested poll interval from the new field",
  "retention.field": "read and write the retention from the new field",
  "taskType": "`tasks/get` and status notifications now carry this task type",
  "relatedTask": "the related-task meta key is used differently",
  "capabilities.server": "servers advertise task support differently; clients must look for it there",
  "capabilities.client": "clients declare task support differently; servers must look for it there",
  "http": "over Streamable HTTP, send and check the header on the listed methods",
  "resultType": "results carry a discriminating field: produce it and branch on it",
  "listing:removed": "requestors can no longer list tasks: keep the ids you are given; receivers may drop listing",
  "listing:added": "receivers must implement task listing; requestors may list their tasks",
  "creation.retentionField": "requestors ask for a retention time in this field of the task request",
  "creation.retentionField:removed": "requestors can no longer ask for a retention time; the receiver picks it",
  "creation.requiredTaskError": "a request that only runs as a task, sent without the requestor's opt-in, is answered with this error",
  "creation.toolSwitch:added": "tools declare task support (forbidden/optional/required): receivers must enforce it, requestors must check it before asking for a task",
  "creation.toolSwitch:removed": "tools no longer declare task support: stop reading and enforcing it",
  "creation.toolSwitch": "the per-tool task switch changed: enforce and check it the new way",
  "creation.progressTokenLifetime:removed": "no rule for the progressToken's lifetime any more: do not rely on progress after the first answer",
  "outcomes.statusMessageField": "a human-readable status message may be carried in this field",
  "cancellation.deleteMethod:removed": "tasks can no longer be deleted: requestors stop deleting, receivers drop them when their retention ends",
  "cancellation.terminalError:removed": "cancelling a finished task is no longer an error",
  "cancellation.ignoreLateInput:removed": "the spec no longer says what happens to answers to input requests of a task cancelled meanwhile",
  "relatedTask:removed": "there is no related-task meta key any more: the task id is in every tasks/* message; stop sending and expecting the key",
  "relatedTask.results": "put the related-task key on exactly these results, and expect it there",
  "relatedTask.notOnResults": "do not put the related-task key on these results",
  "retention.reachableWholeTime": "change when receivers may delete a task",
  "statusNotifications.method": "status notifications use the new method",
  "unsupportedMethods:added": "receivers answer these former methods with this error (an unknown method gets it anyway)",
  "statusNotifications.payload": "status notifications carry the new payload",
  "sessionBinding": "receivers must scope tasks the new way",
};

function behaviourHint(kind: "added" | "removed" | "changed", path: string, before: unknown, after: unknown, rule: RuleId, w: { P: string; C: string }): string {
  const rel = path.replace(/^behaviour\.?/, "");
  const meaning = (v: unknown) => (typeof v === "string" || typeof v === "boolean" ? MEANINGS[`${rel}=${String(v)}`] : undefined);
  const action = ACTIONS[`${rel}:${kind}`] ?? ACTIONS[rel];
  const now = meaning(after);
  if (rule === "behaviour.tuning") return `A default or limit (${brief(before)} → ${brief(after)}): adjust configuration if you relied on it.`;
  if (now) return `${cap(now)}${action ? `: ${action}` : ""}.`;
  if (action) return `${cap(action)}.`;
  if (rule === "behaviour.optional") {
    return kind === "removed" ? `Optional feature gone: ${w.P} stop providing it; ${w.C} keep polling as before.` : `Optional: ${w.P} may provide it; ${w.C} may use it but must not rely on it.`;
  }
  if (kind === "added") return `${cap(w.P)} must provide it; ${w.C} may use it.`;
  if (kind === "removed") return `${cap(w.C)} must stop relying on it; ${w.P} may drop it.`;
  return `Move to ${brief(after, 60)} (was ${brief(before, 60)}).`;
}

function behaviourRule(path: string, kind: "added" | "removed" | "changed", detail: boolean): { rule: RuleId; priority?: number } {
  let best: (typeof BEHAVIOUR_RULES)[number] | undefined;
  for (const r of BEHAVIOUR_RULES) {
    if (!(path === r.path || path.startsWith(r.path + "."))) continue;
    if (r.on && r.on !== kind) continue;
    if (!best || r.path.length > best.path.length || (r.path.length === best.path.length && r.on && !best.on)) best = r;
  }
  if (best) return { rule: best.rule, priority: best.path === path ? best.priority : undefined };
  if (detail) return { rule: "behaviour.detail" };
  const priority = MAJOR_KEYS.includes(path.split(".").pop()!) ? 2 : undefined;
  return { rule: kind === "added" ? "behaviour.added" : kind === "removed" ? "behaviour.removed" : "behaviour.changed", priority };
}

/** A capability declaration as the capabilities object shows it: `tasks = { list: {}, … }`. */
function capabilityText(v: unknown): string {
  if (!isObj(v)) return "none";
  const path = (v.path as string[]).reduce((p, k, i) => (i === 0 ? k : seg(p, k)), "");
  return `${path} = ${brief(v.value, 70)}`;
}

/**
 * Keys that select a mode, and the sibling properties that exist only for some of
 * its values (as the checker requires them): when the mode changes, those siblings
 * appearing or disappearing are details of that change.
 */
const MODE_DETAILS: Readonly<Record<string, readonly string[]>> = {
  "behaviour.creation.via": ["meta", "param", "paramType", "capabilityMeta", "capability"],
  "behaviour.creation.taskId.assignedBy": ["field", "duplicateError"],
  "behaviour.creation.ack.mode": ["notification", "resultType"],
  "behaviour.results.mode": ["method", "notReadyError", "resultField", "errorField"],
  "behaviour.cancellation.via": ["method"],
  "behaviour.cancellation.terminal": ["terminalError"],
  "behaviour.cancellation.deleteMethod": ["deletableStatuses", "deleteRefusedError"],
  "behaviour.input.via": ["requestsField", "updateMethod", "responsesField"],
  "behaviour.statusNotifications.delivery": ["subscribeMethod", "subscribeField", "forbiddenOnStream"],
};
/** Mode keys whose change is read first (priority 2). */
const MAJOR_KEYS = ["via", "mode", "assignedBy"];

/** Behaviour values compared whole: their parts mean nothing alone. */
const ATOMIC = new Set(["behaviour.capabilities.server", "behaviour.capabilities.client"]);

function diffBehaviour(ctx: Ctx, a: unknown, b: unknown, path: string, detailOf: string | undefined) {
  if (same(a, b)) return;
  if (isObj(a) && isObj(b) && !ATOMIC.has(path)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !(k in a))];
    const modes = Object.entries(MODE_DETAILS).filter(([m]) => m.startsWith(`${path}.`) && !m.slice(path.length + 1).includes("."));
    const modeOf = (k: string) =>
      modes.find(([m, details]) => {
        const key = m.slice(path.length + 1);
        return details.includes(k) && !same(a[key], b[key]);
      })?.[0];
    for (const k of keys) {
      const both = k in a && k in b && a[k] !== false && b[k] !== false;
      diffBehaviour(ctx, a[k], b[k], `${path}.${k}`, detailOf ?? (both ? undefined : modeOf(k)));
    }
    return;
  }
  const dirs: Dirs = BEHAVIOUR_DIRECTIONS[path] ? new Set([BEHAVIOUR_DIRECTIONS[path]]) : union(ctx.ou.task, ctx.nu.task);
  const w = who("task", dirs);
  const subject = path.split(".")[1] ?? path;
  if (isPrimList(a) && isPrimList(b) && (path.endsWith(".requests") || path.startsWith("behaviour.creation.requests"))) {
    const input = path === "behaviour.input.requests";
    // "*" (any request) → a list narrows it: one removal, not a removal and an addition.
    const addedItems = a.includes("*") ? [] : b.filter((x) => !a.includes(x));
    const removedItems = b.includes("*") ? [] : a.filter((x) => !b.includes(x));
    const item = (x: unknown) => (x === "*" ? "any request" : `\`${String(x)}\``);
    if (addedItems.length) {
      emit(ctx, {
        section: "behaviour", rule: input ? "behaviour.input.added" : "behaviour.requests.added", path, subject, dirs, before: a, after: b,
        summary: `\`${path}\` adds ${addedItems.map(item).join(", ")}${b.includes("*") ? ` (now ${item("*")})` : ""}`,
        hint: input
          ? `${cap(w.P)} may now ask for input with ${addedItems.map(item).join(", ")}; ${w.C} must answer it.`
          : `${cap(w.P)} may now run ${addedItems.map(item).join(", ")} as tasks; ${w.C} may ask for it.`,
      });
    }
    if (removedItems.length) {
      emit(ctx, {
        section: "behaviour", rule: input ? "behaviour.input.removed" : "behaviour.requests.removed", path, subject, dirs, before: a, after: b,
        summary: a.includes("*")
          ? `\`${path}\`: any request → ${b.length ? b.map(item).join(", ") : "none"}`
          : `\`${path}\` drops ${removedItems.map(item).join(", ")}`,
        hint: input
          ? `${cap(w.P)} must no longer ask for input with ${removedItems.map(item).join(", ")}.`
          : `${cap(w.C)} can no longer get ${removedItems.map(item).join(", ")} run as a task${b.length ? ` (only ${b.map(item).join(", ")})` : " (none any more)"}.`,
      });
    }
    return;
  }
  // false stands for "none" next to an object (listing: false); between two booleans it is a value.
  const none = (x: unknown, other: unknown) => x === undefined || (x === false && typeof other !== "boolean");
  const kind = none(a, b) && !none(b, a) ? "added" : none(b, a) && !none(a, b) ? "removed" : "changed";
  const { rule, priority } = behaviourRule(path, kind, detailOf !== undefined);
  const show = (v: unknown, max: number) => (path.startsWith("behaviour.capabilities.") ? capabilityText(v) : brief(v, max));
  const summary =
    kind === "added"
      ? `\`${path}\` added: ${show(b, 90)}`
      : kind === "removed"
        ? `\`${path}\` removed (was ${show(a, 90)})`
        : `\`${path}\`: ${show(a, 45)} → ${show(b, 45)}`;
  emit(ctx, {
    section: "behaviour", rule, path, subject, dirs, summary, priority,
    ...(a === undefined ? {} : { before: a }),
    ...(b === undefined ? {} : { after: b }),
    hint: detailOf ? `Part of the \`${detailOf}\` change.` : behaviourHint(kind, path, a, b, rule, w),
  });
}

// ---------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------

export function renderDiffJson(d: Diff): string {
  return JSON.stringify(d, null, 2) + "\n";
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const impactCell = (i: Impact) => (i === B ? "**breaking**" : "compatible");
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

const rank = (c: Change) => (c.client === B && c.server === B ? 0 : isBreaking(c) ? 1 : 2);

/** Within a section: breaking for both, then for one side, then compatible; then priority; then declaration order. */
function importance(changes: readonly Change[]): Change[] {
  return changes
    .map((c, i) => ({ c, i }))
    .sort((x, y) => rank(x.c) - rank(y.c) || x.c.priority - y.c.priority || x.i - y.i)
    .map(({ c }) => c);
}

/** Across sections, for the list at the top: priority first, then as `importance`. */
function mostImportant(changes: readonly Change[]): Change[] {
  return changes
    .map((c, i) => ({ c, i }))
    .sort((x, y) => x.c.priority - y.c.priority || rank(x.c) - rank(y.c) || x.i - y.i)
    .map(({ c }) => c);
}

function specLine(s: SpecRef): string {
  return [`\`${s.name}\``, s.protocol, `revision ${s.revision}`, s.protocolVersion ? `protocol version ${s.protocolVersion}` : "", s.status ?? ""].filter(Boolean).join(" · ");
}

export const TOP_BREAKING = 15;

export function renderDiffMarkdown(d: Diff): string {
  const L: string[] = [];
  const s = d.summary;
  L.push(`# Upgrading from \`${d.old.name}\` to \`${d.new.name}\``, "");
  L.push(`- **From:** ${specLine(d.old)}`, `- **To:** ${specLine(d.new)}`, "");
  if (d.changes.length === 0) {
    L.push("No differences: the two specs declare the same protocol.", "");
    return L.join("\n");
  }
  const verdict = (n: number, side: string) => (n ? `**breaking for ${side}** (${count(n, "change")})` : `compatible for ${side}`);
  L.push(`${count(s.changes, "change")}: ${verdict(s.breaking.client, "clients")}, ${verdict(s.breaking.server, "servers")}.`, "");
  L.push(
    "_Breaking_ for a side: an implementation of that side written against the old spec must change to conform to the new one. " +
      "_Compatible_: it keeps working unchanged. Where either side may play a role (both may create or poll tasks), a change counts for both.",
    "",
  );
  L.push("## Summary", "");
  L.push("| Section | Changes | Breaking for clients | Breaking for servers | Compatible for both |", "|---|--:|--:|--:|--:|");
  for (const sec of SECTIONS) {
    const c = s.sections[sec];
    const compat = d.changes.filter((x) => x.section === sec && !isBreaking(x)).length;
    L.push(`| ${c.changes ? `[${SECTION_TITLES[sec]}](#${anchor(SECTION_TITLES[sec])})` : SECTION_TITLES[sec]} | ${c.changes} | ${c.breakingForClient} | ${c.breakingForServer} | ${compat} |`);
  }
  L.push(`| **Total** | **${s.changes}** | **${s.breaking.client}** | **${s.breaking.server}** | **${s.changes - s.breaking.any}** |`, "");

  const breaking = mostImportant(d.changes.filter(isBreaking));
  if (breaking.length) {
    L.push("## Most important breaking changes", "");
    breaking.slice(0, TOP_BREAKING).forEach((c, i) => {
      L.push(`${i + 1}. ${c.summary} — ${sidesText(c)}. ${c.hint}`);
    });
    if (breaking.length > TOP_BREAKING) L.push("", `…and ${breaking.length - TOP_BREAKING} more breaking changes below.`);
    L.push("");
  }

  for (const sec of SECTIONS) {
    const cs = importance(d.changes.filter((c) => c.section === sec));
    if (!cs.length) continue;
    L.push(`## ${SECTION_TITLES[sec]}`, "");
    if (sec === "fields") {
      L.push(...renderFields(cs));
      continue;
    }
    if (sec === "behaviour") {
      L.push("| Behaviour | Old | New | Clients | Servers | Migration |", "|---|---|---|---|---|---|");
      for (const c of cs) {
        L.push(`| \`${cell(c.path)}\` | ${cell(valueCell(c.before, c.path))} | ${cell(valueCell(c.after, c.path))} | ${impactCell(c.client)} | ${impactCell(c.server)} | ${cell(c.hint)} |`);
      }
      L.push("");
      continue;
    }
    L.push("| Change | Clients | Servers | Migration |", "|---|---|---|---|");
    for (const c of cs) L.push(`| ${cell(c.summary)} | ${impactCell(c.client)} | ${impactCell(c.server)} | ${cell(c.hint)} |`);
    L.push("");
  }
  return L.join("\n").replace(/\n+$/, "\n");
}

function valueCell(v: Json | undefined, path: string): string {
  if (v === undefined) return "—";
  const text = path.startsWith("behaviour.capabilities.") ? capabilityText(v) : brief(v, 60);
  return "`" + text.replace(/`/g, "'") + "`";
}

function sidesText(c: Change): string {
  if (c.client === B && c.server === B) return "breaking for clients and servers";
  return c.client === B ? "breaking for clients" : "breaking for servers";
}

function anchor(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9 -]/g, "").replace(/ /g, "-");
}

/** Field changes per type; types whose field changes are identical share one table. */
function renderFields(cs: readonly Change[]): string[] {
  const L: string[] = [];
  const bySubject = new Map<string, Change[]>();
  for (const c of cs) bySubject.set(c.subject, [...(bySubject.get(c.subject) ?? []), c]);
  const sig = (list: Change[]) =>
    JSON.stringify(list.map((c) => [c.rule, c.path.slice(`types.${c.subject}`.length), c.before ?? null, c.after ?? null, c.client, c.server]));
  const groups: { subjects: string[]; changes: Change[] }[] = [];
  for (const [subject, list] of bySubject) {
    const g = groups.find((x) => sig(x.changes) === sig(list));
    if (g) g.subjects.push(subject);
    else groups.push({ subjects: [subject], changes: list });
  }
  const rank = (g: (typeof groups)[number]) => Math.min(...g.changes.map((c) => (c.client === B && c.server === B ? 0 : isBreaking(c) ? 1 : 2)));
  groups.sort((x, y) => rank(x) - rank(y));
  for (const g of groups) {
    const dirs = g.changes[0].directions;
    const travel = dirs.length === 2 ? "sent both ways" : dirs[0] === "client-to-server" ? "sent by clients to servers" : "sent by servers to clients";
    L.push(`### ${g.subjects.map((x) => `\`${x}\``).join(", ")}`, "", `_${g.subjects.length > 1 ? "Same changes in each; " : ""}${travel}._`, "");
    L.push("| Change | Clients | Servers | Migration |", "|---|---|---|---|");
    // The heading names the type: labels inside it start at the field.
    const local = (text: string) => text.split(`\`${g.subjects[0]}.`).join("`").split(`\`${g.subjects[0]}`).join("`");
    for (const c of g.changes) L.push(`| ${cell(local(c.summary))} | ${impactCell(c.client)} | ${impactCell(c.server)} | ${cell(local(c.hint))} |`);
    L.push("");
  }
  return L;
}
