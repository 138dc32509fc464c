/**
 * Laying out the generated files, the last step of the pure core (pipeline.ts),
 * without prettier: a cold prettier (loading it, then its parsers and printers
 * before the JIT has warmed up) was most of a generate.
 *
 * TypeScript: the emitters and templates print one statement or entry per line
 * (objects that do not fit a short line get an entry per line, escape.ts
 * jsLiteral), and tidyStatements indents it by brace depth. Markdown (the
 * generated README: tables, one-line paragraphs and a JSON block) is printed by
 * tidyMarkdown, to the bytes prettier would print.
 *
 * Prettier stays for `init`'s scaffold (formatInProcess), whose files are
 * written once and then belong to the user.
 */
import type { Options, Plugin } from "prettier";
import type { VirtualFile } from "./emit/index.js";

/** Formats one file; files that prettier does not handle come back as they are. */
export type Formatter = (file: VirtualFile) => Promise<VirtualFile>;

/** The prettier parser for a file, if prettier formats it. */
export function parserFor(path: string): string | undefined {
  // babel-ts, not typescript: the same printer and, on every built-in spec's output, the same bytes
  // (test/samples.test.ts holds it to that), but its parser costs a third less in a cold process.
  return path.endsWith(".ts") ? "babel-ts" : path.endsWith(".md") ? "markdown" : path.endsWith(".json") ? "json" : undefined;
}

const OPTIONS: Options = { printWidth: 110, endOfLine: "lf", proseWrap: "preserve" };

interface Prettier {
  format(text: string, options: Options): Promise<string>;
}

let lean: Promise<Prettier> | undefined;
let full: Promise<Prettier> | undefined;

/**
 * Loads prettier (once per thread): for TypeScript and JSON its core with the babel and estree plugins, for
 * anything else (the markdown of `init`'s scaffold, with its embedded code) the full entry point.
 */
export function loadPrettier(parser = "babel-ts"): Promise<Prettier> {
  if (parser !== "babel-ts" && parser !== "json") return (full ??= import("prettier"));
  return (lean ??= Promise.all([import("prettier/standalone"), import("prettier/plugins/babel"), import("prettier/plugins/estree")]).then(
    ([core, babel, estree]) => {
      const plugins = [babel, estree] as Plugin[];
      return { format: (text, options) => core.format(text, { ...options, plugins }) };
    },
  ));
}

/** Formats a file in this thread. */
export const formatInProcess: Formatter = async (f) => {
  const parser = parserFor(f.path);
  if (!parser) return f;
  const p = await loadPrettier(parser);
  const contents = await p.format(f.contents, { ...OPTIONS, parser });
  return { path: f.path, contents };
};

// ---------------------------------------------------------------------------
// Markdown, printed directly
// ---------------------------------------------------------------------------

const PRINT_WIDTH = 110;

/**
 * Tidies generated Markdown: table columns aligned (and cells trimmed), code
 * spans with the fewest backticks that hold them, JSON code blocks printed
 * with short arrays on one line, one blank line between blocks. Inline text
 * is not otherwise touched: what it means stays exactly as rendered.
 */
export function tidyMarkdown(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence) {
      // A fenced code block: kept as it is, but for JSON, which is printed again.
      const closing = new RegExp(`^ {0,3}${fence[1][0] === "`" ? "`" : "~"}{${fence[1].length},}\\s*$`);
      let j = i + 1;
      while (j < lines.length && !closing.test(lines[j])) j++;
      const body = lines.slice(i + 1, j);
      out.push(line.trimEnd(), ...(/^\s*json\s*$/i.test(fence[2]) ? printJsonBlock(body) : body));
      if (j < lines.length) out.push(lines[j].trimEnd());
      i = j + 1;
      continue;
    }
    if (/^\s*\|/.test(line)) {
      let j = i;
      while (j < lines.length && /^\s*\|/.test(lines[j])) j++;
      out.push(...printTable(lines.slice(i, j)));
      i = j;
      continue;
    }
    if (line.trim() === "") {
      if (out.length > 0 && out[out.length - 1] !== "") out.push("");
    } else {
      out.push(tidyCodeSpans(line.trimEnd()));
    }
    i++;
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.join("\n") + "\n";
}

/** The cells of a table row: split at pipes that no backslash escapes (GFM), outer pipes dropped, trimmed. */
function cellsOf(row: string): string[] {
  const cells: string[] = [];
  let cell = "";
  const s = row.trim();
  for (let k = 0; k < s.length; k++) {
    const c = s[k];
    if (c === "\\" && k + 1 < s.length) {
      cell += c + s[k + 1];
      k++;
    } else if (c === "|") {
      cells.push(cell);
      cell = "";
    } else cell += c;
  }
  cells.push(cell);
  if (s.startsWith("|")) cells.shift();
  if (s.endsWith("|") && !s.endsWith("\\|") && cells.length > 0) cells.pop();
  return cells.map((c) => tidyCodeSpans(c.trim()));
}

