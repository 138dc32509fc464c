/**
 * The moments that must be able to end a task whatever its work did: the work's failures (a tool error, a
 * protocol error, an unexpected throw) and the expiry of its retention. Each leads to the state the
 * behaviour names for it (or another state of that state's role, as the runtime's table interpreter tries
 * them, runtime/machine.ts), through the transition table. A guard there reads the task's own fields, which
 * only the work sets, and its count of unanswered inputs. Each of these moments can come before the work has
 * set anything (a tool that answers isError at once, a throw on its first line, a retention that runs out
 * while the task is queued), and after it nothing sets a field again. So from every state the moment can
 * happen in, the table must reach its state through an edge whose guard, if any, holds on the task as it
 * starts (each field its default, no input pending); where none does, a task would stay where it is for
 * ever, and the moment is refused with what to write instead. (A guard the work can make hold later is the
 * spec's demand on it, like a guarded completion; a guarded cancel is a cancel the requestor is refused.)
 * A guard on the edge out of the input state that no count of pending inputs lets hold once all are
 * answered keeps the task waiting for ever too.
 */
import type { Spec } from "../format.js";
import { managedTaskFields } from "../task-shape.js";
import type { Ctx, Path } from "./context.js";
import type { TaskInfo } from "./task.js";

type Role = Spec["states"][string]["role"];
type Guard = NonNullable<Spec["guards"]>[string];

interface Moment {
  /** Where the behaviour names its state. */
  path: Path;
  /** What happens, as the message says it. */
  what: string;
  state: string;
  /** The roles of the states the task can be in when it happens. */
  from: (role: Role) => boolean;
  /** The roles a state named for it may have (the alternatives the message offers). */
  roles: readonly Role[];
  /** Whether the states of the named state's role are tried after it (the runtime's candidates). */
  byRole: boolean;
  /** Whether a missing edge is reported here (MTG068), not by the check of `behaviour.events`. */
  missing: boolean;
  /** What a refused move leaves behind. */
  stuck: string;
}

/** The moments a task must be able to end in whatever its work set (see the module comment). */
function moments(spec: Spec): Moment[] {
  const b = spec.behaviour;
  const events = b.events ?? {};
  const working = (r: Role) => r === "running" || r === "input_required";
  const ended = "once its work has ended nothing moves the task, so it would stay where it is for ever";
  const out: Moment[] = [];
  const add = (m: Omit<Moment, "state">, state: string | undefined) => {
    if (state !== undefined) out.push({ ...m, state });
  };
  // A tool's result is applied only while the task runs (a held task waits until it runs again).
  add({ path: ["behaviour", "outcomes", "toolError"], what: "a tool error (a result with isError)", from: (r) => r === "running", roles: ["completed", "failed"], byRole: true, missing: true, stuck: ended }, b.outcomes.toolError);
  add({ path: ["behaviour", "outcomes", "protocolError"], what: "a protocol error of the work", from: working, roles: ["failed", "unknown"], byRole: true, missing: true, stuck: ended }, b.outcomes.protocolError);
  // events.exception takes the place of outcomes.unexpected where both are set (runtime/machine.ts).
  if (events.exception !== undefined) {
    add({ path: ["behaviour", "events", "exception"], what: "an unexpected throw of the work", from: working, roles: ["failed", "unknown"], byRole: true, missing: false, stuck: ended }, events.exception);
  } else {
    add({ path: ["behaviour", "outcomes", "unexpected"], what: "an unexpected throw of the work", from: working, roles: ["failed", "unknown"], byRole: true, missing: true, stuck: ended }, b.outcomes.unexpected);
  }
  add({ path: ["behaviour", "events", "expiry"], what: "the expiry of the retention", from: () => true, roles: ["failed", "cancelled", "unknown"], byRole: false, missing: false, stuck: "it comes once, so the task would outlive its retention, kept for ever where no work ends it" }, events.expiry);
  return out;
}

