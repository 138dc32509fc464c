/**
 * The catalogue of change rules: every classification the diff makes, what it
 * does to the producer and the consumer of the thing it touches, its priority,
 * and which rule a behaviour path falls under.
 */

export type Impact = "breaking" | "compatible";
export type Roles = "data" | "call" | "error" | "task";

export const B: Impact = "breaking";
export const C: Impact = "compatible";

export interface Rule {
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
 * and server through the change's directions (see `index.ts`). Behaviour
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
