/**
 * The layering of generator/: no module imports itself back through others
 * (type-only imports count: they tie modules together just the same), and the
 * checker runs without the emitters. Both read what they share from modules
 * that import neither (emit-names.ts, spec-helpers.ts). The import statements
 * are read with a regex walk, so the test needs nothing beyond the sources.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/cli.js";
import { statusWrites, type StatusWrite } from "./helpers/status-writes.js";

const GENERATOR = join(ROOT, "generator");

/** Every .ts file under `dir`, absolute. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : [],
  );
}

/** A file under generator/ as a module name: its path relative to generator/, with forward slashes. */
const moduleName = (file: string) => relative(GENERATOR, file).split(sep).join("/");

/** The relative specifiers a source imports or re-exports: static, type-only, side-effect and dynamic. */
function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[^]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const out: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s+(?:type\s+)?[^;"'`]*?\s+from\s+["']([^"']+)["']/gm,
    /^\s*import\s+["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) if (m[1]!.startsWith(".")) out.push(m[1]!);
  return out;
}

/** Module → the modules of `root` it imports (a `.js` specifier names the `.ts` module it is compiled from). */
function importGraph(root = GENERATOR): Map<string, string[]> {
  const name = (file: string) => relative(root, file).split(sep).join("/");
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(root).sort()) {
    const deps = specifiers(readFileSync(file, "utf8"))
      .map((s) => join(dirname(file), s).replace(/\.js$/, ".ts"))
      .filter((f) => f.startsWith(root + sep) && existsSync(f))
      .map(name);
    graph.set(name(file), [...new Set(deps)].sort());
  }
  return graph;
}

/** Each import cycle of a graph, as the modules on it in import order back to the first (none: []). */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (n: string): void => {
    state.set(n, "open");
    stack.push(n);
    for (const m of graph.get(n) ?? []) {
      if (state.get(m) === "open") cycles.push([...stack.slice(stack.indexOf(m)), m]);
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, "done");
  };
  for (const n of [...graph.keys()].sort()) if (!state.has(n)) visit(n);
  return cycles;
}

/** Every module `from` reaches through its imports (itself excluded). */
function reachable(graph: ReadonlyMap<string, readonly string[]>, from: string): Set<string> {
  const seen = new Set<string>();
  const queue = [...(graph.get(from) ?? [])];
  while (queue.length) {
    const n = queue.shift()!;
    if (seen.has(n)) continue;
    seen.add(n);
    queue.push(...(graph.get(n) ?? []));
  }
  return seen;
}

describe("the reading of imports", () => {
  it("finds static, type-only, re-exported, side-effect and dynamic imports, and skips comments and packages", () => {
    const src = [
      `import { a } from "./a.js";`,
      `import type { B } from "../b.js";`,
      `import {\n  c,\n  type D,\n} from "./c/index.js";`,
      `export { e } from "./e.js";`,
      `export * from "./f.js";`,
      `export type { G } from "./g.js";`,
      `import "./side.js";`,
      `const h = await import("./h.js");`,
      `import { z } from "zod";`,
      `// import { x } from "./commented.js";`,
      `/* import { y } from "./block.js"; */`,
      `const s = "not an import from './s.js'";`,
    ].join("\n");
    expect(specifiers(src).sort()).toEqual(["../b.js", "./a.js", "./c/index.js", "./e.js", "./f.js", "./g.js", "./h.js", "./side.js"]);
  });

  it("finds a cycle, and none in a graph without one", () => {
    expect(importCycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]))).toEqual([["a", "b", "c", "a"]]);
    expect(importCycles(new Map([["a", ["a"]]]))).toEqual([["a", "a"]]);
    expect(importCycles(new Map([["a", ["b", "c"]], ["b", ["c"]], ["c", []]]))).toEqual([]);
  });

  it("reads the real graph of generator/", () => {
    const graph = importGraph();
    expect(graph.get("pipeline.ts")).toEqual(expect.arrayContaining(["analyze.ts", "emit/index.ts"]));
    expect(graph.get("analyze.ts")).toEqual(expect.arrayContaining(["check/index.ts", "ir.ts", "load.ts"]));
    expect(graph.get("check/index.ts")).toEqual(expect.arrayContaining(["check/types.ts", "check/names.ts"]));
  });
});

