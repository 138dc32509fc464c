/**
 * The task type (behaviour.taskType) and the task request: the fields the
 * runtime reads and writes, their defaults, what guards may read, and the
 * type of the status field.
 */
import type { Spec, TypeExpr } from "../format.js";
import { fieldsOf, parseShorthand, resolveShallow } from "../spec-helpers.js";
import { managedTaskFields, namedTypeOf } from "../task-shape.js";
import { suggest, type Ctx, type Path } from "./context.js";

/** What later checks read of the task type. */
export interface TaskInfo {
  taskType: string;
  /** Its fields (of every variant, for a union), when it is declared. */
  taskFields: Record<string, TypeExpr> | undefined;
  idField: string;
  statusField: string;
  /** Reports a name that must be a field of the task type and is not. */
  field: (name: string | undefined, path: Path) => void;
}

/** The task type: declared, with the id and status fields, defaults that fit, and own fields a new task can start with. */
export function checkTaskType(ctx: Ctx): TaskInfo {
  const { spec, report, typeNames } = ctx;
  const b = spec.behaviour;
  const B: Path = ["behaviour"];
  const taskType = b.taskType ?? "Task";
  // For a union task type (a status-dependent shape), a field may live on any variant.
  const taskFields = typeNames.has(taskType) ? fieldsOf(spec, taskType, new Set(), true) : undefined;
  if (!typeNames.has(taskType)) {
    report("MTG020", "error", `the task type '${taskType}' is not declared${suggest(taskType, typeNames)}; declare it or set behaviour.taskType`, [...B, ...(b.taskType ? ["taskType"] : [])], !b.taskType);
  }
  const field = (name: string | undefined, path: Path) => {
    if (name === undefined || taskFields === undefined) return;
    if (!(name in taskFields)) {
      report("MTG061", "error", `the task type '${taskType}' has no field '${name}'${suggest(name, Object.keys(taskFields))}`, path);
    }
  };
  // The runtime reads these two on every task: the id and the status, in the fields the spec names.
  const idField = b.taskIdField ?? "taskId";
  const statusField = b.statusField ?? "status";
  if (taskFields !== undefined) {
    for (const [required, key] of [[idField, "taskIdField"], [statusField, "statusField"]] as const) {
      if (!(required in taskFields)) {
        report(
          "MTG061",
          "error",
          `the task type '${taskType}' has no field '${required}'; every task carries its id and its status (name the fields with behaviour.taskIdField and behaviour.statusField)`,
          b[key] === undefined ? ["types", taskType] : [...B, key],
          b[key] === undefined,
        );
      }
    }
    // Defaults of the task's own fields: the runtime starts every task with them.
    for (const [name, t] of Object.entries(taskFields)) {
      if (typeof t === "string" || t.default === undefined) continue;
      const problem = defaultProblem(spec, t, t.default);
      if (problem !== undefined) {
        report("MTG070", "error", `the default of field '${name}' ${problem}`, ["types", taskType, "fields", name, "default"]);
      }
    }
    // A field no behaviour fills is the task's own: the work sets it, so a new task needs a value for it.
    const managed = managedTaskFields(b);
    const own = fieldsOf(spec, taskType);
    for (const [name, t] of Object.entries(own ?? {})) {
      const optional = typeof t === "string" ? t.endsWith("?") : t.optional === true || t.nullable === true || t.default !== undefined;
      if (managed.has(name) || optional) continue;
      report(
        "MTG060",
        "error",
        `field '${name}' of the task type is the task's own (no behaviour fills it), and it is required: give it a \`default\` a new task starts with, or make it optional`,
        ["types", taskType, "fields", name],
        true,
      );
    }
  }
  return { taskType, taskFields, idField, statusField, field };
}

