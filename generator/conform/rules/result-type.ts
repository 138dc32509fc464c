/** Rule `result-type`: The answers to the task methods carry the declared result type field with its complete value. */
import { checked, defineRule, fail, type Rule } from "../rule.js";
import type { SpecModel } from "../model.js";
import type { ConformReport } from "../report.js";
import type { World } from "../world.js";

export const resultType = defineRule({
  name: "result-type",
  description: "The answers to the task methods carry the declared result type field with its complete value.",
  statements: [
    "ext-tasks-2026-07-28/cancel.result-type-complete",
    "ext-tasks-2026-07-28/core.result-type-present",
    "ext-tasks-2026-07-28/get.result-type-complete",
    "ext-tasks-2026-07-28/polymorphic.task-only-on-create-task-result",
    "ext-tasks-2026-07-28/polymorphic.task-result-type",
    "ext-tasks-2026-07-28/update.result-type-complete",
  ],
  reads: ["behaviour.resultType"],
});

/** Where the spec declares a result type field, the answers to task methods other than creation say `complete`. */
export function checkResultType(w: World, method: string, result: Record<string, unknown>): void {
  const rt = w.model.ir.behaviour.resultType;
  if (rt === false) return;
  checked(resultType);
  if (result[rt.field] !== rt.complete) fail(resultType, `${method} answered without ${rt.field}: ${JSON.stringify(rt.complete)}`, rt.complete, result[rt.field] ?? "nothing");
}

/** A result that is no task creation (a listing, the discovery) does not carry the task result type. */
export function notTaskTyped(m: SpecModel, method: string, result: Record<string, unknown>): ConformReport["checks"] {
  const rt = m.ir.behaviour.resultType;
  if (rt === false) return [];
  const ok = result[rt.field] !== rt.task;
  return [{ rule: resultType.name, ok, message: ok ? `${method} answered without ${rt.field}: ${JSON.stringify(rt.task)}` : `${method} answered ${rt.field}: ${JSON.stringify(rt.task)}, which only a task creation carries` }];
}

/** The fields of a method's declared result type, where it is an object type (through references). */
function declaredFields(m: SpecModel, method: string): string[] | undefined {
  let t = m.ir.methods.find((x) => x.method === method)?.result;
  for (let hops = 0; t?.kind === "ref" && hops < 20; hops++) {
    const name: string = t.name;
    t = m.ir.types.find((d) => d.name === name)?.type;
  }
  return t?.kind === "object" ? t.fields.map((f) => f.name) : undefined;
}

/**
 * Where the spec declares a result type field, an acknowledgement whose declared type holds nothing but that field
 * and `_meta` is an empty result: it carries nothing else (no task, no status).
 */
export function checkEmptyAck(w: World, method: string, result: Record<string, unknown>, rule: Rule): void {
  const rt = w.model.ir.behaviour.resultType;
  const fields = declaredFields(w.model, method);
  if (rt === false || fields === undefined) return;
  const base = new Set(["_meta", rt.field]);
  if (!fields.every((f) => base.has(f))) return;
  checked(rule);
  const extra = Object.keys(result).filter((k) => !base.has(k));
  if (extra.length) fail(rule, `${method} acknowledged with ${extra.join(", ")}: its result is an empty acknowledgement`, [...base], result);
}
