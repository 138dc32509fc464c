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
  const lifecycle = ir.spec.protocol.lifecycle ?? "initialize";
  const perRequest = lifecycle === "per-request";
  // issue 4: tasks/cancel answering the task, cancelled before the reply, -32602 (an error) for a terminal task.
  // issue 5: tasks/cancel answering an empty ack, cancelling eventually (at once here), the same ack for a terminal task.
  if (b.cancellation.via === "method" && !((b.cancellation.reply === "task" && b.cancellation.terminal === "error") || (b.cancellation.reply === "ack" && b.cancellation.terminal === "ack"))) {
    gaps.push(`cancellation.via method (${b.cancellation.method ?? "?"}, reply ${b.cancellation.reply}, terminal ${b.cancellation.terminal})`);
  }
  // Subscription delivery (subscriptions/listen) is served by the per-request binding (stateless-server.ts).
  if (b.statusNotifications !== false && b.statusNotifications.delivery !== "push" && !perRequest) gaps.push(`statusNotifications ${b.statusNotifications.method}`);

  const capability = (side: "server" | "client") => {
    const c = b.capabilities[side];
    if (c === false) return undefined;
    let v: unknown = c.value;
    for (const k of [...c.path].reverse()) v = { [k]: v };
    return JSON.stringify(v);
  };
  // issue 5: per-request opt-in (creation via client-capability) and the methods that need it.
  const clientCap = b.capabilities.client === false ? undefined : b.capabilities.client;
  const gateError = missingCapabilityError(ir, clientCap?.missingError ?? b.creation.requiredTaskError, capability("client"));
  const clientRequests = ir.methods.filter((m) => m.kind === "request" && m.from !== "server").map((m) => m.method);

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
    lifecycle: {
      kind: lifecycle,
      perRequest,
      initialize: !perRequest,
      protocolVersion: JSON.stringify(ir.spec.protocol.protocolVersion ?? ""),
    },
    /** The task methods a requestor sends (tasks/get, ...), for bindings that register them one by one. */
    clientRequestsJson: JSON.stringify(clientRequests),
    readsClientCapability: creationVia === "client-capability" || Boolean(clientCap?.requiredBy?.length && gateError),
    clientHelpers: b.creation.ack.mode !== "notification" || creationVia === "client-capability" || Boolean(clientCap?.requiredBy?.length && gateError),
    capabilityGate: clientCap?.requiredBy?.length && gateError
      ? { methodsJson: JSON.stringify(clientCap.requiredBy), error: gateError }
      : undefined,
    creation: {
      viaMeta: creationVia === "meta",
      viaParam: creationVia === "param",
      viaCapability: creationVia === "client-capability",
      metaConst: metaConst(ir, b.creation.meta),
      capabilityMetaConst: metaConst(ir, b.creation.capabilityMeta) ?? JSON.stringify(b.creation.capabilityMeta ?? ""),
      capabilityMetaDeclared: metaConst(ir, b.creation.capabilityMeta) !== undefined,
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
      capability: JSON.stringify(b.creation.capability ?? ""),
      missingCapability: missingCapabilityError(ir, b.creation.requiredTaskError, capability("client")),
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
      errorField: b.results.errorField ?? "error",
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
    input: {
      inlinePoll: b.input.via === "inline-poll",
      requestsField: JSON.stringify(b.input.requestsField ?? "inputRequests"),
      responsesField: JSON.stringify(b.input.responsesField ?? "inputResponses"),
    },
    resultType: b.resultType === false
      ? undefined
      : { field: JSON.stringify(b.resultType.field), task: JSON.stringify(b.resultType.task), complete: JSON.stringify(b.resultType.complete) },
    http: b.http === false
      ? undefined
      : {
          header: JSON.stringify(b.http.header),
          headerLower: JSON.stringify(b.http.header.toLowerCase()),
          methodsJson: JSON.stringify(b.http.methods),
          mismatchError: errorCall(ir, b.http.mismatchError, { header: JSON.stringify(b.http.header) }) ?? 'invalidParams("Header mismatch")',
        },
    statusSubscription: b.statusNotifications !== false && b.statusNotifications.delivery === "subscription"
      ? {
          method: JSON.stringify(b.statusNotifications.method),
          subscribeMethod: JSON.stringify(b.statusNotifications.subscribeMethod ?? ""),
          subscribePathJson: JSON.stringify((b.statusNotifications.subscribeField ?? "").split(".").filter(Boolean)),
          detailed: b.statusNotifications.payload === "detailed-task",
        }
      : undefined,
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
    // --- issue 4: tasks answered at once with { task }, blocking results, the cancel method,
    // the per-tool switch, capability gates, pushed status notifications (all from declared properties).
    clientCapability: capability("client"),
    toolSwitch:
      b.creation.toolSwitch === false
        ? undefined
        : {
            field: b.creation.toolSwitch.field,
            pathJson: JSON.stringify(b.creation.toolSwitch.field.split(".")),
            valuesUnion: b.creation.toolSwitch.values.map((v) => JSON.stringify(v)).join(" | "),
            default: JSON.stringify(b.creation.toolSwitch.default),
            forbiddenError: errorCall(ir, b.creation.toolSwitch.forbiddenError, { tool: "tool", method: "method" }),
            requiredError: errorCall(ir, b.creation.toolSwitch.requiredError, { tool: "tool", method: "method" }),
          },
    requiredTaskError: errorCall(ir, b.creation.requiredTaskError, { method: "method", tool: "tool" }),
    resultsCancelledError: errorCall(ir, b.results.cancelledError) ?? internal ?? 'new TaskProtocolError("internalError", -32603, "Internal error")',
    cancellation: cancelMethod
      ? {
          method: JSON.stringify(cancelMethod.method),
          replyTask: b.cancellation.reply === "task",
          terminalError: b.cancellation.terminal === "error" ? (errorCall(ir, b.cancellation.terminalError, { status: "status" }) ?? "invalidParams(`Cannot cancel task: already in terminal status '${status}'`)") : undefined,
          onResult: relatedOn(cancelMethod.method),
          replyAck: b.cancellation.reply === "ack",
          terminalAck: b.cancellation.terminal === "ack",
        }
      : undefined,
    statusPush:
      b.statusNotifications !== false && b.statusNotifications.delivery === "push"
        ? { method: JSON.stringify(b.statusNotifications.method) }
        : undefined,
    inputResultStream: b.input.via === "result-stream",
    task: {
      statusMessageOnFailure: b.outcomes.failureShape === "error-object" && b.outcomes.statusMessageField !== undefined && taskTypeFields.includes(b.outcomes.statusMessageField),
      hasCreatedAt: taskTypeFields.includes("createdAt"),
      hasLastUpdatedAt: taskTypeFields.includes("lastUpdatedAt"),
      hasStatusMessage: b.outcomes.statusMessageField !== undefined && taskTypeFields.includes(b.outcomes.statusMessageField),
      failureInTask: b.outcomes.failureField !== undefined && taskTypeFields.includes(b.outcomes.failureField),
    },
    usesTaskErrors: true,
  };
}

