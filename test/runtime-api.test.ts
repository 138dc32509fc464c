/**
 * The runtime package's public API: the subpaths runtime/package.json exports are the only modules that
 * generated code, the scaffold's templates and the docs name, and the API report of each (runtime/api/,
 * api-extractor over the built declarations) is the committed one, so that a change of the public API is
 * a visible diff.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listFiles } from "../generator/fsout.js";
import { compile } from "../generator/pipeline.js";
import { builtinSpecs, resolveSpec } from "../generator/specs.js";
import { apiReports, entryPoints, reportName } from "../scripts/api-report.mjs";

const root = join(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "runtime", "package.json"), "utf8")) as {
  exports: Record<string, unknown>;
  typesVersions: Record<string, Record<string, string[]>>;
};
const PUBLIC = new Set([...entryPoints(), "package.json"]);

/** The runtime subpaths a text names (`@mcp-task-gen/runtime/<subpath>`), with the line of each. */
function runtimePaths(text: string): { path: string; line: number }[] {
  return [...text.matchAll(/@mcp-task-gen\/runtime\/([A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*)/g)].map((m) => ({
    path: m[1]!.replace(/\.$/, ""),
    line: text.slice(0, m.index).split("\n").length,
  }));
}

/** Each naming of a non-public runtime path in the given files, as `file:line: path`. */
function nonPublic(files: readonly { path: string; contents: string }[]): string[] {
  return files.flatMap((f) => runtimePaths(f.contents).filter((p) => !PUBLIC.has(p.path)).map((p) => `${f.path}:${p.line}: @mcp-task-gen/runtime/${p.path}`));
}

const read = (dir: string, keep: (name: string) => boolean) =>
  listFiles(join(root, dir))
    .filter(keep)
    .map((f) => ({ path: join(dir, f), contents: readFileSync(join(root, dir, f), "utf8") }));

describe("the runtime package's entry points", () => {
  it("are named subpaths, each built as ES module and CommonJS with declarations, and typesVersions names the same", () => {
    expect(entryPoints().length).toBeGreaterThan(0);
    expect(Object.keys(pkg.exports)).not.toContain("./*");
    for (const entry of entryPoints()) {
      expect(existsSync(join(root, "runtime", `${entry}.ts`)), entry).toBe(true);
      expect(pkg.exports[`./${entry}`], entry).toEqual({
        import: { types: `./dist/esm/${entry}.d.ts`, default: `./dist/esm/${entry}.js` },
        require: { types: `./dist/cjs/${entry}.d.ts`, default: `./dist/cjs/${entry}.js` },
      });
    }
    expect(pkg.typesVersions).toEqual({ "*": Object.fromEntries(entryPoints().map((e) => [e, [`dist/cjs/${e}.d.ts`]])) });
  });

  it("are the only runtime modules the templates (generated code and the scaffold) import", () => {
    const templates = read("templates", (f) => f.endsWith(".hbs"));
    expect(templates.length).toBeGreaterThan(10);
    expect(templates.flatMap((t) => runtimePaths(t.contents)).length).toBeGreaterThan(0);
    expect(nonPublic(templates)).toEqual([]);
  });

  it("are the only runtime modules the committed output samples import", () => {
    const samples = read("output-samples", (f) => f.endsWith(".ts") || f.endsWith(".md"));
    expect(samples.flatMap((s) => runtimePaths(s.contents)).length).toBeGreaterThan(0);
    expect(nonPublic(samples)).toEqual([]);
  });

  for (const spec of builtinSpecs()) {
    it(`are the only runtime modules a fresh generate of ${spec} imports`, async () => {
      const r = resolveSpec(spec, root);
      if (!r.ok) throw new Error(r.message);
      const { files } = await compile(r.source);
      expect(files!.flatMap((f) => runtimePaths(f.contents)).length).toBeGreaterThan(0);
      expect(nonPublic(files!.map((f) => ({ path: `${spec}/${f.path}`, contents: f.contents })))).toEqual([]);
    });
  }

  it("are the only runtime modules the docs name", () => {
    const docs = [
      ...read("docs", (f) => f.endsWith(".md")),
      ...["README.md", "runtime/README.md"].map((p) => ({ path: p, contents: readFileSync(join(root, p), "utf8") })),
    ];
    expect(nonPublic(docs)).toEqual([]);
  });
});

describe("the runtime's API report (runtime/api/)", () => {
  it("is the one the built declarations give (after an intended change of the public API: `npm run api`, then commit runtime/api/)", async () => {
    const differing = await apiReports({ check: true });
    const message = differing
      .map(({ entry, built }) => {
        const file = join(root, "runtime", "api", reportName(entry));
        if (!existsSync(file)) return `runtime/api/${reportName(entry)} is missing`;
        const committed = readFileSync(file, "utf8").split("\n");
        const now = built.split("\n");
        const at = now.findIndex((l, i) => l !== committed[i]);
        return `@mcp-task-gen/runtime/${entry}: its public API differs from runtime/api/${reportName(entry)} from line ${at + 1}:\n  committed: ${committed[at] ?? "(end)"}\n  built:     ${now[at] ?? "(end)"}`;
      })
      .join("\n");
    expect(differing.map((d) => d.entry), `${message}\nThe public API of the runtime changed. If that is intended, run \`npm run api\` and commit runtime/api/.`).toEqual([]);
    // No report of an entry point the package no longer exports.
    expect(readdirSync(join(root, "runtime", "api")).sort()).toEqual(entryPoints().map(reportName).sort());
  });
});
