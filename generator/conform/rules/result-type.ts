/** Rule `result-type`: The answers to the task methods carry the declared result type field with its complete value. */
import { checked, defineRule, fail } from "../rule.js";
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
