/**
 * Property tests over the generated code of every built-in spec:
 * - the fast guards accept exactly what the zod schemas accept, on random inputs
 *   shaped by the spec's own types (mostly valid, with garbage at random depths);
 * - random walks of the generated transition table never leave a terminal
 *   state and match the spec's transitions and guards;
 * - the spec's own examples are accepted by the generated validators;
 * - the server's shortcuts agree with what they stand in for: its remembered ISO
 *   dates with Date's, its stdio transport's check of requests with the SDK's schema.
 */
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { JSONRPCMessageSchema, RELATED_TASK_META_KEY } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { IR, IRType } from "../generator/ir.js";
import { builtinSpecs } from "../generator/specs.js";
import { irOf } from "./helpers/conform.js";

const root = join(import.meta.dirname, "..");
const RUNS = Number(process.env.PROPERTY_RUNS ?? 400);

type Mod = Record<string, any>;

/** Values shaped like `t`: valid most of the time, with garbage at random depths. */
function arbitraryOf(ir: IR, t: IRType, depth = 0): fc.Arbitrary<unknown> {
  const garbage = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(undefined, NaN, Infinity, -0, 1.5, "", [], {}, null, true),
  );
  const valid = validOf(ir, t, depth);
  return fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: garbage });
}

function validOf(ir: IR, t: IRType, depth: number): fc.Arbitrary<unknown> {
  const base = baseOf(ir, t, depth);
  return t.nullable ? fc.oneof(fc.constant(null), base) : base;
}

function baseOf(ir: IR, t: IRType, depth: number): fc.Arbitrary<unknown> {
  const deeper = (x: IRType) => arbitraryOf(ir, x, depth + 1);
  switch (t.kind) {
    case "string": {
      if (t.format === "date-time") {
        return fc.oneof(
          fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString()),
          fc.constantFrom("2025-11-25T10:30:00+01:00", "2025-11-25 10:30:00", "2025-11-25T10:30:00", "yesterday"),
        );
      }
      if (t.format === "uuid") return fc.oneof(fc.uuid(), fc.string());
      if (t.format === "uri") return fc.oneof(fc.webUrl(), fc.string());
      if (t.pattern !== undefined) return fc.oneof(fc.stringMatching(new RegExp(`^(?:${t.pattern})$`, "u")), fc.string());
      return fc.string({ minLength: 0, maxLength: Math.max(0, (t.maxLength ?? 8) + 1) });
    }
    case "integer":
      return fc.oneof(
        fc.integer({ min: (t.minimum ?? -1000) - 1, max: (t.maximum ?? 1_000_000) + 1 }),
        fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, 0.5, NaN, Infinity, -0),
      );
    case "number":
      return fc.oneof(fc.double(), fc.integer(), fc.constantFrom(NaN, Infinity, -Infinity, 0.5, -0));
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "unknown":
      return fc.jsonValue({ maxDepth: 2 });
    case "literal":
      return fc.constant(t.value);
    case "enum":
      return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...t.values) }, { weight: 1, arbitrary: fc.string({ maxLength: 3 }) });
    case "ref": {
      const decl = ir.types.find((d) => d.name === t.name);
      if (!decl || depth > 4) return fc.jsonValue({ maxDepth: 1 });
      return validOf(ir, decl.type, depth + 1);
    }
    case "array":
      return fc.array(deeper(t.items), { minLength: 0, maxLength: Math.min(3, t.maxItems ?? 3) });
    case "record":
      return fc.dictionary(fc.string({ maxLength: 4 }), deeper(t.values), { maxKeys: 3 });
    case "union":
      return fc.oneof(...t.variants.map((v) => validOf(ir, v, depth + 1)));
    case "object": {
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      const required: string[] = [];
      for (const f of t.fields) {
        model[f.name] = deeper(f.type);
        if (!f.optional) required.push(f.name);
      }
      const obj = fc.record(model, { requiredKeys: required });
      const extra = fc.dictionary(fc.constantFrom("extra", "x-y", "_meta2"), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 1 });
      return fc.tuple(obj, extra, fc.boolean()).map(([o, e, withExtra]) => (withExtra ? { ...e, ...(o as object) } : o));
    }
  }
}