/**
 * A call of the error answered when a requestor lacks the client capability;
 * when the error declares `data` whose type has fields, its first field names
 * the capability (core 2026-07-28: `{ requiredCapabilities: ClientCapabilities }`).
 */
function missingCapabilityError(ir: IR, name: string | undefined, capabilityJson: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const e = ir.errors.find((x) => x.name === name);
  if (!e) return undefined;
  // The template has `method` (the request's method) in scope.
  const call = callOf(e, { method: "method" });
  if (e.data === undefined || capabilityJson === undefined) return call;
  let data = e.data;
  if (data.kind === "ref") {
    const ref = data.name;
    const decl = ir.types.find((t) => t.name === ref);
    if (decl) data = decl.type;
  }
  if (data.kind !== "object" || data.fields.length === 0) return call;
  const arg = `{ ${JSON.stringify(data.fields[0]!.name)}: ${capabilityJson} } as never`;
  return call.endsWith("()") ? `${call.slice(0, -1)}${arg})` : `${call.slice(0, -1)}, ${arg})`;
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

/**
 * issue 5: stateless-server.ts and stateless-client.ts, the core binding of a
 * per-request lifecycle (protocol.lifecycle per-request): the runtime served
 * over stateless Streamable HTTP on @modelcontextprotocol/server 2.x, and a
 * fetch-based connection for the client stubs. Nothing for other lifecycles.
 */
export const statelessEmitter: Emitter = {
  name: "stateless",
  emit(ir: IR, env: EmitEnv): VirtualFile[] {
    if ((ir.spec.protocol.lifecycle ?? "initialize") !== "per-request") return [];
    const view = runtimeView(ir, env);
    return [
      { path: "stateless-server.ts", contents: env.render("stateless-server.ts.hbs", view) },
      { path: "stateless-client.ts", contents: env.render("stateless-client.ts.hbs", view) },
    ];
  },
};

/** The runtime emitters, in output order. */
export const RUNTIME_EMITTERS: readonly Emitter[] = [storeEmitter, serverEmitter, clientEmitter, statelessEmitter];
