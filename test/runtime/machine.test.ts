/**
 * The table interpreter (runtime/machine.ts), by properties: over generated tables (states with roles,
 * edges with guards, the states a spec names per event) and generated event sequences, every move it
 * makes is an edge of the table whose guard holds, the first such edge among the states the event leads
 * to; where none is legal the answer is a refusal carrying the error to answer (never a move). The same
 * holds over the built-in specs' own generated tables.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StateRole } from "../../runtime/behaviour.js";
import type { TransitionContext } from "../../runtime/descriptor.js";
import { TaskProtocolError } from "../../runtime/errors.js";
import { candidates, machineOf, transition, type TaskEvent, type TaskMachine, type TaskSnapshot } from "../../runtime/machine.js";
import { makePlan } from "../../runtime/plan.js";
import { transitionTable } from "../../runtime/descriptor.js";
import { irOf } from "../helpers/conform.js";
import { BUILTIN, descriptorOf } from "./descriptors.js";

const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);
const ROLES: readonly StateRole[] = ["queued", "running", "paused", "input_required", "completed", "failed", "cancelled", "unknown"];
const TERMINAL_ROLES = new Set<StateRole>(["completed", "failed", "cancelled"]);
const EVENT_TYPES = ["start", "finish", "toolError", "fail", "throw", "ask", "answer", "cancel", "expire", "restart", "operation", "goto"] as const;

/** A table as a spec declares it: states in order, roles, edges with an optional guard on pendingInputs. */
interface Table {
  states: string[];
  roleOf: Record<string, StateRole>;
  terminal: Set<string>;
  edges: Map<string, { guard?: { name: string; equals: number } }>;
  prefer: Partial<Record<string, string>>;
}

const edgeKey = (from: string, to: string) => `${from}->${to}`;

/** Whether the table allows from -> to on ctx, read from the table itself (not through the machine). */
function legal(t: Table, from: string, to: string, ctx: TransitionContext): boolean {
  const e = t.edges.get(edgeKey(from, to));
  return e !== undefined && (e.guard === undefined || ctx.pendingInputs === e.guard.equals);
}

const tableArb: fc.Arbitrary<Table> = fc
  .integer({ min: 2, max: 8 })
  .chain((n) =>
    fc.record({
      n: fc.constant(n),
      roles: fc.array(fc.constantFrom(...ROLES), { minLength: n, maxLength: n }),
      edges: fc.array(fc.record({ from: fc.nat(n - 1), to: fc.nat(n - 1), guard: fc.option(fc.nat(2), { nil: undefined }) }), { maxLength: n * 3 }),
      prefer: fc.dictionary(fc.constantFrom(...EVENT_TYPES.filter((e) => e !== "operation" && e !== "goto")), fc.nat(n - 1), { maxKeys: 6 }),
    }),
  )
  .map(({ n, roles, edges, prefer }) => {
    const states = Array.from({ length: n }, (_, i) => `s${i}`);
    // The initial state is never terminal.
    if (TERMINAL_ROLES.has(roles[0]!)) roles[0] = "running";
    const roleOf = Object.fromEntries(states.map((s, i) => [s, roles[i]!]));
    const terminal = new Set(states.filter((s) => TERMINAL_ROLES.has(roleOf[s]!)));
    const table: Table = { states, roleOf, terminal, edges: new Map(), prefer: {} };
    for (const e of edges) {
      const from = states[e.from]!;
      const to = states[e.to]!;
      if (terminal.has(from) || from === to) continue;
      table.edges.set(edgeKey(from, to), e.guard === undefined ? {} : { guard: { name: `exactly${e.guard}`, equals: e.guard } });
    }
    for (const [k, v] of Object.entries(prefer)) table.prefer[k] = states[v]!;
    return table;
  });

