/**
 * Analyses the build precompiled: `npm run build` analyses every built-in spec (load, check, lower) and keeps
 * the result as JSON under dist/generator/precompiled-specs/, named by the sha256 of the spec's text
 * (scripts/precompile-specs.mjs). A spec whose text is exactly one of those then compiles from the stored
 * analysis, with no YAML parser, no zod and no checks loaded; any other text (a changed file, a user's own
 * spec) has no entry and takes the full path. An analysis is a function of the spec's text and of the name
 * diagnostics give its file: that name is stored blank and filled in when read (the build stores an analysis
 * only after checking that two names change nothing else, and none whose diagnostics' order could depend on
 * the locale). test/precompiled-specs.test.ts compares both
 * paths' diagnostics and files for every built-in spec.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import type { Diagnostic } from "./diagnostics.js";
import type { IR } from "./ir.js";
import type { SourceFile } from "./source.js";

export interface Analysis {
  diagnostics: Diagnostic[];
  ir?: IR;
}

/** Where the build keeps the stored analyses: next to this module in dist/ (none next to the sources). */
export function precompiledDir(): string {
  return fileURLToPath(new URL("./precompiled-specs/", import.meta.url));
}

/** The name of a spec text's stored analysis: the sha256 of the text exactly as read. */
export function precompiledName(text: string): string {
  return `${createHash("sha256").update(text).digest("hex")}.json`;
}

/** The analysis the build stored for this spec text, with this source's file name; undefined when none. */
export function precompiledAnalysis(source: SourceFile, dir = precompiledDir()): Analysis | undefined {
  let stored: Analysis;
  try {
    stored = JSON.parse(readFileSync(`${dir}/${precompiledName(source.text)}`, "utf8")) as Analysis;
  } catch {
    return undefined;
  }
  return withFile(stored, source.file);
}

/**
 * What the build stores for a spec text: its analysis with the file name blank, as JSON; undefined when the
 * analysis depends on the file's name beyond the fields filled in (withFile) or does not survive JSON.
 */
export function storedAnalysis(text: string, analyze: (source: SourceFile) => Analysis): string | undefined {
  const one = withFile(analyze({ file: "\u0001one.yaml", text }), "");
  const other = withFile(analyze({ file: "\u0002other/spec.json", text }), "");
  if (!isDeepStrictEqual(one, other) || localeOrdered(one.diagnostics)) return undefined;
  const json = JSON.stringify(one);
  return isDeepStrictEqual(JSON.parse(json), one) ? json : undefined;
}

/**
 * Whether the order of these diagnostics may depend on the locale: diagnostics at one place are ordered by
 * localeCompare (diagnostics.ts sortDiagnostics), which the build's locale need not share with a user's.
 */
function localeOrdered(diagnostics: readonly Diagnostic[]): boolean {
  const places = new Set(diagnostics.map((d) => `${d.location?.line ?? 0}:${d.location?.col ?? 0}`));
  return places.size < diagnostics.length;
}

/** A copy of an analysis whose diagnostics and IR name `file` (each in the same place of its object). */
function withFile(a: Analysis, file: string): Analysis {
  const diagnostics = a.diagnostics.map((d) => (d.location === undefined ? { ...d } : { ...d, location: { ...d.location, file } }));
  if (a.ir === undefined) return { diagnostics };
  return { diagnostics, ir: deepFreeze({ ...a.ir, spec: { ...a.ir.spec, file } }) };
}

/** The IR is immutable (ir.ts freezes what it lowers): so is one read back. */
function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
