/**
 * Combinations the format accepts piece by piece and the runtime cannot keep as a whole: a
 * behaviour that names a state whose role the runtime treats otherwise, a field the runtime fills
 * declared with a type its values do not fit, a behaviour's default outside its field's bounds, and
 * polled input where the task's status never carries the questions. Each would validate and then
 * break its own promise on the wire, so each is refused here, with what to write instead.
 */
import type { Spec, TypeExpr } from "../format.js";
import { fieldsOf, parseShorthand, resolveShallow } from "../spec-helpers.js";
import { namedTypeOf } from "../task-shape.js";
import type { Ctx, Path } from "./context.js";
import { LIST_TASKS_FIELD } from "./results.js";
import type { TaskInfo } from "./task.js";

type Role = Spec["states"][string]["role"];

/** The roles that end a task. */
const ENDING_ROLES: readonly Role[] = ["completed", "failed", "cancelled", "unknown"];

/** The roles the runtime honours for each behaviour that names a state, and why the others break. */
const STATE_ROLES: readonly { path: readonly string[]; roles: readonly Role[]; why: string }[] = [
  { path: ["input", "resume"], roles: ["running"], why: "the work goes on once the answers are in, so the task must say it runs" },
  { path: ["events", "cancel"], roles: ["cancelled"], why: "a cancelled task has neither a result nor an error to give" },
  { path: ["events", "expiry"], roles: ["failed", "cancelled", "unknown"], why: "an expired task has no result to give" },
  { path: ["events", "exception"], roles: ["failed", "unknown"], why: "a task whose work threw has an error, no result" },
  { path: ["events", "restart"], roles: ["failed", "cancelled", "unknown"], why: "a task cut off by a restart has no result to give" },
  { path: ["outcomes", "toolError"], roles: ["completed", "failed"], why: "the tool's result (with isError) is what the task gives" },
  { path: ["outcomes", "protocolError"], roles: ["failed", "unknown"], why: "a task whose request failed has an error, no result" },
  { path: ["outcomes", "unexpected"], roles: ["failed", "unknown"], why: "a task whose outcome is unknown has no result to give" },
];

function at(spec: Spec, path: readonly string[]): string | undefined {
  let v: unknown = spec.behaviour;
  for (const k of path) v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
  return typeof v === "string" ? v : undefined;
}

/** Behaviours that name a state: the state's role is one the runtime keeps the behaviour's promise in. */
export function checkStateRoles(ctx: Ctx): void {
  const { spec, report } = ctx;
  const b = spec.behaviour;
  // A state whose role and `terminal` disagree, or an event or outcome naming a state that does not end a
  // task, is reported as such (MTG046, MTG011): its role says nothing more here.
  const roleOf = (s: string, ending?: boolean): Role | undefined => {
    const st = Object.prototype.hasOwnProperty.call(spec.states, s) ? spec.states[s]! : undefined;
    if (st === undefined || ENDING_ROLES.includes(st.role) !== (st.terminal === true) || (ending === true && st.terminal !== true)) return undefined;
    return st.role;
  };
  const named = (roles: readonly Role[]) => {
    const states = Object.entries(spec.states).filter(([, s]) => roles.includes(s.role)).map(([n]) => n);
    return states.length > 0 ? `name a state of role ${roles.join(" or ")} (${states.join(", ")})` : `declare a state of role ${roles[0]} and name it`;
  };
  for (const rule of STATE_ROLES) {
    const state = at(spec, rule.path);
    const role = state === undefined ? undefined : roleOf(state, rule.path[0] !== "input");
    if (role === undefined || rule.roles.includes(role)) continue;
    report(
      "MTG045",
      "error",
      `${rule.path.join(".")} names '${state}' (role ${role}), but ${rule.why}; ${named(rule.roles)}`,
      ["behaviour", ...rule.path],
    );
  }
  const inp = b.input || undefined;
  if (inp === undefined) return;
  const role = roleOf(inp.status);
  // A side request reaches the requestor by itself: the task may stay in a running state meanwhile.
  // Polled questions and the blocking result stream are found only in an input_required status.
  const allowed: Role[] = inp.via === "side-request" ? ["input_required", "running"] : ["input_required"];
  if (role !== undefined && !allowed.includes(role)) {
    const why =
      inp.via === "side-request"
        ? "while a question is out the work waits for it, and a task in that state would end or hold its work"
        : `input via ${inp.via} is found by the requestor only in a status of role input_required`;
    report("MTG045", "error", `input.status names '${inp.status}' (role ${role}), but ${why}; ${named(allowed)}`, ["behaviour", "input", "status"]);
  }
  // Without a session the server cannot send a request of its own, nor hold a result stream open: a task of
  // the per-request binding asks only by putting its questions in the polled task.
  if (spec.protocol.lifecycle === "per-request" && inp.via !== "inline-poll") {
    report(
      "MTG069",
      "error",
      `input via ${inp.via} needs a session the server can send requests on, which lifecycle per-request has not, so a task that asks would fail; use input via inline-poll (the questions in the polled task, answered with an update method), or lifecycle initialize`,
      ["behaviour", "input", "via"],
    );
  }
  // The questions of polled input travel in the task as tasks/get answers it: inlined only where results are.
  if (inp.via === "inline-poll" && b.results.mode !== "inline") {
    report(
      "MTG069",
      "error",
      `input via inline-poll puts the questions in the task, but with results mode ${b.results.mode} the runtime answers a task's get without what its status carries, so a task would wait for answers nobody was shown; use results mode inline, or input via side-request or result-stream`,
      ["behaviour", "input", "via"],
    );
  }
}

