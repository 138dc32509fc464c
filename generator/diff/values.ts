/**
 * Value comparison: two types (of a declared type, a field, params, a result,
 * error data or a meta key) compared kind by kind, down through objects, arrays,
 * records and unions, each difference emitted as widened, narrowed or changed.
 */
import { editDistance } from "../format.js";
import type { IR, IRField, IRType } from "../ir.js";
import { emit, type Ctx } from "./context.js";
import { same } from "./data.js";
import { who, type Dirs } from "./directions.js";
import type { Section } from "./model.js";
import { B, C, RULES, type Impact, type RuleId } from "./rules.js";
import { cap, seg, typeText } from "./text.js";

/** Where a value comparison happens. */
export interface Loc {
  section: Section;
  /** `fields` instead of `section` once inside a field (for declared types). */
  fieldSection: Section;
  subject: string;
  path: string;
  /** What the user reads, e.g. `Task.ttl`. */
  label: string;
  inField: boolean;
  dirs: Dirs;
}

const sectionOf = (l: Loc) => (l.inField ? l.fieldSection : l.section);

/** Deep equality of two types resolved through their own IRs (same shape, whatever the names). */
function sameShape(ctx: Ctx, a: IRType, b: IRType, seen = new Set<string>()): boolean {
  const resolve = (ir: IR, t: IRType): IRType => {
    if (t.kind !== "ref") return t;
    const d = ir.types.find((x) => x.name === t.name);
    return d ? { ...d.type, nullable: d.type.nullable || t.nullable } : t;
  };
  if (a.kind === "ref" && b.kind === "ref") {
    const key = `${a.name}|${b.name}`;
    if (seen.has(key)) return true;
    seen = new Set(seen).add(key);
  }
  const x = resolve(ctx.old, a);
  const y = resolve(ctx.new, b);
  if (x.kind === "ref" || y.kind === "ref") return x.kind === y.kind && (x as { name: string }).name === (y as { name: string }).name && x.nullable === y.nullable;
  if (x.kind !== y.kind || x.nullable !== y.nullable) return false;
  switch (x.kind) {
    case "object": {
      const yf = (y as typeof x).fields;
      return x.fields.length === yf.length && x.fields.every((f) => {
        const g = yf.find((h) => h.name === f.name);
        return g !== undefined && g.optional === f.optional && sameShape(ctx, f.type, g.type, seen);
      }) && x.strict === (y as typeof x).strict;
    }
    case "array":
      return sameShape(ctx, x.items, (y as typeof x).items, seen) && x.minItems === (y as typeof x).minItems && x.maxItems === (y as typeof x).maxItems;
    case "record":
      return sameShape(ctx, x.values, (y as typeof x).values, seen);
    case "union": {
      const yv = (y as typeof x).variants;
      return x.variants.length === yv.length && x.variants.every((v, i) => sameShape(ctx, v, yv[i], seen));
    }
    default:
      return same(x, y);
  }
}

type Variance = "same" | "widened" | "narrowed" | "changed";
const combine = (a: Variance, b: Variance): Variance => (a === "same" ? b : b === "same" ? a : a === b ? a : "changed");

/** Variance of optional numeric bounds: a lower bound that rises (or appears) narrows. */
function bound(a: number | undefined, b: number | undefined, lower: boolean): Variance {
  if (a === b) return "same";
  if (a === undefined) return "narrowed";
  if (b === undefined) return "widened";
  return (lower ? b > a : b < a) ? "narrowed" : "widened";
}
function present<T>(a: T | undefined, b: T | undefined): Variance {
  if (a === b) return "same";
  if (a === undefined) return "narrowed";
  if (b === undefined) return "widened";
  return "changed";
}

