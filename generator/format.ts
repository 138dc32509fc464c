/**
 * The spec format: one zod schema that validates spec files and from which
 * `spec/mcp-task-spec.schema.json` is derived (see `specJsonSchema`).
 *
 * A spec declares the task protocol of one revision as data: types, states,
 * transitions, guards, methods, errors, meta keys and the behaviours in which
 * revisions differ. Emitters never look at a revision's name; they read the
 * declared properties lowered into the IR.
 */
import { z } from "zod";
import { PRIMITIVES, SHORTHAND_RE } from "./format-words.js";

/** Levenshtein distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  return best !== undefined && bestDist <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** How many unknown keys of one mapping a diagnostic names; the rest are counted. */
export const MAX_LISTED_KEYS = 5;

/** A strict object whose unknown-key error names the keys it does accept. */
function strict<T extends z.ZodRawShape>(shape: T) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (iss) => {
      if (iss.code !== "unrecognized_keys") return undefined;
      // A guess for each misspelt key; the others named together, the first few and a count (a mapping of
      // thousands of unknown keys is one mistake, not one long message).
      const guessed: string[] = [];
      const unknown: string[] = [];
      for (const k of iss.keys as string[]) {
        const guess = closest(k, known);
        if (guess !== undefined && guessed.length < MAX_LISTED_KEYS) guessed.push(`unknown key '${k}', did you mean '${guess}'?`);
        else unknown.push(k);
      }
      const named = unknown.slice(0, Math.max(1, MAX_LISTED_KEYS - guessed.length));
      const more = unknown.length - named.length;
      const rest =
        unknown.length === 0
          ? []
          : [`unknown key${unknown.length === 1 ? "" : "s"} ${named.map((k) => `'${k}'`).join(", ")}${more > 0 ? ` and ${more} more` : ""} (allowed here: ${known.join(", ")})`];
      return [...guessed, ...rest].join("; ");
    },
  });
}

const description = z.string().describe("Human-readable documentation, copied into generated doc comments.");
export const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const identifier = z.string().regex(IDENT_RE, "must be an identifier (letters, digits, _; not starting with a digit)");
export const TYPE_NAME_RE = /^[A-Z][A-Za-z0-9_]*$/;
const typeName = z.string().regex(TYPE_NAME_RE, "type names are PascalCase identifiers, e.g. 'Task'");
const stateName = z.string().regex(/^[a-z][a-z0-9_]*$/, "state names are lower_snake_case, e.g. 'input_required'");
export const METHOD_RE = /^[a-z][A-Za-z0-9_]*(\/[a-z][A-Za-z0-9_]*)*$/;
const methodName = z.string().regex(METHOD_RE, "method names look like 'tasks/get' or 'notifications/tasks/created'");
const errorName = identifier;
const jsonValue = z.json();

// ---------------------------------------------------------------------------
// Type expressions
// ---------------------------------------------------------------------------

// Shorthand: a primitive or a declared type's name, with [] for arrays and a trailing ? (format-words.ts).
export { PRIMITIVES, SHORTHAND_RE };
const shorthand = z
  .string()
  .regex(SHORTHAND_RE, "a type shorthand is a primitive or a type name, optionally followed by [] and/or ?")
  .describe("Shorthand type: string | integer | number | boolean | null | unknown | object | <TypeName>, with [] for arrays and a trailing ? for an optional field.");

const common = {
  description: description.optional(),
  nullable: z.boolean().optional().describe("Also accept null."),
  optional: z.boolean().optional().describe("Only for object fields: the field may be absent."),
  deprecated: z.boolean().optional(),
  default: jsonValue.optional().describe("On a field of the task type: the value a new task starts with (the runtime stores it, sends it, and lets the work change it)."),
};

export const STRING_FORMATS = ["date-time", "uri", "uuid"] as const;