/** Why a value of `sample` cannot be written into a field of type `t`: its kind, or its bounds. */
type Misfit = { kind: string } | { bounds: string } | undefined;

function misfit(spec: Spec, t: TypeExpr, sample: unknown, seen = new Set<string>()): Misfit {
  const r = resolveShallow(spec, t, seen);
  if (r === undefined) return undefined;
  if (typeof r === "string") {
    const p = parseShorthand(r);
    if (p === undefined) return undefined;
    if (p.arrayDepth > 0) return { kind: `a list (${r})` };
    const ok: Record<string, (v: unknown) => boolean> = {
      string: (v) => typeof v === "string",
      integer: (v) => Number.isSafeInteger(v),
      number: (v) => typeof v === "number",
      boolean: (v) => typeof v === "boolean",
      null: (v) => v === null,
      object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
      unknown: () => true,
    };
    const test = ok[p.base];
    return test === undefined || test(sample) ? undefined : { kind: p.base };
  }
  if (sample === null && r.nullable) return undefined;
  switch (r.type) {
    case "unknown":
      return undefined;
    case "string": {
      if (typeof sample !== "string") return { kind: "string" };
      if (r.format !== undefined && !FORMAT_SAMPLES[r.format].test(sample)) return { bounds: `format ${r.format}` };
      if (r.pattern !== undefined) {
        let re: RegExp | undefined;
        try {
          re = new RegExp(`^(?:${r.pattern})$`, "u");
        } catch {
          return undefined; // MTG080 says so
        }
        if (!re.test(sample)) return { bounds: `pattern ${r.pattern}` };
      }
      if ((r.minLength ?? 0) > sample.length || (r.maxLength ?? Infinity) < sample.length) return { bounds: "its length limits" };
      return undefined;
    }
    case "integer":
    case "number": {
      if (typeof sample !== "number" || (r.type === "integer" && !Number.isSafeInteger(sample))) return { kind: r.type };
      if (r.minimum !== undefined && sample < r.minimum) return { bounds: `minimum ${r.minimum}` };
      if (r.maximum !== undefined && sample > r.maximum) return { bounds: `maximum ${r.maximum}` };
      return undefined;
    }
    case "union": {
      const each = r.variants.map((v) => misfit(spec, v, sample, new Set(seen)));
      if (each.some((m) => m === undefined)) return undefined;
      return each.find((m) => m !== undefined && "bounds" in m) ?? { kind: "union" };
    }
    case "object":
    case "record":
      return typeof sample === "object" && sample !== null && !Array.isArray(sample) ? undefined : { kind: r.type };
    case "enum":
      return typeof sample === "string" && r.values.includes(sample) ? undefined : { kind: "enum" };
    case "literal":
      return sample === r.value ? undefined : { kind: `literal ${JSON.stringify(r.value)}` };
    default:
      return { kind: r.type };
  }
}

