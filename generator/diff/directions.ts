/**
 * Directions: who produces what, from one IR (the methods, the meta keys, the
 * types and errors they use, and the task roles), and how a rule's producer and
 * consumer impacts become a client and a server impact.
 */
import { collectRefs, type IR, type IRMethod, type IRType } from "../ir.js";
import { parseShorthand } from "../spec-helpers.js";
import type { Direction } from "./model.js";
import { B, C, RULES, type Impact, type Roles, type Rule, type RuleId } from "./rules.js";

export type Dir = "c2s" | "s2c";
export type Dirs = ReadonlySet<Dir>;
export const BOTH: Dirs = new Set<Dir>(["c2s", "s2c"]);
export const flip = (d: Iterable<Dir>): Set<Dir> => new Set([...d].map((x) => (x === "c2s" ? "s2c" : "c2s")));
export const union = (...ds: (Iterable<Dir> | undefined)[]): Set<Dir> => new Set(ds.flatMap((d) => (d ? [...d] : [])));
export const senders = (from: IRMethod["from"]): Set<Dir> => new Set<Dir>(from === "client" ? ["c2s"] : from === "server" ? ["s2c"] : ["c2s", "s2c"]);

export interface Usage {
  /** Declared type → directions its values travel in (sender → reader). */
  types: Map<string, Set<Dir>>;
  /** Error → directions it is answered in (answerer → receiver). */
  errors: Map<string, Set<Dir>>;
  /** Meta entry → directions it travels in. */
  meta: Map<string, Set<Dir>>;
  /** Task receiver → requestor. */
  task: Set<Dir>;
}

/** The type named by a behaviour's raw type expression (a shorthand or a ref), if any. */
function typeExprName(t: unknown): string | undefined {
  if (typeof t === "string") return parseShorthand(t)?.base;
  if (t && typeof t === "object" && (t as { type?: unknown }).type === "ref") return (t as { ref: string }).ref;
  return undefined;
}

export function usage(ir: IR): Usage {
  const types = new Map<string, Set<Dir>>();
  const errors = new Map<string, Set<Dir>>();
  const meta = new Map<string, Set<Dir>>();
  const add = (m: Map<string, Set<Dir>>, k: string | undefined, d: Iterable<Dir>) => {
    if (k === undefined) return;
    const s = m.get(k) ?? new Set<Dir>();
    for (const x of d) s.add(x);
    m.set(k, s);
  };
  const addType = (t: IRType | undefined, d: Iterable<Dir>) => {
    if (!t) return;
    const refs = new Set<string>();
    collectRefs(t, refs);
    for (const r of refs) add(types, r, d);
  };
  const b = ir.behaviour;
  const cr = b.creation;
  // The requestor sends the task-augmented request: servers receive them when requests.server is non-empty.
  const request = new Set<Dir>([...(cr.requests.server.length ? (["c2s"] as const) : []), ...(cr.requests.client.length ? (["s2c"] as const) : [])]);
  const task = flip(request);
  let requests = new Set<Dir>(request);
  let notifications = new Set<Dir>();
  for (const m of ir.methods) {
    const d = senders(m.from);
    addType(m.params, d);
    addType(m.result, flip(d));
    for (const e of m.errors) add(errors, e, flip(d));
    if (m.kind === "request") requests = union(requests, d);
    else notifications = union(notifications, d);
  }
  for (const me of ir.meta) {
    const d = union(...me.on.map((on) => (on === "request" ? requests : on === "result" ? flip(requests) : notifications)));
    add(meta, me.name, d);
    addType(me.type, d);
  }
  add(types, typeExprName(cr.paramType), request);
  add(types, typeExprName(cr.ack.resultType), flip(request));
  if (b.capabilities.server) add(types, typeExprName(b.capabilities.server.type), ["s2c"]);
  if (b.capabilities.client) add(types, typeExprName(b.capabilities.client.type), ["c2s"]);
  for (const e of [cr.requiredTaskError, cr.taskId.duplicateError, cr.toolSwitch ? cr.toolSwitch.forbiddenError : undefined, cr.toolSwitch ? cr.toolSwitch.requiredError : undefined]) {
    add(errors, e, flip(request));
  }
  if (b.unsupportedMethods) add(errors, b.unsupportedMethods.error, flip(requests));
  for (const e of ir.errors) addType(e.data, errors.get(e.name) ?? BOTH);
  // Follow references until nothing changes.
  const decls = new Map(ir.types.map((t) => [t.name, t]));
  let changed = true;
  while (changed) {
    changed = false;
    for (const [name, d] of [...types]) {
      const decl = decls.get(name);
      if (!decl) continue;
      const refs = new Set<string>();
      collectRefs(decl.type, refs);
      for (const r of refs) {
        const before = types.get(r)?.size ?? 0;
        add(types, r, d);
        if (types.get(r)!.size !== before) changed = true;
      }
    }
  }
  return { types, errors, meta, task };
}

export const DIRECTION_NAMES: Record<Dir, Direction> = { c2s: "client-to-server", s2c: "server-to-client" };

/** A rule's producer and consumer impacts as client and server impacts: the worst over the directions (both when none is known). */
export function sidesOf(rule: RuleId, dirs: Dirs, override?: { producer: Impact; consumer: Impact }) {
  const r = RULES[rule] as Rule;
  const producer = override?.producer ?? (r.producer === "computed" ? B : r.producer);
  const consumer = override?.consumer ?? (r.consumer === "computed" ? B : r.consumer);
  const d = dirs.size ? dirs : BOTH;
  const worst = (xs: Impact[]): Impact => (xs.includes(B) ? B : C);
  const client = worst([...(d.has("c2s") ? [producer] : []), ...(d.has("s2c") ? [consumer] : [])]);
  const server = worst([...(d.has("c2s") ? [consumer] : []), ...(d.has("s2c") ? [producer] : [])]);
  return { client, server };
}

/** Who the producer and consumer are, in words, for hints. */
export function who(roles: Roles, dirs: Dirs): { P: string; C: string } {
  const d = dirs.size ? dirs : BOTH;
  if (d.size === 1) return d.has("c2s") ? { P: "clients", C: "servers" } : { P: "servers", C: "clients" };
  return {
    data: { P: "senders", C: "readers" },
    call: { P: "callers", C: "handlers" },
    error: { P: "handlers", C: "callers" },
    task: { P: "task receivers", C: "requestors" },
  }[roles];
}