/** How b relates to a when their kinds differ. */
function kindVariance(a: IRType, b: IRType): Variance {
  const bare = (t: IRType) => ({ ...t, nullable: false, description: undefined });
  if (a.kind === "integer" && b.kind === "number") return "widened";
  if (a.kind === "number" && b.kind === "integer") return "narrowed";
  if (b.kind === "unknown") return "widened";
  if (a.kind === "unknown") return "narrowed";
  if (b.kind === "union" && b.variants.some((v) => same(bare(v), bare(a)))) return "widened";
  if (a.kind === "union" && a.variants.some((v) => same(bare(v), bare(b)))) return "narrowed";
  const prim = (t: IRType) => (t.kind === "literal" ? (typeof t.value === "string" ? "string" : typeof t.value === "number" ? "number" : "boolean") : t.kind === "enum" ? "string" : t.kind);
  if (a.kind === "literal" && b.kind === "enum") return b.values.includes(String(a.value)) ? "widened" : "changed";
  if (a.kind === "enum" && b.kind === "literal") return a.values.includes(String(b.value)) ? "narrowed" : "changed";
  if ((a.kind === "literal" || a.kind === "enum") && prim(a) === b.kind) return "widened";
  if ((b.kind === "literal" || b.kind === "enum") && prim(b) === a.kind) return "narrowed";
  if (a.kind === "literal" && typeof a.value === "number" && b.kind === "number") return "widened";
  return "changed";
}

export function compareValue(ctx: Ctx, a: IRType, b: IRType, loc: Loc) {
  if (same(a, b)) return;
  const w = who("data", loc.dirs);
  const section = sectionOf(loc);
  const base = { section, subject: loc.subject, path: loc.path, dirs: loc.dirs };
  if (a.nullable !== b.nullable && a.kind !== "null" && b.kind !== "null") {
    emit(ctx, {
      ...base, path: `${loc.path}.nullable`, rule: b.nullable ? "value.nullable" : "value.not-nullable", before: typeText(a), after: typeText(b),
      summary: `\`${loc.label}\` ${b.nullable ? "may now be null" : "may no longer be null"}`,
      hint: b.nullable ? `${cap(w.C)} must handle null in \`${loc.label}\`.` : `${cap(w.P)} must stop sending null in \`${loc.label}\`.`,
    });
    a = { ...a, nullable: false };
    b = { ...b, nullable: false };
    if (same(a, b)) return;
  }
  const variance = (v: Variance, what: string) => {
    if (v === "same") return;
    const rule: RuleId = v === "widened" ? "value.widened" : v === "narrowed" ? "value.narrowed" : "value.changed";
    emit(ctx, {
      ...base, rule, before: typeText(a), after: typeText(b),
      summary: `\`${loc.label}\` ${what}: ${typeText(a)} → ${typeText(b)}`,
      hint:
        v === "widened"
          ? `${cap(w.C)} must accept ${typeText(b)} in \`${loc.label}\`.`
          : v === "narrowed"
            ? `${cap(w.P)} must send only ${typeText(b)} in \`${loc.label}\`.`
            : `Both sides must switch \`${loc.label}\` to ${typeText(b)}.`,
    });
  };
  if (a.kind === "ref" || b.kind === "ref") {
    if (a.kind === b.kind && (a as { name: string }).name === (b as { name: string }).name) return;
    if (sameShape(ctx, a, b)) {
      emit(ctx, {
        ...base, rule: "value.renamed", before: typeText(a), after: typeText(b),
        summary: `\`${loc.label}\` now refers to ${typeText(b)} (was ${typeText(a)}, same shape)`,
        hint: `Use the generated type ${typeText(b)} instead of ${typeText(a)}; the wire does not change.`,
      });
      return;
    }
    if (a.kind === b.kind) return variance("changed", "changed type");
  }
  if (a.kind === "object" && b.kind === "union" && b.discriminator) {
    const keys = b.variants.map((v) => (v.kind === "object" ? v.fields.find((f) => f.name === b.discriminator) : undefined)).map((f) => (f && f.type.kind === "literal" ? String(f.type.value) : "?"));
    emit(ctx, {
      ...base, rule: "value.changed", before: typeText(a), after: typeText(b),
      summary: `\`${loc.label}\` is now one of ${b.variants.length} shapes told apart by \`${b.discriminator}\` (${keys.join(", ")}); was one object`,
      hint: `${cap(w.C)} must branch on \`${b.discriminator}\` to read the fields of each shape; ${w.P} must send the shape that matches it.`,
    });
    return;
  }
  if (a.kind !== b.kind) {
    const v = kindVariance(a, b);
    return variance(v, v === "widened" ? "accepts more" : v === "narrowed" ? "accepts less" : "changed type");
  }
  switch (a.kind) {
    case "object":
      return compareObject(ctx, a, b as typeof a, loc);
    case "array": {
      variance(combine(bound(a.minItems, (b as typeof a).minItems, true), bound(a.maxItems, (b as typeof a).maxItems, false)), "changed its length bounds");
      return compareValue(ctx, a.items, (b as typeof a).items, { ...loc, path: `${loc.path}[]`, label: `${loc.label}[]` });
    }
    case "record":
      return compareValue(ctx, a.values, (b as typeof a).values, { ...loc, path: `${loc.path}{}`, label: `${loc.label}{}` });
    case "union":
      return compareUnion(ctx, a, b as typeof a, loc);
    case "enum": {
      const added = (b as typeof a).values.filter((v) => !a.values.includes(v));
      const removed = a.values.filter((v) => !(b as typeof a).values.includes(v));
      const v = combine(added.length ? "widened" : "same", removed.length ? "narrowed" : "same");
      const parts = [added.length ? `adds ${added.map((x) => `"${x}"`).join(", ")}` : "", removed.length ? `drops ${removed.map((x) => `"${x}"`).join(", ")}` : ""];
      return variance(v, parts.filter(Boolean).join(" and "));
    }
    case "literal":
      return variance("changed", "changed value");
    case "string": {
      const y = b as typeof a;
      return variance(
        [present(a.format, y.format), bound(a.minLength, y.minLength, true), bound(a.maxLength, y.maxLength, false), present(a.pattern, y.pattern)].reduce(combine, "same"),
        "changed its constraints",
      );
    }
    case "integer":
    case "number": {
      const y = b as typeof a;
      return variance(combine(bound(a.minimum, y.minimum, true), bound(a.maximum, y.maximum, false)), "changed its bounds");
    }
    default:
      return;
  }
}

