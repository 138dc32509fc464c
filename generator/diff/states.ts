/** The States, Transitions and Guards sections: the task state machine, compared by name. */
import type { IR, IRState } from "../ir.js";
import { emit, type Ctx } from "./context.js";
import { union, who } from "./directions.js";
import type { Section } from "./model.js";
import type { Impact, RuleId } from "./rules.js";
import { cap, count } from "./text.js";

export function diffStates(ctx: Ctx) {
  const dirs = union(ctx.ou.task, ctx.nu.task);
  const w = who("task", dirs);
  const emitS = (section: Section, c: Omit<Parameters<typeof emit>[1], "section" | "dirs">, override?: { producer: Impact; consumer: Impact }) =>
    emit(ctx, { section, dirs, ...c }, override);
  if (ctx.old.statusType !== ctx.new.statusType) {
    emitS("states", {
      rule: "state.type-name", path: "statusType", subject: ctx.new.statusType, before: ctx.old.statusType, after: ctx.new.statusType,
      summary: `The status type is now \`${ctx.new.statusType}\` (was \`${ctx.old.statusType}\`)`,
      hint: `Rename uses of the generated \`${ctx.old.statusType}\`; the wire does not change.`,
    });
  }
  const oldS = new Map(ctx.old.states.map((s) => [s.name, s]));
  const newS = new Map(ctx.new.states.map((s) => [s.name, s]));
  const stateText = (s: IRState) => `${s.name} (${s.role}${s.initial ? ", initial" : ""}${s.terminal ? ", terminal" : ""})`;
  const edges = (ir: IR, s: string) => ir.transitions.filter((t) => t.from === s || t.to === s).map((t) => `${t.from} → ${t.to}`);
  for (const s of ctx.old.states) {
    const n = newS.get(s.name);
    const path = `states.${s.name}`;
    if (!n) {
      const es = edges(ctx.old, s.name);
      emitS("states", {
        rule: "state.removed", path, subject: s.name, before: { role: s.role, initial: s.initial, terminal: s.terminal },
        summary: `Status \`${s.name}\` removed (${s.role}${s.initial ? ", was initial" : ""}${s.terminal ? ", terminal" : ""})${es.length ? ` with its ${count(es.length, "transition")}` : ""}`,
        hint: `${cap(w.P)} must no longer report \`${s.name}\`${substitute(ctx, s)}; ${w.C} can drop its handling.`,
      });
      continue;
    }
    if (s.role !== n.role) {
      emitS("states", {
        rule: "state.role", path: `${path}.role`, subject: s.name, before: s.role, after: n.role,
        summary: `Status \`${s.name}\` now has role ${n.role} (was ${s.role})`,
        hint: `Treat \`${s.name}\` as ${n.role} on both sides.`,
      });
    }
    if (s.terminal !== n.terminal) {
      emitS("states", {
        rule: "state.terminal", path: `${path}.terminal`, subject: s.name, before: s.terminal, after: n.terminal,
        summary: `Status \`${s.name}\` is ${n.terminal ? "now terminal" : "no longer terminal"}`,
        hint: n.terminal
          ? `${cap(w.C)} stop polling at \`${s.name}\`; ${w.P} must not move a task out of it.`
          : `${cap(w.C)} must keep polling past \`${s.name}\`; ${w.P} may move tasks on from it.`,
      });
    }
  }
  if (ctx.old.initialState !== ctx.new.initialState) {
    const o = ctx.old.initialState;
    const nn = ctx.new.initialState;
    emitS("states", {
      rule: "state.initial", path: "states.initial", subject: nn, before: o, after: nn,
      summary: `Tasks now start in \`${nn}\` (was \`${o}\`)`,
      hint: `${cap(w.P)} must create tasks in \`${nn}\`; ${w.C} must not expect \`${o}\` first.`,
    });
  }
  for (const n of ctx.new.states) {
    if (oldS.has(n.name)) continue;
    const es = edges(ctx.new, n.name);
    emitS("states", {
      rule: "state.added", path: `states.${n.name}`, subject: n.name, after: { role: n.role, initial: n.initial, terminal: n.terminal },
      summary: `Status \`${stateText(n)}\` added${es.length ? ` with ${count(es.length, "transition")}: ${es.join(", ")}` : ""}`,
      hint: `${cap(w.C)} must handle the status \`${n.name}\`; ${w.P} may report it.`,
    });
  }

  // Transitions between states both specs know; the others went with their states.
  const known = (t: { from: string; to: string }) => oldS.has(t.from) && oldS.has(t.to) && newS.has(t.from) && newS.has(t.to);
  const key = (t: { from: string; to: string }) => `${t.from} → ${t.to}`;
  const oldTr = new Map(ctx.old.transitions.filter(known).map((t) => [key(t), t]));
  const newTr = new Map(ctx.new.transitions.filter(known).map((t) => [key(t), t]));
  for (const [k, t] of oldTr) {
    const n = newTr.get(k);
    const path = `transitions.${t.from}->${t.to}`;
    if (!n) {
      emitS("transitions", { rule: "transition.removed", path, subject: k, before: k, summary: `Transition ${k} removed`, hint: `${cap(w.P)} must no longer move a task ${k}.` });
      continue;
    }
    if (t.guard !== n.guard) {
      const rule: RuleId = !t.guard ? "transition.guard.added" : !n.guard ? "transition.guard.removed" : "transition.guard.changed";
      emitS("transitions", {
        rule, path: `${path}.guard`, subject: k, before: t.guard ?? null, after: n.guard ?? null,
        summary: `Transition ${k}: guard ${t.guard ? `\`${t.guard}\`` : "none"} → ${n.guard ? `\`${n.guard}\`` : "none"}`,
        hint: n.guard ? `${cap(w.P)} must check \`${n.guard}\` before moving a task ${k}.` : `Nothing to do: ${k} no longer needs \`${t.guard}\`.`,
      });
    }
  }
  for (const [k, n] of newTr) {
    if (oldTr.has(k)) continue;
    emitS("transitions", {
      rule: "transition.added", path: `transitions.${n.from}->${n.to}`, subject: k, after: k,
      summary: `Transition ${k} added${n.guard ? ` (guard \`${n.guard}\`)` : ""}`,
      hint: `${cap(w.P)} may now move a task ${k}; ${w.C} see only statuses they know.`,
    });
  }

  const guardText = (g: IR["guards"][number]) => `${g.field} ${g.op} ${JSON.stringify(g.value)} (${g.valueType})`;
  const oldG = new Map(ctx.old.guards.map((g) => [g.name, g]));
  const newG = new Map(ctx.new.guards.map((g) => [g.name, g]));
  for (const [name, g] of oldG) {
    const n = newG.get(name);
    if (!n) {
      emitS("guards", { rule: "guard.removed", path: `guards.${name}`, subject: name, before: guardText(g), summary: `Guard \`${name}\` removed (${guardText(g)})`, hint: `Nothing to do beyond the transitions that used it.` });
    } else if (guardText(g) !== guardText(n)) {
      emitS("guards", {
        rule: "guard.changed", path: `guards.${name}`, subject: name, before: guardText(g), after: guardText(n),
        summary: `Guard \`${name}\`: ${guardText(g)} → ${guardText(n)}`,
        hint: `${cap(w.P)} must evaluate \`${name}\` as ${guardText(n)}.`,
      });
    }
  }
  for (const [name, n] of newG) {
    if (!oldG.has(name)) emitS("guards", { rule: "guard.added", path: `guards.${name}`, subject: name, after: guardText(n), summary: `Guard \`${name}\` added (${guardText(n)})`, hint: `Nothing to do beyond the transitions that use it.` });
  }
}

/** What a removed status's tasks report now: the state holding the same role, or the outcome that took over. */
function substitute(ctx: Ctx, s: IRState): string {
  const byRole = ctx.new.roles[s.role];
  if (byRole) return `; use \`${byRole}\`, which now holds its role`;
  const o = ctx.old.behaviour.outcomes;
  for (const k of ["unexpected", "protocolError", "toolError"] as const) {
    if (o[k] === s.name) return `; report \`${ctx.new.behaviour.outcomes[k]}\` instead (outcomes.${k})`;
  }
  if (s.initial) return `; create tasks in \`${ctx.new.initialState}\``;
  return "";
}
