/**
 * What each task request does, from the spec: the method's own `operation`,
 * or the behaviour that names it (results.method is the result operation,
 * listing.method the list operation, ...). Shared by the checker, which reports
 * conflicts, and lowering, which hands the table to the runtime.
 */
import type { Spec } from "./format.js";

export type Operation = "get" | "result" | "list" | "cancel" | "update" | "delete" | "transition" | "custom";

export interface MethodOperation {
  operation: Operation;
  /** operation transition: the target state. */
  to?: string;
  /** Where the operation was read: the method itself, or the behaviour path that names the method. */
  from: "method" | string;
}

export interface OperationConflict {
  method: string;
  declared: Operation;
  implied: Operation;
  by: string;
}

/** The operations the behaviour section implies, by method. */
export function impliedOperations(spec: Spec): [string, Operation, string][] {
  const b = spec.behaviour;
  const out: [string, Operation, string][] = [];
  if (b.results.mode !== "inline" && b.results.method !== undefined) out.push([b.results.method, "result", "behaviour.results.method"]);
  if (b.listing) out.push([b.listing.method, "list", "behaviour.listing.method"]);
  if (b.cancellation.via === "method" && b.cancellation.method !== undefined) out.push([b.cancellation.method, "cancel", "behaviour.cancellation.method"]);
  if (b.cancellation.deleteMethod) out.push([b.cancellation.deleteMethod, "delete", "behaviour.cancellation.deleteMethod"]);
  if (b.input && b.input.via === "inline-poll" && b.input.updateMethod !== undefined) out.push([b.input.updateMethod, "update", "behaviour.input.updateMethod"]);
  return out;
}

/** Each request method's operation (requests without one are absent), and the conflicts between declared and implied ones. */
export function methodOperations(spec: Spec): { operations: Map<string, MethodOperation>; conflicts: OperationConflict[] } {
  const operations = new Map<string, MethodOperation>();
  const conflicts: OperationConflict[] = [];
  for (const [method, m] of Object.entries(spec.methods)) {
    if (m.kind !== "request" || m.operation === undefined) continue;
    operations.set(method, { operation: m.operation, ...(m.to === undefined ? {} : { to: m.to }), from: "method" });
  }
  for (const [method, implied, by] of impliedOperations(spec)) {
    if (!Object.prototype.hasOwnProperty.call(spec.methods, method) || spec.methods[method]!.kind !== "request") continue;
    const have = operations.get(method);
    if (have === undefined) operations.set(method, { operation: implied, from: by });
    else if (have.operation !== implied) conflicts.push({ method, declared: have.operation, implied, by });
  }
  return { operations, conflicts };
}