/** The acknowledgement's type, the task request's type, what guards read, and the status field's type. */
export function checkTaskRequest(ctx: Ctx, task: TaskInfo): void {
  const { spec, report, typeNames, stateNames, statusType } = ctx;
  const { taskType, taskFields, idField, statusField } = task;
  const b = spec.behaviour;
  const cr = b.creation;
  // The acknowledgement in the request's own answer is { task }: its type must hold the task there.
  if (cr.ack.mode === "result" && cr.ack.resultType !== undefined) {
    const ackFields = fieldsOf(spec, cr.ack.resultType);
    if (ackFields !== undefined && !("task" in ackFields)) {
      report(
        "MTG061",
        "error",
        `the acknowledgement type has no field 'task': in ack mode result the task is sent as { task }; name its field 'task' (fields: ${Object.keys(ackFields).join(", ") || "none"})`,
        ["behaviour", "creation", "ack", "resultType"],
      );
    }
  }
  // The task request's own type (a creation param or meta entry): what the runtime reads of it is its retention.
  const creationType =
    cr.via === "param" ? namedTypeOf(cr.paramType) : cr.via === "meta" ? namedTypeOf(spec.meta?.[cr.meta ?? ""]?.type) : undefined;
  const creationFields = creationType !== undefined && typeNames.has(creationType) ? fieldsOf(spec, creationType) : undefined;
  for (const [name, t] of Object.entries(creationFields ?? {})) {
    if (typeof t !== "string" && t.default !== undefined && t.optional !== true && t.nullable !== true) {
      report(
        "MTG070",
        "error",
        `field '${name}' of the task request type ${creationType} is required and has a default: a request without it is refused, so the default is never applied (the runtime applies a default only to the task's own fields); remove it`,
        ["types", creationType!, "fields", name, "default"],
      );
    }
    const managedHere = managedTaskFields(b);
    if (taskFields !== undefined && name in taskFields && name !== cr.retentionField && name !== idField && !managedHere.has(name)) {
      report(
        "MTG060",
        "warning",
        `field '${name}' of the task request type ${creationType} has the name of a task field, but a task does not start with the requested value (its own fields start with their defaults and are set by the work); rename one of them, or have the work copy it (ctx.setFields)`,
        ["types", creationType!, "fields", name],
      );
    }
  }
  // What a guard can read: the task's own fields (the work sets them) and its count of unanswered inputs.
  if (taskFields !== undefined) {
    const managed = managedTaskFields(b);
    const readable = new Set(["pendingInputs", ...Object.keys(taskFields).filter((f) => !managed.has(f))]);
    // One diagnostic per field read, at its first guard (a spec may hold thousands of guards).
    const unreadable = new Map<string, string[]>();
    for (const [name, g] of Object.entries(spec.guards ?? {})) {
      if (!readable.has(g.field)) unreadable.set(g.field, [...(unreadable.get(g.field) ?? []), name]);
    }
    for (const [fieldName, guards] of unreadable) {
      const others = guards.length > 1 ? ` (so do ${guards.length - 1} other guard${guards.length > 2 ? "s" : ""}: ${guards.slice(1, 4).join(", ")}${guards.length > 4 ? ", ..." : ""})` : "";
      report(
        "MTG061",
        "error",
        `guard '${guards[0]}' reads '${fieldName}'${others}, which the runtime never gives a guard, so its transitions could never happen: a guard reads pendingInputs or a field of the task type that the work sets (${[...readable].join(", ")})${suggest(fieldName, readable)}`,
        ["guards", guards[0]!, "field"],
      );
    }
  }
  // The status field carries a state: its type is the status enum.
  const statusDecl = taskFields?.[statusField];
  if (statusDecl !== undefined) {
    const named = typeof statusDecl === "string" ? statusDecl.replace(/\?$/, "") : statusDecl.type === "ref" ? statusDecl.ref : undefined;
    // A status-dependent task type (a union) pins each variant's status to a state or a few.
    const pinned =
      typeof statusDecl !== "string" &&
      ((statusDecl.type === "literal" && typeof statusDecl.value === "string" && stateNames.has(statusDecl.value)) ||
        (statusDecl.type === "enum" && statusDecl.values.every((v) => stateNames.has(v))));
    if (named !== statusType && !pinned) {
      report(
        "MTG061",
        "error",
        `the status field '${statusField}' of the task type must have the status type ${statusType} (the runtime writes a state name into it), not ${typeof statusDecl === "string" ? statusDecl : statusDecl.type}`,
        ["types", taskType, "fields", statusField],
      );
    }
  }
}

/** Why `value` cannot be the default of a field of type `t` (undefined when it can). */
function defaultProblem(spec: Spec, t: TypeExpr, value: unknown): string | undefined {
  if (value === null) return typeof t !== "string" && t.nullable ? undefined : "is null, but the field is not nullable";
  const r = resolveShallow(spec, t);
  if (r === undefined) return undefined;
  const kind = typeof r === "string" ? (parseShorthand(r)?.arrayDepth ? "array" : (parseShorthand(r)?.base ?? r)) : r.type;
  const is = (ok: boolean, what: string) => (ok ? undefined : `must be ${what}, not ${JSON.stringify(value)}`);
  switch (kind) {
    case "string":
      return is(typeof value === "string", "a string");
    case "integer":
      return is(Number.isSafeInteger(value), "an integer");
    case "number":
      return is(typeof value === "number" && Number.isFinite(value), "a number");
    case "boolean":
      return is(typeof value === "boolean", "true or false");
    case "enum":
      return typeof r !== "string" && r.type === "enum" ? is(typeof value === "string" && r.values.includes(value), `one of ${r.values.join(", ")}`) : undefined;
    case "literal":
      return typeof r !== "string" && r.type === "literal" ? is(value === r.value, JSON.stringify(r.value)) : undefined;
    case "array":
      return is(Array.isArray(value), "a list");
    case "object":
    case "record":
      return is(typeof value === "object" && !Array.isArray(value), "a mapping");
    default:
      return undefined;
  }
}