export type TypeExpr =
  | string
  | ({ description?: string; nullable?: boolean; optional?: boolean; deprecated?: boolean; default?: z.core.util.JSONType } & (
      | { type: "string"; format?: (typeof STRING_FORMATS)[number]; minLength?: number; maxLength?: number; pattern?: string }
      | { type: "integer"; minimum?: number; maximum?: number }
      | { type: "number"; minimum?: number; maximum?: number }
      | { type: "boolean" }
      | { type: "null" }
      | { type: "unknown" }
      | { type: "literal"; value: string | number | boolean }
      | { type: "enum"; values: string[] }
      | { type: "ref"; ref: string }
      | { type: "array"; items: TypeExpr; minItems?: number; maxItems?: number }
      | { type: "record"; values: TypeExpr }
      | { type: "union"; variants: TypeExpr[]; discriminator?: string }
      | { type: "object"; fields?: Record<string, TypeExpr>; extends?: string[]; open?: boolean; strict?: boolean }
    ));

export const TypeExprSchema: z.ZodType<TypeExpr> = z.lazy(() =>
  z.union([
    shorthand,
    z.discriminatedUnion("type", [
      strict({
        type: z.literal("string"),
        format: z.enum(STRING_FORMATS).optional().describe("date-time is ISO 8601 / RFC 3339 with a time zone."),
        minLength: z.int().min(0).optional(),
        maxLength: z.int().min(0).optional(),
        pattern: z.string().optional().describe("An ECMAScript regular expression the whole string must match."),
        ...common,
      }),
      strict({ type: z.literal("integer"), minimum: z.number().optional(), maximum: z.number().optional(), ...common }),
      strict({ type: z.literal("number"), minimum: z.number().optional(), maximum: z.number().optional(), ...common }),
      strict({ type: z.literal("boolean"), ...common }),
      strict({ type: z.literal("null"), ...common }),
      strict({ type: z.literal("unknown"), ...common }).describe("Any JSON value."),
      strict({ type: z.literal("literal"), value: z.union([z.string(), z.number(), z.boolean()]), ...common }),
      strict({ type: z.literal("enum"), values: z.array(z.string()).min(1), ...common }),
      strict({ type: z.literal("ref"), ref: typeName, ...common }),
      strict({
        type: z.literal("array"),
        items: TypeExprSchema,
        minItems: z.int().min(0).optional(),
        maxItems: z.int().min(0).optional(),
        ...common,
      }),
      strict({ type: z.literal("record"), values: TypeExprSchema, ...common }).describe("A map from string keys to values."),
      strict({
        type: z.literal("union"),
        variants: z.array(TypeExprSchema).min(2),
        discriminator: z
          .string()
          .optional()
          .describe("For a discriminated union: the field whose literal or enum value tells the variants apart."),
        ...common,
      }),
      strict({
        type: z.literal("object"),
        fields: z.record(z.string(), TypeExprSchema).optional(),
        extends: z.array(typeName).optional().describe("Object types whose fields this one inherits."),
        open: z.boolean().optional().describe("The TypeScript type gets an index signature for extra keys (extra keys are always accepted and kept on the wire)."),
        strict: z.boolean().optional().describe("Reject keys that are not declared."),
        ...common,
      }),
    ]),
  ]),
);

// ---------------------------------------------------------------------------
// States, transitions, guards
// ---------------------------------------------------------------------------

export const STATE_ROLES = ["queued", "running", "paused", "input_required", "completed", "failed", "cancelled", "unknown"] as const;

const StateSchema = strict({
  description: description.optional(),
  initial: z.boolean().optional(),
  terminal: z.boolean().optional(),
  role: z
    .enum(STATE_ROLES)
    .describe(
      "What the state means to the runtime: queued, running, paused (the work waits until a transition brings the task back to a running state), input_required, completed, failed, cancelled, unknown. Several states may share a role; the first declared is the one the runtime moves tasks to unless `behaviour.events` says otherwise.",
    ),
});

const stateRef = z.union([stateName, z.array(stateName).min(1)]);

