/**
 * Pure helpers over a parsed spec, shared by the checker, the lowering to the IR
 * and the diff: they read the spec and import nothing of those stages.
 */
import type { Spec, TypeExpr } from "./format.js";
import { PRIMITIVES, SHORTHAND_RE } from "./format-words.js";

export interface ShorthandParts {
  base: string;
  arrayDepth: number;
  optional: boolean;
}

export function parseShorthand(s: string): ShorthandParts | undefined {
  const m = SHORTHAND_RE.exec(s);
  if (!m) return undefined;
  return { base: m[1], arrayDepth: m[2].length / 2, optional: m[3] === "?" };
}

export function methodStem(method: string): string {
  return method
    .split(/[/_]/)
    .filter(Boolean)
    .map((s) => s[0].toUpperCase() + s.slice(1))
    .join("");
}

/** The TypeScript names a method generates (the checker looks for collisions among them). */
export function methodNames(method: string, m: Spec["methods"][string]) {
  const name = m.name ?? methodStem(method);
  const named = (t: TypeExpr | undefined, suffix: string): string | undefined => {
    if (t === undefined) return undefined;
    if (typeof t === "string") {
      const p = parseShorthand(t);
      if (p && p.arrayDepth === 0 && /^[A-Z]/.test(p.base)) return p.base;
    } else if (t.type === "ref" && !t.nullable) return t.ref;
    return name + suffix;
  };
  return {
    name,
    paramsName: named(m.params, "Params"),
    resultName: named(m.result, "Result"),
    messageName: name + (m.kind === "request" ? "Request" : "Notification"),
  };
}

/** Follow shorthand/ref names to the declared type expression (one level of naming at a time). */
export function resolveShallow(spec: Spec, t: TypeExpr, seen = new Set<string>()): TypeExpr | undefined {
  let name: string | undefined;
  if (typeof t === "string") {
    const p = parseShorthand(t);
    if (!p || p.arrayDepth > 0) return t;
    name = p.base;
    if ((PRIMITIVES as readonly string[]).includes(name)) return t;
  } else if (t.type === "ref") name = t.ref;
  else return t;
  if (seen.has(name)) return undefined;
  seen.add(name);
  if (name === (spec.statusType ?? "TaskStatus")) return { type: "enum", values: Object.keys(spec.states) };
  const decl = spec.types[name];
  return decl === undefined ? undefined : resolveShallow(spec, decl, seen);
}

/** A name that reads as a declared type's (types start with a capital letter). */
export const TYPE_NAME_LIKE = /^[A-Z]/;

/** The fields of an object type (with inherited ones), or undefined if it is not an object. */
export function fieldsOf(
  spec: Spec,
  t: TypeExpr | string,
  seen = new Set<string>(),
  allowUnion = false,
  unions = new Set<TypeExpr>(),
): Record<string, TypeExpr> | undefined {
  const r = typeof t === "string" && TYPE_NAME_LIKE.test(t) && spec.types[t] ? resolveShallow(spec, t) : resolveShallow(spec, t as TypeExpr);
  if (r && typeof r !== "string" && r.type === "union" && allowUnion) {
    // A union among its own variants (refused as MTG065) is no object: it has no fields to merge.
    if (unions.has(r)) return undefined;
    unions.add(r);
    const merged: Record<string, TypeExpr> = {};
    try {
      for (const v of r.variants) {
        const f = fieldsOf(spec, v, seen, true, unions);
        if (f === undefined) return undefined;
        for (const [k, t] of Object.entries(f)) if (!(k in merged)) merged[k] = t;
      }
    } finally {
      unions.delete(r);
    }
    return merged;
  }
  if (!r || typeof r === "string" || r.type !== "object") return undefined;
  const out: Record<string, TypeExpr> = {};
  for (const e of r.extends ?? []) {
    if (seen.has(e)) continue;
    seen.add(e);
    Object.assign(out, fieldsOf(spec, e, seen) ?? {});
  }
  Object.assign(out, r.fields ?? {});
  return out;
}

/** Tarjan's strongly connected components, iteratively (no recursion however long a chain of types). */
export function stronglyConnected(nodes: readonly string[], next: (n: string) => readonly string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let counter = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: [string, number][] = [[root, 0]];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      const [n, i] = top;
      const succ = next(n);
      if (i < succ.length) {
        top[1]++;
        const m = succ[i]!;
        if (!index.has(m)) {
          index.set(m, counter);
          low.set(m, counter++);
          stack.push(m);
          onStack.add(m);
          work.push([m, 0]);
        } else if (onStack.has(m)) low.set(n, Math.min(low.get(n)!, index.get(m)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]![0];
        low.set(parent, Math.min(low.get(parent)!, low.get(n)!));
      }
      if (low.get(n) === index.get(n)) {
        const scc: string[] = [];
        let m: string;
        do {
          m = stack.pop()!;
          onStack.delete(m);
          scc.push(m);
        } while (m !== n);
        out.push(scc);
      }
    }
  }
  return out;
}
