/** The one-line texts the diff writes: names and paths, types, values, capability declarations, first sentences, counts. */
import type { IRType } from "../ir.js";
import { isObj } from "./data.js";

export const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** `a.b`, `a["x.y"]`: a readable path segment. */
export const seg = (base: string, name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `${base}.${name}` : `${base}["${name}"]`);

/** `1 change`, `2 changes`. */
export const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/** A compact, one-line rendering of a type. */
export function typeText(t: IRType, depth = 0): string {
  const n = t.nullable && t.kind !== "null" ? " | null" : "";
  const paren = (s: string, x: IRType) => (x.kind === "union" || (x.nullable && x.kind !== "null") ? `(${s})` : s);
  switch (t.kind) {
    case "string":
      return `string${t.format ? `(${t.format})` : ""}${n}`;
    case "integer":
    case "number":
    case "boolean":
    case "null":
    case "unknown":
      return t.kind + n;
    case "literal":
      return JSON.stringify(t.value) + n;
    case "enum":
      return t.values.map((v) => JSON.stringify(v)).join(" | ") + n;
    case "ref":
      return t.name + n;
    case "array":
      return paren(typeText(t.items, depth + 1), t.items) + "[]" + n;
    case "record":
      return `record<${typeText(t.values, depth + 1)}>${n}`;
    case "union": {
      const parts = t.variants.map((v) => typeText(v, depth + 1));
      const text = parts.join(" | ");
      if (text.length <= 60) return text + n;
      return `union of ${t.variants.length}${t.discriminator ? ` by ${t.discriminator}` : ""}${n}`;
    }
    case "object": {
      if (depth > 1) return `{ … }${n}`;
      const names = t.fields.map((f) => f.name + (f.optional ? "?" : ""));
      const shown = names.slice(0, 6).join(", ") + (names.length > 6 ? `, … ${names.length - 6} more` : "");
      return (names.length ? `{ ${shown} }` : "{}") + n;
    }
  }
}

/** A compact one-line rendering of a JSON value (behaviour values). */
export function brief(v: unknown, max = 90): string {
  const flow = (x: unknown): string => {
    if (x === undefined) return "(none)";
    if (x === null || typeof x !== "object") return typeof x === "string" ? (x === "*" ? "* (any)" : x) : String(x);
    if (Array.isArray(x)) return `[${x.map(flow).join(", ")}]`;
    const entries = Object.entries(x as Record<string, unknown>);
    return entries.length ? `{ ${entries.map(([k, y]) => `${k}: ${flow(y)}`).join(", ")} }` : "{}";
  };
  const s = flow(v);
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

/** The first sentence (or clause) of a description, whitespace folded, at most 110 characters. */
export function firstSentence(s: string): string {
  const t = s.replace(/\s+/g, " ").trim();
  const m = /^(.*?[.;])(\s|$)/.exec(t);
  const out = (m ? m[1] : t).replace(/[.;]$/, "");
  return out.length > 110 ? out.slice(0, 109) + "…" : out;
}

/** A capability declaration as the capabilities object shows it: `tasks = { list: {}, … }`. */
export function capabilityText(v: unknown): string {
  if (!isObj(v)) return "none";
  const path = (v.path as string[]).reduce((p, k, i) => (i === 0 ? k : seg(p, k)), "");
  return `${path} = ${brief(v.value, 70)}`;
}