const TransitionSchema = strict({
  from: stateRef.describe("A state or a list of states."),
  to: stateRef,
  guard: identifier.optional().describe("A guard from `guards` that must hold for the transition."),
  description: description.optional(),
});

const GuardSchema = strict({
  description: description.optional(),
  field: identifier.describe("A field of the transition context the guard reads."),
  type: z
    .enum(["integer", "boolean", "string"])
    .optional()
    .describe("The type of the field's value (default: the type of the value compared with, e.g. boolean for `equals: true`; integer for numbers)."),
  equals: z.union([z.number(), z.boolean(), z.string()]).optional(),
  notEquals: z.union([z.number(), z.boolean(), z.string()]).optional(),
  atLeast: z.number().optional(),
  atMost: z.number().optional(),
});

// ---------------------------------------------------------------------------
// Methods, errors, meta
// ---------------------------------------------------------------------------

export const METHOD_OPERATIONS = ["get", "result", "list", "cancel", "update", "delete", "transition", "custom"] as const;

const MethodSchema = strict({
  kind: z.enum(["request", "notification"]),
  name: typeName.optional().describe("The TypeScript name stem, e.g. 'GetTask' for tasks/get."),
  from: z.enum(["client", "server", "either"]).describe("Who sends it."),
  params: TypeExprSchema.optional().describe("The params type. Omitted: no params (or only _meta)."),
  result: TypeExprSchema.optional().describe("The result type (requests only)."),
  errors: z.array(errorName).optional().describe("Errors from `errors` this request may answer."),
  operation: z
    .enum(METHOD_OPERATIONS)
    .optional()
    .describe(
      "What a task request does (requests only): get (the task), result (its result), list (the requestor's tasks), cancel, update (answers to input requests), delete, transition (moves the addressed task to `to` through the transition table, e.g. pause/resume), or custom (answered by a handler the server's code supplies). Omitted: read from the behaviour that names the method (results.method, listing.method, ...).",
    ),
  to: stateName.optional().describe("operation transition: the state the addressed task moves to."),
  description: description.optional(),
});

const ErrorSchema = strict({
  code: z.int().describe("The JSON-RPC error code."),
  message: z.string().describe("The message; {placeholders} are filled from `context`; {{ and }} are literal braces."),
  context: z.record(identifier, TypeExprSchema).optional().describe("Named values the message template may use."),
  data: TypeExprSchema.optional().describe("The type of the error's `data` member."),
  http: z.int().min(100).max(599).optional().describe("The HTTP status that carries this error over Streamable HTTP."),
  description: description.optional(),
});

const MetaSchema = strict({
  key: z.string().min(1).describe("The `_meta` key, e.g. 'modelcontextprotocol.io/related-task'."),
  type: TypeExprSchema,
  on: z.array(z.enum(["request", "notification", "result"])).min(1).describe("Where the key may appear."),
  description: description.optional(),
});

// ---------------------------------------------------------------------------
// Declared behaviours: everything the revisions do differently
// ---------------------------------------------------------------------------

const methodRef = methodName;
const errorRef = errorName;