/** Two names that read like one renamed field: one extends the other, or they differ by one letter. */
function similarNames(a: string, b: string): boolean {
  if (a === b) return false;
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  if (Math.min(x.length, y.length) >= 3 && (x.startsWith(y) || y.startsWith(x))) return true;
  return Math.min(x.length, y.length) >= 4 && editDistance(x, y) <= 1;
}

function compareObject(ctx: Ctx, a: Extract<IRType, { kind: "object" }>, b: Extract<IRType, { kind: "object" }>, loc: Loc) {
  const w = who("data", loc.dirs);
  const newNames = new Set(b.fields.map((f) => f.name));
  const oldNames = new Set(a.fields.map((f) => f.name));
  const removed = a.fields.filter((f) => !newNames.has(f.name));
  const added = b.fields.filter((f) => !oldNames.has(f.name));
  const renames = new Map<string, IRField>();
  // Kindred types: the same kind, or both numbers (ttl: number → ttlMs: integer).
  const numeric = (t: IRType) => t.kind === "integer" || t.kind === "number";
  const kindred = (x: IRType, y: IRType) => x.kind === y.kind || (numeric(x) && numeric(y));
  for (const r of removed) {
    const cands = added.filter((x) => similarNames(r.name, x.name) && kindred(r.type, x.type));
    const back = cands.length === 1 ? removed.filter((y) => similarNames(y.name, cands[0].name) && kindred(y.type, cands[0].type)) : [];
    if (cands.length === 1 && back.length === 1) renames.set(r.name, cands[0]);
  }
  const renamedTo = new Set([...renames.values()].map((f) => f.name));
  const fieldLoc = (f: IRField): Loc => ({ ...loc, path: seg(loc.path, f.name), label: seg(loc.label, f.name), inField: true });
  const fieldText = (f: IRField) => `${f.name}${f.optional ? "?" : ""}: ${typeText(f.type)}`;
  const fsec = loc.fieldSection;
  for (const f of a.fields) {
    const l = fieldLoc(f);
    const g = b.fields.find((x) => x.name === f.name);
    if (g) {
      if (f.optional !== g.optional) {
        emit(ctx, {
          section: fsec, subject: loc.subject, path: `${l.path}.optional`, dirs: loc.dirs, before: fieldText(f), after: fieldText(g),
          rule: g.optional ? "field.optional" : "field.required",
          summary: `\`${l.label}\` is now ${g.optional ? "optional" : "required"}`,
          hint: g.optional ? `${cap(w.C)} must handle \`${l.label}\` being absent.` : `${cap(w.P)} must always send \`${l.label}\`.`,
        });
      }
      if (f.deprecated !== g.deprecated) {
        emit(ctx, {
          section: fsec, subject: loc.subject, path: `${l.path}.deprecated`, dirs: loc.dirs, before: f.deprecated, after: g.deprecated,
          rule: "field.deprecated",
          summary: `\`${l.label}\` is ${g.deprecated ? "now deprecated" : "no longer deprecated"}`,
          hint: g.deprecated ? `Plan to stop using \`${l.label}\`.` : `Nothing to do.`,
        });
      }
      compareValue(ctx, f.type, g.type, l);
      continue;
    }
    const to = renames.get(f.name);
    if (to) {
      const rm = RULES[f.optional ? "field.removed.optional" : "field.removed.required"];
      const ad = RULES[to.optional ? "field.added.optional" : "field.added.required"];
      const worst = (x: Impact, y: Impact): Impact => (x === B || y === B ? B : C);
      emit(
        ctx,
        {
          section: fsec, subject: loc.subject, path: l.path, dirs: loc.dirs, rule: "field.renamed", before: fieldText(f), after: fieldText(to),
          summary: `\`${l.label}\` renamed to \`${to.name}\`${same(f.type, to.type) ? "" : ` (${typeText(f.type)} → ${typeText(to.type)})`}`,
          hint:
            f.optional && to.optional
              ? `Optional on both sides: send and read \`${to.name}\` (${typeText(to.type)}) instead of \`${f.name}\` when you upgrade.`
              : `Send and read \`${to.name}\` (${typeText(to.type)}) instead of \`${f.name}\`${to.optional ? "" : `; ${w.P} must always send it`}.`,
        },
        { producer: worst(rm.producer, ad.producer), consumer: worst(rm.consumer, ad.consumer) },
      );
      continue;
    }
    emit(ctx, {
      section: fsec, subject: loc.subject, path: l.path, dirs: loc.dirs, before: fieldText(f),
      rule: f.optional ? "field.removed.optional" : "field.removed.required",
      summary: `\`${l.label}\` removed (was ${f.optional ? "optional" : "required"}: ${typeText(f.type)})`,
      hint: f.optional ? `${cap(w.P)} can stop sending \`${f.name}\`; ${w.C} already cope without it.` : `${cap(w.C)} must stop relying on \`${l.label}\`; ${w.P} can stop sending it.`,
    });
  }
  for (const g of added) {
    if (renamedTo.has(g.name)) continue;
    const l = fieldLoc(g);
    emit(ctx, {
      section: fsec, subject: loc.subject, path: l.path, dirs: loc.dirs, after: fieldText(g),
      rule: g.optional ? "field.added.optional" : "field.added.required",
      summary: `\`${l.label}\` added (${g.optional ? "optional" : "required"}: ${typeText(g.type)})`,
      hint: g.optional ? `${cap(w.C)} may read \`${g.name}\` when present; nothing else to do.` : `${cap(w.P)} must send \`${g.name}\` (${typeText(g.type)}); ${w.C} may read it.`,
    });
  }
  if (a.strict !== b.strict) {
    emit(ctx, {
      section: sectionOf(loc), subject: loc.subject, path: `${loc.path}.strict`, dirs: loc.dirs, before: a.strict, after: b.strict,
      rule: b.strict ? "object.strict" : "object.not-strict",
      summary: `\`${loc.label}\` ${b.strict ? "now rejects" : "now allows"} undeclared keys`,
      hint: b.strict ? `${cap(w.P)} must not send keys \`${loc.label}\` does not declare.` : `${cap(w.C)} must accept undeclared keys in \`${loc.label}\`.`,
    });
  }
  if (a.open !== b.open) {
    emit(ctx, {
      section: sectionOf(loc), subject: loc.subject, path: `${loc.path}.open`, dirs: loc.dirs, before: a.open, after: b.open,
      rule: "object.open",
      summary: `\`${loc.label}\` is ${b.open ? "now open" : "no longer open"} (TypeScript index signature)`,
      hint: `Nothing to do on the wire; the generated type ${b.open ? "gains" : "loses"} an index signature.`,
    });
  }
}

