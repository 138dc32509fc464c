/**
 * Renderers of IR types into TypeScript: type expressions, zod expressions and
 * fast guard functions. The three are written side by side so that each IR
 * kind has one place that defines what it accepts.
 */
import { guardName, patternName, schemaName } from "../emit-names.js";
import type { IR, IRField, IRType, IRTypeDecl } from "../ir.js";
import { docComment, jsAccess, jsKey, jsString, jsValue } from "./escape.js";

export const FORMAT_PATTERNS = {
  "date-time": String.raw`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$`,
  uri: String.raw`^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$`,
  uuid: String.raw`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`,
} as const;

export const FORMAT_CONST = { "date-time": "DATE_TIME_RE", uri: "URI_RE", uuid: "UUID_RE" } as const;

/** A type member or object-literal key (see escape.ts). */
export const prop = jsKey;
/** A property read (see escape.ts). */
export const access = jsAccess;
export { docComment };

/** Patterns declared in the spec get a constant each, in first-seen order. */
export class PatternTable {
  readonly entries: { name: string; source: string }[] = [];
  constName(pattern: string): string {
    const found = this.entries.find((e) => e.source === pattern);
    if (found) return found.name;
    const name = patternName(this.entries.length + 1);
    this.entries.push({ name, source: pattern });
    return name;
  }
}

export function collectPatterns(ir: IR): PatternTable {
  const table = new PatternTable();
  const walk = (t: IRType) => {
    switch (t.kind) {
      case "string":
        if (t.pattern !== undefined) table.constName(t.pattern);
        break;
      case "array":
        walk(t.items);
        break;
      case "record":
        walk(t.values);
        break;
      case "union":
        t.variants.forEach(walk);
        break;
      case "object":
        t.fields.forEach((f) => walk(f.type));
        break;
    }
  };
  ir.types.forEach((d) => walk(d.type));
  ir.methods.forEach((m) => (m.params && walk(m.params), m.result && walk(m.result)));
  ir.meta.forEach((m) => walk(m.type));
  return table;
}

// ---------------------------------------------------------------------------
// TypeScript types
// ---------------------------------------------------------------------------

/** How a reference to a declared type is written (e.g. `T.Task` from another module). */
export type RefName = (name: string) => string;
const sameModule: RefName = (name) => name;

export function tsType(t: IRType, ref: RefName = sameModule): string {
  const base = tsTypeBase(t, ref);
  return t.nullable && t.kind !== "null" && t.kind !== "unknown" ? `${wrapUnion(base)} | null` : base;
}