const CreationSchema = strict({
  via: z
    .enum(["meta", "param", "client-capability"])
    .describe("How a request asks for a task: a `_meta` key (meta), a `params` field (param), or a per-request client capability that lets the receiver decide (client-capability)."),
  meta: identifier.optional().describe("via meta: the meta entry (from `meta`) that carries the task request."),
  param: identifier.optional().describe("via param: the params field that carries the task request."),
  paramType: TypeExprSchema.optional().describe("via param: the type of that field."),
  capabilityMeta: identifier.optional().describe("via client-capability: the meta entry holding the client's capabilities."),
  capability: z.string().optional().describe("via client-capability: the extension id the client must list."),
  decidedBy: z.enum(["requestor", "receiver"]).describe("Who decides that a request becomes a task."),
  retentionField: identifier.optional().describe("The field of the task request that asks for a retention time."),
  taskId: strict({
    assignedBy: z.enum(["requestor", "receiver"]),
    field: identifier.optional().describe("assignedBy requestor: the field of the task request holding the id."),
    unguessable: z.boolean().describe("Ids must be unguessable (receiver-assigned ids are 128-bit random)."),
    duplicateError: errorRef.optional().describe("The error answered when a requestor reuses an id."),
  }),
  requests: strict({
    server: z.array(z.union([methodRef, z.literal("*")])).describe("Requests a server receives that may become tasks ('*' = any)."),
    client: z.array(z.union([methodRef, z.literal("*")])).describe("Requests a client receives that may become tasks."),
  }),
  toolSwitch: z
    .union([
      z.literal(false),
      strict({
        field: z.string().describe("Dotted path in the Tool definition, e.g. execution.taskSupport."),
        values: z.array(z.enum(["forbidden", "optional", "required"])).min(1),
        default: z.enum(["forbidden", "optional", "required"]),
        forbiddenError: errorRef.describe("Answered when a task is asked of a tool that forbids it."),
        requiredError: errorRef.describe("Answered when a tool that requires a task is called without one."),
      }),
    ])
    .describe("A per-tool switch of task support, or false."),
  requiredTaskError: errorRef.optional().describe("Answered when a request that only runs as a task arrives without the client's opt-in."),
  durableBeforeAck: z
    .boolean()
    .optional()
    .describe("The receiver must not acknowledge a task before tasks/get would find it (e.g. in a shared store)."),
  progressTokenLifetime: z
    .enum(["request", "task"])
    .optional()
    .describe("How long the request's progressToken stays valid: until the original request is answered, or for the task's whole life."),
  ack: strict({
    mode: z
      .enum(["notification", "result", "flat-result"])
      .describe("notification: a notification acknowledges creation and the request is answered later with its real result; result: the request is answered at once with { task }; flat-result: the request is answered at once with the task's fields."),
    notification: methodRef.optional().describe("mode notification: the notification method."),
    resultType: TypeExprSchema.optional().describe("mode result / flat-result: the type of the immediate answer."),
  }),
});

const RetentionSchema = strict({
  field: identifier.describe("The Task field reporting the retention actually granted."),
  countedFrom: z.enum(["creation", "terminal"]).describe("When the retention clock starts."),
  nullMeansUnlimited: z.boolean().describe("null asks for / grants unlimited retention."),
  default: z.int().min(0).describe("Granted when the requestor asks for none (ms)."),
  max: z.int().min(0).describe("The most a receiver grants by default (ms); configurable at run time."),
  reachableWholeTime: z.boolean().describe("The task must stay reachable through its whole retention (not deleted early)."),
  expiredError: errorRef.optional().describe("Answered for a task whose retention elapsed but is still remembered."),
});

const PollingSchema = strict({
  field: identifier.describe("The Task field suggesting a poll interval."),
  default: z.int().min(0).describe("The suggested interval (ms)."),
});

const ResultsSchema = strict({
  mode: z
    .enum(["error-until-completed", "block-until-terminal", "inline"])
    .describe("error-until-completed: tasks/result errors before completion; block-until-terminal: tasks/result waits; inline: the status carries the result."),
  method: methodRef.optional().describe("The result method (modes other than inline)."),
  notReadyError: errorRef.optional().describe("mode error-until-completed: answered before completion."),
  resultField: identifier.optional().describe("mode inline: the status field carrying the result."),
  errorField: identifier.optional().describe("mode inline: the status field carrying a failure's error object."),
  replaysErrors: z.boolean().describe("A request that failed with a JSON-RPC error yields that error from the result channel."),
  cancelledError: errorRef
    .optional()
    .describe("mode block-until-terminal: the error the result method answers for a cancelled task, whose request has no result (default: internalError)."),
});

