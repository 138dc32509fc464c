/**
 * The answers the runtime makes itself (a page of tasks, a task, the reply to an input update): the
 * declared result type of each must ask only for fields the runtime writes, and the list result must
 * hold its tasks where the runtime puts them. Otherwise every answer of the server would break the
 * spec's own types, and no handler could mend it.
 */
import type { Spec, TypeExpr } from "../format.js";
import { methodOperations, type Operation } from "../operations.js";
import { fieldsOf, resolveShallow } from "../spec-helpers.js";
import { namedTypeOf } from "../task-shape.js";
import type { Ctx } from "./context.js";
import type { TaskInfo } from "./task.js";

/** The field of a list answer that holds the page of tasks, and the one that holds the next cursor. */
export const LIST_TASKS_FIELD = "tasks";
export const LIST_CURSOR_FIELD = "nextCursor";

function optional(t: TypeExpr): boolean {
  return typeof t === "string" ? t.endsWith("?") : t.optional === true || t.default !== undefined;
}

/** Whether `t` is a list of the task type (`Task[]`, or an array whose items are it). */
function listOfTasks(spec: Spec, t: TypeExpr, taskType: string): boolean {
  if (typeof t === "string") return t.replace(/\?$/, "") === `${taskType}[]`;
  const r = resolveShallow(spec, t);
  return r !== undefined && typeof r !== "string" && r.type === "array" && namedTypeOf(r.items) === taskType;
}

export function checkRuntimeResults(ctx: Ctx, task: TaskInfo): void {
  const { spec, report } = ctx;
  const b = spec.behaviour;
  const { operations } = methodOperations(spec);
  const rtField = b.resultType ? b.resultType.field : undefined;
  const taskFields = Object.keys(task.taskFields ?? {});
  // What the runtime writes into the answer of each operation it answers itself.
  const writes: Partial<Record<Operation, { fields: string[]; what: string }>> = {
    list: { fields: [LIST_TASKS_FIELD, LIST_CURSOR_FIELD, "_meta"], what: `a page of tasks in '${LIST_TASKS_FIELD}' and the next cursor in '${LIST_CURSOR_FIELD}'` },
    get: { fields: [...taskFields, "_meta", ...(rtField ? [rtField] : [])], what: `the task (the fields of '${task.taskType}')` },
    transition: { fields: [...taskFields, "_meta"], what: `the task it moved (the fields of '${task.taskType}')` },
    update: { fields: ["_meta", ...(rtField ? [rtField] : [])], what: "an empty result" },
  };
  for (const [method, op] of operations) {
    const w = writes[op.operation];
    const m = spec.methods[method];
    if (w === undefined || m === undefined || m.result === undefined || task.taskFields === undefined) continue;
    const typeName = namedTypeOf(m.result);
    if (typeName === undefined || !Object.prototype.hasOwnProperty.call(spec.types, typeName)) continue;
    // The task type itself is the answer: what it requires is the task's own business (checked there).
    if (typeName === task.taskType) continue;
    const fields = fieldsOf(spec, typeName, new Set(), true);
    if (fields === undefined) continue;
    const written = new Set(w.fields);
    if (op.operation === "list" && !(LIST_TASKS_FIELD in fields)) {
      const renamed = Object.entries(fields).find(([, t]) => listOfTasks(spec, t, task.taskType))?.[0];
      report(
        "MTG061",
        "error",
        renamed !== undefined
          ? `the list result '${typeName}' holds its tasks in '${renamed}', but the runtime answers ${method} with them in '${LIST_TASKS_FIELD}', so '${renamed}' would never be filled; rename the field to '${LIST_TASKS_FIELD}'`
          : `the list result '${typeName}' has no field '${LIST_TASKS_FIELD}', where the runtime answers ${method} with the page of tasks; add '${LIST_TASKS_FIELD}: ${task.taskType}[]'`,
        renamed !== undefined ? ["types", typeName, "fields", renamed] : ["types", typeName],
        true,
      );
      written.delete(LIST_TASKS_FIELD);
      if (renamed !== undefined) written.add(renamed);
    }
    for (const [name, t] of Object.entries(fields)) {
      if (optional(t) || written.has(name)) continue;
      report(
        "MTG061",
        "error",
        `field '${name}' of '${typeName}' is required, but the runtime answers ${method} with ${w.what}, which never fills it; make it optional ('${name}?' or optional: true) or remove it`,
        ["types", typeName, "fields", name],
        true,
      );
    }
  }
}