describe("generator/", () => {
  const graph = importGraph();

  it("has no import cycle", () => {
    expect(importCycles(graph).map((c) => c.join(" → "))).toEqual([]);
  });

  it("runs the checker without the emitters: nothing generator/check/ imports leads to generator/emit/", () => {
    const offending = [...graph.keys()]
      .filter((m) => m.startsWith("check/"))
      .flatMap((m) => [...reachable(graph, m)].filter((d) => d.startsWith("emit/")).map((d) => `${m} → ${d}`));
    expect(offending).toEqual([]);
    expect(reachable(graph, "check/index.ts")).toContain("emit-names.ts");
  });

  it("analyzes a spec without the emitters: nothing analyze.ts imports (validate's and diff's compiler) leads to generator/emit/", () => {
    expect([...reachable(graph, "analyze.ts")].filter((d) => d.startsWith("emit/"))).toEqual([]);
  });

  it("lowers to the IR without the checker", () => {
    expect([...reachable(graph, "ir.ts")].filter((d) => d.startsWith("check/"))).toEqual([]);
  });
});

describe("runtime/", () => {
  const RUNTIME = join(ROOT, "runtime");
  /** Status writes outside the table interpreter; a store may copy the status it is handed (it persists, never picks). */
  const outsideInterpreter = (writes: readonly StatusWrite[]) =>
    writes.filter((w) => w.file !== "machine.ts" && !(w.file.startsWith("store") && w.copy)).map((w) => `${w.file}:${w.line} ${w.text}`);

  const graph = importGraph(RUNTIME);
  /** Files still over the bound, each with the most lines it may have until it is split (they may only shrink). */
  it("has no file over 600 lines", () => {
    const lines = (f: string) => readFileSync(join(RUNTIME, f), "utf8").split("\n").length - 1;
    const over = [...graph.keys()].filter((f) => lines(f) > 600).map((f) => `${f}: ${lines(f)} lines`);
    expect(over).toEqual([]);
  });

  it("has no import cycle, and no part of the server runtime imports its facade (server.ts)", () => {
    expect(importCycles(graph).map((c) => c.join(" → "))).toEqual([]);
    // What the facade is made of never reaches back to it; only the per-request server, built on it, imports it.
    const parts = reachable(graph, "server.ts");
    expect(parts).toContain("server-core.ts");
    expect(parts.has("server.ts")).toBe(false);
    expect([...graph.keys()].filter((m) => graph.get(m)!.includes("server.ts"))).toEqual(["stateless-dispatch.ts", "stateless-server.ts", "stateless-stdio.ts", "stateless-subscriptions.ts"]);
  });

  it("writes a task's status only in the table interpreter (machine.ts)", () => {
    const writes = statusWrites(RUNTIME);
    expect(outsideInterpreter(writes)).toEqual([]);
    // The interpreter's own writes are found: the check reads what it should.
    expect(writes.some((w) => w.file === "machine.ts")).toBe(true);
  }, 60_000);

  it("finds a status written directly by another module, in each form", () => {
    // A part that imports the store's types, as one that wrote a status would.
    const server = join(RUNTIME, "server-core.ts");
    const planted = [
      readFileSync(server, "utf8"),
      `export function plantedPatch(store: TaskStore) { return store.update("t", "working", { status: "completed" }); }`,
      `export function plantedShorthand(store: TaskStore, status: string) { const patch: TaskPatch = { status }; return store.update("t", "working", patch); }`,
      `export function plantedAssignment(rec: TaskRecord) { rec.status = "completed"; }`,
    ].join("\n");
    const found = outsideInterpreter(statusWrites(RUNTIME, new Map([[server, planted]])));
    expect(found).toHaveLength(3);
    for (const f of found) expect(f).toMatch(/^server-core\.ts:/);
  }, 60_000);
});
