/**
 * A task request without one of its declared type's required fields (an enum the requestor must choose, the
 * requestor's own task id, ...): the server refuses it with -32602 and makes no task of it.
 */
import { Cmd } from "./base.js";
import type { SpecModel } from "../model.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { creationType, taskIn } from "../session.js";
import type { IRType } from "../../ir.js";
import { brief, count, expectAnswer, isLimitError, isObject, mayAugment, type World } from "../world.js";

/** The object type a type names (through refs), or undefined. */
function objectOf(model: SpecModel, t: IRType | undefined, depth = 0): Extract<IRType, { kind: "object" }> | undefined {
  if (t === undefined || depth > 16) return undefined;
  if (t.kind === "object") return t;
  if (t.kind === "ref") return objectOf(model, model.ir.types.find((x) => x.name === t.name)?.type, depth + 1);
  return undefined;
}

/** The required fields of the task request's declared type (none where the spec declares no type for it). */
export function requiredCreationFields(model: SpecModel): string[] {
  const o = objectOf(model, creationType(model));
  return o === undefined ? [] : o.fields.filter((f) => !f.optional).map((f) => f.name);
}

export class MissingField extends Cmd {
  constructor(readonly which: number) {
    super();
  }
  toString() {
    return `missingCreationField(${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const m = w.model;
    const c = m.ir.behaviour.creation;
    const fields = requiredCreationFields(m);
    const recipe = w.outcomes.complete;
    if (!fields.length || !recipe || !w.tools.has(recipe.name) || !mayAugment(m, "tools/call") || !w.augmented("tools/call")) return;
    const field = fields[this.which % fields.length]!;
    const requestorId = c.taskId.assignedBy === "requestor" ? `conform-missing-${Math.random().toString(36).slice(2, 10)}` : undefined;
    const params = w.session.taskParams({ name: recipe.name, arguments: recipe.arguments ?? {} }, requestorId, 60_000);
    // The task request's body, where taskParams put it (a param or a _meta entry), without the field.
    const key = c.via === "param" ? c.param : c.via === "meta" ? m.metaKey(c.meta) : undefined;
    if (key === undefined) return;
    const holder = c.via === "param" ? params : isObject(params._meta) ? params._meta : undefined;
    const body = holder?.[key];
    if (!isObject(body)) return;
    const { [field]: _dropped, ...rest } = body;
    holder![key] = rest;
    count(w, "missing creation field");
    checked(rules.creation);
    const before = w.session.wire.notifications.length;
    const a = await w.session.request("tools/call", params, 10_000);
    const what = `tools/call of ${recipe.name} with a task request without its required field ${field}`;
    expectAnswer(a, rules.creation, what);
    if (a.error && isLimitError(m, a.error.code)) return;
    if (!a.error) {
      const made = taskIn(m, a.result);
      fail(rules.creation, made !== undefined ? `${what} made task ${String(made[m.idField])}` : `${what} was served`, { code: -32602 }, brief(a));
    }
    if (a.error.code !== -32602) fail(rules.creation, `${what} answered error ${a.error.code}`, { code: -32602 }, a.error);
    // Where a notification acknowledges a task, none came for this request.
    if (c.ack.mode === "notification" && requestorId !== undefined && field !== (c.taskId.field ?? m.idField)) {
      const ack = w.session.wire.notifications.slice(before).find((n) => n.method === c.ack.notification && JSON.stringify(n.params ?? {}).includes(JSON.stringify(requestorId)));
      if (ack !== undefined) fail(rules.creation, `${what} was refused, but ${c.ack.notification} acknowledged task ${requestorId}`, "no task", ack.params);
    }
  }
}