const OutcomesSchema = strict({
  toolError: stateName.describe("The status of a task whose tool result has isError: true."),
  protocolError: stateName.describe("The status of a task whose request ended in a JSON-RPC error."),
  unexpected: stateName.describe("The status when the receiver cannot tell what happened."),
  failureField: identifier.optional().describe("The Task field that describes a failure."),
  failureShape: z.enum(["message", "error-object"]).describe("message: a string; error-object: { code, message, data? }."),
  statusMessageField: identifier.optional().describe("An optional human-readable status message field."),
});

const CancellationSchema = strict({
  via: z.enum(["cancelled-notification", "method"]),
  method: methodRef.optional().describe("via method: the cancel method."),
  reply: z.enum(["none", "task", "ack"]).describe("What the cancel request answers: none (a notification), the task, or an empty ack."),
  timing: z.enum(["before-reply", "eventual"]).describe("before-reply: the task is cancelled when the answer leaves; eventual: later."),
  terminal: z.enum(["ignore", "error", "ack"]).describe("What cancelling a terminal task does."),
  terminalError: errorRef.optional(),
  deleteMethod: z.union([methodRef, z.literal(false)]).describe("A method that deletes a task and its result, or false."),
  deletableStatuses: z.array(stateName).optional().describe("Statuses a task may be deleted in (default: terminal ones)."),
  deleteRefusedError: errorRef.optional().describe("Answered when the receiver refuses a deletion."),
  ignoreLateInput: z
    .boolean()
    .optional()
    .describe("Answers to input requests of a task that was cancelled meanwhile are ignored."),
});

const InputSchema = strict({
  via: z
    .enum(["side-request", "result-stream", "inline-poll"])
    .describe("side-request: the receiver sends the request directly with related-task meta; result-stream: it is delivered on the blocking result channel; inline-poll: the status carries input requests and the requestor answers with an update method."),
  status: stateName.describe("The status while input is awaited."),
  resume: stateName.describe("The status once every input is answered."),
  requests: z.array(methodRef).describe("Requests the receiver may send to ask for input."),
  requestsField: identifier.optional().describe("via inline-poll: the status field carrying pending input requests."),
  updateMethod: methodRef.optional().describe("via inline-poll: the method that answers them."),
  responsesField: identifier.optional().describe("via inline-poll: the params field carrying answers."),
  partial: z.boolean().describe("Answers may arrive in several parts."),
});

const ListingSchema = z.union([
  z.literal(false),
  strict({
    method: methodRef,
    pageSize: z.int().min(1).describe("Default page size."),
    maxPageSize: z.int().min(1).describe("Largest page size a receiver can be configured to."),
    invalidCursorError: errorRef,
  }),
]);

const StatusPushSchema = z.union([
  z.literal(false),
  strict({
    method: methodRef,
    delivery: z.enum(["push", "subscription"]).describe("push: sent on the session at every change; subscription: only on a subscription stream."),
    payload: z.enum(["task", "detailed-task"]),
    subscribeMethod: z.string().optional().describe("delivery subscription: the request that opens the subscription stream."),
    subscribeField: z.string().optional().describe("delivery subscription: the dotted params path listing the task ids subscribed to."),
    forbiddenOnStream: z
      .array(z.string())
      .optional()
      .describe("Notification methods that must not be sent on a task's stream."),
  }),
]);

const CapabilitySide = z.union([
  z.literal(false),
  strict({
    path: z.array(z.string()).min(1).describe("Where the capability lives in the capabilities object, e.g. [tasks] or [extensions, io.modelcontextprotocol/tasks]."),
    value: jsonValue.describe("The value declared there (a JSON object)."),
    type: TypeExprSchema.optional().describe("Its type."),
    gates: z
      .record(methodRef, z.array(z.string()).min(1))
      .optional()
      .describe("Methods available only when a path inside the capability value is declared, e.g. tasks/list: [list]."),
    augments: z
      .record(methodRef, z.array(z.string()).min(1))
      .optional()
      .describe("Requests that may be task-augmented only when a path inside the capability value is declared, e.g. tools/call: [requests, tools, call]; the list is exhaustive: a requestor augments no other request, a receiver serves any other request plainly."),
    requiredBy: z
      .array(methodRef)
      .optional()
      .describe("Methods the peer may call only when it declared this capability (for a per-request capability: on that very request); otherwise they are answered with `missingError` before anything else is looked at."),
    missingError: errorRef
      .optional()
      .describe("The error answered when a method in `requiredBy` arrives without the capability (default: creation.requiredTaskError); its data names the capability when the error declares data."),
  }),
]);

