/**
 * The coverage matrix of the spec format (spec/format-coverage.yaml) against the format itself: every
 * path of the JSON Schema has a row saying what honours it (a file and a symbol of the runtime or the
 * generator that reads it) or which diagnostics refuse what cannot be honoured, and every row, reader,
 * fixture and code it names exists. The conform column is derived: a rule covers a path when one of
 * its `reads` is that path or a prefix of it, so the `reads` of every rule must name paths of the format.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { RULE_CATALOGUE } from "../generator/conform/rules/index.js";
import { CODES } from "../generator/diagnostics.js";
import { analyze } from "../generator/pipeline.js";
import { ROOT } from "./helpers/cli.js";
import { covers, formatPaths, lastKey } from "./helpers/format-paths.js";
import { composerCoverage, VARIES } from "./helpers/spec-composer-format.js";
import { ALL_KINDS } from "./helpers/spec-composer.js";

interface Row {
  path?: string;
  combination?: string;
  paths?: string[];
  honoured?: string[];
  fixture?: string;
  refused?: string[];
  note?: string;
}

const MATRIX = "spec/format-coverage.yaml";
const matrix = parse(readFileSync(join(ROOT, MATRIX), "utf8")) as { rows: Row[]; combinations: Row[] };
const paths = formatPaths(ROOT);
const known = new Set(paths);

/** The codes `validate` can give: declared in CODES and reported by the loader or a check. */
const givenCodes = (() => {
  const sources = [
    ...readdirSync(join(ROOT, "generator/check")).map((f) => `generator/check/${f}`),
    "generator/load.ts",
  ].map((f) => readFileSync(join(ROOT, f), "utf8"));
  return new Set(Object.keys(CODES).filter((code) => sources.some((s) => s.includes(`"${code}"`))));
})();

const fileText = new Map<string, string | undefined>();
const read = (file: string) => {
  if (!fileText.has(file)) fileText.set(file, existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), "utf8") : undefined);
  return fileText.get(file);
};

/** What is wrong with one row's readers, fixture and codes (nothing: []). */
function problems(row: Row, key: string): string[] {
  const out: string[] = [];
  if ((row.honoured ?? []).length === 0 && (row.refused ?? []).length === 0) {
    out.push(`${key}: neither honoured nor refused`);
  }
  for (const reader of row.honoured ?? []) {
    const [file, symbol] = reader.split("#");
    const text = file === undefined ? undefined : read(file);
    if (text === undefined || symbol === undefined) out.push(`${key}: reader ${reader} is no file#symbol of this repository`);
    else if (!new RegExp(`\\b${symbol.replace(/[$]/g, "\\$")}\\b`).test(text)) out.push(`${key}: ${symbol} does not occur in ${file}`);
  }
  if (row.fixture !== undefined) {
    const text = read(row.fixture);
    const keys = row.path !== undefined ? [lastKey(row.path)] : [];
    if (text === undefined) out.push(`${key}: fixture ${row.fixture} does not exist`);
    else for (const k of keys) if (!text.includes(k)) out.push(`${key}: fixture ${row.fixture} does not contain '${k}'`);
  }
  for (const code of row.refused ?? []) if (!givenCodes.has(code)) out.push(`${key}: ${code} is no code validate gives`);
  return out;
}