/** What the formats accept, for the samples the runtime writes. */
const FORMAT_SAMPLES: Record<"date-time" | "uri" | "uuid", RegExp> = {
  "date-time": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  uri: /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
};

/** A task id as the runtime makes one (crypto.randomUUID), and a time as it writes one (Date#toISOString). */
const SAMPLE_ID = "0b6c4e3a-9f1d-4c2b-8e7a-5d4f3c2b1a09";
const SAMPLE_TIME = "2026-01-02T03:04:05.678Z";
/** A task id a requestor may choose. */
const REQUESTOR_ID = "my-task-1";

/** Where field `name` of type `typeName` is declared (its own fields, an extended type, a union variant). */
function declaredAt(spec: Spec, typeName: string, name: string, seen = new Set<string>()): Path | undefined {
  if (seen.has(typeName) || !Object.prototype.hasOwnProperty.call(spec.types, typeName)) return undefined;
  seen.add(typeName);
  const inside = (t: TypeExpr, path: Path): Path | undefined => {
    if (typeof t === "string" || t.type === "ref") {
      const ref = namedTypeOf(t);
      return ref === undefined ? undefined : declaredAt(spec, ref, name, seen);
    }
    if (t.type === "object") {
      if (t.fields !== undefined && Object.prototype.hasOwnProperty.call(t.fields, name)) return [...path, "fields", name];
      for (const e of t.extends ?? []) {
        const p = declaredAt(spec, e, name, seen);
        if (p !== undefined) return p;
      }
    }
    if (t.type === "union") {
      for (const [i, v] of t.variants.entries()) {
        const p = inside(v, [...path, "variants", i]);
        if (p !== undefined) return p;
      }
    }
    return undefined;
  };
  return inside(spec.types[typeName]!, ["types", typeName]);
}

/** The fields the runtime fills hold what it writes there; the defaults it writes fit their fields' bounds. */
export function checkRuntimeFields(ctx: Ctx, task: TaskInfo): void {
  const { spec, report } = ctx;
  const { taskFields, taskType, idField } = task;
  if (taskFields === undefined) return;
  const b = spec.behaviour;
  const fill = (field: string | undefined, sample: unknown, what: string, instead: string, defaultPath?: Path) => {
    if (field === undefined || !Object.prototype.hasOwnProperty.call(taskFields, field)) return;
    const m = misfit(spec, taskFields[field]!, sample);
    if (m === undefined) return;
    const where = declaredAt(spec, taskType, field) ?? ["types", taskType];
    if ("kind" in m) {
      report("MTG072", "error", `field '${field}' of the task type is declared ${m.kind}, but the runtime writes ${what} into it; declare it ${instead}`, where, true);
    } else if (defaultPath !== undefined) {
      report("MTG070", "error", `${defaultPath.slice(1).join(".")} is ${JSON.stringify(sample)}, outside the ${m.bounds} of field '${field}', so every task would break its own type; choose a default within it, or widen the field`, defaultPath);
    } else {
      report("MTG072", "error", `field '${field}' of the task type allows only ${m.bounds}, but the runtime writes ${what} into it; remove the restriction, or declare it ${instead}`, where, true);
    }
  };
  if (b.creation.taskId.assignedBy === "receiver") fill(idField, SAMPLE_ID, "the ids it makes (random UUIDs, e.g. " + SAMPLE_ID + ")", "'string' (or format uuid)");
  // A requestor chooses the ids: the runtime takes any non-empty string the task request's type allows, so the
  // task's id type cannot be narrower than a string.
  else fill(idField, REQUESTOR_ID, "the ids requestors choose (any non-empty string the task request allows, e.g. " + REQUESTOR_ID + ")", "'string'");
  for (const f of ["createdAt", "lastUpdatedAt"]) fill(f, SAMPLE_TIME, "an ISO 8601 time (e.g. " + SAMPLE_TIME + ")", "'string' (or format date-time)");
  if (b.retention) fill(b.retention.field, b.retention.default, "the retention granted in ms", "a number ('integer' or 'number', nullable where null asks for unlimited)", ["behaviour", "retention", "default"]);
  if (b.polling) fill(b.polling.field, b.polling.default, "the suggested poll interval in ms", "a number ('integer' or 'number')", ["behaviour", "polling", "default"]);
  fill(b.outcomes.statusMessageField, "Working", "a status message (a string)", "'string'");
  fill(b.outcomes.failureField, b.outcomes.failureShape === "message" ? "Failed" : { code: -32603, message: "Failed" }, b.outcomes.failureShape === "message" ? "a failure's message (a string)" : "a failure's error object { code, message, data? }", b.outcomes.failureShape === "message" ? "'string'" : "an object with code and message");
  checkListItems(ctx, task);
}