const RelatedTaskSchema = z.union([z.literal(false), strict({
  meta: identifier.describe("The meta entry (from `meta`) naming the related task; its type holds the task's id in `taskId`."),
  requests: z.boolean().describe("On requests the receiver sends for a task (elicitation, sampling)."),
  notifications: z.boolean().describe("On the notifications a task's work sends (progress, logging, ...); a status notification names its task in its params and never carries it."),
  taskMethodRequests: z.boolean().describe("On the requestor's task method requests (tasks/get, ...)."),
  results: z.array(methodRef).describe("Results that must carry it."),
  notOnResults: z.array(methodRef).optional().describe("Results that should not carry it."),
  onInlineResult: z.boolean().describe("On a result inlined into a status."),
})]).describe("Where the related-task meta key goes, or false when the revision has none.");

const HttpSchema = z.union([
  z.literal(false),
  strict({
    header: z.string().min(1).describe("An HTTP header that repeats the task id."),
    methods: z.array(methodRef).min(1),
    mismatchError: errorRef,
  }),
]);

const ResultTypeSchema = z.union([
  z.literal(false),
  strict({
    field: identifier,
    task: z.string(),
    complete: z.string(),
  }),
]);

const LimitsSchema = strict({
  maxConcurrentPerRequestor: z.int().min(1),
  createPerMinute: z.int().min(1),
  pollPerMinute: z.int().min(1),
  listPerMinute: z.int().min(1),
  resultPerMinute: z.int().min(1).optional().describe("Result retrievals a requestor may make per minute (default: pollPerMinute)."),
  rateLimitError: errorRef,
  concurrencyError: errorRef,
});

const BehaviourSchema = strict({
  taskType: typeName
    .optional()
    .describe("The type of a task as the requestor sees it (default Task); retention, polling and outcome fields are looked up on it."),
  taskIdField: identifier.optional().describe("The field of the task type (and of the task methods' params) holding the task id (default taskId)."),
  statusField: identifier.optional().describe("The field of the task type holding its status (default status)."),
  events: strict({
    expiry: stateName.optional().describe("The retention ran out before the task ended: it moves to this (terminal) state and stays readable for a while, instead of vanishing."),
    cancel: stateName.optional().describe("A requestor cancelled the task (default: the first state with role cancelled)."),
    exception: stateName.optional().describe("The work threw something that is neither a result nor a protocol error (default: outcomes.unexpected)."),
    restart: stateName.optional().describe("The server restarted while the task had not ended (durable stores; default: the first state with role failed)."),
  })
    .optional()
    .describe("The state each event leads a task to; every one goes through the transition table."),
  creation: CreationSchema,
  retention: z
    .union([RetentionSchema, z.literal(false)])
    .optional()
    .describe("How long tasks are kept, or false (omitted): tasks are kept until deleted, or as long as the server's own setting says."),
  polling: z.union([PollingSchema, z.literal(false)]).optional().describe("The suggested poll interval, or false (omitted): the task carries none."),
  results: ResultsSchema,
  outcomes: OutcomesSchema,
  cancellation: CancellationSchema,
  input: z.union([InputSchema, z.literal(false)]).optional().describe("How a task asks its requestor for input, or false (omitted): tasks never ask."),
  listing: ListingSchema,
  statusNotifications: StatusPushSchema,
  capabilities: strict({ server: CapabilitySide, client: CapabilitySide }),
  relatedTask: RelatedTaskSchema,
  http: HttpSchema,
  resultType: ResultTypeSchema,
  notFoundError: errorRef
    .optional()
    .describe("The error answered for a task id the requestor cannot see: unknown, forgotten, or another requestor's (default: the error named taskNotFound; without one, -32602 'Task not found')."),
  internalError: errorRef
    .optional()
    .describe("The error answered when the server itself fails a task or a request (default: the error named internalError; without one, -32603 'Internal error')."),
  unsupportedMethods: strict({
    methods: z.array(methodRef),
    error: errorRef,
  })
    .optional()
    .describe("Methods of earlier revisions that are answered with an error."),
  limits: LimitsSchema,
  sessionBinding: z
    .enum(["session", "auth", "session-and-auth", "none"])
    .describe("What tasks are bound to: the transport session, the auth context (where the protocol has no sessions), both, or nothing."),
});

