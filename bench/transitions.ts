/**
 * Transitions: checks per second of the generated `canTransition` against a
 * `Record<State, Set<State>>` lookup built from the same table.
 */
import { inChild } from "./in-child.js";
import { fmtNum, fmtRatio, measureSync, median, perRound, ratioOf, type Settings } from "./harness.js";
import type { Section } from "./report.js";

type Check = (from: string, to: string) => boolean;

/** One spec's transition table, in a process of its own. */
export async function transitionsForSpec(spec: string, s: Settings): Promise<{ row: string[]; figures: Record<string, number> }> {
  const T = (await import(`../output-samples/${spec}/transitions.ts`)) as Record<string, any>;
  const states = T.STATES as readonly string[];
  const table = T.TRANSITIONS as Record<string, readonly string[]>;
  const guardOf = T.TRANSITION_GUARDS as Record<string, string>;
  const guards = T.GUARDS as Record<string, (ctx: object) => boolean>;
  const canTransition = T.canTransition as (from: string, to: string, ctx?: object) => boolean;
  // A context under which every guard holds, so all three answer alike on every pair.
  const ctx = { pendingInputs: 0 };
  const sets: Record<string, Set<string>> = Object.fromEntries(states.map((st) => [st, new Set(table[st])]));
  // The same table as the generated one (0/1/2 cells, guards by "from->to"), in Maps instead of objects.
  const maps = new Map(states.map((a) => [a, new Map(table[a].map((b) => [b, guardOf[`${a}->${b}`] === undefined ? 1 : 2]))]));
  const mapCheck: Check = (a, b) => {
    const cell = maps.get(a)?.get(b);
    if (cell === 1) return true;
    if (cell !== 2) return false;
    const g = guardOf[`${a}->${b}`];
    return g !== undefined && guards[g](ctx);
  };
  const from: string[] = [];
  const to: string[] = [];
  for (const a of states) for (const b of states) (from.push(a), to.push(b));
  for (let i = 0; i < from.length; i++) {
    const want = sets[from[i]].has(to[i]);
    if (canTransition(from[i], to[i], ctx) !== want || mapCheck(from[i], to[i]) !== want) throw new Error(`bench bug: ${spec} ${from[i]}->${to[i]} disagrees`);
  }
  const n = from.length;
  // Each case walks every ordered pair of states, legal or not, in a loop.
  const cycling = (check: Check) => {
    let i = 0;
    return () => {
      if (++i === n) i = 0;
      return check(from[i], to[i]);
    };
  };
  const res = measureSync(
    [
      { name: "generated", fn: cycling((a, b) => canTransition(a, b, ctx)) },
      { name: "generated-noctx", fn: cycling((a, b) => canTransition(a, b)) },
      { name: "set", fn: cycling((a, b) => sets[a].has(b)) },
      { name: "maps", fn: cycling(mapCheck) },
    ],
    s,
  );
  const g = res.get("generated")!;
  const g0 = res.get("generated-noctx")!;
  const st = res.get("set")!;
  const mp = res.get("maps")!;
  const r = ratioOf(perRound(g, st));
  const r0 = ratioOf(perRound(g0, st));
  const rm = ratioOf(perRound(mp, st));
  return {
    row: [spec, String(states.length), String(n), fmtNum(median(g)), fmtNum(median(g0)), fmtNum(median(st)), fmtRatio(r), fmtRatio(r0), fmtRatio(rm)],
    figures: { [`${spec}:canTransition/set`]: r.median, [`${spec}:canTransition-noctx/set`]: r0.median, [`${spec}:maps/set`]: rm.median },
  };
}

export async function runTransitions(specs: readonly string[], s: Settings): Promise<Section> {
  const rows: string[][] = [];
  const figures: Record<string, number> = {};
  for (const spec of specs) {
    const part = await inChild<{ row: string[]; figures: Record<string, number> }>("transitions", { spec, settings: s });
    rows.push(part.row);
    Object.assign(figures, part.figures);
  }
  return {
    id: "transitions",
    title: "Transitions",
    method:
      "Checks per second over every ordered pair of states (legal and illegal, cycled): the generated `canTransition(from, to, ctx)` " +
      "(with a context under which the guards hold, so it answers exactly like the set lookup; and without a context, which refuses guarded transitions) " +
      "against `sets[from].has(to)` on a `Record<State, Set<State>>` built from the generated `TRANSITIONS` table. " +
      `Interleaved, ${s.rounds} rounds of ${s.sliceMs} ms, each spec in a process of its own. No target is set for this comparison.`,
    tables: [
      {
        title: "canTransition vs a Set lookup",
        columns: [
          "spec",
          "states",
          "pairs",
          "canTransition(ctx) checks/s",
          "canTransition() checks/s",
          "Set lookup checks/s",
          "canTransition(ctx) ÷ Set",
          "canTransition() ÷ Set",
          "same table in Maps ÷ Set",
        ],
        rows,
      },
    ],
    targets: [],
    notes: [
      "The generated table is a `Record<string, Record<string, 0 | 1 | 2>>` of object literals: both lookups are keyed property loads on objects of " +
        "different shapes, which V8 serves from its megamorphic cache, while `Set.prototype.has` hashes the (already hashed) string. " +
        "The last column is the generated logic unchanged (0/1/2 cells, the guard looked up by `from->to`) over `Map<State, Map<State, 0 | 1 | 2>>`: " +
        "what the table would gain from Maps.",
    ],
    figures,
  };
}
