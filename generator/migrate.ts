/**
 * What to add to a task request that declares no operation and that no behaviour names: the operation its
 * shape suggests. Specs written before requests declared their operations (mcp-task-gen 0.1) have none at
 * all; the checker's MTG067 quotes the suggestion, so the diagnostic says exactly what to write.
 *
 * Everything is read from the spec: the task type and its id field, the method's params and result types,
 * the states and the transition table. A method's own name counts only where its last segment is itself an
 * operation's name (".../get") or the stem of a declared state (".../pause" and a state 'paused').
 */
import { METHOD_OPERATIONS, type Spec, type TypeExpr } from "./format.js";
import type { Operation } from "./operations.js";

export interface SuggestedOperation {
  operation: Operation;
  /** For a transition: the state the request moves the task to. */
  to?: string;
  /** Why this one, for the message. */
  why: string;
}

/**
 * The operation each of `methods` (requests with none) most likely means, decided together: a request's own
 * name first (".../get", or a state it leads to), then its shape (params naming a task and the task as the
 * answer: get; a list of tasks as the answer: list), each single operation given to one request only and
 * never to one that `taken` (the operations other requests have) already holds. Where the shape fits several
 * requests, none is picked: the suggestion is undefined and `why` names the others.
 */
export function suggestOperations(spec: Spec, methods: readonly string[], taken: ReadonlySet<Operation>): Map<string, SuggestedOperation | { operation?: undefined; why: string }> {
  const b = spec.behaviour;
  const taskType = b.taskType ?? "Task";
  const idField = b.taskIdField ?? "taskId";
  const held = new Set(taken);
  const out = new Map<string, SuggestedOperation | { operation?: undefined; why: string }>();
  const open = () => methods.filter((m) => !out.has(m));
  const addresses = (method: string) => {
    const m = spec.methods[method]!;
    const params = m.params === undefined ? {} : fieldsOf(spec, m.params);
    return params !== undefined && idField in params;
  };
  const last = (method: string) => method.slice(method.lastIndexOf("/") + 1);
  // 1. The name is an operation's.
  for (const method of open()) {
    const op = last(method) as Operation;
    if ((METHOD_OPERATIONS as readonly string[]).includes(op) && op !== "transition" && op !== "custom" && !held.has(op)) {
      out.set(method, { operation: op, why: `its name ends in '${op}'` });
      held.add(op);
    }
  }
  // 2. The name is the stem of a state the table reaches, and the request names a task.
  for (const method of open()) {
    const target = addresses(method) ? stateFor(spec, last(method)) : undefined;
    if (target !== undefined) out.set(method, { operation: "transition", to: target, why: `it names a task and its name matches the state '${target}', which the transition table reaches` });
  }
  // 3. The shape: one request that names a task and answers it is the get; one that answers a list of them, the list.
  const byShape = (op: Operation, fits: (method: string) => boolean, why: string) => {
    const fit = open().filter(fits);
    if (fit.length === 1 && !held.has(op)) {
      out.set(fit[0]!, { operation: op, why });
      held.add(op);
    } else if (fit.length > 1 && !held.has(op)) {
      for (const method of fit) {
        const others = fit.filter((x) => x !== method).map((x) => `'${x}'`).join(", ");
        out.set(method, { why: `${why}, as ${others} ${fit.length === 2 ? "does" : "do"}: \`operation: ${op}\` for the one that ${op === "get" ? "only reads the task" : "lists the tasks"}, \`operation: transition\` and \`to: <state>\` for one that moves it, \`operation: custom\` for the others` });
      }
    }
  };
  byShape("get", (m) => addresses(m) && spec.methods[m]!.result !== undefined && isTask(spec, spec.methods[m]!.result!, taskType, new Set()), `it names a task by '${idField}' and answers the ${taskType}`);
  byShape("list", (m) => !addresses(m) && spec.methods[m]!.result !== undefined && listsTasks(spec, spec.methods[m]!.result!, taskType), `it answers a list of ${taskType}`);
  for (const method of open()) out.set(method, { operation: "custom", why: "nothing in its name or shape says more: a handler of yours answers it" });
  return out;
}

/** What to add: `operation: get`, or a transition's two keys; for an undecided request, what decides it. */
export function suggestionText(s: SuggestedOperation | { operation?: undefined; why: string }): string {
  if (s.operation === undefined) return `add \`operation:\` under it (${s.why})`;
  const what = s.to === undefined ? `\`operation: ${s.operation}\`` : `\`operation: transition\` and \`to: ${s.to}\``;
  return `add ${what} under it (${s.why})`;
}

/** The type a shorthand or `ref` names, without `?` or `[]`. */
function named(t: TypeExpr): string | undefined {
  if (typeof t === "string") return /^[A-Za-z_]\w*\??$/.test(t) ? t.replace(/\?$/, "") : undefined;
  return t.type === "ref" ? t.ref : undefined;
}

/** The fields of an object type (its own and those it extends), or undefined when it is not an object. */
function fieldsOf(spec: Spec, t: TypeExpr, seen = new Set<string>()): Record<string, TypeExpr> | undefined {
  const name = named(t);
  if (name !== undefined) {
    if (seen.has(name) || !Object.prototype.hasOwnProperty.call(spec.types, name)) return undefined;
    seen.add(name);
    return fieldsOf(spec, spec.types[name] as TypeExpr, seen);
  }
  if (typeof t === "string" || t.type !== "object") return undefined;
  const out: Record<string, TypeExpr> = {};
  for (const e of t.extends ?? []) Object.assign(out, fieldsOf(spec, e, seen) ?? {});
  return Object.assign(out, t.fields ?? {});
}

/** Whether `t` is the task type, or an object type that extends it (a result that is the task). */
function isTask(spec: Spec, t: TypeExpr, taskType: string, seen: Set<string>): boolean {
  const name = named(t);
  if (name === taskType) return true;
  if (name !== undefined) {
    if (seen.has(name) || !Object.prototype.hasOwnProperty.call(spec.types, name)) return false;
    seen.add(name);
    return isTask(spec, spec.types[name] as TypeExpr, taskType, seen);
  }
  return typeof t !== "string" && t.type === "object" && (t.extends ?? []).some((e) => isTask(spec, e, taskType, seen));
}

/** Whether a result carries an array of tasks in one of its fields. */
function listsTasks(spec: Spec, t: TypeExpr, taskType: string): boolean {
  const fields = fieldsOf(spec, t);
  if (fields === undefined) return false;
  return Object.values(fields).some((f) => {
    if (typeof f === "string") return f.replace(/\?$/, "") === `${taskType}[]`;
    return f.type === "array" && isTask(spec, f.items, taskType, new Set());
  });
}

/** A state whose name starts with the method's last segment (pause → paused) and that a transition leads to. */
function stateFor(spec: Spec, segment: string): string | undefined {
  const stem = segment.toLowerCase().replace(/e$/, "");
  if (stem.length < 3) return undefined;
  const reached = new Set(spec.transitions.flatMap((tr) => (Array.isArray(tr.to) ? tr.to : [tr.to])));
  return Object.keys(spec.states).find((s) => s.toLowerCase().startsWith(stem) && reached.has(s));
}
