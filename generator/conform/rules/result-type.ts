/** Rule `result-type`: The answers to the task methods carry the declared result type field with its complete value. */
import { checked, defineRule, fail } from "../rule.js";
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
