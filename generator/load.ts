/**
 * Load a spec source (YAML or JSON) into plain data, keeping enough of the
 * parse tree to point every diagnostic at `file:line:col`.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Alias, type Document, type Node } from "yaml";
import { diag, type Diagnostic, type Location } from "./diagnostics.js";

export interface SourceFile {
  /** The name shown in diagnostics (a path relative to the cwd, or builtin:<name>). */
  file: string;
  text: string;
}

export interface Loaded {
  source: SourceFile;
  data: unknown;
  /** Find the location of a path in the document (the key when `key` is set). */
  locate(path: readonly (string | number)[], opts?: { key?: boolean }): Location | undefined;
  diagnostics: Diagnostic[];
}

export function load(source: SourceFile): Loaded {
  const text = source.text.replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false, merge: false });

  const at = (offset: number, length = 1): Location => {
    const { line, col } = lc.linePos(Math.min(offset, Math.max(0, text.length)));
    return { file: source.file, line, col, lineText: lines[line - 1] ?? "", length };
  };

  const locate = (path: readonly (string | number)[], opts: { key?: boolean } = {}): Location | undefined => {
    const r = findRange(doc, path, opts.key === true);
    return r ? at(r[0], Math.max(1, r[1] - r[0])) : undefined;
  };

  const diagnostics: Diagnostic[] = [];
  for (const e of doc.errors) {
    const duplicate = e.code === "DUPLICATE_KEY";
    const key = duplicate ? keyAt(doc, e.pos[0]) : undefined;
    const message = duplicate
      ? `duplicate key${key === undefined ? "" : ` '${key}'`}: each name may be declared once in a mapping; remove or rename one`
      : `${firstLine(e.message)}; fix the YAML/JSON syntax here`;
    diagnostics.push(
      diag(duplicate ? "MTG030" : "MTG002", "error", message, undefined, at(e.pos[0], key?.length ?? e.pos[1] - e.pos[0])),
    );
  }
  if (diagnostics.length > 0) return { source, data: undefined, locate, diagnostics };

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

/** The text of the scalar key that starts at `offset`, if any. */
function keyAt(doc: Document, offset: number): string | undefined {
  let found: string | undefined;
  visit(doc, {
    Pair: (_k, pair) => {
      if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
        found = String(pair.key.value);
        return visit.BREAK;
      }
    },
  });
  return found;
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
