/**
 * What the checker and the descriptor emitter both need to know of a task's
 * shape: which task fields a behaviour fills (the others are the task's own,
 * set by its work), and which declared type a type expression names.
 */
import type { Behaviour, TypeExpr } from "./format.js";
import { SHORTHAND_RE } from "./format-words.js";

/** The behaviour parts that give task fields a meaning (a spec's, or the IR's with absent parts false). */
type FieldBehaviour = Pick<Behaviour, "taskIdField" | "statusField" | "outcomes" | "results" | "resultType"> & {
  retention?: Behaviour["retention"];
  polling?: Behaviour["polling"];
  input?: Behaviour["input"];
};

/** The task fields the runtime fills itself: id, status, times, retention, polling, outcomes, inlined results and input. */
export function managedTaskFields(b: FieldBehaviour): Set<string> {
  const out = new Set<string>([b.taskIdField ?? "taskId", b.statusField ?? "status", "createdAt", "lastUpdatedAt", "_meta"]);
  if (b.retention) out.add(b.retention.field);
  if (b.polling) out.add(b.polling.field);
  for (const f of [b.outcomes.failureField, b.outcomes.statusMessageField, b.results.resultField, b.results.errorField]) if (f !== undefined) out.add(f);
  if (b.input && b.input.requestsField !== undefined) out.add(b.input.requestsField);
  if (b.resultType) out.add(b.resultType.field);
  return out;
}

/** The type name a type expression names directly (`Name`, `Name?`, a ref), if any; whether it is declared is the caller's to check. */
export function namedTypeOf(t: TypeExpr | undefined): string | undefined {
  if (t === undefined) return undefined;
  if (typeof t !== "string") return t.type === "ref" ? t.ref : undefined;
  const m = SHORTHAND_RE.exec(t);
  return m !== null && m[2] === "" && /^[A-Z]/.test(m[1]!) ? m[1] : undefined;
}
