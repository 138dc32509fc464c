/** `examples`: the method or type each one shows is declared, and its kind says which it needs. */
import { suggest, type Ctx } from "./context.js";

export function checkExamples(ctx: Ctx): void {
  const { spec, report, methodNames, allTypes } = ctx;
  (spec.examples ?? []).forEach((ex, i) => {
    if (ex.method !== undefined && !methodNames.has(ex.method)) {
      report("MTG071", "error", `example '${ex.name}' names undefined method '${ex.method}'${suggest(ex.method, methodNames)}; declare it under \`methods\` or fix the name`, ["examples", i, "method"]);
    }
    if (ex.type !== undefined && !allTypes.has(ex.type)) {
      report("MTG071", "error", `example '${ex.name}' names undefined type '${ex.type}'${suggest(ex.type, allTypes)}; declare it under \`types\` or fix the name`, ["examples", i, "type"]);
    }
    if ((ex.kind === "type" || ex.kind === "meta") && ex.type === undefined) {
      report("MTG060", "error", `example '${ex.name}' of kind ${ex.kind} needs \`type\``, ["examples", i], true);
    }
    if ((ex.kind === "request" || ex.kind === "result" || ex.kind === "notification") && ex.method === undefined) {
      report("MTG060", "error", `example '${ex.name}' of kind ${ex.kind} needs \`method\``, ["examples", i], true);
    }
  });
}
