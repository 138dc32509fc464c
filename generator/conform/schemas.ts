/**
 * The spec's types as zod schemas built in memory from the IR, for the tester:
 * the same construction as the generated validators.ts (see emit/render.ts
 * zodExpr), so that `conform` checks a server against exactly what generated
 * code accepts without writing or compiling anything. A test holds the two to
 * the same verdicts.
 */
import { z } from "zod";
import type { IR, IRType } from "../ir.js";
import { FORMAT_PATTERNS } from "../emit/render.js";

const FORMATS = {
  "date-time": new RegExp(FORMAT_PATTERNS["date-time"]),
  uri: new RegExp(FORMAT_PATTERNS.uri),
  uuid: new RegExp(FORMAT_PATTERNS.uuid),
};

export interface SpecSchemas {
  /** A declared type's schema by name (types, inline params and results of methods). */
  type(name: string): z.ZodType | undefined;
  /** The schema of a method's result, where the spec declares one. */
  result(method: string): z.ZodType | undefined;
  /** The schema of a method's params (an absent params type accepts `{ _meta? }`). */
  params(method: string): z.ZodType | undefined;
  /** A schema for any type expression of this spec. */
  of(t: IRType): z.ZodType;
}

export function specSchemas(ir: IR): SpecSchemas {
  const decls = new Map<string, IRType>(ir.types.map((d) => [d.name, d.type]));
  for (const m of ir.methods) {
    if (m.params !== undefined && m.paramsName !== undefined && !decls.has(m.paramsName)) decls.set(m.paramsName, m.params);
    if (m.result !== undefined && m.resultName !== undefined && !decls.has(m.resultName)) decls.set(m.resultName, m.result);
  }
  const built = new Map<string, z.ZodType>();
  const patterns = new Map<string, RegExp>();
  const pattern = (source: string) => {
    let re = patterns.get(source);
    if (re === undefined) patterns.set(source, (re = new RegExp(`^(?:${source})$`, "u")));
    return re;
  };
  const objectNames = new Set([...decls].filter(([, t]) => t.kind === "object").map(([n]) => n));

  const named = (name: string): z.ZodType => {
    const done = built.get(name);
    if (done !== undefined) return done;
    const t = decls.get(name);
    if (t === undefined) return z.never();
    // Lazy, so that recursive and forward references resolve once every schema exists.
    const lazy = z.lazy(() => {
      const s = build(t);
      built.set(name, s);
      return s;
    });
    built.set(name, lazy);
    return lazy;
  };
  // Eager variants for discriminated unions (zod reads their shapes at construction).
  const eager = (t: IRType): z.ZodType => (t.kind === "ref" && decls.get(t.name)?.kind === "object" ? build(decls.get(t.name)!) : of(t));

  const base = (t: IRType): z.ZodType => {
    switch (t.kind) {
      case "string": {
        let s = z.string();
        if (t.minLength !== undefined) s = s.min(t.minLength);
        if (t.maxLength !== undefined) s = s.max(t.maxLength);
        if (t.format) s = s.regex(FORMATS[t.format]);
        if (t.pattern !== undefined) s = s.regex(pattern(t.pattern));
        return s;
      }
      case "integer":
      case "number": {
        let s = t.kind === "integer" ? z.int() : z.number();
        if (t.minimum !== undefined) s = s.min(Number.isFinite(t.minimum) ? t.minimum : 0);
        if (t.maximum !== undefined) s = s.max(Number.isFinite(t.maximum) ? t.maximum : 0);
        return s;
      }
      case "boolean":
        return z.boolean();
      case "null":
        return z.null();
      case "unknown":
        return z.unknown();
      case "literal":
        return z.literal(t.value);
      case "enum":
        return z.enum(t.values as [string, ...string[]]);
      case "ref":
        return named(t.name);
      case "array": {
        let s = z.array(of(t.items));
        if (t.minItems !== undefined) s = s.min(t.minItems);
        if (t.maxItems !== undefined) s = s.max(t.maxItems);
        return s;
      }
      case "record":
        return z.record(z.string(), of(t.values));
      case "union": {
        const discriminable =
          t.discriminator !== undefined &&
          t.variants.every((v) => !v.nullable && (v.kind === "object" || (v.kind === "ref" && objectNames.has(v.name))));
        if (discriminable) {
          try {
            return z.discriminatedUnion(t.discriminator!, t.variants.map(eager) as never);
          } catch {
            // Variants zod cannot tell apart by the tag: the generated code would not construct either,
            // and the checker refuses such a spec; answer with the plain union.
          }
        }
        return z.union(t.variants.map(of) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]);
      }
      case "object": {
        const shape: Record<string, z.ZodType> = Object.create(null) as Record<string, z.ZodType>;
        for (const f of t.fields) shape[f.name] = f.optional ? of(f.type).optional() : of(f.type);
        return t.strict ? z.strictObject({ ...shape }) : z.looseObject({ ...shape });
      }
    }
  };
  const of = (t: IRType): z.ZodType => {
    const s = base(t);
    return t.nullable && t.kind !== "null" && t.kind !== "unknown" ? s.nullable() : s;
  };
  const build = (t: IRType): z.ZodType => of(t);

  const emptyParams = z.looseObject({ _meta: z.record(z.string(), z.unknown()).optional() });
  const byMethod = new Map(ir.methods.map((m) => [m.method, m]));
  return {
    type: (name) => (decls.has(name) ? named(name) : undefined),
    result: (method) => {
      const m = byMethod.get(method);
      return m?.resultName !== undefined ? named(m.resultName) : undefined;
    },
    params: (method) => {
      const m = byMethod.get(method);
      if (m === undefined) return undefined;
      return m.paramsName !== undefined ? named(m.paramsName) : emptyParams.optional();
    },
    of,
  };
}

/**
 * A small value that a type accepts, for params the tester sends where only one field matters (the task id):
 * required fields only, the first variant of a union, the first value of an enum, empty collections.
 */
export function minimalValue(ir: IR, t: IRType, depth = 0): unknown {
  if (depth > 16) return null;
  if (t.nullable) return null;
  switch (t.kind) {
    case "string":
      return t.format === "date-time" ? "2026-01-01T00:00:00Z" : t.format === "uri" ? "conform:x" : t.format === "uuid" ? "00000000-0000-4000-8000-000000000000" : "x".repeat(t.minLength ?? 1);
    case "integer":
    case "number":
      return t.minimum ?? 0;
    case "boolean":
      return false;
    case "null":
    case "unknown":
      return null;
    case "literal":
      return t.value;
    case "enum":
      return t.values[0];
    case "ref": {
      const d = ir.types.find((x) => x.name === t.name);
      return d === undefined ? null : minimalValue(ir, d.type, depth + 1);
    }
    case "array":
      return Array.from({ length: t.minItems ?? 0 }, () => minimalValue(ir, t.items, depth + 1));
    case "record":
      return {};
    case "union":
      return t.variants.length ? minimalValue(ir, t.variants[0]!, depth + 1) : null;
    case "object": {
      const out: Record<string, unknown> = {};
      for (const f of t.fields) if (!f.optional) out[f.name] = minimalValue(ir, f.type, depth + 1);
      return out;
    }
  }
}

