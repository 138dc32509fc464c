/**
 * `behaviour`: that each declared behaviour has the keys it needs, and that
 * the methods, errors, states, meta entries and task fields it names exist.
 */
import { fieldsOf, TYPE_NAME_LIKE } from "../spec-helpers.js";
import { namedTypeOf } from "../task-shape.js";
import { needs, refs, suggest, type Ctx, type Path } from "./context.js";
import type { TaskInfo } from "./task.js";

/** Core MCP requests a task may wrap (checked so typos do not pass silently). */
export const CORE_REQUESTS = new Set([
  "tools/call",
  "resources/read",
  "prompts/get",
  "completion/complete",
  "sampling/createMessage",
  "elicitation/create",
  "roots/list",
  "tools/list",
  "resources/list",
  "prompts/list",
]);

/** The member of the related-task meta that names the task. */
const RELATED_TASK_ID = "taskId";

/** behaviour.creation: how a task request arrives and is acknowledged. */
export function checkCreation(ctx: Ctx): void {
  const { spec, report, methodNames } = ctx;
  const ref = refs(ctx);
  const need = needs(ctx);
  const b = spec.behaviour;
  const B: Path = ["behaviour"];
  const cr = b.creation;
  const crP = [...B, "creation"];
  if (cr.via === "meta") {
    need(cr.meta !== undefined, "meta", crP, "creation via meta needs the meta entry that carries the task request");
    ref("meta", cr.meta, [...crP, "meta"]);
  } else if (cr.via === "param") {
    need(cr.param !== undefined, "param", crP, "creation via param needs the params field that carries the task request");
    need(cr.paramType !== undefined, "paramType", crP, "creation via param needs the type of that field");
  } else {
    need(cr.capabilityMeta !== undefined, "capabilityMeta", crP, "creation via client-capability needs the meta entry holding the client's capabilities");
    need(cr.capability !== undefined, "capability", crP, "creation via client-capability needs the extension id the client lists");
    ref("meta", cr.capabilityMeta, [...crP, "capabilityMeta"]);
  }
  if (cr.taskId.assignedBy === "requestor") {
    need(cr.taskId.field !== undefined, "field", [...crP, "taskId"], "a requestor-assigned id needs the field of the task request that holds it");
  }
  ref("error", cr.taskId.duplicateError, [...crP, "taskId", "duplicateError"]);
  ref("error", cr.requiredTaskError, [...crP, "requiredTaskError"]);
  for (const side of ["server", "client"] as const) {
    cr.requests[side].forEach((m, i) => {
      if (m !== "*" && !CORE_REQUESTS.has(m) && !methodNames.has(m)) {
        report("MTG022", "warning", `'${m}' is not a known MCP request${suggest(m, CORE_REQUESTS)}`, [...crP, "requests", side, i]);
      }
    });
  }
  if (cr.toolSwitch) {
    ref("error", cr.toolSwitch.forbiddenError, [...crP, "toolSwitch", "forbiddenError"]);
    ref("error", cr.toolSwitch.requiredError, [...crP, "toolSwitch", "requiredError"]);
  }
  if (cr.ack.mode === "notification") {
    need(cr.ack.notification !== undefined, "notification", [...crP, "ack"], "ack mode notification needs the notification method");
    ref("method", cr.ack.notification, [...crP, "ack", "notification"]);
  } else {
    need(cr.ack.resultType !== undefined, "resultType", [...crP, "ack"], `ack mode ${cr.ack.mode} needs the type of the immediate answer`);
  }
}

/** creation.paramType: a declared type, so that its validator checks every task request. */
export function checkCreationParamType(ctx: Ctx): void {
  const { spec, report, typeNames } = ctx;
  const cr = spec.behaviour.creation;
  const crP: Path = ["behaviour", "creation"];
  if (cr.via === "param" && cr.paramType !== undefined) {
    const t = cr.paramType;
    const name = namedTypeOf(t);
    const anyObject = t === "object" || t === "object?" || (typeof t !== "string" && t.type === "object" && t.fields === undefined);
    if (!anyObject && (name === undefined || !typeNames.has(name))) {
      report("MTG011", "error", "creation.paramType must name a type declared under `types` (or be `object`): its generated validator checks every task request", [...crP, "paramType"]);
    }
  }
}

