/**
 * Graph walks over the declared types: how deep an expression nests, how long
 * chains of `extends` and of references get, and which types are on a cycle.
 * None of them recurses, however long a chain a spec declares.
 */
import type { Spec, TypeExpr } from "../format.js";
import { parseShorthand, stronglyConnected } from "../spec-helpers.js";
import type { Path } from "./context.js";

/** The deepest type expression generated validators and types can hold (TypeScript stops inferring further). */
export const MAX_TYPE_DEPTH = 32;

/** Where a type expression first gets deeper than MAX_TYPE_DEPTH, and how deep it is, if it does. */
export function tooDeep(root: TypeExpr, rootPath: Path): { path: Path; depth: number } | undefined {
  const children = (t: TypeExpr, path: Path): [TypeExpr, Path][] => {
    if (typeof t === "string") return [];
    switch (t.type) {
      case "array":
        return [[t.items, [...path, "items"]]];
      case "record":
        return [[t.values, [...path, "values"]]];
      case "union":
        return t.variants.map((v, i): [TypeExpr, Path] => [v, [...path, "variants", i]]);
      case "object":
        return Object.entries(t.fields ?? {}).map(([n, f]): [TypeExpr, Path] => [f, [...path, "fields", n]]);
      default:
        return [];
    }
  };
  const memo = new Map<TypeExpr, number>();
  const depthOf = (t: TypeExpr): number => {
    if (typeof t === "string") return 1 + (parseShorthand(t)?.arrayDepth ?? 0);
    let d = memo.get(t);
    if (d === undefined) {
      d = 1 + children(t, []).reduce((max, [c]) => Math.max(max, depthOf(c)), 0);
      memo.set(t, d);
    }
    return d;
  };
  const total = depthOf(root);
  if (total <= MAX_TYPE_DEPTH) return undefined;
  // Follow the deepest branch down to the node below the limit (or the shorthand that crosses it).
  let at: [TypeExpr, Path] = [root, rootPath];
  for (let level = 1; level <= MAX_TYPE_DEPTH; level++) {
    const next = children(at[0], at[1]);
    if (next.length === 0) break;
    at = next.reduce((best, c) => (depthOf(c[0]) > depthOf(best[0]) ? c : best));
  }
  return { path: at[1], depth: total };
}

/** For each object type, the length of its longest chain of `extends` (1 without any). */
export function extendsDepths(spec: Spec): Map<string, number> {
  return longestChains(Object.keys(spec.types), (n) => {
    const t = Object.prototype.hasOwnProperty.call(spec.types, n) ? spec.types[n] : undefined;
    return t && typeof t !== "string" && t.type === "object" ? (t.extends ?? []) : [];
  });
}

/** For each node, the number of nodes on its longest path (1 without successors), without recursion; a cycle ends a path. */
export function longestChains(names: readonly string[], next: (n: string) => readonly string[]): Map<string, number> {
  const depth = new Map<string, number>();
  const open = new Set<string>();
  for (const root of names) {
    if (depth.has(root)) continue;
    const work: [string, number][] = [[root, 0]];
    open.add(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      const ps = next(top[0]);
      if (top[1] < ps.length) {
        const p = ps[top[1]++]!;
        if (!depth.has(p) && !open.has(p)) (open.add(p), work.push([p, 0]));
        continue;
      }
      work.pop();
      open.delete(top[0]);
      depth.set(top[0], 1 + ps.reduce((max, p) => Math.max(max, depth.get(p) ?? 0), 0));
    }
  }
  return depth;
}

/** The references a type is made of directly: named types it is, or is a union of (no object, list or record in between). */
export function directRefs(spec: Spec, t: TypeExpr, acc: string[] = []): string[] {
  if (typeof t === "string") {
    const p = parseShorthand(t);
    if (p && p.arrayDepth === 0 && Object.prototype.hasOwnProperty.call(spec.types, p.base)) acc.push(p.base);
  } else if (t.type === "ref") {
    if (Object.prototype.hasOwnProperty.call(spec.types, t.ref)) acc.push(t.ref);
  } else if (t.type === "union") {
    for (const v of t.variants) directRefs(spec, v, acc);
  }
  return acc;
}

/**
 * Declared types that are their own definition: a cycle through references and
 * union variants only (with no object, list or record on the way), each with
 * the cycle it is on. Found with Tarjan's algorithm, without recursion.
 */
export function selfDefined(spec: Spec): [string, string[]][] {
  return cyclesOf(Object.keys(spec.types), (n) => [...new Set(directRefs(spec, spec.types[n]!))]);
}

/**
 * The nodes on a cycle of a graph, each with the shortest cycle through it, in
 * time linear in the graph (plus the cycles reported).
 */
function cyclesOf(names: readonly string[], next: (n: string) => string[]): [string, string[]][] {
  const edges = new Map(names.map((n) => [n, next(n)]));
  const cyclic = new Set<string>();
  for (const scc of stronglyConnected(names, (n) => edges.get(n) ?? [])) {
    if (scc.length > 1 || (edges.get(scc[0]!) ?? []).includes(scc[0]!)) for (const n of scc) cyclic.add(n);
  }
  const out: [string, string[]][] = [];
  for (const name of names) {
    if (!cyclic.has(name)) continue;
    // The shortest way back to itself, for the message (breadth first, inside the cycle).
    const prev = new Map<string, string>();
    const queue = [name];
    let last: string | undefined;
    for (let qi = 0; qi < queue.length && last === undefined; qi++) {
      const n = queue[qi]!;
      for (const m of edges.get(n) ?? []) {
        if (!cyclic.has(m)) continue;
        if (m === name) {
          last = n;
          break;
        }
        if (!prev.has(m)) (prev.set(m, n), queue.push(m));
      }
    }
    const cycle = [name];
    for (let n = last; n !== undefined && n !== name; n = prev.get(n)) cycle.unshift(n);
    cycle.unshift(name);
    out.push([name, cycle]);
  }
  return out;
}

/** Types on a cycle through required, non-nullable object fields (and refs, extends), each with its cycle. */
export function requiredCycles(spec: Spec): [string, string[]][] {
  const has = (n: string) => Object.prototype.hasOwnProperty.call(spec.types, n);
  const needs = (t: TypeExpr): string[] => {
    if (typeof t === "string") {
      const p = parseShorthand(t);
      if (!p || p.arrayDepth > 0 || p.optional) return [];
      return has(p.base) ? [p.base] : [];
    }
    if (t.nullable || t.optional) return [];
    if (t.type === "ref") return has(t.ref) ? [t.ref] : [];
    if (t.type === "object") {
      return [...(t.extends ?? []).filter(has), ...Object.values(t.fields ?? {}).flatMap(needs)];
    }
    return []; // arrays, records and unions can end (empty array, other variant)
  };
  return cyclesOf(Object.keys(spec.types), (n) => [...new Set(needs(spec.types[n]!))]);
}