/** Whether `g` holds where the field it reads has the value `v` (undefined: unset), as the generated check reads it (the first comparison the guard sets). */
function holds(g: Guard, v: unknown): boolean {
  const op = (["equals", "notEquals", "atLeast", "atMost"] as const).find((k) => g[k] !== undefined) ?? "notEquals";
  const lit = g[op] ?? false;
  if (op === "equals") return v === lit;
  if (v === undefined || v === null) return false;
  return op === "notEquals" ? v !== lit : op === "atLeast" ? (v as number) >= (lit as number) : (v as number) <= (lit as number);
}

/** A field's value before the work sets it: its declared default (null: unset, as the runtime starts it). */
function startValue(t: unknown): unknown {
  // A shorthand (`integer?`) declares no default.
  const d = t !== null && typeof t === "object" ? (t as { default?: unknown }).default : undefined;
  return d === null ? undefined : d;
}

/** Failures of the work and the expiry lead, from every state they can happen in, to an end no guard can hold back. */
export function checkEndings(ctx: Ctx, task: TaskInfo): void {
  const { spec, report, stateNames } = ctx;
  const fields = task.taskFields ?? {};
  const managed = managedTaskFields(spec.behaviour);
  /** Whether guard `name` holds on a task as it starts, with the values it reads then (a guard over a field it cannot read is MTG061's). */
  const atStart = (name: string): { ok: boolean; read: string } => {
    const g = spec.guards![name]!;
    if (g.field === "pendingInputs") return { ok: holds(g, 0), read: "pendingInputs 0" };
    if (!Object.prototype.hasOwnProperty.call(fields, g.field) || managed.has(g.field)) return { ok: true, read: "" };
    const v = startValue(fields[g.field]);
    return { ok: holds(g, v), read: v === undefined ? `${g.field} unset` : `${g.field} ${JSON.stringify(v)}` };
  };
  const guardOf = new Map<string, string | undefined>();
  for (const tr of spec.transitions) {
    for (const f of Array.isArray(tr.from) ? tr.from : [tr.from]) {
      for (const t of Array.isArray(tr.to) ? tr.to : [tr.to]) {
        const key = `${f}→${t}`;
        // Where one edge is declared twice (MTG047), either declaration lets the move happen.
        if (!guardOf.has(key) || tr.guard === undefined) guardOf.set(key, tr.guard);
      }
    }
  }
  // A transition naming an undefined state or guard is reported as such (MTG021, MTG025).
  const undefinedParts = spec.transitions.some(
    (tr) =>
      [tr.from, tr.to].flat().some((s) => !stateNames.has(s)) || (tr.guard !== undefined && !Object.prototype.hasOwnProperty.call(spec.guards ?? {}, tr.guard)),
  );
  if (undefinedParts) return;
  const states = Object.entries(spec.states);
  const terminal = (s: string) => spec.states[s]?.terminal === true;
  // A state that cannot end at all is reported as such (MTG044): its missing edges say nothing more.
  const canEnd = (from: string): boolean => {
    const seen = new Set([from]);
    const queue = [from];
    while (queue.length > 0) {
      const f = queue.shift()!;
      for (const key of guardOf.keys()) {
        const [a, t] = key.split("→") as [string, string];
        if (a !== f || seen.has(t)) continue;
        if (terminal(t)) return true;
        seen.add(t);
        queue.push(t);
      }
    }
    return false;
  };
  for (const m of moments(spec)) {
    // An undefined state, or one that does not end a task, is reported as such (MTG021, MTG011).
    if (!stateNames.has(m.state) || !terminal(m.state)) continue;
    const role = spec.states[m.state]!.role;
    const targets = [m.state, ...(m.byRole ? states.filter(([n, s]) => s.role === role && n !== m.state).map(([n]) => n) : [])];
    const froms = states.filter(([n, s]) => !s.terminal && m.from(s.role) && n !== m.state).map(([n]) => n);
    // Passable from the start: an edge with no guard, or with one that holds on the task as it starts.
    const passable = (f: string, t: string) => {
      if (!guardOf.has(`${f}→${t}`)) return false;
      const g = guardOf.get(`${f}→${t}`);
      return g === undefined || atStart(g).ok;
    };
    const missing: string[] = [];
    const guarded: string[] = [];
    const read = new Set<string>();
    for (const f of froms) {
      if (targets.some((t) => passable(f, t))) continue;
      const edges = targets.filter((t) => guardOf.has(`${f}→${t}`));
      if (edges.length === 0 && canEnd(f)) missing.push(f);
      for (const t of edges) {
        const g = guardOf.get(`${f}→${t}`)!;
        if (spec.guards![g]!.field !== "pendingInputs") read.add(spec.guards![g]!.field);
        guarded.push(`${f} → ${t} (guard ${g}, which does not hold with ${atStart(g).read})`);
      }
    }
    const name = m.path.slice(1).join(".");
    if (m.missing && missing.length > 0) {
      report(
        "MTG068",
        "error",
        `${name} leads to '${m.state}', but the transition table has no ${missing.map((f) => `${f} → ${m.state}`).join(", ")}, where ${m.what} can happen; the runtime moves the task through the table, so add ${missing.length === 1 ? "it" : "them"}`,
        m.path,
      );
      continue;
    }
    if (guarded.length === 0) continue;
    const fine = states
      .filter(([n, s]) => s.terminal && m.roles.includes(s.role) && n !== m.state && froms.every((f) => passable(f, n) || (m.byRole && states.some(([o, os]) => os.role === s.role && passable(f, o)))))
      .map(([n]) => n);
    report(
      "MTG075",
      "error",
      `${name} leads to '${m.state}', but the table reaches it only through ${guarded.join(", ")}: ${m.what} can come before the work sets anything, and ${m.stuck}; ${
        fine.length > 0 ? `name a state the table reaches from the start (${fine.join(", ")}), or ` : ""
      }guard ${guarded.length === 1 ? "that transition" : "those transitions"} with what holds from the start${read.size > 0 ? `, or give ${[...read].join(", ")} a default that does` : ""}`,
      m.path,
    );
  }
  checkResume(ctx, guardOf);
}