/** Retention, polling, results, outcomes, cancellation, input, listing, notifications, related tasks, capabilities, HTTP. */
export function checkBehaviourRefs(ctx: Ctx, task: TaskInfo): void {
  const { spec, report, typeNames, stateNames, methodNames } = ctx;
  const { field } = task;
  const ref = refs(ctx);
  const need = needs(ctx);
  const b = spec.behaviour;
  const B: Path = ["behaviour"];
  const cr = b.creation;
  const crP = [...B, "creation"];
  if (b.retention) {
    field(b.retention.field, [...B, "retention", "field"]);
    ref("error", b.retention.expiredError, [...B, "retention", "expiredError"]);
    if (b.retention.max < b.retention.default) {
      report("MTG011", "error", `retention.max (${b.retention.max}) is below retention.default (${b.retention.default})`, [...B, "retention", "max"]);
    }
  }
  if (b.polling) field(b.polling.field, [...B, "polling", "field"]);
  if (cr.retentionField !== undefined && !b.retention) {
    report("MTG060", "error", "creation.retentionField asks for a retention time, but the spec declares no `retention`; declare it or remove retentionField", [...crP, "retentionField"]);
  }

  const r = b.results;
  const rP = [...B, "results"];
  if (r.mode !== "inline") {
    need(r.method !== undefined, "method", rP, `results mode ${r.mode} needs the result method`);
    ref("method", r.method, [...rP, "method"]);
  } else {
    need(r.resultField !== undefined, "resultField", rP, "results mode inline needs the status field that carries the result");
    need(r.errorField !== undefined, "errorField", rP, "results mode inline needs the status field that carries the error");
  }
  if (r.mode === "error-until-completed") {
    need(r.notReadyError !== undefined, "notReadyError", rP, "results mode error-until-completed needs the error answered before completion");
  }
  if (r.mode === "block-until-terminal" && r.replaysErrors === false) {
    report(
      "MTG060",
      "error",
      "results mode block-until-terminal answers what the original request would have, its JSON-RPC error included, so it replays errors: set replaysErrors: true, or use mode error-until-completed",
      [...rP, "replaysErrors"],
    );
  }
  ref("error", r.notReadyError, [...rP, "notReadyError"]);
  ref("error", r.cancelledError, [...rP, "cancelledError"]);

  const o = b.outcomes;
  for (const k of ["toolError", "protocolError", "unexpected"] as const) {
    ref("state", o[k], [...B, "outcomes", k]);
    if (stateNames.has(o[k]) && !spec.states[o[k]].terminal) {
      report("MTG011", "error", `outcomes.${k} must name a terminal state; '${o[k]}' is not`, [...B, "outcomes", k]);
    }
  }
  field(o.failureField, [...B, "outcomes", "failureField"]);
  field(o.statusMessageField, [...B, "outcomes", "statusMessageField"]);

  const c = b.cancellation;
  const cP = [...B, "cancellation"];
  if (c.via === "method") {
    need(c.method !== undefined, "method", cP, "cancellation via method needs the cancel method");
    ref("method", c.method, [...cP, "method"]);
  }
  if (c.terminal === "error") need(c.terminalError !== undefined, "terminalError", cP, "terminal: error needs the error to answer");
  ref("error", c.terminalError, [...cP, "terminalError"]);
  ref("method", c.deleteMethod, [...cP, "deleteMethod"]);
  (c.deletableStatuses ?? []).forEach((s, i) => ref("state", s, [...cP, "deletableStatuses", i]));
  if (!stateNames.has("cancelled") && ![...Object.values(spec.states)].some((s) => s.role === "cancelled")) {
    report("MTG060", "error", "cancellation needs a state with role cancelled", cP, true);
  }

  const inp = b.input || undefined;
  const iP = [...B, "input"];
  if (inp) {
    ref("state", inp.status, [...iP, "status"]);
    ref("state", inp.resume, [...iP, "resume"]);
    if (inp.via === "inline-poll") {
      need(inp.requestsField !== undefined, "requestsField", iP, "input via inline-poll needs the status field carrying input requests");
      need(inp.updateMethod !== undefined, "updateMethod", iP, "input via inline-poll needs the method that answers them");
      need(inp.responsesField !== undefined, "responsesField", iP, "input via inline-poll needs the params field carrying answers");
    }
    ref("method", inp.updateMethod, [...iP, "updateMethod"]);
    inp.requests.forEach((m, i) => {
      if (!CORE_REQUESTS.has(m) && !methodNames.has(m)) report("MTG022", "warning", `'${m}' is not a known MCP request${suggest(m, CORE_REQUESTS)}`, [...iP, "requests", i]);
    });
  }

  if (b.listing) {
    ref("method", b.listing.method, [...B, "listing", "method"]);
    ref("error", b.listing.invalidCursorError, [...B, "listing", "invalidCursorError"]);
    if (b.listing.maxPageSize < b.listing.pageSize) {
      report("MTG011", "error", `listing.maxPageSize (${b.listing.maxPageSize}) is below listing.pageSize (${b.listing.pageSize})`, [...B, "listing", "maxPageSize"]);
    }
  }
  if (b.statusNotifications) ref("method", b.statusNotifications.method, [...B, "statusNotifications", "method"]);
  if (b.relatedTask) {
    const rt = b.relatedTask;
    ref("meta", rt.meta, [...B, "relatedTask", "meta"]);
    rt.results.forEach((m, i) => ref("method", m, [...B, "relatedTask", "results", i]));
    (rt.notOnResults ?? []).forEach((m, i) => ref("method", m, [...B, "relatedTask", "notOnResults", i]));
    // The runtime names the related task as { taskId } (the related-task meta of every MCP revision),
    // whatever the task's own id field: a type that holds it otherwise would be broken by every message.
    const entry = Object.prototype.hasOwnProperty.call(spec.meta, rt.meta) ? spec.meta[rt.meta] : undefined;
    const t = entry?.type;
    const undeclared = typeof t === "string" && TYPE_NAME_LIKE.test(t) && !typeNames.has(t);
    if (entry !== undefined && t !== undefined && !undeclared && !(RELATED_TASK_ID in (fieldsOf(spec, t) ?? {}))) {
      report(
        "MTG061",
        "error",
        `the related-task meta '${rt.meta}' names its task in a field '${RELATED_TASK_ID}', which its type has not; give the type a '${RELATED_TASK_ID}: string' field`,
        ["meta", rt.meta, "type"],
      );
    }
  }
  ref("error", c.deleteRefusedError, [...cP, "deleteRefusedError"]);
  ref("error", b.notFoundError, [...B, "notFoundError"]);
  ref("error", b.internalError, [...B, "internalError"]);
  for (const side of ["server", "client"] as const) {
    const cap = b.capabilities[side];
    for (const m of Object.keys((cap && cap.gates) || {})) ref("method", m, [...B, "capabilities", side, "gates", m]);
    for (const m of Object.keys((cap && cap.augments) || {})) {
      if (!CORE_REQUESTS.has(m) && !methodNames.has(m)) {
        report("MTG022", "warning", `'${m}' is not a known MCP request${suggest(m, CORE_REQUESTS)}`, [...B, "capabilities", side, "augments", m]);
      }
    }
    if (cap) {
      (cap.requiredBy ?? []).forEach((m, i) => ref("method", m, [...B, "capabilities", side, "requiredBy", i]));
      ref("error", cap.missingError, [...B, "capabilities", side, "missingError"]);
      if (cap.requiredBy?.length) {
        need(cap.missingError !== undefined || cr.requiredTaskError !== undefined, "missingError", [...B, "capabilities", side], "methods in requiredBy need the error answered without the capability (or creation.requiredTaskError)");
      }
    }
  }
  if (spec.protocol.lifecycle === "per-request") {
    need(spec.protocol.protocolVersion !== undefined, "protocolVersion", ["protocol"], "lifecycle per-request puts the protocol version on every request");
  }
  if (b.http) {
    b.http.methods.forEach((m, i) => ref("method", m, [...B, "http", "methods", i]));
    ref("error", b.http.mismatchError, [...B, "http", "mismatchError"]);
  }
  if (b.unsupportedMethods) {
    ref("error", b.unsupportedMethods.error, [...B, "unsupportedMethods", "error"]);
    b.unsupportedMethods.methods.forEach((m, i) => {
      if (methodNames.has(m)) {
        report("MTG030", "error", `'${m}' is declared as a method and as unsupported; keep one`, [...B, "unsupportedMethods", "methods", i]);
      }
    });
  }
}

export function checkLimits(ctx: Ctx): void {
  const ref = refs(ctx);
  const b = ctx.spec.behaviour;
  const B: Path = ["behaviour"];
  ref("error", b.limits.rateLimitError, [...B, "limits", "rateLimitError"]);
  ref("error", b.limits.concurrencyError, [...B, "limits", "concurrencyError"]);
}
