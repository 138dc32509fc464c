/**
 * The layering of generator/: no module imports itself back through others
 * (type-only imports count: they tie modules together just the same), and the
 * checker runs without the emitters. Both read what they share from modules
 * that import neither (emit-names.ts, spec-helpers.ts). The import statements
 * are read with a regex walk, so the test needs nothing beyond the sources.
 * Nor has scripts/ or bench/ an import cycle (nor the imports across them and
 * generator/ and runtime/), and no source file outside test/ is over 600 lines.
 *
 * The server runtime is a composition: `TaskRuntime` (runtime/server.ts) owns its parts, the other
 * runtime/server-*.ts modules, and gives each at construction the interfaces it needs, named in
 * runtime/server-parts.ts. The rules held here: no class under runtime/ extends another class declared
 * under runtime/ (the SDK's classes and Error may be extended); a part module imports no other part
 * module, not even for a type (parts know each other only through the interfaces of server-parts.ts,
 * which it imports for types only, and server-api.ts, the public types and helpers they share); and
 * only the facade imports the parts.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

/** What is not a project source where sources live: installed packages, build output, generated samples. */
const NOT_SOURCES = new Set(["node_modules", "dist", "output-samples"]);

/** Every source file (.ts, .mjs, .js; declarations aside) under `dir`, absolute, skipping NOT_SOURCES. */
function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? NOT_SOURCES.has(e.name)
        ? []
        : sourceFiles(join(dir, e.name))
      : /\.(ts|mjs|js)$/.test(e.name) && !e.name.endsWith(".d.ts")
        ? [join(dir, e.name)]
        : [],
  );
}

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

/**
 * Module → the modules among `files` it imports, each named by its path relative to `root` (a `.js`
 * specifier names the `.ts` module it is compiled from, where there is one).
 */
function importGraph(root = GENERATOR, files = tsFiles(root)): Map<string, string[]> {
  const name = (file: string) => relative(root, file).split(sep).join("/");
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of [...files].sort()) {
    const deps = specifiers(readFileSync(file, "utf8"))
      .map((s) => join(dirname(file), s))
      .map((f) => [f.replace(/\.js$/, ".ts"), f].find((c) => known.has(c)))
      .filter((f) => f !== undefined)
      .map(name);
    graph.set(name(file), [...new Set(deps)].sort());
  }
  return graph;
}

/** The most lines a source file outside test/ may have. */
const MAX_LINES = 600;


