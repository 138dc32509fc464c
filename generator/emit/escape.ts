/**
 * The one path by which spec text reaches generated output. Spec text is data:
 * every string a spec declares (descriptions, messages, keys, literal values,
 * names of the protocol, example texts, ...) is written into generated code
 * through exactly one of these helpers, and a spec can never make generated
 * code run something.
 *
 *   jsString / jsValue   code: a JS/TS string literal, or a JSON value as a JS
 *                        expression (JSON.stringify, plus U+2028/U+2029, `</`
 *                        and `<!--` escaped; a `__proto__` key is computed)
 *   jsKey                an object-literal or type-member key (bare when it is
 *                        an identifier, else a string literal)
 *   templateText         the text part of a template literal
 *   docComment/docLines  a `/** ... *\/` comment that cannot be closed from inside
 *   lineComment          the rest of a `//` comment: one line, whatever the text
 *   mdText / mdCode      Markdown prose and code spans (README.md)
 *
 * Everything else that reaches code from a spec is an identifier the format
 * restricts by regex (type, state, method, error, guard and meta names; see
 * format.ts), and the checker (generator/check/names.ts) refuses strings that must be names but
 * cannot be made safe (HTTP header names, `_meta` keys, dotted paths,
 * `__proto__`).
 */

/** Characters that end a line for ECMAScript (and so end a `//` comment). */
const LINE_TERMINATOR = /\r\n|[\n\r\u2028\u2029]/g;
/** C0 controls (but tab), DEL and C1 controls: shown as \uXXXX in comments and Markdown. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

const hex4 = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** Escapes that JSON.stringify leaves out but a JS source (or a `<script>`) needs, applied to JSON text. */
function hardenJson(json: string): string {
  return json.replace(/[\u2028\u2029]/g, hex4).replace(/<\//g, "<\\/").replace(/<!--/g, "\\u003c!--");
}

/** A double-quoted JS/TS string literal of `s`. */
export function jsString(s: string): string {
  return hardenJson(JSON.stringify(String(s)));
}

/**
 * A JSON value (as JSON.stringify sees it) as a JS expression: the same text
 * as JSON.stringify for ordinary data, with every string through jsString and a
 * `__proto__` key written as a computed key (a plain `"__proto__": x` in an
 * object literal would set the prototype instead of a property).
 * Undefined (nothing to write) gives "undefined".
 */
export function jsValue(v: unknown): string {
  return literal(v, "") ?? "undefined";
}

function literal(v: unknown, key: string): string | undefined {
  if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function") {
    v = (v as { toJSON(k: string): unknown }).toJSON(key);
  }
  switch (typeof v) {
    case "string":
      return jsString(v);
    case "number":
      return Number.isFinite(v) ? JSON.stringify(v) : "null";
    case "boolean":
      return String(v);
    case "bigint":
      throw new TypeError("a bigint has no JSON form");
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (v === null) return "null";
  if (Array.isArray(v)) return `[${v.map((x, i) => literal(x, String(i)) ?? "null").join(",")}]`;
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const lit = literal(x, k);
    if (lit !== undefined) parts.push(`${k === "__proto__" ? `[${jsString(k)}]` : jsString(k)}:${lit}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * `jsValue`, laid out for reading: an object or array that does not fit on a short line gets an entry
 * per line (generated files are laid out by brace depth, formatter.ts tidyStatements, not by prettier).
 * Strings go through jsString, keys through jsKey: the same escaping path as jsValue.
 */
export function jsLiteral(v: unknown): string {
  return pretty(v, "") ?? "undefined";
}

/** An object or array longer than this is written an entry per line. */
const INLINE_MAX = 100;

function pretty(v: unknown, key: string): string | undefined {
  if (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function") {
    v = (v as { toJSON(k: string): unknown }).toJSON(key);
  }
  if (v === null || typeof v !== "object") return literal(v, key);
  const parts: string[] = [];
  const open = Array.isArray(v) ? "[" : "{";
  const close = Array.isArray(v) ? "]" : "}";
  if (Array.isArray(v)) v.forEach((x, i) => parts.push(pretty(x, String(i)) ?? "null"));
  else {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const lit = pretty(x, k);
      if (lit !== undefined) parts.push(`${jsKey(k)}: ${lit}`);
    }
  }
  if (parts.length === 0) return `${open}${close}`;
  const flat = Array.isArray(v) ? `[${parts.join(", ")}]` : `{ ${parts.join(", ")} }`;
  if (flat.length <= INLINE_MAX && !flat.includes("\n")) return flat;
  return `${open}\n${parts.join(",\n")},\n${close}`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A key of an object literal or a member of an object type: bare when it is an identifier. */
export function jsKey(name: string): string {
  if (name === "__proto__") return `[${jsString(name)}]`;
  return IDENTIFIER.test(name) ? name : jsString(name);
}

/** `obj.name`, or `obj["name"]` when the name is not an identifier. */
export function jsAccess(obj: string, name: string): string {
  return IDENTIFIER.test(name) && name !== "__proto__" ? `${obj}.${name}` : `${obj}[${jsString(name)}]`;
}

/** Text for inside a template literal (between backticks, outside `${}`), meaning exactly `s`. */
export function templateText(s: string): string {
  return jsString(s)
    .slice(1, -1)
    .replace(/`/g, "\\`")
    .replace(/\$\{/g, "\\${");
}

/** One line of comment text: no line terminator, no control character, no `*\/`. */
function commentLine(s: string): string {
  return s.replace(CONTROL, hex4).replace(/\*\//g, "*\\/");
}

/** The lines of a text for a comment, split at every line terminator ECMAScript knows. */
function splitLines(s: string): string[] {
  return s.split(LINE_TERMINATOR);
}

/**
 * A doc comment (`/** ... *\/` and a newline) of `text` and `extra` lines, or ""
 * when there is nothing to say. `*\/` inside is written `*\/` escaped, so the
 * text cannot close the comment; every line terminator starts a new ` * ` line.
 */
export function docComment(text: string | undefined, extra: readonly string[] = []): string {
  const lines = [...(text ? splitLines(text.trim()) : []), ...extra.flatMap(splitLines)];
  if (lines.length === 0) return "";
  return `/**\n${lines.map((l) => ` * ${commentLine(l)}`.trimEnd()).join("\n")}\n */\n`;
}

/** The text of `s` for a `//` comment (or inside a one-line doc comment): one line, nothing that ends it. */
export function lineComment(s: string): string {
  return commentLine(s.replace(LINE_TERMINATOR, " "));
}

/**
 * Markdown prose on one line (a heading, a paragraph, a table cell): line
 * terminators become spaces, HTML cannot start (`<`, `&` are entities), `|`
 * cannot end a table cell, and a block marker at the start is escaped.
 */
export function mdText(s: string): string {
  const one = String(s)
    .replace(LINE_TERMINATOR, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(CONTROL, (c) => `&#${c.charCodeAt(0)};`)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\|/g, "\\|");
  return /^(?:[#>=+*_~`-]|\d+[.)])/.test(one) ? `\\${one}` : one;
}

/** A Markdown code span of `s` (also inside a table cell): fenced by more backticks than `s` holds in a row. */
export function mdCode(s: string): string {
  const one = String(s).replace(LINE_TERMINATOR, " ").replace(CONTROL, hex4).replace(/\|/g, "\\|");
  const longest = Math.max(0, ...[...one.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(2, longest + 1));
  return `${fence} ${one} ${fence}`;
}

/** A word for a POSIX shell command line in documentation: as it is when plain, else single-quoted (on one line). */
export function shellWord(s: string): string {
  const one = String(s).replace(LINE_TERMINATOR, " ").replace(CONTROL, "");
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(one) ? one : `'${one.replace(/'/g, `'\\''`)}'`;
}