// ---------------------------------------------------------------------------
// The spec
// ---------------------------------------------------------------------------

export const SpecSchema = strict({
  $schema: z.string().optional(),
  spec: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, "spec names are lower-case, e.g. 'sep-1686-draft'").describe("The spec's name."),
  protocol: strict({
    name: z.string(),
    revision: z.string().describe("The revision date or label, e.g. 2025-11-25."),
    protocolVersion: z.string().optional().describe("The MCP protocol version negotiated with it."),
    lifecycle: z
      .enum(["initialize", "per-request"])
      .optional()
      .describe(
        "How the core protocol underneath connects (default initialize). initialize: a session opened by the initialize handshake, capabilities declared once, the server may send requests (elicitation, sampling) to the client (core 2025-11-25 and earlier; the generated runtime binds to @modelcontextprotocol/sdk 1.x). per-request: no handshake and no session; every request carries protocolVersion and clientCapabilities in `_meta`, the server answers `server/discover`, asks for input only with input_required results (multi round-trip requests), and is served over stateless Streamable HTTP (core 2026-07-28; the generated runtime then also emits stateless-server.ts on @modelcontextprotocol/server 2.x and stateless-client.ts). per-request needs protocolVersion.",
      ),
    status: z.string().optional(),
    source: z.string().optional().describe("Where the text this spec follows lives."),
  }),
  description: description.optional(),
  statusType: typeName.optional().describe("The name of the generated status enum type (default TaskStatus)."),
  types: z.record(typeName, TypeExprSchema),
  states: z.record(stateName, StateSchema),
  transitions: z.array(TransitionSchema),
  guards: z.record(identifier, GuardSchema).optional(),
  methods: z.record(methodName, MethodSchema),
  errors: z.record(errorName, ErrorSchema),
  meta: z.record(identifier, MetaSchema),
  behaviour: BehaviourSchema,
  examples: z
    .array(
      strict({
        name: z.string(),
        description: description.optional(),
        kind: z.enum(["request", "notification", "result", "error", "meta", "type"]),
        method: methodRef.optional(),
        type: typeName.optional().describe("kind type / meta: the type the example must match."),
        message: jsonValue.describe("The example as JSON."),
        source: z.string().optional(),
      }),
    )
    .optional()
    .describe("Example messages from the spec's source; the tests check the generated validators accept them."),
});

export type Spec = z.infer<typeof SpecSchema>;
export type Behaviour = Spec["behaviour"];

/** The JSON Schema of the spec format, derived from SpecSchema. */
export function specJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(SpecSchema, { target: "draft-2020-12", unrepresentable: "any", io: "input" }) as Record<
    string,
    unknown
  >;
  return {
    $schema: schema.$schema,
    $id: "https://mcp-task-gen.dev/mcp-task-spec.schema.json",
    title: "mcp-task-gen spec",
    description: "A declarative spec of an MCP Tasks revision, compiled by mcp-task-gen.",
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$schema")),
  };
}
