/**
 * Load a spec source (YAML or JSON) into plain data, keeping enough of the
 * parse tree to point every diagnostic at `file:line:col`.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Alias, type Document, type Node, type Scalar } from "yaml";
import { diag, type Diagnostic, type Location } from "./diagnostics.js";
import { MAX_SPEC_BYTES, tooLarge, type SourceFile } from "./source.js";

export { MAX_SPEC_BYTES, tooLarge, type SourceFile } from "./source.js";

export interface Loaded {
  source: SourceFile;
  data: unknown;
  /** Find the location of a path in the document (the key when `key` is set). */
  locate(path: readonly (string | number)[], opts?: { key?: boolean }): Location | undefined;
  diagnostics: Diagnostic[];
}

/** The deepest nesting of mappings and lists accepted (the built-in specs nest about ten levels). */
export const MAX_DEPTH = 64;

export function load(source: SourceFile): Loaded {
  const text = source.text.replace(/\r\n?/g, "\n");
  const lc = new LineCounter();
  let lines: string[] | undefined;
  const lineText = (line: number) => (lines ??= text.split("\n"))[line - 1] ?? "";
  const at = (offset: number, length = 1): Location => {
    const { line, col } = lc.linePos(Math.min(offset, Math.max(0, text.length)));
    return { file: source.file, line, col, lineText: lineText(line), length };
  };
  const diagnostics: Diagnostic[] = [];

  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_SPEC_BYTES) {
    diagnostics.push(tooLarge(source.file, bytes, text.slice(0, Math.min(text.length, 200)).split("\n")[0]));
    return { source, data: undefined, locate: () => undefined, diagnostics };
  }

  // Keys are checked for uniqueness below, in one pass (the parser's own check is quadratic in the size of a mapping).
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter: lc, uniqueKeys: false, prettyErrors: false, merge: false });
  } catch (e) {
    diagnostics.push(tooDeepOrUnreadable(e, source.file, text));
    return { source, data: undefined, locate: () => undefined, diagnostics };
  }

  const locate = (path: readonly (string | number)[], opts: { key?: boolean } = {}): Location | undefined => {
    const r = findRange(doc, path, opts.key === true);
    return r ? at(r[0], Math.max(1, r[1] - r[0])) : undefined;
  };

  // The first syntax error only: the parser's later ones mostly follow from it (one missing bracket
  // makes a cascade), so they are counted, and shown again once the first is fixed.
  const syntax = doc.errors.filter((e) => !/call stack/i.test(e.message));
  if (syntax.length < doc.errors.length) {
    // The parser ran out of stack: once is enough to say so.
    const e = doc.errors.find((x) => /call stack/i.test(x.message))!;
    diagnostics.push(diag("MTG004", "error", tooDeepMessage(), undefined, at(e.pos[0])));
  }
  const first = syntax[0];
  if (first !== undefined) {
    const more = syntax.length - 1;
    const after = more === 0 ? "" : ` (${more} more syntax error${more === 1 ? "" : "s"} after it, which may follow from this one)`;
    diagnostics.push(diag("MTG002", "error", `${firstLine(first.message)}; fix the YAML/JSON syntax here${after}`, undefined, at(first.pos[0], first.pos[1] - first.pos[0])));
  }
  if (diagnostics.length === 0) {
    const deep = firstTooDeep(doc.contents);
    if (deep) {
      diagnostics.push(diag("MTG004", "error", tooDeepMessage(), undefined, at(deep.range?.[0] ?? 0)));
      return { source, data: undefined, locate, diagnostics };
    }
  }
  for (const k of duplicateKeys(doc.contents)) {
    const key = String(k.value);
    diagnostics.push(
      diag(
        "MTG030",
        "error",
        `duplicate key '${key}': each name may be declared once in a mapping; remove or rename one`,
        undefined,
        at(k.range?.[0] ?? 0, key.length),
      ),
    );
  }
  if (diagnostics.length > 0) return { source, data: undefined, locate, diagnostics: sortByOffset(diagnostics) };

  // Aliases that toJS would throw on (undefined, or inside the node they name,
  // which makes the data infinite) are the author's mistakes, not crashes.
  const aliases: Alias[] = [];
  visit(doc, { Alias: (_k, a) => void aliases.push(a) });
  for (const a of aliases) {
    const target = a.resolve(doc);
    const where = at(a.range?.[0] ?? 0, (a.range?.[1] ?? 1) - (a.range?.[0] ?? 0));
    if (target === undefined) {
      diagnostics.push(
        diag("MTG002", "error", `undefined YAML alias '*${a.source}': define the anchor '&${a.source}' before this use`, undefined, where),
      );
    } else if (target.range && a.range && a.range[0] >= target.range[0] && a.range[0] < target.range[1]) {
      diagnostics.push(
        diag(
          "MTG002",
          "error",
          `YAML alias '*${a.source}' is inside the node it names, which makes the spec infinite; write the content out instead`,
          undefined,
          where,
        ),
      );
    }
  }
  if (diagnostics.length > 0) return { source, data: undefined, locate, diagnostics };

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    const first = aliases[0]?.range?.[0] ?? 0;
    if (e instanceof RangeError) {
      diagnostics.push(diag("MTG004", "error", tooDeepMessage(), undefined, at(first)));
      return { source, data: undefined, locate, diagnostics };
    }
    diagnostics.push(
      diag(
        "MTG002",
        "error",
        `YAML aliases expand to too many nodes (${firstLine((e as Error).message)}); write the content out or use fewer aliases`,
        undefined,
        at(first),
      ),
    );
    return { source, data: undefined, locate, diagnostics };
  }
  // Aliases may nest what they name inside another deep collection.
  if (aliases.length > 0 && dataDepthAbove(data, MAX_DEPTH)) {
    diagnostics.push(diag("MTG004", "error", tooDeepMessage(), undefined, at(aliases[0]?.range?.[0] ?? 0)));
    return { source, data: undefined, locate, diagnostics };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    diagnostics.push(
      diag(
        "MTG003",
        "error",
        `the document is ${data === null || data === undefined ? "empty" : Array.isArray(data) ? "a list" : `a ${typeof data}`}; a spec must be a mapping with keys such as spec, protocol, types, states, methods`,
        [],
        at((doc.contents as Node | null)?.range?.[0] ?? 0),
      ),
    );
  }
  return { source, data, locate, diagnostics };
}