function machineFor(t: Table): TaskMachine {
  const roleList = (s: string | undefined): StateRole[] => (s === undefined ? [] : [t.roleOf[s]!]);
  // The table as generated: each state's edges in the order the spec declared them (here, as drawn), and the guard names.
  const table: Record<string, string[]> = Object.fromEntries(t.states.map((s) => [s, []]));
  const guards: Record<string, string> = {};
  for (const [key, e] of t.edges) {
    const [from, to] = key.split("->") as [string, string];
    table[from]!.push(to);
    if (e.guard !== undefined) guards[key] = e.guard.name;
  }
  return {
    states: t.states,
    initial: t.states[0]!,
    roleOf: t.roleOf,
    table,
    guards,
    canTransition: (f, to, ctx) => legal(t, f, to, ctx ?? {}),
    isTerminal: (s) => t.terminal.has(s),
    declared: t.prefer,
    roles: {
      start: ["running"],
      finish: ["completed"],
      toolError: roleList(t.prefer.toolError),
      fail: roleList(t.prefer.fail),
      throw: roleList(t.prefer.throw),
      ask: ["input_required"],
      answer: ["running"],
      cancel: ["cancelled"],
      expire: [],
      restart: [...new Set([...roleList(t.prefer.restart), "failed", "cancelled"] as StateRole[])],
    },
    retention: { fromTerminal: false, expiryEvent: t.prefer.expire !== undefined },
    statusMessage: true,
    internalCode: -32603,
    cancelRefusedCode: -32602,
  };
}

const eventArb = (t: Table): fc.Arbitrary<TaskEvent> =>
  fc.oneof(
    fc.constantFrom<TaskEvent>(
      { type: "start" },
      { type: "finish" },
      { type: "finish", toolError: true },
      { type: "fail" },
      { type: "throw" },
      { type: "ask" },
      { type: "answer" },
      { type: "cancel" },
      { type: "expire" },
      { type: "restart" },
    ),
    fc.constantFrom(...t.states).map((to): TaskEvent => ({ type: "operation", method: "tasks/move", to })),
    fc.constantFrom(...t.states).map((to): TaskEvent => ({ type: "goto", to })),
  );

/** Checks one decision against the table; returns the task after it. */
function check(t: Table, m: TaskMachine, rec: TaskSnapshot, event: TaskEvent): TaskSnapshot {
  const d = transition(m, rec, event, { now: 1_000 });
  const ctx: TransitionContext = { pendingInputs: rec.pendingInputs };
  const tried = candidates(m, event, rec.status);
  const explicit = event.type === "operation" || event.type === "goto";
  const firstLegal = tried.find((s) => s !== rec.status && legal(t, rec.status, s, ctx));
  expect(d.from).toBe(rec.status);
  if (d.kind === "move") {
    expect(t.terminal.has(rec.status)).toBe(false);
    expect(d.patch.status).toBe(d.to);
    if (d.forced) {
      // Only a restart with no legal ending applies its declared state anyway.
      expect(event.type).toBe("restart");
      expect(firstLegal).toBeUndefined();
      expect(d.to).toBe(tried[0]);
      expect(t.terminal.has(d.to)).toBe(true);
    } else {
      // An edge of the table whose guard holds, and the first such among the event's states.
      expect(legal(t, rec.status, d.to, ctx)).toBe(true);
      expect(d.to).toBe(firstLegal);
    }
    if (t.terminal.has(d.to)) {
      expect(d.notices).toContain("ended");
      expect(d.patch.terminalAt).toBe(1_000);
    }
    return { ...rec, status: d.to, pendingInputs: d.patch.pendingInputs ?? rec.pendingInputs };
  }
  if (d.kind === "stay") {
    expect(explicit || event.type === "restart").toBe(false);
    expect(tried).toContain(rec.status);
    return rec;
  }
  // Refused: no legal edge to any state the event leads to (or the task already ended).
  expect(t.terminal.has(rec.status) || firstLegal === undefined).toBe(true);
  if (event.type === "restart") expect(t.terminal.has(rec.status) || tried.length === 0).toBe(true);
  expect(d.error).toBeInstanceOf(TaskProtocolError);
  if (event.type === "cancel") expect(d.error.code).toBe(-32602);
  if (d.guard !== undefined) expect(tried.some((s) => t.edges.get(edgeKey(rec.status, s))?.guard?.name === d.guard)).toBe(true);
  return rec;
}