function printTable(rows: string[]): string[] {
  const cells = rows.map(cellsOf);
  const delimiter = cells.length > 1 && cells[1].every((c) => /^:?-+:?$/.test(c)) ? 1 : -1;
  // The header's cells are the columns (GFM ignores a row's excess cells: they are kept, unaligned).
  const columns = delimiter === 1 ? cells[0].length : Math.max(...cells.map((r) => r.length));
  const align = Array.from({ length: columns }, (_, c) => {
    const d = delimiter === 1 ? (cells[1][c] ?? "") : "";
    return d.startsWith(":") && d.endsWith(":") ? "center" : d.endsWith(":") ? "right" : d.startsWith(":") ? "left" : "none";
  });
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(3, ...cells.map((r, k) => (k === delimiter ? 0 : textWidth(r[c] ?? "")))),
  );
  return cells.map((r, k) => {
    const padded = Array.from({ length: columns }, (_, c) => {
      const w = widths[c];
      if (k === delimiter) {
        const a = align[c];
        const dashes = w - (a === "center" ? 2 : a === "none" ? 0 : 1);
        return (a === "left" || a === "center" ? ":" : "") + "-".repeat(dashes) + (a === "right" || a === "center" ? ":" : "");
      }
      const text = r[c] ?? "";
      const pad = w - textWidth(text);
      if (align[c] === "right") return " ".repeat(pad) + text;
      if (align[c] === "center") return " ".repeat(Math.floor(pad / 2)) + text + " ".repeat(pad - Math.floor(pad / 2));
      return text + " ".repeat(pad);
    });
    const excess = r.slice(columns).map((c) => ` ${c} |`);
    return `| ${padded.join(" | ")} |${excess.join("")}`;
  });
}

/** Columns a string takes in a monospace font: wide East Asian characters and emoji take two, combining marks none. */
function textWidth(s: string): number {
  // Printable ASCII, nearly every cell: one column a character.
  if (/^[\x20-\x7e]*$/.test(s)) return s.length;
  let w = 0;
  for (const ch of s) {
    if (/[\p{Mn}\p{Me}\p{Cc}\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/u.test(ch)) continue;
    w += /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u.test(ch)
      ? 2
      : 1;
  }
  return w;
}

/**
 * Code spans of one line (or table cell) with the fewest backticks: `` x `` becomes `x` when x holds no
 * backtick and has no space at either end (CommonMark gives both the same content). Backslash escapes and
 * backtick runs that open no span are kept as they are.
 */
function tidyCodeSpans(s: string): string {
  if (!s.includes("``")) return s;
  let out = "";
  let k = 0;
  while (k < s.length) {
    const c = s[k];
    if (c === "\\" && k + 1 < s.length) {
      out += c + s[k + 1];
      k += 2;
      continue;
    }
    if (c !== "`") {
      out += c;
      k++;
      continue;
    }
    let n = k;
    while (n < s.length && s[n] === "`") n++;
    const run = n - k;
    // The closing run: the next run of exactly as many backticks.
    let close = -1;
    for (let m = n; m < s.length; ) {
      if (s[m] !== "`") {
        m++;
        continue;
      }
      let e = m;
      while (e < s.length && s[e] === "`") e++;
      if (e - m === run) {
        close = m;
        break;
      }
      m = e;
    }
    if (close < 0) {
      out += s.slice(k, n);
      k = n;
      continue;
    }
    const raw = s.slice(n, close);
    const inner = raw.length >= 2 && raw.startsWith(" ") && raw.endsWith(" ") && raw.trim() !== "" ? raw.slice(1, -1) : raw;
    out += run > 1 && inner !== "" && !inner.includes("`") && !/^\s|\s$/.test(inner) ? `\`${inner}\`` : s.slice(k, close + run);
    k = close + run;
  }
  return out;
}

/** A JSON code block printed again: objects one key a line, arrays of scalars on one line when they fit. */
function printJsonBlock(body: string[]): string[] {
  let value: unknown;
  try {
    value = JSON.parse(body.join("\n"));
  } catch {
    return body;
  }
  return printJson(value, "", 0).split("\n");
}

function printJson(v: unknown, indent: string, prefix: number): string {
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    if (v.every((x) => x === null || typeof x !== "object")) {
      const one = `[${v.map((x) => JSON.stringify(x)).join(", ")}]`;
      // The line: its indent, what precedes the value (the key), the value and a comma.
      if (indent.length + prefix + one.length + 1 <= PRINT_WIDTH) return one;
    }
    const inner = indent + "  ";
    return `[\n${v.map((x) => inner + printJson(x, inner, 0)).join(",\n")}\n${indent}]`;
  }
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v);
    if (entries.length === 0) return "{}";
    const inner = indent + "  ";
    return `{\n${entries
      .map(([k, x]) => {
        const key = `${JSON.stringify(k)}: `;
        return inner + key + printJson(x, inner, key.length);
      })
      .join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(v);
}

/**
 * Lays out TypeScript that the emitters print one statement or entry per line: each line indented
 * by the braces open before it, trailing spaces dropped, runs of blank lines made one. It changes
 * whitespace at line starts only, so the code means the same. It replaces prettier for generated files,
 * which a cold `generate` would otherwise spend most of its time on.
 */
export function tidyStatements(text: string): string {
  const out: string[] = [];
  let depth = 0;
  let blank = false;
  let continued = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") {
      if (!blank && out.length > 0) out.push("");
      blank = true;
      continue;
    }
    blank = false;
    // A line that starts by closing a block ("}", "})", "} else {") sits at the outer level.
    const closes = /^[}\])]/.test(line) ? 1 : 0;
    depth = Math.max(0, depth - closes);
    // The continuation lines of a block comment line up under its opening "/**"; the line after an
    // unfinished "=" or "=>" is one level in.
    out.push("  ".repeat(depth + (continued && !closes ? 1 : 0)) + (line.startsWith("*") ? " " : "") + line);
    continued = /(?:=|=>)$/.test(line) && !line.startsWith("//") && !line.startsWith("*");
    // A line that ends by opening a block ("{", "= {", "([") opens one level.
    if (/[{[(]$/.test(line)) depth++;
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.join("\n") + "\n";
}
