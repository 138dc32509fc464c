/**
 * `methods`: the names each one generates, their errors, their operations, and
 * whether any behaviour or operation uses them.
 */
import { suggestionText, suggestOperations } from "../migrate.js";
import { methodOperations } from "../operations.js";
import { fieldsOf, methodNames as generatedNames } from "../spec-helpers.js";
import { suggest, type Ctx, type Path } from "./context.js";

/** Methods of core MCP (2025-11-25 and 2026-07-28) that the SDK underneath serves or sends itself. */
const CORE_METHODS = new Set([
  ...["initialize", "ping", "server/discover", "tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list", "resources/read"],
  ...["resources/templates/list", "resources/subscribe", "resources/unsubscribe", "subscriptions/listen", "completion/complete", "logging/setLevel"],
  ...["sampling/createMessage", "elicitation/create", "roots/list"],
  ...["notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/message", "notifications/roots/list_changed"],
  ...["notifications/resources/updated", "notifications/resources/list_changed", "notifications/tools/list_changed", "notifications/prompts/list_changed"],
  "notifications/elicitation/complete",
]);

const SINGLE_OPERATIONS = new Set(["get", "result", "list", "cancel", "update", "delete"]);
/** Operations that address one task, whose params carry its id. */
const ADDRESSING_OPERATIONS = new Set(["get", "result", "cancel", "update", "delete", "transition"]);

/** Names a method generates that are taken, results of notifications, undeclared errors. */
export function checkMethodDeclarations(ctx: Ctx): void {
  const { spec, report, allTypes, errorNames } = ctx;
  // Generated names must be unique: method stems, and the types they generate vs declared types.
  const generated = new Map<string, string>();
  for (const [m, def] of Object.entries(spec.methods)) {
    const names = generatedNames(m, def);
    const fresh = [names.messageName, ...[names.paramsName, names.resultName].filter((n) => n !== undefined && !allTypes.has(n))];
    for (const n of fresh as string[]) {
      const prev = generated.get(n) ?? (allTypes.has(n) ? `type ${n}` : undefined);
      if (prev) {
        report("MTG030", "error", `method '${m}' generates the name '${n}', already taken by ${prev}; set a distinct \`name\``, ["methods", m], true);
      } else generated.set(n, `method '${m}'`);
    }
    if (def.kind === "notification" && def.result !== undefined) {
      report("MTG011", "error", "a notification has no result; remove `result`", ["methods", m, "result"], true);
    }
    for (const [i, e] of (def.errors ?? []).entries()) {
      if (!errorNames.has(e)) report("MTG023", "error", `undefined error '${e}'${suggest(e, errorNames)}; declare it under \`errors\``, ["methods", m, "errors", i]);
    }
  }
}

/** Methods that the SDK underneath answers itself, and transitions that would complete a task without a result. */
export function checkCoreMethods(ctx: Ctx): void {
  const { spec, report } = ctx;
  // A request the core protocol defines is the SDK's: declared as a task method, its handler would never run.
  for (const [method, m] of Object.entries(spec.methods)) {
    if (CORE_METHODS.has(method)) {
      report("MTG069", "error", `'${method}' is a core MCP method: the SDK underneath answers it, so a task method of that name would never be reached; name it otherwise (e.g. 'tasks/${method.split("/").pop()}')`, ["methods", method], true);
    }
    if (m.kind === "request" && m.operation === "transition" && m.to !== undefined && spec.states[m.to]?.role === "completed") {
      report(
        "MTG067",
        "error",
        `'${method}' would move a task to '${m.to}', a completed state, without a result: the result method could never answer it; let the work complete it, or move it to a state of another role`,
        ["methods", method, "to"],
      );
    }
    if (m.kind === "request" && m.operation === "transition" && m.to !== undefined && spec.states[m.to]?.role === "queued") {
      // Work runs from its start to its end once: a running task moved back to the queue would wait there for ever.
      const fromRunning = spec.transitions.some((tr) => (Array.isArray(tr.from) ? tr.from : [tr.from]).some((f) => spec.states[f]?.role === "running") && (Array.isArray(tr.to) ? tr.to : [tr.to]).includes(m.to!));
      if (fromRunning) {
        report(
          "MTG067",
          "error",
          `'${method}' could move running work back to '${m.to}', a queued state, where the runtime would never start it again: the task would wait there for ever; move it to a paused state (its work waits there and goes on once the task is moved back), or remove the transitions from running states into '${m.to}'`,
          ["methods", method, "to"],
        );
      }
    }
  }
}