describe("the coverage matrix of the spec format", () => {
  it("has one row for every path of the format's JSON Schema, and no row for a path it lacks", () => {
    const rows = matrix.rows.map((r) => r.path);
    expect(rows.filter((p) => p === undefined || !known.has(p))).toEqual([]);
    expect(paths.filter((p) => !rows.includes(p))).toEqual([]);
    expect(rows.length).toBe(new Set(rows).size);
  });

  it("says for every row what honours it or what refuses it, with readers, fixtures and codes that exist", () => {
    expect(matrix.rows.flatMap((r) => problems(r, r.path ?? "?"))).toEqual([]);
  });

  it("lists the combinations that matter, each on paths of the format, honoured or refused", () => {
    expect(matrix.combinations.length).toBeGreaterThan(0);
    const names = matrix.combinations.map((c) => c.combination);
    expect(names.length).toBe(new Set(names).size);
    for (const c of matrix.combinations) {
      expect(c.combination, JSON.stringify(c)).toBeTypeOf("string");
      expect((c.paths ?? []).filter((p) => !known.has(p)), c.combination).toEqual([]);
      expect((c.honoured ?? []).length + (c.refused ?? []).length, c.combination).toBeGreaterThan(0);
    }
    expect(matrix.combinations.flatMap((c) => problems(c, c.combination ?? "?"))).toEqual([]);
  });

  it("every spec it names as a fixture validates with 0 errors and 0 warnings", () => {
    const fixtures = [...new Set([...matrix.rows, ...matrix.combinations].flatMap((r) => (r.fixture === undefined ? [] : [r.fixture])))];
    for (const file of fixtures) expect(analyze({ file, text: read(file) ?? "" }).diagnostics, file).toEqual([]);
  });

  it("every path a conform rule reads is a path of the format", () => {
    const wrong = RULE_CATALOGUE.flatMap((r) => r.reads.filter((p) => !known.has(p)).map((p) => `${r.name}: ${p}`));
    expect(wrong).toEqual([]);
  });

  it("derives the conform column: the paths some rule reads, the rest counted", () => {
    const checked = paths.filter((p) => RULE_CATALOGUE.some((r) => r.reads.some((read) => covers(read, p))));
    expect(checked.length).toBeGreaterThan(0);
    expect(checked.length).toBeLessThanOrEqual(paths.length);
  });

  it("every row and combination is varied by a kind of the spec composer, or says why none varies it", () => {
    const names = [...matrix.rows.map((r) => r.path!), ...matrix.combinations.map((c) => c.combination!)];
    expect(names.filter((n) => Object.keys(composerCoverage(n, ALL_KINDS)).length === 0)).toEqual([]);
    // Every kind says what it varies, and names only rows and combinations of the matrix.
    expect(ALL_KINDS.filter((k) => (VARIES[k] ?? []).length === 0)).toEqual([]);
    expect(Object.keys(VARIES).filter((k) => !ALL_KINDS.includes(k))).toEqual([]);
    expect(Object.entries(VARIES).flatMap(([k, rows]) => rows.filter((r) => !names.includes(r)).map((r) => `${k}: ${r}`))).toEqual([]);
  });

  it("the rows users vary on the wire are drawn by a kind (paging names, error data, retention, replay, pushes, roles, ids, filled fields, guards)", () => {
    const drawn = [
      "methods.*.params",
      "methods.*.result",
      "errors.*.data",
      "behaviour.retention.default",
      "behaviour.retention.max",
      "the retention default outside the retention field's minimum or maximum",
      "behaviour.results.replaysErrors",
      "behaviour.statusNotifications.delivery=push",
      "behaviour.input.resume names a state of role completed",
      "behaviour.events.cancel names a state of role completed",
      "behaviour.input.status names a state of role running, input via side-request",
      "the task id a string with a pattern the generated UUIDs break",
      "the task id typed other than a string (e.g. integer)",
      "createdAt or lastUpdatedAt typed other than a string (e.g. integer)",
      "the retention field typed other than a number (e.g. string)",
      "a guard on a boolean field of the task's own (guards.*.type boolean)",
      "guards.*.type=string",
      "a guard on pendingInputs",
    ];
    expect(drawn.filter((r) => composerCoverage(r, ALL_KINDS).kind === undefined)).toEqual([]);
    // What is left to the base specs, counted (docs/spec-format.md gives the figure).
    const names = [...matrix.rows.map((r) => r.path!), ...matrix.combinations.map((c) => c.combination!)];
    const byKind = names.filter((n) => composerCoverage(n, ALL_KINDS).kind !== undefined).length;
    expect(byKind).toBeGreaterThan(100);
  });
});