const MAX_ALIAS_COUNT = 100;


function tooDeepMessage(): string {
  return `the document nests mappings and lists more than ${MAX_DEPTH} levels deep; a spec needs far fewer, so flatten it (name a nested type under \`types\` and refer to it)`;
}

function tooDeepOrUnreadable(e: unknown, file: string, text: string): Diagnostic {
  const overflow = e instanceof RangeError || /call stack/i.test(String((e as Error)?.message));
  const lineText = text.split("\n", 1)[0] ?? "";
  return overflow
    ? diag("MTG004", "error", tooDeepMessage(), undefined, { file, line: 1, col: 1, lineText, length: 1 })
    : diag("MTG002", "error", `${firstLine(String((e as Error)?.message ?? e))}; fix the YAML/JSON syntax here`, undefined, { file, line: 1, col: 1, lineText, length: 1 });
}

/** Diagnostics in source order (the parser's, then ours). */
function sortByOffset(ds: Diagnostic[]): Diagnostic[] {
  return ds.sort((a, b) => (a.location?.line ?? 0) - (b.location?.line ?? 0) || (a.location?.col ?? 0) - (b.location?.col ?? 0));
}

/** The first collection nested deeper than MAX_DEPTH, without recursion (so no depth can overflow the stack). */
function firstTooDeep(root: unknown): Node | undefined {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (isMap(node) || isSeq(node)) {
      if (depth >= MAX_DEPTH) return node;
      for (let i = node.items.length - 1; i >= 0; i--) {
        const item = node.items[i] as unknown;
        if (isPair(item)) {
          stack.push([item.value, depth + 1]);
          if (!isScalar(item.key)) stack.push([item.key, depth + 1]);
        } else stack.push([item, depth + 1]);
      }
    }
  }
  return undefined;
}

function dataDepthAbove(root: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= max) return true;
    for (const x of Object.values(v)) stack.push([x, depth + 1]);
  }
  return false;
}

/** Scalar keys that repeat an earlier key of the same mapping, in one pass over the document. */
function duplicateKeys(root: unknown): Scalar[] {
  const out: Scalar[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (isScalar(pair.key)) {
          const k = String(pair.key.value);
          if (seen.has(k)) out.push(pair.key);
          else seen.add(k);
        } else if (pair.key !== null && pair.key !== undefined) stack.push(pair.key);
        stack.push(pair.value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
  return out;
}

function firstLine(s: string): string {
  return s.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
}

function findRange(doc: Document, path: readonly (string | number)[], wantKey: boolean): [number, number] | undefined {
  let node: unknown = doc.contents;
  let best: [number, number] | undefined = rangeOf(node);
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return best;
      if (last && wantKey) return rangeOf(pair.key) ?? best;
      node = pair.value;
      best = rangeOf(node) ?? rangeOf(pair.key) ?? best;
    } else if (isSeq(node) && typeof seg === "number") {
      node = node.items[seg];
      best = rangeOf(node) ?? best;
    } else {
      return best;
    }
  }
  return best;
}

function rangeOf(node: unknown): [number, number] | undefined {
  const r = (node as Node | null | undefined)?.range;
  if (!r) return undefined;
  // For collections, point at the first line only.
  return [r[0], isScalar(node) ? r[1] : r[0] + 1];
}