/** The list result's page of tasks is a list of tasks: the runtime writes whole tasks there. */
function checkListItems(ctx: Ctx, task: TaskInfo): void {
  const { spec, report } = ctx;
  if (!spec.behaviour.listing) return;
  const list = spec.methods[spec.behaviour.listing.method];
  const typeName = list?.result === undefined ? undefined : namedTypeOf(list.result);
  if (typeName === undefined || !Object.prototype.hasOwnProperty.call(spec.types, typeName)) return;
  const fields = fieldsOf(spec, typeName, new Set(), true);
  const decl = fields?.[LIST_TASKS_FIELD];
  if (decl === undefined) return;
  const r = resolveShallow(spec, decl);
  if (r === undefined) return;
  const items = typeof r === "string" ? (parseShorthand(r)?.arrayDepth === 1 ? r.replace(/\[\]\??$/, "") : undefined) : r.type === "array" ? r.items : undefined;
  const itemType = items === undefined ? undefined : resolveShallow(spec, items);
  const anything = itemType !== undefined && (itemType === "object" || itemType === "unknown" || (typeof itemType !== "string" && (itemType.type === "unknown" || (itemType.type === "object" && itemType.fields === undefined))));
  if (items !== undefined && (namedTypeOf(items) === task.taskType || anything)) return;
  report(
    "MTG072",
    "error",
    `field '${LIST_TASKS_FIELD}' of the list result '${typeName}' is declared ${typeof decl === "string" ? decl : decl.type}, but the runtime answers ${spec.behaviour.listing.method} with whole tasks there; declare it '${task.taskType}[]'`,
    declaredAt(spec, typeName, LIST_TASKS_FIELD) ?? ["types", typeName],
    true,
  );
}

/** Whether `t` is a string (not a list of them). */
function isString(spec: Spec, t: TypeExpr): boolean {
  const r = resolveShallow(spec, t);
  if (r === undefined) return false;
  if (typeof r === "string") {
    const p = parseShorthand(r);
    return p !== undefined && p.arrayDepth === 0 && p.base === "string";
  }
  return r.type === "string";
}

/**
 * The list method's cursor fields: MCP's names, or the one string field its params (its result) declare
 * besides `_meta` (and the page of tasks). With fields but neither, the runtime could only use MCP's name,
 * which the type does not declare: paging would break the spec's own type.
 */
function checkPagingNames(ctx: Ctx): void {
  const { spec, report } = ctx;
  const listing = spec.behaviour.listing;
  if (!listing) return;
  const method = spec.methods[listing.method];
  if (method === undefined) return;
  const sides = [
    { side: "params", t: method.params, mcp: "cursor", skip: ["_meta"], what: "reads the cursor from", declare: "declare", they: "they declare" },
    { side: "result", t: method.result, mcp: "nextCursor", skip: ["_meta", LIST_TASKS_FIELD], what: "answers the next cursor in", declare: "declares", they: "it declares" },
  ] as const;
  for (const { side, t, mcp, skip, what, declare, they } of sides) {
    if (t === undefined) continue;
    const fields = fieldsOf(spec, t);
    if (fields === undefined || Object.prototype.hasOwnProperty.call(fields, mcp)) continue;
    const others = Object.keys(fields).filter((f) => !(skip as readonly string[]).includes(f));
    if (others.length === 0) continue;
    const strings = others.filter((f) => isString(spec, fields[f]!));
    if (strings.length === 1) continue;
    const name = namedTypeOf(t);
    report(
      "MTG073",
      "error",
      `the ${side} of ${listing.method}${name === undefined ? "" : ` ('${name}')`} ${declare} ${strings.length === 0 ? "no string field" : `several string fields (${strings.join(", ")})`} and no '${mcp}': the runtime ${what} '${mcp}', or else the one string field ${they}; name the field '${mcp}'${strings.length > 1 ? ", or keep one string field besides _meta" : ""}`,
      name !== undefined && Object.prototype.hasOwnProperty.call(spec.types, name) ? ["types", name, "fields"] : ["methods", listing.method, side],
    );
  }
}

