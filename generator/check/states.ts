/** `states` and `transitions`: one initial state, roles, reachability, and the states events lead to. */
import { suggest, type Ctx, type Path } from "./context.js";

/** The most states a spec may declare: measured, 300 type-check and 400 fail with TS2590 (union too complex). */
export const MAX_STATES = 300;

/** One initial state, roles that agree with `terminal`, transitions between declared states, and every state reachable and able to end. */
export function checkStates(ctx: Ctx): void {
  const { spec, report, stateNames, guardNames } = ctx;
  const initials = Object.entries(spec.states).filter(([, s]) => s.initial);
  if (initials.length === 0) {
    report("MTG040", "error", "no initial state; mark exactly one state with `initial: true`", ["states"], true);
  } else if (initials.length > 1) {
    for (const [n] of initials.slice(1)) {
      report("MTG041", "error", `more than one initial state ('${initials[0][0]}' and '${n}'); keep \`initial: true\` on one`, ["states", n, "initial"], true);
    }
  }
  const roles = new Map<string, string>();
  const terminalRoles = new Set(["completed", "failed", "cancelled", "unknown"]);
  for (const [n, s] of Object.entries(spec.states)) {
    // Several states may share a role: the first one declared is where the runtime moves tasks for it.
    if (!roles.has(s.role)) roles.set(s.role, n);
    if (terminalRoles.has(s.role) !== (s.terminal === true)) {
      report(
        "MTG046",
        "error",
        terminalRoles.has(s.role)
          ? `state '${n}' has role '${s.role}', which ends a task; mark it \`terminal: true\``
          : `state '${n}' is terminal but its role '${s.role}' is not an ending; use completed, failed, cancelled or unknown`,
        ["states", n],
        true,
      );
    }
    if (s.initial && s.terminal) {
      report("MTG042", "error", `the initial state '${n}' cannot be terminal`, ["states", n, "terminal"], true);
    }
  }

  const asList = (x: string | string[]) => (Array.isArray(x) ? x : [x]);
  const edges = new Map<string, Set<string>>();
  for (const n of stateNames) edges.set(n, new Set());
  const seenEdges = new Map<string, number>();
  let undefinedStates = false;
  spec.transitions.forEach((tr, i) => {
    const froms = asList(tr.from);
    const tos = asList(tr.to);
    for (const [k, list] of [["from", froms], ["to", tos]] as const) {
      list.forEach((s, j) => {
        if (!stateNames.has(s)) {
          const p: Path = Array.isArray(tr[k]) ? ["transitions", i, k, j] : ["transitions", i, k];
          report("MTG021", "error", `undefined state '${s}'${suggest(s, stateNames)}; declare it under \`states\``, p);
          undefinedStates = true;
        }
      });
    }
    if (tr.guard !== undefined && !guardNames.has(tr.guard)) {
      report("MTG025", "error", `undefined guard '${tr.guard}'${suggest(tr.guard, guardNames)}; declare it under \`guards\``, ["transitions", i, "guard"]);
    }
    for (const f of froms) {
      if (spec.states[f]?.terminal) {
        report(
          "MTG042",
          "error",
          `state '${f}' is terminal, so no transition may leave it; remove it from \`from\` or make it non-terminal`,
          ["transitions", i, "from"],
        );
      }
      for (const t of tos) {
        if (!stateNames.has(f) || !stateNames.has(t)) continue;
        const key = `${f}→${t}`;
        if (seenEdges.has(key)) {
          report("MTG047", "warning", `transition ${f} → ${t} is already declared in transition ${seenEdges.get(key)! + 1}; remove the repetition`, ["transitions", i]);
        } else seenEdges.set(key, i);
        edges.get(f)!.add(t);
      }
    }
  });
  // With a misspelt state in a transition, reachability findings would only repeat that mistake.
  if (initials.length >= 1 && !undefinedStates) {
    const reach = new Set<string>([initials[0][0]]);
    const queue = [initials[0][0]];
    while (queue.length) for (const t of edges.get(queue.shift()!) ?? []) if (!reach.has(t)) (reach.add(t), queue.push(t));
    for (const n of stateNames) {
      if (!reach.has(n)) {
        report("MTG043", "error", `state '${n}' cannot be reached from the initial state '${initials[0][0]}'; add a transition into it or remove it`, ["states", n], true);
      }
    }
  }
  for (const n of undefinedStates ? [] : stateNames) {
    if (spec.states[n].terminal) continue;
    const seen = new Set([n]);
    const queue = [n];
    let ok = false;
    while (queue.length && !ok) {
      for (const t of edges.get(queue.shift()!) ?? []) {
        if (spec.states[t]?.terminal) ok = true;
        if (!seen.has(t)) (seen.add(t), queue.push(t));
      }
    }
    if (!ok) {
      report("MTG044", "error", `non-terminal state '${n}' can never reach a terminal state; add a transition to one`, ["states", n], true);
    }
  }
}

/** At most MAX_STATES states. */
export function checkStateCount(ctx: Ctx): void {
  const { report, stateNames } = ctx;
  // Past this many states the generated unions are more than TypeScript checks (TS2590).
  if (stateNames.size > MAX_STATES) {
    report("MTG011", "error", `${stateNames.size} states: at most ${MAX_STATES} are supported (the generated types of more fail to type-check); merge states that share a role`, ["states"], true);
  }
}

/** `behaviour.events`: each leads to a terminal state, and the transition table holds its moves. */
export function checkEvents(ctx: Ctx): void {
  const { spec, report, stateNames } = ctx;
  const events = spec.behaviour.events;
  if (events === undefined) return;
  const edges = new Set<string>();
  for (const tr of spec.transitions) {
    for (const f of Array.isArray(tr.from) ? tr.from : [tr.from]) for (const t of Array.isArray(tr.to) ? tr.to : [tr.to]) edges.add(`${f}→${t}`);
  }
  for (const [event, state] of Object.entries(events) as [string, string | undefined][]) {
    if (state === undefined) continue;
    const path: Path = ["behaviour", "events", event];
    if (!stateNames.has(state)) {
      report("MTG021", "error", `undefined state '${state}'${suggest(state, stateNames)}; declare it under \`states\``, path);
      continue;
    }
    if (!spec.states[state]!.terminal) {
      report("MTG011", "error", `events.${event} must name a terminal state: the task ends there; '${state}' is not terminal`, path);
      continue;
    }
    // The event can happen in every state a task has not ended in (expiry, restart and cancellation) or
    // while its work runs (exception): each such state needs its transition, or the event could not apply.
    const from = Object.entries(spec.states)
      .filter(([n, s]) => !s.terminal && n !== state && (event !== "exception" || s.role === "running" || s.role === "input_required"))
      .map(([n]) => n);
    const missing = from.filter((f) => !edges.has(`${f}→${state}`));
    if (missing.length > 0) {
      report(
        "MTG068",
        "error",
        `events.${event} leads to '${state}', but the transition table has no ${missing.map((f) => `${f} → ${state}`).join(", ")}; the runtime applies events through the table, so add ${missing.length === 1 ? "it" : "them"}`,
        path,
      );
    }
  }
}
