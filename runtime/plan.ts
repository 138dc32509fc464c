// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * The plan: the strategies a runtime follows, derived once from the
 * descriptor. Every branch of the runtime reads a value of the plan (or of the
 * behaviour it comes from), never a revision's name.
 */
import type { Behaviour, CapabilityBehaviour, StateRole } from "./behaviour.js";
import type { TaskSpecDescriptor } from "./descriptor.js";
import { declaredError, TaskProtocolError } from "./errors.js";

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `value` nested under `path`: nestAt(["a", "b"], 1) is { a: { b: 1 } }. */
export function nestAt(path: readonly string[], value: unknown): Record<string, unknown> {
  let v = value;
  for (let i = path.length - 1; i >= 0; i--) v = { [path[i]!]: v };
  return v as Record<string, unknown>;
}

/** The value at `path` inside a capabilities object, or undefined. */
export function capabilityAt(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const k of path) {
    if (!isObject(v)) return undefined;
    v = v[k];
  }
  return v;
}

/** Whether `declared` has every key `required` has, recursively. */
export function covers(declared: unknown, required: unknown): boolean {
  if (!isObject(required)) return declared !== undefined;
  if (!isObject(declared)) return false;
  for (const k in required) {
    if (!Object.prototype.hasOwnProperty.call(required, k)) continue;
    if (!Object.prototype.hasOwnProperty.call(declared, k) || !covers(declared[k], required[k])) return false;
  }
  return true;
}

function capabilityObject(c: CapabilityBehaviour): Record<string, unknown> | undefined {
  return c === false ? undefined : nestAt(c.path, c.value);
}

/**
 * The state the runtime tries first for each purpose. The table interpreter (machine.ts) moves a task there
 * when the table allows it from where the task is, else to the first other state of the same role it allows.
 */
export interface StatusPlan<S extends string> {
  /** Every state's role. */
  roleOf: Readonly<Record<string, StateRole>>;
  initial: S;
  running: S;
  completed: S;
  failed: S;
  cancelled: S;
  input: S;
  resume: S;
  onToolError: S;
  onProtocolError: S;
  onUnexpected: S;
  /** Where a task that was not terminal when the server stopped ends after a restart. */
  onRestart: S;
  /** Where a task whose retention ran out before it ended goes (undefined: it is removed, its work stopped). */
  onExpiry: S | undefined;
}

/** Retention as the runtime applies it; a spec without retention keeps tasks until they are deleted. */
export interface RetentionPlan {
  /** The task field reporting it (undefined: none is sent). */
  field: string | undefined;
  countedFrom: "creation" | "terminal";
  nullMeansUnlimited: boolean;
  /** ms; null = unlimited. */
  default: number | null;
  max: number | null;
  expiredError: string | undefined;
}

export type RuntimePlan<S extends string = string> = ReturnType<typeof makePlan<S>>;