/** Promises the generated runtime does not carry out: refused until it does. */
export function checkUnperformed(ctx: Ctx): void {
  const { spec, report } = ctx;
  const b = spec.behaviour;
  checkPagingNames(ctx);
  // A request becomes a task when it declares the client capability where capabilities.client puts it.
  const cr = b.creation;
  const clientCap = b.capabilities.client;
  if (cr.via === "client-capability" && clientCap === false) {
    report(
      "MTG060",
      "error",
      `creation via client-capability makes a task of a request that declares the client capability, which the runtime looks for where capabilities.client puts it; with capabilities.client false no request ever becomes a task: declare it (e.g. path: [extensions, ${cr.capability ?? "<extension id>"}], value: {})`,
      ["behaviour", "capabilities", "client"],
    );
  } else if (cr.via === "client-capability" && clientCap !== false && cr.capability !== undefined && clientCap.path[clientCap.path.length - 1] !== cr.capability) {
    report(
      "MTG073",
      "error",
      `creation.capability names '${cr.capability}', but the runtime looks for the client's capability at capabilities.client.path [${clientCap.path.join(", ")}]; end the path with '${cr.capability}', or name '${clientCap.path[clientCap.path.length - 1]}' here`,
      ["behaviour", "creation", "capability"],
    );
  }
  // An error's HTTP status is put on the answer by the stateless HTTP handler of the per-request lifecycle;
  // under the initialize lifecycle the SDK's session transport answers every JSON-RPC error with 200 (or on
  // its event stream), so a declared status would be promised and never sent.
  if ((spec.protocol.lifecycle ?? "initialize") === "initialize") {
    for (const [name, error] of Object.entries(spec.errors)) {
      if (error.http === undefined) continue;
      report(
        "MTG073",
        "error",
        `errors.${name}.http declares HTTP ${error.http}, but under lifecycle initialize the session transport answers every JSON-RPC error with HTTP 200 (or on its event stream), so the status would never be sent; remove http, or use lifecycle per-request, where the runtime answers the error with it`,
        ["errors", name, "http"],
      );
    }
  }
  // Task subscriptions are served where the per-request lifecycle has no session to push on; under the
  // initialize lifecycle the session carries pushed notifications, and no subscribe request is served.
  const sn = b.statusNotifications;
  if (sn !== false && sn.delivery === "subscription" && (spec.protocol.lifecycle ?? "initialize") === "initialize") {
    report(
      "MTG073",
      "error",
      `statusNotifications.delivery subscription: the runtime serves task subscriptions (${sn.subscribeMethod ?? "a subscribe request"}) on the per-request lifecycle only; under lifecycle initialize it pushes ${sn.method} on the session: use delivery push, or lifecycle per-request`,
      ["behaviour", "statusNotifications", "delivery"],
    );
  }
  // With payload task, a status notification carries the task as the get method shows it without what its
  // status holds (the result, the error, the pending input requests): a notification type that requires one of
  // those for some status would be broken by every such notification.
  if (sn !== false && sn.payload === "task") {
    const params = spec.methods[sn.method]?.params;
    const held = [b.results.resultField, b.results.errorField, b.input === false || b.input === undefined ? undefined : b.input.requestsField].filter((f): f is string => f !== undefined);
    const required = params === undefined ? [] : requiredIn(spec, params).filter((f) => held.includes(f));
    if (required.length > 0) {
      report(
        "MTG072",
        "error",
        `statusNotifications.payload task sends the task without what its status holds, but ${sn.method}'s params type requires ${[...new Set(required)].join(", ")}; set payload: detailed-task, or make ${required.length > 1 ? "those fields" : "that field"} optional`,
        ["behaviour", "statusNotifications", "payload"],
      );
    }
  }
  // An error's data is filled to its declared object type (its fields from the error's context and the task);
  // data of another kind (a string, a list) is never made.
  for (const [name, error] of Object.entries(spec.errors)) {
    if (error.data === undefined) continue;
    const kind = nonObjectKind(spec, error.data);
    if (kind === undefined) continue;
    report(
      "MTG073",
      "error",
      `errors.${name}.data is ${kind}, but the runtime fills an error's data as an object of declared fields (from the error's context and the task); declare an object type (e.g. fields: { reason: string }), or leave data out`,
      ["errors", name, "data"],
    );
  }
  // A result is inlined into the task where results are inline, or a subscription sends detailed tasks.
  const inlines = b.results.mode === "inline" || (b.statusNotifications !== false && b.statusNotifications.payload === "detailed-task");
  if (b.relatedTask !== false && b.relatedTask.onInlineResult && inlines) {
    report(
      "MTG073",
      "error",
      "relatedTask.onInlineResult: true asks for the related-task key on a result inlined into the task, which the runtime inlines as the request answered it, without the key; set it to false (the task itself names its id)",
      ["behaviour", "relatedTask", "onInlineResult"],
    );
  }
}

