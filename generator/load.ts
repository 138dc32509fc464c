/**
 * Load a spec source (YAML or JSON) into plain data, keeping enough of the
 * parse tree to point every diagnostic at `file:line:col`.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml";
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
    const message = duplicate
      ? `duplicate key: ${firstLine(e.message)}; each name may be declared once, remove or rename one`
      : `${firstLine(e.message)}; fix the YAML/JSON syntax here`;
    diagnostics.push(diag(duplicate ? "MTG030" : "MTG002", "error", message, undefined, at(e.pos[0], e.pos[1] - e.pos[0])));
  }
  if (diagnostics.length > 0) return { source, data: undefined, locate, diagnostics };

  const data = doc.toJS({ maxAliasCount: 100 });
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    diagnostics.push(
      diag("MTG003", "error", "a spec must be a mapping with keys such as spec, protocol, types, states, methods", [], at(0)),
    );
  }
  return { source, data, locate, diagnostics };
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