/** Derives the runtime's strategies from a descriptor. */
export function makePlan<S extends string>(d: TaskSpecDescriptor<S>) {
  const b: Behaviour = d.behaviour;
  const roles = d.states.roles;
  const events = b.events ?? {};
  const input = b.input === false ? undefined : b.input;
  const status: StatusPlan<S> = {
    roleOf: d.states.roleOf,
    initial: d.states.initial,
    running: roles.running ?? d.states.initial,
    completed: roles.completed as S,
    failed: (roles.failed ?? b.outcomes.protocolError) as S,
    cancelled: (events.cancel ?? roles.cancelled) as S,
    input: (input?.status ?? roles.input_required ?? roles.running ?? d.states.initial) as S,
    resume: (input?.resume ?? roles.running ?? d.states.initial) as S,
    onToolError: b.outcomes.toolError as S,
    onProtocolError: b.outcomes.protocolError as S,
    onUnexpected: (events.exception ?? b.outcomes.unexpected) as S,
    onRestart: (events.restart ?? roles.failed ?? b.outcomes.unexpected) as S,
    onExpiry: events.expiry as S | undefined,
  };
  const retention: RetentionPlan =
    b.retention === false
      ? { field: undefined, countedFrom: "creation", nullMeansUnlimited: true, default: null, max: null, expiredError: undefined }
      : { ...b.retention, expiredError: b.retention.expiredError };
  const polling = b.polling === false ? { field: undefined, default: 1000 } : b.polling;
  const idField = b.taskIdField ?? "taskId";
  const statusField = b.statusField ?? "status";
  /** The request that is `op`, if the spec has one. */
  const operation = (op: string) => d.methods.find((m) => m.kind === "request" && m.operation === op)?.method;
  const related = b.relatedTask === false ? undefined : b.relatedTask;
  const relatedKey = related === undefined ? undefined : d.meta[related.meta];
  const relatedOn = (m: string | undefined) => m !== undefined && relatedKey !== undefined && related !== undefined && related.results.includes(m);
  const taskFields = new Set(d.taskFields);
  const lifecycle = d.spec.protocol.lifecycle ?? "initialize";
  const clientCap = b.capabilities.client === false ? undefined : b.capabilities.client;
  const clientCapability = capabilityObject(b.capabilities.client);
  const gateErrorName = clientCap?.missingError ?? b.creation.requiredTaskError;
  const methods = {
    get: operation("get"),
    // Each method's operation is the spec's, or read from the behaviour that names it (the compiler does that).
    result: b.results.mode === "inline" ? undefined : operation("result"),
    list: b.listing === false ? undefined : operation("list"),
    delete: operation("delete"),
    cancel: b.cancellation.via === "method" ? operation("cancel") : undefined,
    update: input?.via === "inline-poll" ? operation("update") : undefined,
  };
  /** Transition requests (e.g. pause, resume): the state each moves the addressed task to. */
  const transitions = new Map<string, S>(
    d.methods.filter((m) => m.kind === "request" && m.operation === "transition" && m.to !== undefined).map((m) => [m.method, m.to as S]),
  );
  /** Requests answered by a handler the server's code supplies. */
  const custom = d.methods.filter((m) => m.kind === "request" && m.operation === "custom").map((m) => m.method);
  const gaps: string[] = [];
  if (
    b.cancellation.via === "method" &&
    !((b.cancellation.reply === "task" && b.cancellation.terminal === "error") || (b.cancellation.reply === "ack" && b.cancellation.terminal === "ack"))
  ) {
    gaps.push(`cancellation.via method (${b.cancellation.method ?? "?"}, reply ${b.cancellation.reply}, terminal ${b.cancellation.terminal})`);
  }
  if (b.statusNotifications !== false && b.statusNotifications.delivery !== "push" && lifecycle !== "per-request") {
    gaps.push(`statusNotifications ${b.statusNotifications.method}`);
  }
  return {
    descriptor: d,
    behaviour: b,
    status,
    terminal: d.states.terminal,
    hasUnknownRole: roles.unknown !== undefined,
    lifecycle,
    perRequest: lifecycle === "per-request",
    methods,
    /**
     * The task methods answered with nothing sent on the request's stream before the answer (all but a
     * result method that blocks until the task ends, which carries the task's input requests).
     */
    immediateMethods: [
      methods.get,
      methods.list,
      methods.delete,
      methods.cancel,
      methods.update,
      b.results.mode === "block-until-terminal" ? undefined : methods.result,
      ...transitions.keys(),
      ...custom,
    ].filter((m): m is string => m !== undefined),
    transitions,
    custom,
    retention,
    polling,
    idField,
    statusField,
    /** The errors named by the behaviour (the format's defaults where it names none). */
    errors: {
      notFound: b.notFoundError ?? "taskNotFound",
      internal: b.internalError ?? "internalError",
    },
    /** Whether a status has `role`. */
    isRole(status: string, role: StateRole): boolean {
      return d.states.roleOf[status] === role;
    },
    /** The task methods a requestor sends (tasks/get, ...). */
    clientRequests: d.methods.filter((m) => m.kind === "request" && m.from !== "server").map((m) => m.method),
    /** Declared behaviours this runtime answers with -32603 (none should remain). */
    gaps,
    creation: {
      via: b.creation.via,
      metaKey: b.creation.meta === undefined ? undefined : d.meta[b.creation.meta],
      capabilityMetaKey: b.creation.capabilityMeta === undefined ? undefined : (d.meta[b.creation.capabilityMeta] ?? b.creation.capabilityMeta),
      param: b.creation.param ?? "task",
      idFromRequestor: b.creation.taskId.assignedBy === "requestor",
      idField: b.creation.taskId.field ?? "taskId",
      retentionField: b.creation.retentionField ?? retention.field,
      /** Whether the task request is checked against a declared type (then handed to the work). */
      validated: d.validateCreation !== undefined,
      ackMode: b.creation.ack.mode,
      ackNotification: b.creation.ack.notification,
    },
    clientCapability,
    serverCapability: capabilityObject(b.capabilities.server),
    /** Methods a requestor may call only when it declares the client capability. */
    capabilityGated: clientCap?.requiredBy?.length && gateErrorName !== undefined ? clientCap.requiredBy : undefined,
    gateErrorName,
    readsClientCapability:
      b.creation.via === "client-capability" || Boolean(clientCap?.requiredBy?.length && gateErrorName !== undefined),
    related: {
      key: relatedKey,
      requests: related?.requests === true && relatedKey !== undefined,
      notifications: related?.notifications === true && relatedKey !== undefined,
      taskMethodRequests: related?.taskMethodRequests === true && relatedKey !== undefined,
      onGet: relatedOn(methods.get),
      onResult: relatedOn(methods.result),
      onList: relatedOn(methods.list),
      onDelete: relatedOn(methods.delete),
      onCancel: relatedOn(methods.cancel),
    },
    task: {
      statusMessageField:
        b.outcomes.statusMessageField !== undefined && taskFields.has(b.outcomes.statusMessageField) ? b.outcomes.statusMessageField : undefined,
      statusMessageOnFailure:
        b.outcomes.failureShape === "error-object" && b.outcomes.statusMessageField !== undefined && taskFields.has(b.outcomes.statusMessageField),
      createdAt: taskFields.has("createdAt"),
      lastUpdatedAt: taskFields.has("lastUpdatedAt"),
      failureField: b.outcomes.failureField !== undefined && taskFields.has(b.outcomes.failureField) ? b.outcomes.failureField : undefined,
      failureAsMessage: b.outcomes.failureShape === "message",
      /** The task's own fields, set by the work (undefined: the spec declares none). */
      extras: Object.keys(d.taskExtras).length > 0 ? Object.keys(d.taskExtras) : undefined,
    },
    binding: {
      session: b.sessionBinding === "session" || b.sessionBinding === "session-and-auth",
      auth: b.sessionBinding === "auth" || b.sessionBinding === "session-and-auth",
    },
    input: {
      via: input?.via ?? ("none" as const),
      requestsField: input?.requestsField ?? "inputRequests",
      responsesField: input?.responsesField ?? "inputResponses",
      requests: input?.requests ?? [],
    },
    results: {
      mode: b.results.mode,
      resultField: b.results.resultField ?? "result",
      errorField: b.results.errorField ?? "error",
    },
    statusPush: b.statusNotifications !== false && b.statusNotifications.delivery === "push" ? b.statusNotifications : undefined,
    statusSubscription:
      b.statusNotifications !== false && b.statusNotifications.delivery === "subscription"
        ? {
            method: b.statusNotifications.method,
            subscribeMethod: b.statusNotifications.subscribeMethod ?? "",
            subscribePath: (b.statusNotifications.subscribeField ?? "").split(".").filter(Boolean),
            detailed: b.statusNotifications.payload === "detailed-task",
          }
        : undefined,
    toolSwitch:
      b.creation.toolSwitch === false ? undefined : { ...b.creation.toolSwitch, path: b.creation.toolSwitch.field.split(".") },
    /** Builds the declared error `name` (filling its message from `ctx`), or `fallback()` when the spec declares none. */
    error(name: string | undefined, ctx: Readonly<Record<string, unknown>>, fallback: () => TaskProtocolError, data?: unknown): TaskProtocolError {
      // The runtime names a task's id and status as taskId and status; a message may use the spec's own names.
      const named: Record<string, unknown> = { ...ctx };
      if ("status" in ctx && !(statusField in named)) named[statusField] = ctx.status;
      if ("taskId" in ctx && !(idField in named)) named[idField] = ctx.taskId;
      return declaredError(d.errors, name, named, fallback, data);
    },
    /** The declared error answered to a requestor without the client capability, naming it in `data` when the error declares data. */
    missingCapability(name: string | undefined, ctx: Readonly<Record<string, unknown>>): TaskProtocolError | undefined {
      if (name === undefined || !Object.prototype.hasOwnProperty.call(d.errors, name)) return undefined;
      const decl = d.errors[name]!;
      const data = decl.dataField !== undefined && clientCapability !== undefined ? { [decl.dataField]: clientCapability } : undefined;
      return declaredError(d.errors, name, ctx, () => new TaskProtocolError(name, decl.code, decl.message), data);
    },
  };
}