/** The fields some variant of `t` (an object type, or a union of them) requires. */
function requiredIn(spec: Spec, t: TypeExpr): string[] {
  const r = resolveShallow(spec, t);
  if (r === undefined || typeof r === "string") return [];
  if (r.type === "union") return r.variants.flatMap((v) => requiredIn(spec, v));
  const fields = fieldsOf(spec, r) ?? {};
  return Object.entries(fields)
    .filter(([, f]) => !(typeof f === "string" ? parseShorthand(f)?.optional === true : (f as { optional?: boolean }).optional === true))
    .map(([name]) => name);
}

/** What `t` is where it is not an object (`a string`, `a list`, ...); undefined for an object, `object` or `unknown`. */
function nonObjectKind(spec: Spec, t: TypeExpr): string | undefined {
  const r = resolveShallow(spec, t);
  if (r === undefined) return undefined;
  if (typeof r === "string") {
    const p = parseShorthand(r);
    if (p === undefined) return undefined;
    if (p.arrayDepth > 0) return `a list (${r})`;
    return ["object", "unknown"].includes(p.base) ? undefined : `a ${p.base} (${r})`;
  }
  if (r.type === "array") return "a list";
  if (r.type === "enum") return "an enum";
  return ["string", "integer", "number", "boolean", "null"].includes(r.type) ? `a ${r.type}` : undefined;
}

/** Each `_meta` entry a behaviour places is declared `on` the messages the runtime puts it on. */
export function checkMetaPlacement(ctx: Ctx): void {
  const { spec, report } = ctx;
  const b = spec.behaviour;
  const needs = new Map<string, Map<"request" | "notification" | "result", string>>();
  const need = (meta: string | undefined, on: "request" | "notification" | "result", because: string) => {
    if (meta === undefined || !Object.prototype.hasOwnProperty.call(spec.meta, meta)) return;
    const m = needs.get(meta) ?? new Map();
    if (!m.has(on)) m.set(on, because);
    needs.set(meta, m);
  };
  const rt = b.relatedTask;
  if (rt !== false) {
    if (rt.results.length > 0 || rt.onInlineResult) need(rt.meta, "result", "behaviour.relatedTask puts it on results");
    if (rt.requests || rt.taskMethodRequests) need(rt.meta, "request", "behaviour.relatedTask puts it on requests");
    if (rt.notifications) need(rt.meta, "notification", "behaviour.relatedTask puts it on notifications");
  }
  if (b.creation.via === "meta") need(b.creation.meta, "request", "a task request travels in it");
  if (b.creation.via === "client-capability") need(b.creation.capabilityMeta, "request", "the client's capabilities travel in it");
  for (const [meta, ons] of needs) {
    for (const [on, because] of ons) {
      if (spec.meta[meta]!.on.includes(on)) continue;
      report("MTG060", "error", `missing \`${on}\` in meta.${meta}.on: ${because}; add it`, ["meta", meta, "on"]);
    }
  }
}