/** The operations of the task requests: one method per single operation, `to` of a transition, the task id in params. */
export function checkOperations(ctx: Ctx, idField: string): void {
  const { spec, report } = ctx;
  const { operations, conflicts } = methodOperations(spec);
  for (const c of conflicts) {
    report("MTG067", "error", `'${c.method}' declares operation ${c.declared}, but ${c.by} makes it the ${c.implied} operation; make them agree`, ["methods", c.method, "operation"]);
  }
  const holders = new Map<string, string>();
  for (const [method, m] of Object.entries(spec.methods)) {
    const path: Path = ["methods", method];
    if (m.kind === "notification") {
      if (m.operation !== undefined) report("MTG011", "error", "a notification has no operation (nobody answers it); remove `operation`", [...path, "operation"]);
      if (m.to !== undefined) report("MTG011", "error", "a notification has no transition; remove `to`", [...path, "to"]);
      continue;
    }
    const op = operations.get(method);
    if (m.to !== undefined && op?.operation !== "transition") {
      report("MTG011", "error", "`to` belongs to operation transition; remove it or set `operation: transition`", [...path, "to"]);
    }
    if (op === undefined) continue;
    if (SINGLE_OPERATIONS.has(op.operation)) {
      const prev = holders.get(op.operation);
      if (prev !== undefined) {
        report("MTG067", "error", `'${method}' and '${prev}' are both the ${op.operation} operation; a requestor could not tell which to call, so keep one`, [...path, ...(m.operation ? ["operation"] : [])], !m.operation);
      } else holders.set(op.operation, method);
    }
    if (op.operation === "transition") {
      if (m.to === undefined) report("MTG060", "error", "missing `to`: a transition operation names the state it moves the task to", path, true);
      else if (!ctx.stateNames.has(m.to)) report("MTG021", "error", `undefined state '${m.to}'${suggest(m.to, ctx.stateNames)}; declare it under \`states\``, [...path, "to"]);
      else {
        const into = spec.transitions.some((tr) => (Array.isArray(tr.to) ? tr.to : [tr.to]).includes(m.to!));
        if (!into) report("MTG067", "error", `no transition of the table leads to '${m.to}', so '${method}' could never succeed; add one under \`transitions\``, [...path, "to"]);
      }
    }
    if (ADDRESSING_OPERATIONS.has(op.operation) && m.params !== undefined) {
      const fields = fieldsOf(spec, m.params);
      if (fields !== undefined && !(idField in fields)) {
        report("MTG061", "error", `'${method}' addresses one task (operation ${op.operation}), but its params have no '${idField}' field to name it`, [...path, "params"]);
      }
    }
  }
  if (!holders.has("get") && spec.behaviour.results.mode !== "inline") {
    report(
      "MTG067",
      "warning",
      "no request is the get operation, so a requestor can only wait for a result, never read a task's status; mark one with `operation: get`",
      ["methods"],
      true,
    );
  }
}

/** Requests that nothing answers, and methods that nothing uses. */
export function checkMethodUse(ctx: Ctx): void {
  const { spec, report, methodNames } = ctx;
  const b = spec.behaviour;
  const cr = b.creation;
  const r = b.results;
  const c = b.cancellation;
  const inp = b.input || undefined;
  // Methods nobody uses are worth a warning: a generated handler nobody wires is dead code.
  const { operations } = methodOperations(spec);
  const usedMethods = new Set<string>();
  const use = (m: string | false | undefined) => m && usedMethods.add(m);
  use(cr.ack.notification);
  use(r.method);
  use(c.method);
  use(c.deleteMethod);
  use(inp?.updateMethod);
  for (const m of operations.keys()) use(m);
  if (b.listing) use(b.listing.method);
  if (b.statusNotifications) use(b.statusNotifications.method);
  if (b.http) b.http.methods.forEach(use);
  if (b.relatedTask) b.relatedTask.results.forEach(use);
  if (b.statusNotifications && b.statusNotifications.subscribeMethod) use(b.statusNotifications.subscribeMethod);
  for (const side of ["server", "client"] as const) {
    const cap = b.capabilities[side];
    Object.keys((cap && cap.gates) || {}).forEach(use);
    if (cap) (cap.requiredBy ?? []).forEach(use);
  }
  let suggested: ReturnType<typeof suggestOperations> | undefined;
  const unnamedRequests = () => [...methodNames].filter((x) => !usedMethods.has(x) && spec.methods[x]!.kind === "request");
  for (const m of methodNames) {
    if (!usedMethods.has(m) && spec.methods[m]!.kind === "request") {
      const hint = (suggested ??= suggestOperations(spec, unnamedRequests(), new Set([...operations.values()].map((o) => o.operation)))).get(m)!;
      const old = Object.values(spec.methods).every((x) => x.operation === undefined) ? "; specs written for mcp-task-gen 0.1 declare no operations, and since 0.2 each task request that no behaviour names says what it does" : "";
      report(
        "MTG067",
        "error",
        `request '${m}' declares no operation and no behaviour names it, so no server could answer it${old}; ${suggestionText(hint)}, or another operation (get, result, list, cancel, update, delete, transition, custom), or remove it`,
        ["methods", m],
        true,
      );
    } else if (!usedMethods.has(m)) {
      report("MTG064", "warning", `method '${m}' is declared but no behaviour uses it; reference it under \`behaviour\` or remove it`, ["methods", m], true);
    }
  }
}