describe("the table interpreter", () => {
  it("every move is an edge of the table whose guard holds (the first among the event's states); otherwise a refusal with its error", () => {
    fc.assert(
      fc.property(
        tableArb.chain((t) => fc.tuple(fc.constant(t), fc.array(fc.tuple(eventArb(t), fc.nat(2)), { minLength: 1, maxLength: 25 }))),
        ([t, events]) => {
          const m = machineFor(t);
          let rec: TaskSnapshot = { status: t.states[0]!, pendingInputs: 0, keepAlive: null, createdAt: 0, expiresAt: null };
          for (const [event, pending] of events) rec = check(t, m, { ...rec, pendingInputs: pending }, event);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("where several states share the event's role, it picks the one the table allows from the current state", () => {
    // s0 (queued, initial) -> s2 only; s1 and s2 are both running, s1 declared first.
    const t: Table = {
      states: ["s0", "s1", "s2", "s3"],
      roleOf: { s0: "queued", s1: "running", s2: "running", s3: "completed" },
      terminal: new Set(["s3"]),
      edges: new Map([[edgeKey("s0", "s2"), {}], [edgeKey("s1", "s3"), {}], [edgeKey("s2", "s3"), {}], [edgeKey("s2", "s1"), {}]]),
      prefer: { start: "s1" },
    };
    const d = transition(machineFor(t), { status: "s0", pendingInputs: 0, keepAlive: null, createdAt: 0, expiresAt: null }, { type: "start" }, { now: 0 });
    expect(d).toMatchObject({ kind: "move", from: "s0", to: "s2" });
  });

  it("where the table allows several states of the event's role, the table's order of edges decides, not the order the states are declared in", () => {
    // a and b are both completed, a declared first; the table lists w -> b before w -> a.
    const t: Table = {
      states: ["w", "a", "b"],
      roleOf: { w: "running", a: "completed", b: "completed" },
      terminal: new Set(["a", "b"]),
      edges: new Map([[edgeKey("w", "b"), {}], [edgeKey("w", "a"), {}]]),
      prefer: {},
    };
    const live: TaskSnapshot = { status: "w", pendingInputs: 0, keepAlive: null, createdAt: 0, expiresAt: null };
    expect(transition(machineFor(t), live, { type: "finish" }, { now: 7 })).toMatchObject({ kind: "move", to: "b", patch: { updatedAt: 7, terminalAt: 7 } });
    // A state the behaviour names for the event comes first, wherever the table lists it.
    expect(transition(machineFor({ ...t, prefer: { cancel: "a" }, roleOf: { ...t.roleOf, a: "cancelled", b: "cancelled" } }), live, { type: "cancel" }, { now: 7 })).toMatchObject({ kind: "move", to: "a" });
  });

  it("a task its outcomes fail on a tool error says why in its status message, where it has one", () => {
    const t: Table = {
      states: ["w", "c", "b"],
      roleOf: { w: "running", c: "completed", b: "failed" },
      terminal: new Set(["c", "b"]),
      edges: new Map([[edgeKey("w", "c"), {}], [edgeKey("w", "b"), {}]]),
      prefer: { toolError: "b" },
    };
    const live: TaskSnapshot = { status: "w", pendingInputs: 0, keepAlive: null, createdAt: 0, expiresAt: null };
    const failure = { code: -32603, message: "Tool execution failed: no route" };
    const ended = transition(machineFor(t), live, { type: "finish", toolError: true }, { now: 3, failure });
    expect(ended).toMatchObject({ kind: "move", to: "b", patch: { error: failure, statusMessage: failure.message } });
    // Without a status message field, the error alone.
    const quiet = transition({ ...machineFor(t), statusMessage: false }, live, { type: "finish", toolError: true }, { now: 3, failure });
    expect(quiet.kind === "move" && quiet.patch).toMatchObject({ error: failure });
    expect(quiet.kind === "move" && quiet.patch.statusMessage).toBeUndefined();
    // A tool error the outcomes complete on carries no failure.
    const completed = transition(machineFor({ ...t, prefer: { toolError: "c" } }), live, { type: "finish", toolError: true }, { now: 3, failure });
    expect(completed.kind === "move" && completed.to).toBe("c");
    expect(completed.kind === "move" && completed.patch.statusMessage).toBeUndefined();
  });

  it("a cancel the table forbids is refused with an error, and an ended task refuses every event", () => {
    const t: Table = {
      states: ["w", "c", "x"],
      roleOf: { w: "running", c: "completed", x: "cancelled" },
      terminal: new Set(["c", "x"]),
      edges: new Map([[edgeKey("w", "c"), {}], [edgeKey("w", "x"), { guard: { name: "asked", equals: 1 } }]]),
      prefer: {},
    };
    const m = machineFor(t);
    const live: TaskSnapshot = { status: "w", pendingInputs: 0, keepAlive: null, createdAt: 0, expiresAt: null };
    const refused = transition(m, live, { type: "cancel" }, { now: 0 });
    expect(refused).toMatchObject({ kind: "refused", guard: "asked" });
    expect(refused.kind === "refused" && refused.error.message).toMatch(/Cannot cancel task.*'w'.*'x'.*guard asked/);
    expect(transition(m, { ...live, pendingInputs: 1 }, { type: "cancel" }, { now: 0 })).toMatchObject({ kind: "move", to: "x" });
    for (const type of ["start", "finish", "cancel", "restart"] as const) {
      expect(transition(m, { ...live, status: "c" }, { type }, { now: 0 }).kind).toBe("refused");
    }
  });

  it.each(BUILTIN)("%s: code generated before descriptors carried the table gets the same edges and guard names, read from the generated check", async (spec) => {
    const d = await descriptorOf(spec);
    const { table, guards, ...check } = d.machine;
    const read = transitionTable({ ...d, machine: check });
    const sorted = (t: Readonly<Record<string, readonly string[]>>) => Object.fromEntries(Object.entries(t).map(([k, v]) => [k, [...v].sort()]));
    expect(sorted(read.table)).toEqual(sorted(table!));
    expect(read.guards).toEqual(guards);
    expect(Object.keys(guards!).length).toBeGreaterThan(0);
  });

  it.each(BUILTIN)("over the generated table of %s: every move is a declared edge whose guard holds", async (spec) => {
    const d = await descriptorOf(spec);
    const plan = makePlan(d);
    const m = machineOf(plan);
    const ir = irOf(spec);
    const guards = new Map(ir.guards.map((g) => [g.name, g]));
    const edge = (from: string, to: string) => ir.transitions.find((x) => x.from === from && x.to === to);
    const events: fc.Arbitrary<TaskEvent> = fc.oneof(
      fc.constantFrom<TaskEvent>({ type: "start" }, { type: "finish" }, { type: "finish", toolError: true }, { type: "fail" }, { type: "throw" }, { type: "ask" }, { type: "answer" }, { type: "cancel" }, { type: "expire" }, { type: "restart" }),
      fc.constantFrom(...d.states.all).map((to): TaskEvent => ({ type: "goto", to })),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(events, fc.nat(2)), { minLength: 1, maxLength: 20 }), (seq) => {
        let rec: TaskSnapshot = { status: d.states.initial, pendingInputs: 0, keepAlive: 60_000, createdAt: 0, expiresAt: null };
        for (const [event, pending] of seq) {
          rec = { ...rec, pendingInputs: pending };
          const decision = transition(m, rec, event, { now: 5 });
          if (decision.kind !== "move") continue;
          if (decision.forced) {
            expect(event.type).toBe("restart");
            continue;
          }
          const e = edge(rec.status, decision.to);
          expect(e, `${rec.status} -> ${decision.to}`).toBeDefined();
          if (e?.guard !== undefined) {
            // The built-in guards read pendingInputs (the only value the runtime gives every guard).
            const g = guards.get(e.guard)!;
            expect(g.field).toBe("pendingInputs");
            const v = g.value as number;
            const holds = g.op === "equals" ? pending === v : g.op === "notEquals" ? pending !== v : g.op === "atLeast" ? pending >= v : pending <= v;
            expect(holds, `guard ${g.name} on ${rec.status} -> ${decision.to} with ${pending} pending`).toBe(true);
          }
          rec = { ...rec, status: decision.to };
        }
      }),
      { numRuns: RUNS },
    );
  });
});