function wrapUnion(s: string) {
  return /^[A-Za-z0-9_."'[\]<>]+$/.test(s) || s.startsWith("{") ? s : `(${s})`;
}

function tsTypeBase(t: IRType, ref: RefName): string {
  switch (t.kind) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "unknown":
      return "unknown";
    case "literal":
      return jsValue(t.value);
    case "enum":
      return t.values.map((v) => jsString(v)).join(" | ");
    case "ref":
      return ref(t.name);
    case "array": {
      const inner = tsType(t.items, ref);
      return /^[A-Za-z0-9_.]+$/.test(inner) ? `${inner}[]` : `Array<${inner}>`;
    }
    case "record":
      return `{ [key: string]: ${tsType(t.values, ref)} }`;
    case "union":
      return t.variants.map((v) => wrapUnion(tsType(v, ref))).join(" | ");
    case "object":
      return t.strict && t.fields.length === 0 ? "Record<string, never>" : tsObject(t.fields, t.open, ref);
  }
}

export function tsObject(fields: readonly IRField[], open: boolean, ref: RefName = sameModule): string {
  const lines = fields.map((f) => {
    const doc = docComment(f.description, f.deprecated ? ["@deprecated"] : []);
    // An optional field says `| undefined`: the validator and the guard accept it present and undefined,
    // so the type agrees with them under `exactOptionalPropertyTypes` too.
    const type = tsType(f.type, ref);
    return `${doc}${prop(f.name)}${f.optional ? "?" : ""}: ${f.optional && type !== "unknown" ? `${type} | undefined` : type};`;
  });
  if (open) lines.push("[key: string]: unknown;");
  return lines.length ? `{\n${lines.join("\n")}\n}` : "{}";
}

export function tsDecl(d: IRTypeDecl): string {
  const doc = docComment(d.description ?? d.type.description);
  if (d.type.kind === "object" && d.type.strict && d.type.fields.length === 0) {
    return `${doc}export type ${d.name} = Record<string, never>;`;
  }
  if (d.type.kind === "object" && !d.type.nullable) {
    return `${doc}export interface ${d.name} ${tsObject(d.type.fields, d.type.open)}`;
  }
  return `${doc}export type ${d.name} = ${tsType(d.type)};`;
}

// ---------------------------------------------------------------------------
// zod schemas
// ---------------------------------------------------------------------------

export interface ZodContext {
  /** Names of declared types that must be referenced lazily (declared later or recursive). */
  lazy: ReadonlySet<string>;
  patterns: PatternTable;
  /** Declared object types, so discriminated unions can check their variants. */
  objectTypes: ReadonlySet<string>;
}


export function zodExpr(t: IRType, ctx: ZodContext): string {
  const base = zodBase(t, ctx);
  return t.nullable && t.kind !== "null" && t.kind !== "unknown" ? `${base}.nullable()` : base;
}

function num(v: number) {
  return Number.isFinite(v) ? String(v) : "0";
}

function zodBase(t: IRType, ctx: ZodContext): string {
  switch (t.kind) {
    case "string": {
      let s = "z.string()";
      if (t.minLength !== undefined) s += `.min(${t.minLength})`;
      if (t.maxLength !== undefined) s += `.max(${t.maxLength})`;
      if (t.format) s += `.regex(${FORMAT_CONST[t.format]})`;
      if (t.pattern !== undefined) s += `.regex(${ctx.patterns.constName(t.pattern)})`;
      return s;
    }
    case "integer":
    case "number": {
      let s = t.kind === "integer" ? "z.int()" : "z.number()";
      if (t.minimum !== undefined) s += `.min(${num(t.minimum)})`;
      if (t.maximum !== undefined) s += `.max(${num(t.maximum)})`;
      return s;
    }
    case "boolean":
      return "z.boolean()";
    case "null":
      return "z.null()";
    case "unknown":
      return "z.unknown()";
    case "literal":
      return `z.literal(${jsValue(t.value)})`;
    case "enum":
      return `z.enum([${t.values.map((v) => jsString(v)).join(", ")}])`;
    case "ref":
      return ctx.lazy.has(t.name) ? `z.lazy(() => ${schemaName(t.name)})` : schemaName(t.name);
    case "array": {
      let s = `z.array(${zodExpr(t.items, ctx)})`;
      if (t.minItems !== undefined) s += `.min(${t.minItems})`;
      if (t.maxItems !== undefined) s += `.max(${t.maxItems})`;
      return s;
    }
    case "record":
      return `z.record(z.string(), ${zodExpr(t.values, ctx)})`;
    case "union": {
      const variants = t.variants.map((v) => zodExpr(v, ctx));
      if (t.discriminator && discriminable(t, ctx)) {
        return `z.discriminatedUnion(${jsString(t.discriminator)}, [${variants.join(", ")}])`;
      }
      return `z.union([${variants.join(", ")}])`;
    }
    case "object": {
      const fields = t.fields.map((f) => `${prop(f.name)}: ${zodExpr(f.type, ctx)}${f.optional ? ".optional()" : ""}`);
      const fn = t.strict ? "z.strictObject" : "z.looseObject";
      // A field per line: validators.ts is laid out by brace depth (formatter.ts tidyStatements), not by prettier.
      return fields.length === 0 ? `${fn}({})` : `${fn}({\n${fields.join(",\n")},\n})`;
    }
  }
}

/** zod's discriminatedUnion needs eager object schemas as variants. */
function discriminable(t: Extract<IRType, { kind: "union" }>, ctx: ZodContext): boolean {
  return t.variants.every(
    (v) => !v.nullable && ((v.kind === "object") || (v.kind === "ref" && ctx.objectTypes.has(v.name) && !ctx.lazy.has(v.name))),
  );
}

// ---------------------------------------------------------------------------
// Fast guards: plain generated checks that accept exactly what the zod schema accepts.
// ---------------------------------------------------------------------------

export interface GuardContext {
  patterns: PatternTable;
  /**
   * Module-level lookup tables for long lists (enum values, the keys of a strict
   * object, the variants of a union): a chain of hundreds of `===` or `||` is
   * slow to check and, long enough, overflows TypeScript's own stack.
   */
  tables?: string[];
  /** Helper functions generated for nested unions, appended after the guards. */
  helpers: string[];
  helperPrefix: string;
  /** Declared types by name (to resolve discriminated variants). */
  decls: ReadonlyMap<string, IRTypeDecl>;
}


/** Lists longer than this are checked with a lookup table instead of a chain of comparisons. */
export const CHAIN_MAX = 16;
/** Objects with more fields than this are checked from a table of field checks (one statement per field beyond it is too much code). */
export const FIELDS_MAX = 64;

/** Declares a lookup table in the guards module and returns its name (`$` keeps it apart from every spec name). */
function table(ctx: GuardContext, kind: string, type: string, init: string): string {
  const tables = (ctx.tables ??= []);
  const name = `${kind}$${tables.length + 1}`;
  tables.push(`const ${name}: ${type} = ${init};`);
  return name;
}

const isObj = (v: string) => `typeof ${v} === "object" && ${v} !== null && !Array.isArray(${v})`;

/** Statements that `return false` unless `v` (an expression free of side effects) matches `t`. */
export function guardStmts(t: IRType, v: string, ctx: GuardContext, depth = 0): string {
  const body = guardBase(t, v, ctx, depth);
  if (!t.nullable || t.kind === "null" || t.kind === "unknown" || body === "") return body;
  return `if (${v} !== null) {\n${body}\n}`;
}

function cond(c: string) {
  // A lone call or name needs no parentheses of its own.
  return /^[\w$.]+(?:\([\w$.]*\))?$/.test(c) ? `if (!${c}) return false;` : `if (!(${c})) return false;`;
}

function guardBase(t: IRType, v: string, ctx: GuardContext, depth: number): string {
  switch (t.kind) {
    case "string": {
      const cs = [`typeof ${v} === "string"`];
      if (t.minLength !== undefined) cs.push(`${v}.length >= ${t.minLength}`);
      if (t.maxLength !== undefined) cs.push(`${v}.length <= ${t.maxLength}`);
      if (t.format) cs.push(`${FORMAT_CONST[t.format]}.test(${v})`);
      if (t.pattern !== undefined) cs.push(`${ctx.patterns.constName(t.pattern)}.test(${v})`);
      return cond(cs.join(" && "));
    }
    case "integer":
    case "number": {
      const cs = [t.kind === "integer" ? `Number.isSafeInteger(${v})` : `typeof ${v} === "number" && Number.isFinite(${v})`];
      if (t.minimum !== undefined) cs.push(`(${v} as number) >= ${num(t.minimum)}`);
      if (t.maximum !== undefined) cs.push(`(${v} as number) <= ${num(t.maximum)}`);
      return cond(cs.join(" && "));
    }
    case "boolean":
      return cond(`typeof ${v} === "boolean"`);
    case "null":
      return cond(`${v} === null`);
    case "unknown":
      return "";
    case "literal":
      return cond(`${v} === ${jsValue(t.value)}`);
    case "enum":
      if (t.values.length > CHAIN_MAX) {
        const set = table(ctx, "values", "ReadonlySet<unknown>", `new Set<unknown>([${t.values.map((x) => jsValue(x)).join(", ")}])`);
        return cond(`${set}.has(${v})`);
      }
      return cond(t.values.map((x) => `${v} === ${jsValue(x)}`).join(" || "));
    case "ref":
      return cond(`${guardName(t.name)}(${v})`);
    case "array": {
      const cs = [`Array.isArray(${v})`];
      if (t.minItems !== undefined) cs.push(`${v}.length >= ${t.minItems}`);
      if (t.maxItems !== undefined) cs.push(`${v}.length <= ${t.maxItems}`);
      const e = `e${depth}`;
      const i = `i${depth}`;
      const inner = guardStmts(t.items, e, ctx, depth + 1);
      const loop = inner ? `\nfor (let ${i} = 0; ${i} < ${v}.length; ${i}++) {\nconst ${e}: unknown = ${v}[${i}];\n${inner}\n}` : "";
      return cond(cs.join(" && ")) + loop;
    }
    case "record": {
      const o = `r${depth}`;
      const k = `k${depth}`;
      const e = `e${depth}`;
      const inner = guardStmts(t.values, e, ctx, depth + 1);
      const loop = inner
        ? `\n{\nconst ${o} = ${v} as Record<string, unknown>;\nfor (const ${k} in ${o}) {\nif (!Object.prototype.hasOwnProperty.call(${o}, ${k})) continue;\nconst ${e}: unknown = ${o}[${k}];\n${inner}\n}\n}`
        : "";
      return cond(isObj(v)) + loop;
    }
    case "union": {
      const tags = t.discriminator ? discriminatedTags(t, ctx) : undefined;
      if (tags) {
        const cases = tags
          .map(({ values, fn }) => `${values.map((x) => `case ${jsValue(x)}:`).join(" ")} if (!${fn}(${v})) return false; break;`)
          .join("\n");
        return `${cond(isObj(v))}\nswitch ((${v} as Record<string, unknown>)[${jsString(t.discriminator!)}]) {\n${cases}\ndefault: return false;\n}`;
      }
      const names = t.variants.map((variant) => helper(variant, ctx));
      if (names.length > CHAIN_MAX) {
        const fns = table(ctx, "variants", "readonly ((v: unknown) => boolean)[]", `[${names.join(", ")}]`);
        return cond(`${fns}.some((f) => f(${v}))`);
      }
      return cond(names.map((n) => `${n}(${v})`).join(" || "));
    }
    case "object": {
      const o = `o${depth}`;
      const body: string[] = [];
      if (t.fields.length > FIELDS_MAX) {
        // One statement per field would exceed what TypeScript analyses in one function: a table of field checks.
        const checks = t.fields.map((f) => `[${jsString(f.name)}, ${helper(f.type, ctx)}, ${f.optional}]`);
        const fields = table(ctx, "fields", "readonly (readonly [string, (v: unknown) => boolean, boolean])[]", `[${checks.join(", ")}]`);
        body.push(`for (const [k, check, optional] of ${fields}) {\nconst x = ${o}[k];\nif (!(optional && x === undefined) && !check(x)) return false;\n}`);
      } else t.fields.forEach((f, idx) => {
        const fv = `${o}f${idx}`;
        const inner = guardStmts(f.type, fv, ctx, depth + 1);
        if (!inner) return;
        body.push(`const ${fv} = ${access(o, f.name)};`);
        body.push(f.optional ? `if (${fv} !== undefined) {\n${inner}\n}` : inner);
      });
      if (t.strict) {
        const unknownKey =
          t.fields.length > CHAIN_MAX
            ? ` && !${table(ctx, "keys", "ReadonlySet<string>", `new Set<string>([${t.fields.map((f) => jsString(f.name)).join(", ")}])`)}.has(k)`
            : t.fields.length
              ? ` && ${t.fields.map((f) => `k !== ${jsString(f.name)}`).join(" && ")}`
              : "";
        body.push(`for (const k in ${o}) if (Object.prototype.hasOwnProperty.call(${o}, k)${unknownKey}) return false;`);
      }
      const lines = [cond(isObj(v))];
      if (body.length) lines.push(`const ${o} = ${v} as Record<string, unknown>;`, ...body);
      return lines.join("\n");
    }
  }
}

/** A helper function checking one union variant; returns its name. */
function helper(t: IRType, ctx: GuardContext): string {
  if (t.kind === "ref" && !t.nullable) return guardName(t.name);
  const name = `${ctx.helperPrefix}${ctx.helpers.length + 1}`;
  ctx.helpers.push(""); // reserve the slot before recursing, so nested helpers get later numbers
  const idx = ctx.helpers.length - 1;
  ctx.helpers[idx] = `function ${name}(v: unknown): boolean {\n${guardStmts(t, "v", ctx)}\nreturn true;\n}`;
  return name;
}

/** For a discriminated union: the tag values of each variant and the function checking it. */
function discriminatedTags(
  t: Extract<IRType, { kind: "union" }>,
  ctx: GuardContext,
): { values: (string | number | boolean)[]; fn: string }[] | undefined {
  const out: { values: (string | number | boolean)[]; fn: string }[] = [];
  for (const variant of t.variants) {
    let obj: IRType | undefined = variant;
    if (variant.kind === "ref") obj = ctx.decls.get(variant.name)?.type;
    if (!obj || obj.kind !== "object" || variant.nullable) return undefined;
    const f = obj.fields.find((x) => x.name === t.discriminator);
    if (!f || f.optional) return undefined;
    const values = f.type.kind === "literal" ? [f.type.value] : f.type.kind === "enum" ? [...f.type.values] : undefined;
    if (!values) return undefined;
    out.push({ values, fn: "" });
  }
  const all = out.flatMap((o) => o.values);
  if (new Set(all).size !== all.length) return undefined; // shared tags: check as a plain union
  // zod rejects duplicate tags across variants at construction; mirror the first-wins order otherwise.
  t.variants.forEach((variant, i) => (out[i].fn = helper(variant, ctx)));
  return out;
}