/** The source files under `root`'s source folders with more than MAX_LINES lines, as `path: N lines` (path relative to `root`). */
function oversized(root: string): string[] {
  const lines = (f: string) => readFileSync(f, "utf8").split("\n").length - 1;
  return ["generator", "runtime", "scripts", "bench", "bin", "templates"]
    .flatMap((d) => sourceFiles(join(root, d)))
    .map((f) => ({ file: relative(root, f).split(sep).join("/"), n: lines(f) }))
    .filter((f) => f.n > MAX_LINES)
    .map((f) => `${f.file}: ${f.n} lines`)
    .sort();
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

/** `class A extends B` declarations of a source, as [A, B] (B as written, without its type arguments). */
function extendsClauses(source: string): Array<[string, string]> {
  const code = source.replace(/\/\*[^]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(/\bclass\s+([A-Za-z_$][\w$]*)(?:\s*<[^{]*?>)?\s+extends\s+([A-Za-z_$][\w$.]*)/g)].map((m) => [m[1]!, m[2]!]);
}

/** Each runtime class extending a class declared in the runtime, as `file: A extends B` (`sources`: file → text). */
function runtimeSubclasses(sources: ReadonlyMap<string, string>): string[] {
  const declared = new Set<string>();
  for (const text of sources.values()) for (const m of text.matchAll(/\bclass\s+([A-Za-z_$][\w$]*)/g)) declared.add(m[1]!);
  const out: string[] = [];
  for (const [file, text] of [...sources].sort()) for (const [a, b] of extendsClauses(text)) if (declared.has(b)) out.push(`${file}: ${a} extends ${b}`);
  return out;
}

/** What the parts of the server runtime may all import: their interfaces (types only) and the public types and helpers. */
const SHARED_PART_MODULES = new Set(["server-parts.ts", "server-api.ts"]);
const isPart = (m: string) => /^server-.+\.ts$/.test(m) && !SHARED_PART_MODULES.has(m);

/**
 * The imports that break the composition of the server runtime, as `from → to`: a part importing another
 * part, anything but the facade (server.ts) importing a part, a value import of server-parts.ts.
 */
function partReaches(graph: ReadonlyMap<string, readonly string[]>, sources: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [m, deps] of [...graph].sort()) {
    for (const d of deps) if (isPart(d) && m !== "server.ts") out.push(`${m} → ${d}`);
    const code = (sources.get(m) ?? "").replace(/\/\*[^]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const x of code.matchAll(/^\s*(import|export)\s+(type\s+)?[^;"'`]*?\s+from\s+["']\.\/server-parts\.js["']/gm)) if (x[2] === undefined) out.push(`${m} → server-parts.ts (a value import)`);
  }
  return out;
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

  it("reads the imports between scripts/ and bench/, of .mjs files too", () => {
    const graph = importGraph(ROOT, [...sourceFiles(join(ROOT, "scripts")), ...sourceFiles(join(ROOT, "bench"))]);
    expect(graph.get("bench/first-call.mjs")).toContain("scripts/footprint.mjs");
    expect(graph.get("scripts/mutants.ts")).toContain("scripts/mutants/catalogue.ts");
    expect(graph.get("bench/child.ts")).toEqual(expect.arrayContaining(["bench/validators.ts", "bench/store.ts"]));
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

  it("emits an analysed spec without the loader or the checker (output.ts, precompiled.ts: a built-in spec's generate; that it loads no zod either, test/cli-loading.test.ts traces)", () => {
    for (const m of ["output.ts", "precompiled.ts"]) {
      expect([...reachable(graph, m)].filter((d) => d.startsWith("check/") || ["load.ts", "analyze.ts", "pipeline.ts"].includes(d)), m).toEqual([]);
    }
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
    // What the facade is made of never reaches back to it; only the bindings built on it (the per-request server, McpServer adoption) import it.
    const parts = reachable(graph, "server.ts");
    expect(parts).toContain("server-core.ts");
    expect(parts.has("server.ts")).toBe(false);
    expect([...graph.keys()].filter((m) => graph.get(m)!.includes("server.ts"))).toEqual(["mcp-server.ts", "stateless-dispatch.ts", "stateless-server.ts", "stateless-stdio.ts", "stateless-subscriptions.ts"]);
  });

  it("is a composition: no runtime class extends another, no part of the server runtime reaches another but through what it was given", () => {
    const sources = new Map([...graph.keys()].map((m) => [m, readFileSync(join(RUNTIME, m), "utf8")]));
    expect(runtimeSubclasses(sources)).toEqual([]);
    expect(partReaches(graph, sources)).toEqual([]);
    // The facade owns the parts: it imports each of them.
    const parts = [...graph.keys()].filter(isPart);
    expect(parts).toEqual(expect.arrayContaining(["server-core.ts", "server-creation.ts", "server-dispatch.ts", "server-execution.ts", "server-queue.ts"]));
    expect(graph.get("server.ts")).toEqual(expect.arrayContaining(parts));
  });

  it("finds a runtime class extending another, and a part reaching another, in each form", () => {
    const planted = new Map([
      ["a.ts", "export class Base {}\nexport class Err extends Error {}"],
      ["b.ts", "// class Commented extends Base {}\nexport class Sub<T extends string = string> extends Base {}\nclass Ok extends Server {}"],
    ]);
    expect(runtimeSubclasses(planted)).toEqual(["b.ts: Sub extends Base"]);
    const graph = new Map([
      ["server.ts", ["server-core.ts", "server-parts.ts"]],
      ["server-creation.ts", ["server-core.ts", "server-parts.ts", "server-api.ts"]],
      ["server-core.ts", ["server-parts.ts"]],
      ["mcp-server.ts", ["server-dispatch.ts"]],
    ]);
    const texts = new Map([
      ["server-core.ts", `import type { Steps } from "./server-parts.js";`],
      ["server-creation.ts", `import { type Steps } from "./server-parts.js";`],
    ]);
    expect(partReaches(graph, texts)).toEqual(["mcp-server.ts → server-dispatch.ts", "server-creation.ts → server-core.ts", "server-creation.ts → server-parts.ts (a value import)"]);
  });

  it("leaves the choice of a state to the interpreter, which reads no clock and takes guard names from the generated table", () => {
    // The per-purpose states of the plan and the descriptor's first state of each role are for readers:
    // no module of the runtime but the plan that names them reads them to pick where a task goes.
    const declarationOrder = /\bstates\.roles\b|\bstatus\.(running|completed|failed|cancelled|input|resume|onProtocolError|onUnexpected|onRestart)\b/;
    const readers = [...graph.keys()]
      .filter((m) => m !== "plan.ts")
      .flatMap((m) => readFileSync(join(RUNTIME, m), "utf8").split("\n").map((line, i) => ({ m, line, i })))
      .filter((x) => declarationOrder.test(x.line.replace(/\/\/.*$/, "")) && !/^\s*(\*|\/\*\*)/.test(x.line))
      .map((x) => `${x.m}:${x.i + 1} ${x.line.trim()}`);
    expect(readers).toEqual([]);
    const machine = readFileSync(join(RUNTIME, "machine.ts"), "utf8");
    expect(machine).not.toMatch(/Date\.now\(|new Date\(|performance\.now\(/);
    expect(machine).not.toMatch(/assertTransition|catch\s*\(/);
    expect(machine).toMatch(/machine\.guards\[/);
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
      `import type { TaskPatch as PlantedPatch, TaskRecord as PlantedRecord, TaskStore as PlantedStore } from "./store.js";`,
      `export function plantedPatch(store: PlantedStore) { return store.update("t", "working", { status: "completed" }); }`,
      `export function plantedShorthand(store: PlantedStore, status: string) { const patch: PlantedPatch = { status }; return store.update("t", "working", patch); }`,
      `export function plantedAssignment(rec: PlantedRecord) { rec.status = "completed"; }`,
    ].join("\n");
    const found = outsideInterpreter(statusWrites(RUNTIME, new Map([[server, planted]])));
    expect(found).toHaveLength(3);
    for (const f of found) expect(f).toMatch(/^server-core\.ts:/);
  }, 60_000);
});

describe("scripts/ and bench/", () => {
  it("have no import cycle, within either, nor across them and generator/ and runtime/", () => {
    const graph = importGraph(ROOT, ["generator", "runtime", "scripts", "bench"].flatMap((d) => sourceFiles(join(ROOT, d))));
    expect(importCycles(graph).map((c) => c.join(" → "))).toEqual([]);
  });
});

describe("the size of source files", () => {
  it("has no source file outside test/ over 600 lines", () => {
    expect(oversized(ROOT)).toEqual([]);
  });

  it("names each source file over the bound with its line count, wherever it is, and skips what is no source", () => {
    const root = mkdtempSync(join(tmpdir(), "mtg-architecture-"));
    try {
      const plant = (path: string, n: number) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), "x;\n".repeat(n));
      };
      plant("generator/emit/big.ts", 601);
      plant("scripts/tool.mjs", 700);
      plant("bin/cli.js", 601);
      plant("bench/within.ts", 600);
      plant("templates/init/x.ts", 601);
      for (const skipped of ["runtime/node_modules/p/index.js", "runtime/dist/server.js", "scripts/output-samples/s/server.ts", "generator/types.d.ts", "templates/server.ts.hbs", "test/big.test.ts"]) plant(skipped, 900);
      expect(oversized(root)).toEqual(["bin/cli.js: 601 lines", "generator/emit/big.ts: 601 lines", "scripts/tool.mjs: 700 lines", "templates/init/x.ts: 601 lines"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
