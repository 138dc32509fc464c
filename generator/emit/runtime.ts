/**
 * The runtime emitters: `store.ts` (the TaskStore interface and its in-memory
 * implementation), `server.ts` (the server scaffold on the MCP SDK) and
 * `client.ts` (typed client stubs). They never ask which revision they compile:
 * every branch of their templates is a declared behaviour, a role, an error or
 * a meta key, turned here into template-time flags and code snippets.
 */
import type { IR, IRError, IRType } from "../ir.js";
import type { Emitter, EmitEnv, VirtualFile } from "./index.js";

/** The message of the JSON-RPC error a generated server answers for a behaviour it does not implement. */
export const NOT_SUPPORTED = "not supported by this generated server yet";

/**
 * A call of the generated `taskErrors.<name>(ctx)` constructor, filling each
 * context field the error declares from `available` (field → expression).
 */
function errorCall(ir: IR, name: string | undefined, available: Record<string, string> = {}): string | undefined {
  if (name === undefined) return undefined;
  const e = ir.errors.find((x) => x.name === name);
  if (!e) return undefined;
  return callOf(e, available);
}

function callOf(e: IRError, available: Record<string, string>): string {
  if (e.context.length === 0) return `taskErrors.${e.name}()`;
  const fields = e.context.map((c) => `${JSON.stringify(c.name)}: ${available[c.name] ?? defaultOf(c.type)}`);
  return `taskErrors.${e.name}({ ${fields.join(", ")} })`;
}

function defaultOf(t: IRType): string {
  switch (t.kind) {
    case "integer":
    case "number":
      return "0";
    case "boolean":
      return "false";
    default:
      return '""';
  }
}

/** The fields of an object type declared in the spec (refs and unions are not followed). */
function objectFields(ir: IR, typeName: string): string[] {
  const d = ir.types.find((t) => t.name === typeName);
  if (!d || d.type.kind !== "object") return [];
  return d.type.fields.map((f) => f.name);
}

function metaConst(ir: IR, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  return ir.meta.some((m) => m.name === name) ? `META_KEYS.${name}` : undefined;
}