function compareUnion(ctx: Ctx, a: Extract<IRType, { kind: "union" }>, b: Extract<IRType, { kind: "union" }>, loc: Loc) {
  const w = who("data", loc.dirs);
  if (a.discriminator !== b.discriminator) {
    emit(ctx, {
      section: sectionOf(loc), subject: loc.subject, path: `${loc.path}.discriminator`, dirs: loc.dirs, rule: "value.changed",
      before: a.discriminator ?? null, after: b.discriminator ?? null,
      summary: `\`${loc.label}\` is told apart by ${b.discriminator ? `\`${b.discriminator}\`` : "shape"} (was ${a.discriminator ? `\`${a.discriminator}\`` : "shape"})`,
      hint: `Both sides must tell the variants of \`${loc.label}\` apart the new way.`,
    });
  }
  const key = (v: IRType, disc: string | undefined): string => {
    if (v.kind === "ref") return v.name;
    if (v.kind === "object" && disc) {
      const f = v.fields.find((x) => x.name === disc);
      if (f && f.type.kind === "literal") return `${disc}=${String(f.type.value)}`;
    }
    if (v.kind === "literal") return JSON.stringify(v.value);
    if (v.kind === "array") return `${key(v.items, undefined)}[]`;
    return v.kind;
  };
  const ka = a.variants.map((v) => key(v, a.discriminator));
  const kb = b.variants.map((v) => key(v, b.discriminator));
  a.variants.forEach((v, i) => {
    const j = kb.indexOf(ka[i]);
    const vl = `${loc.label}<${ka[i]}>`;
    if (j >= 0) {
      compareValue(ctx, v, b.variants[j], { ...loc, path: `${loc.path}<${ka[i]}>`, label: vl });
      return;
    }
    emit(ctx, {
      section: sectionOf(loc), subject: loc.subject, path: `${loc.path}<${ka[i]}>`, dirs: loc.dirs, rule: "variant.removed", before: typeText(v),
      summary: `\`${loc.label}\` loses the variant ${ka[i]}`,
      hint: `${cap(w.P)} must stop sending ${ka[i]} as \`${loc.label}\`.`,
    });
  });
  b.variants.forEach((v, j) => {
    if (ka.includes(kb[j])) return;
    emit(ctx, {
      section: sectionOf(loc), subject: loc.subject, path: `${loc.path}<${kb[j]}>`, dirs: loc.dirs, rule: "variant.added", after: typeText(v),
      summary: `\`${loc.label}\` gains the variant ${kb[j]}`,
      hint: `${cap(w.C)} must handle ${kb[j]} in \`${loc.label}\`.`,
    });
  });
}