/** A regular expression matching the messages an error's template produces, one group per placeholder. */
function templateRegExp(e: IR["errors"][number]): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${e.segments.map((s) => ("text" in s ? escape(s.text) : "(.+)")).join("")}$`);
}

for (const spec of builtinSpecs()) {
  describe(spec, () => {
    const ir = irOf(spec);
    let validators: Mod;
    let guards: Mod;
    let transitions: Mod;
    let types: Mod;
    let server: Mod;
    beforeAll(async () => {
      const dir = join(root, "output-samples", spec);
      validators = await import(join(dir, "validators.ts"));
      guards = await import(join(dir, "guards.ts"));
      transitions = await import(join(dir, "transitions.ts"));
      types = await import(join(dir, "errors.ts"));
      server = await import(join(dir, "server.ts"));
    });

    it("every fast guard accepts exactly what its zod schema accepts", () => {
      for (const decl of ir.types) {
        const schema = validators[`${decl.name}Schema`];
        const guard = guards[`is${decl.name}`];
        expect(schema, decl.name).toBeDefined();
        expect(guard, decl.name).toBeDefined();
        fc.assert(
          fc.property(arbitraryOf(ir, decl.type), (v) => {
            const z = schema.safeParse(v).success;
            const g = guard(v);
            if (z !== g) throw new Error(`${decl.name}: zod says ${z}, guard says ${g} for ${JSON.stringify(v)}`);
          }),
          { numRuns: RUNS },
        );
      }
    });

    it("guards and zod both accept some and reject some inputs of every type (the property is not vacuous)", () => {
      for (const decl of ir.types) {
        const guard = guards[`is${decl.name}`];
        const samples = fc.sample(arbitraryOf(ir, decl.type), { numRuns: 300, seed: 42 });
        const accepted = samples.filter((v) => guard(v)).length;
        expect(accepted, `${decl.name} accepts nothing`).toBeGreaterThan(0);
        if (decl.type.kind !== "unknown") expect(accepted, `${decl.name} rejects nothing`).toBeLessThan(samples.length);
      }
    });

    it("the method dispatch of guards agrees with the method dispatch of validators", () => {
      for (const m of ir.methods) {
        const table = m.kind === "request" ? "request" : "notification";
        const v = validators[`${table}Validators`][m.method];
        const g = guards[`${table}Guards`][m.method];
        const paramsType: IRType = m.params ?? { kind: "unknown", nullable: false };
        fc.assert(
          fc.property(arbitraryOf(ir, paramsType), (p) => {
            expect(g.params(p)).toBe(v.params.safeParse(p).success);
          }),
          { numRuns: 50 },
        );
        if (m.kind === "request" && m.result) {
          fc.assert(
            fc.property(arbitraryOf(ir, m.result), (r) => {
              expect(g.result(r)).toBe(v.result.safeParse(r).success);
            }),
            { numRuns: 50 },
          );
        }
      }
    });

    it("random walks of the transition table never leave a terminal state and match the spec", () => {
      const states = ir.states.map((s) => s.name);
      const edges = new Map(ir.transitions.map((t) => [`${t.from}->${t.to}`, t]));
      const guardHolds = (name: string, ctx: Record<string, unknown>) => {
        const g = ir.guards.find((x) => x.name === name)!;
        const v = ctx[g.field];
        switch (g.op) {
          case "equals":
            return v === g.value;
          case "notEquals":
            return v !== undefined && v !== g.value;
          case "atLeast":
            return v !== undefined && (v as number) >= (g.value as number);
          case "atMost":
            return v !== undefined && (v as number) <= (g.value as number);
        }
      };
      const ctxArb = fc.option(
        fc.record(Object.fromEntries(ir.guards.map((g) => [g.field, fc.integer({ min: 0, max: 2 })])), { requiredKeys: [] }),
        { nil: undefined },
      );
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.constantFrom(...states), ctxArb), { maxLength: 30 }), (steps) => {
          let current: string = transitions.INITIAL_STATE;
          for (const [to, ctx] of steps) {
            const edge = edges.get(`${current}->${to}`);
            const expected = edge !== undefined && (edge.guard === undefined || (ctx !== undefined && guardHolds(edge.guard, ctx)));
            const allowed = transitions.canTransition(current, to, ctx);
            expect(allowed).toBe(expected);
            if (transitions.isTerminal(current)) expect(allowed).toBe(false);
            if (allowed) {
              expect(() => transitions.assertTransition(current, to, ctx)).not.toThrow();
              current = to;
            } else {
              let thrown: any;
              try {
                transitions.assertTransition(current, to, ctx);
              } catch (e) {
                thrown = e;
              }
              expect(thrown).toBeInstanceOf(transitions.IllegalTransitionError);
              expect(thrown.from).toBe(current);
              expect(thrown.to).toBe(to);
              expect(thrown.message).toContain(`${current} -> ${to}`);
            }
          }
        }),
        { numRuns: RUNS },
      );
    });

    it("the generated table is the spec's: same states, initial, terminals and edges", () => {
      expect([...transitions.STATES]).toEqual(ir.states.map((s) => s.name));
      expect(transitions.INITIAL_STATE).toBe(ir.initialState);
      expect([...transitions.TERMINAL_STATES]).toEqual([...ir.terminalStates]);
      for (const s of ir.states) {
        expect([...transitions.TRANSITIONS[s.name]]).toEqual(ir.transitions.filter((t) => t.from === s.name).map((t) => t.to));
        expect(transitions.isTerminal(s.name)).toBe(s.terminal);
      }
      expect(transitions.isStatus("constructor")).toBe(false);
      expect(transitions.canTransition("constructor", "working")).toBe(false);
    });

    it("the server's ISO dates are Date's", () => {
      // It remembers what it formatted: each time comes twice, the second time from memory.
      const time = fc.oneof(fc.integer({ min: 0, max: 253_402_300_799_999 }), fc.constantFrom(-1, -0, 0.5, 1e15 + 0.25, -62_198_755_200_000));
      fc.assert(
        fc.property(fc.array(time, { minLength: 1, maxLength: 12 }), (times) => {
          for (const ms of [...times, ...times]) expect(server.isoTime(ms)).toBe(new Date(ms).toISOString());
        }),
        { numRuns: RUNS },
      );
    });

    it("the stdio transport delivers what the SDK's JSONRPCMessageSchema accepts, as it returns it, and nothing else", async () => {
      // Messages the schema accepts, half of them with one part made wrong: a shortcut that lets a
      // wrong part through, or delivers other than what the schema returns, is caught.
      const small = fc.oneof(fc.integer(), fc.string({ maxLength: 3 }));
      const valid = fc.record(
        {
          jsonrpc: fc.constant("2.0"),
          id: small,
          method: fc.constantFrom("tasks/get", "notifications/cancelled"),
          params: fc.record(
            {
              taskId: fc.string({ maxLength: 3 }),
              _meta: fc.record(
                { progressToken: small, [RELATED_TASK_META_KEY]: fc.record({ taskId: fc.string({ maxLength: 3 }) }), other: fc.jsonValue({ maxDepth: 2 }) },
                { requiredKeys: [] },
              ),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: ["jsonrpc", "method"] },
      );
      type Message = Record<string, any>;
      const params = (m: Message) => (m.params ??= {});
      const meta = (m: Message) => (params(m)._meta ??= {});
      const spots: Array<(m: Message, v: unknown) => void> = [
        (m, v) => void (m.jsonrpc = v),
        (m, v) => void (m.id = v),
        (m, v) => void (m.method = v),
        (m, v) => void (m.params = v),
        (m, v) => void (m.result = v),
        (m, v) => void (params(m)._meta = v),
        (m, v) => void (meta(m).progressToken = v),
        (m, v) => void (meta(m)[RELATED_TASK_META_KEY] = v),
      ];
      const wrong = fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom("1.0", "", 1.5, -2.5, 2 ** 60, null, true, [], {}, { taskId: "t", extra: 1 }) },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
      );
      const message = fc.tuple(valid, fc.option(fc.tuple(fc.nat(spots.length - 1), wrong), { freq: 2 })).map(([m, change]) => {
        const copy: Message = structuredClone(m);
        if (change) spots[change[0]]!(copy, change[1]);
        return copy;
      });
      const stdin = new PassThrough();
      const stdout = new PassThrough();
      const transport = new server.TaskStdioServerTransport(stdin, stdout);
      const delivered: unknown[] = [];
      transport.onmessage = (m: unknown) => delivered.push(m);
      transport.onerror = () => delivered.push("error");
      await transport.start();
      const settled = () => new Promise((resolve) => setImmediate(resolve));
      await fc.assert(
        fc.asyncProperty(message, async (m) => {
          delivered.length = 0;
          stdout.read();
          const line = JSON.stringify(m);
          stdin.write(line + "\n");
          await settled();
          const parsed = JSONRPCMessageSchema.safeParse(JSON.parse(line));
          if (parsed.success) expect(delivered).toEqual([parsed.data]);
          else expect(delivered.length === 1 ? delivered[0] === "error" : String(stdout.read()).includes('"code":-32600')).toBe(true);
        }),
        // Each wrong part is one of many: more runs, so that each is tried often.
        { numRuns: RUNS * 2 },
      );
      await transport.close();
    });

    it("the generated validators accept every example of the spec", () => {
      const examples = ir.examples;
      for (const ex of examples) {
        const msg = ex.message as Record<string, any>;
        // A failure names the example as the spec does: its name, where it was copied from, what it shows.
        const label = `${spec} example '${ex.name}'${ex.source === undefined ? "" : ` from ${ex.source}`}${ex.description === undefined ? "" : ` (${ex.description})`}`;
        switch (ex.kind) {
          case "request": {
            const m = ir.methods.find((x) => x.method === ex.method)!;
            const envelope = validators[`${m.messageName}Schema`].safeParse(msg);
            expect(envelope.success, `${label}: ${envelope.error?.message}`).toBe(true);
            expect(guards.requestGuards[ex.method!].params(msg.params), label).toBe(true);
            break;
          }
          case "notification": {
            const m = ir.methods.find((x) => x.method === ex.method)!;
            const envelope = validators[`${m.messageName}Schema`].safeParse(msg);
            expect(envelope.success, `${label}: ${envelope.error?.message}`).toBe(true);
            expect(guards.notificationGuards[ex.method!].params(msg.params), label).toBe(true);
            break;
          }
          case "result": {
            const r = validators.requestValidators[ex.method!].result.safeParse(msg.result);
            expect(r.success, `${label}: ${r.error?.message}`).toBe(true);
            expect(guards.requestGuards[ex.method!].result(msg.result), label).toBe(true);
            break;
          }
          case "error": {
            const err = msg.error as { code: number; message: string };
            const match = ir.errors.find(
              (e) =>
                e.code === err.code &&
                templateRegExp(e).test(err.message),
            );
            expect(match, `${label}: no declared error has code ${err.code} and message "${err.message}"`).toBeDefined();
            // The catalog builds exactly that message from the example's own values.
            const ctx: Record<string, string> = {};
            const re = templateRegExp(match!);
            const values = re.exec(err.message)!.slice(1);
            match!.segments.filter((s) => "param" in s).forEach((s, i) => (ctx[(s as { param: string }).param] = values[i]));
            expect(types.taskErrors[match!.name](ctx).toJSON()).toMatchObject({ code: err.code, message: err.message });
            break;
          }
          case "meta":
          case "type": {
            const r = validators[`${ex.type}Schema`].safeParse(msg);
            expect(r.success, `${label}: ${r.error?.message}`).toBe(true);
            expect(guards[`is${ex.type}`](msg), label).toBe(true);
            break;
          }
        }
      }
      if (spec === "sep-1686-draft") {
        // The seed's sections 3 and 7 hold 15 JSON examples; all are in the spec.
        expect(examples.length).toBeGreaterThanOrEqual(15);
      }
    });
  });
}