/** Everything the runtime templates read. */
export function runtimeView(ir: IR, env: EmitEnv) {
  const b = ir.behaviour;
  const method = (m: string | false | undefined) => (m ? ir.methods.find((x) => x.method === m && x.kind === "request") : undefined);
  const getMethod = method("tasks/get");
  const resultMethod = b.results.mode === "inline" ? undefined : method(b.results.method);
  const listMethod = b.listing === false ? undefined : method(b.listing.method);
  const deleteMethod = method(b.cancellation.deleteMethod);
  const cancelMethod = b.cancellation.via === "method" ? method(b.cancellation.method) : undefined;
  const updateMethod = b.input.via === "inline-poll" ? method(b.input.updateMethod) : undefined;
  const related = b.relatedTask === false ? undefined : b.relatedTask;
  const relatedConst = related ? metaConst(ir, related.meta) : undefined;
  const relatedOn = (m: string | undefined) => (m !== undefined && related !== undefined && relatedConst !== undefined && related.results.includes(m));
  const taskTypeFields = objectFields(ir, "Task").length ? objectFields(ir, "Task") : objectFields(ir, b.taskType);
  const notFound = errorCall(ir, "taskNotFound");
  const internal = errorCall(ir, "internalError");
  const terminalRoles = ["completed", "failed", "cancelled", "unknown"];
  const roles = ir.roles;
  const statusUnion = ir.states.map((s) => JSON.stringify(s.name)).join(" | ");
  const defaultDeletable = b.cancellation.deletableStatuses ?? ir.terminalStates;
  const gaps: string[] = [];
  const creationVia = b.creation.via;
  if (creationVia === "client-capability") gaps.push("creation.via client-capability");
  if (b.creation.ack.mode !== "notification") gaps.push(`creation.ack ${b.creation.ack.mode} (client stubs only: the server answers with the task at once)`);
  if (b.results.mode !== "error-until-completed") gaps.push(`results.mode ${b.results.mode}`);
  if (b.input.via !== "side-request") gaps.push(`input.via ${b.input.via}`);
  if (b.cancellation.via === "method") gaps.push(`cancellation.via method (${b.cancellation.method ?? "?"})`);
  if (b.http !== false) gaps.push(`http header ${b.http.header}`);
  if (b.resultType !== false) gaps.push(`resultType ${b.resultType.field}`);
  if (b.creation.toolSwitch !== false) gaps.push(`creation.toolSwitch ${b.creation.toolSwitch.field} (not enforced)`);
  if (b.creation.requiredTaskError !== undefined) gaps.push(`creation.requiredTaskError ${b.creation.requiredTaskError} (not enforced)`);
  if (b.statusNotifications !== false) gaps.push(`statusNotifications ${b.statusNotifications.method}`);

  const capability = (side: "server" | "client") => {
    const c = b.capabilities[side];
    if (c === false) return undefined;
    let v: unknown = c.value;
    for (const k of [...c.path].reverse()) v = { [k]: v };
    return JSON.stringify(v);
  };

  return {
    header: env.header,
    notSupported: NOT_SUPPORTED,
    gaps,
    hasGaps: gaps.length > 0,
    gapsJson: JSON.stringify(gaps),
    statusType: ir.statusType,
    statusUnion,
    taskType: b.taskType,
    initial: ir.initialState,
    running: roles.running ?? ir.initialState,
    completed: roles.completed,
    failed: roles.failed ?? b.outcomes.protocolError,
    cancelled: roles.cancelled,
    inputStatus: b.input.status,
    resumeStatus: b.input.resume,
    terminalJson: JSON.stringify(ir.terminalStates),
    hasUnknownRole: roles.unknown !== undefined,
    _terminalRoles: terminalRoles,
    outcomes: {
      toolError: JSON.stringify(b.outcomes.toolError),
      protocolError: JSON.stringify(b.outcomes.protocolError),
      unexpected: JSON.stringify(b.outcomes.unexpected),
      failureField: b.outcomes.failureField ?? "error",
      failureShapeMessage: b.outcomes.failureShape === "message",
      statusMessageField: b.outcomes.statusMessageField,
    },
    creation: {
      viaMeta: creationVia === "meta",
      viaParam: creationVia === "param",
      viaCapability: creationVia === "client-capability",
      metaConst: metaConst(ir, b.creation.meta),
      capabilityMetaConst: metaConst(ir, b.creation.capabilityMeta) ?? JSON.stringify(b.creation.capabilityMeta ?? ""),
      param: JSON.stringify(b.creation.param ?? "task"),
      idFromRequestor: b.creation.taskId.assignedBy === "requestor",
      idField: JSON.stringify(b.creation.taskId.field ?? "taskId"),
      retentionField: JSON.stringify(b.creation.retentionField ?? b.retention.field),
      duplicateError: errorCall(ir, b.creation.taskId.duplicateError, { taskId: "taskId" }),
      serverRequestsJson: JSON.stringify(b.creation.requests.server),
      ackNotification: b.creation.ack.mode === "notification",
      ackNotificationMethod: JSON.stringify(b.creation.ack.notification ?? ""),
      ackResult: b.creation.ack.mode === "result",
      ackFlat: b.creation.ack.mode === "flat-result",
    },
    retention: {
      field: b.retention.field,
      fromTerminal: b.retention.countedFrom === "terminal",
      nullMeansUnlimited: b.retention.nullMeansUnlimited,
      default: b.retention.default,
      max: b.retention.max,
      expiredError: errorCall(ir, b.retention.expiredError),
    },
    polling: { field: b.polling.field, default: b.polling.default },
    results: {
      errorUntilCompleted: b.results.mode === "error-until-completed",
      blockUntilTerminal: b.results.mode === "block-until-terminal",
      inline: b.results.mode === "inline",
      method: resultMethod ? JSON.stringify(resultMethod.method) : undefined,
      resultField: b.results.resultField ?? "result",
      notReadyError: errorCall(ir, b.results.notReadyError, { status: "rec.status" }),
      replaysErrors: b.results.replaysErrors,
    },
    get: getMethod ? { method: JSON.stringify(getMethod.method) } : undefined,
    list: listMethod && b.listing !== false
      ? {
          method: JSON.stringify(listMethod.method),
          pageSize: b.listing.pageSize,
          maxPageSize: b.listing.maxPageSize,
          invalidCursorError: errorCall(ir, b.listing.invalidCursorError) ?? 'new TaskProtocolError("invalidCursor", -32602, "Invalid cursor")',
        }
      : undefined,
    del: deleteMethod
      ? {
          method: JSON.stringify(deleteMethod.method),
          deletableJson: JSON.stringify(defaultDeletable),
          refusedError:
            errorCall(ir, b.cancellation.deleteRefusedError) ?? 'new TaskProtocolError("deletionRefused", -32602, "Task deletion refused")',
        }
      : undefined,
    cancelMethod: cancelMethod ? JSON.stringify(cancelMethod.method) : undefined,
    updateMethod: updateMethod ? JSON.stringify(updateMethod.method) : undefined,
    cancelViaNotification: b.cancellation.via === "cancelled-notification",
    inputSideRequest: b.input.via === "side-request",
    inputVia: b.input.via,
    related: {
      enabled: related !== undefined && relatedConst !== undefined,
      metaConst: relatedConst ?? '""',
      requests: related?.requests === true && relatedConst !== undefined,
      notifications: related?.notifications === true && relatedConst !== undefined,
      taskMethodRequests: related?.taskMethodRequests === true && relatedConst !== undefined,
      onGet: relatedOn(getMethod?.method),
      onResult: relatedOn(resultMethod?.method),
      onList: relatedOn(listMethod?.method),
      onDelete: relatedOn(deleteMethod?.method),
    },
    errors: {
      notFound: notFound ?? 'new TaskProtocolError("taskNotFound", -32602, "Task not found")',
      internal: internal ?? 'new TaskProtocolError("internalError", -32603, "Internal error")',
      rateLimited: errorCall(ir, b.limits.rateLimitError, { operation: "operation", method: "operation" }) ?? 'new TaskProtocolError("rateLimited", -32010, `Rate limit exceeded: ${operation}`)',
      concurrency: errorCall(ir, b.limits.concurrencyError, { limit: "limit" }) ?? 'new TaskProtocolError("concurrencyLimitReached", -32011, `Too many concurrent tasks (limit ${limit})`)',
    },
    limits: {
      maxConcurrentPerRequestor: b.limits.maxConcurrentPerRequestor,
      createPerMinute: b.limits.createPerMinute,
      pollPerMinute: b.limits.pollPerMinute,
      resultPerMinute: b.limits.resultPerMinute ?? b.limits.pollPerMinute,
      listPerMinute: b.limits.listPerMinute,
    },
    unsupported: b.unsupportedMethods
      ? { methodsJson: JSON.stringify(b.unsupportedMethods.methods), error: errorCall(ir, b.unsupportedMethods.error) ?? 'new TaskProtocolError("methodNotFound", -32601, "Method not found")' }
      : undefined,
    binding: {
      session: b.sessionBinding === "session" || b.sessionBinding === "session-and-auth",
      auth: b.sessionBinding === "auth" || b.sessionBinding === "session-and-auth",
      kind: b.sessionBinding,
    },
    serverCapability: capability("server"),
    task: {
      hasCreatedAt: taskTypeFields.includes("createdAt"),
      hasLastUpdatedAt: taskTypeFields.includes("lastUpdatedAt"),
      hasStatusMessage: b.outcomes.statusMessageField !== undefined && taskTypeFields.includes(b.outcomes.statusMessageField),
      failureInTask: b.outcomes.failureField !== undefined && taskTypeFields.includes(b.outcomes.failureField),
    },
    usesTaskErrors: true,
  };
}

function one(name: string, template: string, path: string): Emitter {
  return {
    name,
    emit(ir: IR, env: EmitEnv): VirtualFile[] {
      return [{ path, contents: env.render(template, runtimeView(ir, env)) }];
    },
  };
}

/** store.ts: the TaskStore interface and the in-memory store. */
export const storeEmitter: Emitter = one("store", "store.ts.hbs", "store.ts");
/** server.ts: the server scaffold. */
export const serverEmitter: Emitter = one("server", "server.ts.hbs", "server.ts");
/** client.ts: the client stubs. */
export const clientEmitter: Emitter = one("client", "client.ts.hbs", "client.ts");

/** The runtime emitters, in output order. */
export const RUNTIME_EMITTERS: readonly Emitter[] = [storeEmitter, serverEmitter, clientEmitter];