/** The edge out of the input state: some guard on it holds once every question is answered. */
function checkResume(ctx: Ctx, guardOf: ReadonlyMap<string, string | undefined>): void {
  const { spec, report } = ctx;
  const input = spec.behaviour.input || undefined;
  if (input === undefined || input.resume === undefined) return;
  const { status, resume } = input;
  if (!Object.prototype.hasOwnProperty.call(spec.states, status) || !Object.prototype.hasOwnProperty.call(spec.states, resume)) return;
  // The runtime tries the named state, then the running states the table lists from the input state.
  const targets = [resume, ...Object.entries(spec.states).filter(([n, s]) => s.role === "running" && n !== resume).map(([n]) => n)].filter((t) => t !== status && guardOf.has(`${status}→${t}`));
  if (targets.length === 0) return;
  const never = (t: string) => {
    const name = guardOf.get(`${status}→${t}`);
    const g = name === undefined ? undefined : spec.guards?.[name];
    return g !== undefined && g.field === "pendingInputs" && !holds(g, 0);
  };
  if (!targets.every(never)) return;
  report(
    "MTG075",
    "error",
    `input.resume leads to '${resume}', but the table reaches it from '${status}' only through ${targets.map((t) => `${status} → ${t} (guard ${guardOf.get(`${status}→${t}`)})`).join(", ")}, which does not hold once every input is answered (pendingInputs 0), so an answered task would wait in '${status}' for ever; guard it with \`{ field: pendingInputs, equals: 0 }\` (every input answered), or remove the guard`,
    ["behaviour", "input", "resume"],
  );
}
