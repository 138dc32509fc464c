/**
 * Hostile strings: spec text is data. Every string a spec declares reaches
 * generated code through one escaping path (generator/emit/escape.ts), so no
 * spec can make generated code run something, nor make `generate` crash.
 *
 * A built-in spec is parsed with `yaml`, and every string in it (values: descriptions,
 * error messages, protocol name and source, the HTTP header, capability strings and
 * paths, meta keys, enum and literal values, example texts, patterns, names, ...) and
 * every mapping key (type, field, context, meta, method names, ...) is replaced, one
 * at a time, by hostile strings. Strings that sit in the same place of the format
 * (e.g. the description of any field of any type) form one slot class; the first
 * SLOTS_PER_CLASS of each class is mutated, which covers every place of the format the
 * spec uses. To keep the run short on two cores, each slot gets 2 of the 9
 * hostile strings, rotating (deterministic), so every string meets every kind of place:
 * 168 slots (135 classes of ext-tasks-2026-07-28, 33 more of mcp-2025-11-25) → 336
 * mutants. HOSTILE_FULL=1 runs the full product (1512 mutants).
 *
 * Each mutant is compiled in-process. It is either refused, with every error located
 * (file:line:col), or it compiles; then:
 *   - every generated .ts file parses (esbuild), and the identifier `__pwned` occurs in
 *     no file as code: only inside string literals and comments (TypeScript's AST);
 *   - README.md keeps its fences and table columns;
 *   - the decisive check: the generated modules are transpiled, written under the repo
 *     (so node_modules resolves) and imported natively by one node process, one mutant
 *     after the other, and `globalThis.__pwned` stays undefined;
 *   - a deterministic sample of mutants is compiled again the way `generate` does it
 *     (prettier included) and type-checked by one `tsc --noEmit --strict` run with the
 *     options of output-samples/tsconfig.json: no error the unmutated output lacks.
 *
 * Bindings still under construction: an emitter that cannot render the unmutated spec
 * and a generated module that cannot be imported for the unmutated spec are left out
 * (and named on stderr); every other generated .ts file is checked. The runtime is the package
 * @mcp-task-gen/runtime (no spec text): imported from its build, not checked.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { transformSync } from "esbuild";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parse as parseYaml } from "yaml";
import { EMITTERS, type VirtualFile } from "../generator/emit/index.js";
import { compile, emit } from "../generator/pipeline.js";
import { resolveSpec } from "../generator/specs.js";
import { ROOT } from "./helpers/cli.js";

vi.setConfig({ testTimeout: 420_000, hookTimeout: 180_000 });

/** The built-in spec that is mutated (the richest: per-request lifecycle, HTTP header, subscriptions, capability paths). */
const SPEC = "ext-tasks-2026-07-28";
/** Also mutated, at fewer places: the spec with a per-tool switch (toolSwitch.field) and an initialize lifecycle. */
const SECOND_SPEC = "mcp-2025-11-25";
const SLOTS_PER_CLASS = 1;
/**
 * Hostile strings per slot: the k-th slot gets the strings j with (k + j) mod 9 < STRINGS_PER_SLOT,
 * so every string meets every kind of slot across the classes. HOSTILE_FULL=1: all of them.
 */
const STRINGS_PER_SLOT = process.env.HOSTILE_FULL === "1" ? Infinity : 2;
/** Mutants type-checked by tsc (spread over every hostile string). */
const TSC_SAMPLE = 9;

const PAYLOAD = "globalThis.__pwned = 1";
/**
 * The hostile strings. A line terminator (newline, U+2028, U+2029) comes with a payload
 * after it, so that a `//` comment it ended would also run something.
 */
const HOSTILE: readonly string[] = [
  `*/ ${PAYLOAD}; /*`,
  "`${" + PAYLOAD + "}",
  `"); ${PAYLOAD}; ("`,
  `'); ${PAYLOAD}; ('`,
  `\n${PAYLOAD}; //`,
  "</script>",
  `\u2028${PAYLOAD}; //`,
  `\u2029${PAYLOAD}; //`,
  "\u0000",
];

type Seg = string | number;
interface Slot {
  path: Seg[];
  /** Rename the mapping key at `path` instead of replacing its value. */
  key: boolean;
  cls: string;
}

/** Maps whose keys are names (so a class stands for any of them). */
const NAME_MAPS = new Set(["types", "fields", "states", "methods", "errors", "meta", "guards", "context", "gates", "augments"]);
/** JSON values of free shape: one class for everything under them. */
const FREE_JSON = new Set(["message", "value"]);

export function slotsOf(doc: unknown): Slot[] {
  const out: Slot[] = [];
  const walk = (v: unknown, path: Seg[], cls: string[], free: boolean) => {
    if (typeof v === "string") out.push({ path, key: false, cls: cls.join(".") });
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i], free ? cls : [...cls, "[]"], free));
    else if (v !== null && typeof v === "object") {
      const parent = path[path.length - 1];
      for (const [k, x] of Object.entries(v)) {
        const named = typeof parent === "string" && NAME_MAPS.has(parent);
        const seg = free ? cls : [...cls, named ? "*" : k];
        // Keys of the format itself (description, type, ...) are not spec text: only names and JSON keys are.
        if (named || free) out.push({ path: [...path, k], key: true, cls: `${seg.join(".")} (key)` });
        const nowFree = free || (FREE_JSON.has(k) && (cls.includes("examples") || cls.includes("capabilities")));
        walk(x, [...path, k], nowFree && !free ? [...seg, "…"] : seg, nowFree);
      }
    }
  };
  walk(doc, [], [], false);
  return out;
}

/** The first SLOTS_PER_CLASS slots of each class, in document order. */
export function sample(slots: Slot[], perClass: number): Slot[] {
  const seen = new Map<string, number>();
  return slots.filter((s) => {
    const n = seen.get(s.cls) ?? 0;
    seen.set(s.cls, n + 1);
    return n < perClass;
  });
}

function mutate(doc: unknown, slot: Slot, hostile: string): unknown {
  const copy = structuredClone(doc) as Record<Seg, unknown>;
  let parent = copy as Record<Seg, unknown>;
  for (const seg of slot.path.slice(0, -1)) parent = parent[seg] as Record<Seg, unknown>;
  const last = slot.path[slot.path.length - 1];
  if (!slot.key) {
    parent[last] = hostile;
    return copy;
  }
  // Rename the key, keeping the order of the mapping.
  const renamed = Object.fromEntries(Object.entries(parent).map(([k, v]) => [k === last ? hostile : k, v]));
  for (const k of Object.keys(parent)) delete parent[k];
  Object.assign(parent, renamed);
  return copy;
}

interface Mutant {
  id: number;
  spec: string;
  slot: Slot;
  hostile: string;
  file: string;
  text: string;
}

const what = (m: Mutant) => `${m.spec} ${m.slot.key ? "key" : "value"} ${m.slot.path.join(".")} = ${JSON.stringify(m.hostile)}`;

/** Markdown structure: fence lines, and the column count of every table row (unescaped pipes). */
function markdownShape(md: string): string {
  const lines = md.split("\n");
  const fences = lines.filter((l) => /^\s*(```|~~~)/.test(l)).length;
  const rows = lines.filter((l) => l.startsWith("|")).map((l) => l.replace(/\\\|/g, "").split("|").length);
  return `${fences} fences; rows ${rows.join(",")}; ${lines.length} lines`;
}

/** Identifiers named __pwned in code (not in strings or comments). */
function pwnedIdentifiers(path: string, text: string): number {
  if (!text.includes("__pwned")) return 0;
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  let n = 0;
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && node.text === "__pwned") n++;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return n;
}

const transpiled = new Map<string, string>();
function transpile(path: string, text: string): string {
  const h = createHash("sha1").update(text).digest("hex");
  let js = transpiled.get(h);
  if (js === undefined) {
    js = transformSync(text, { loader: "ts", format: "esm", target: "es2022", sourcefile: path }).code;
    transpiled.set(h, js);
  }
  return js;
}

const isChecked = (f: VirtualFile) => f.path.endsWith(".ts");

/** The child that imports modules natively, one group after the other, and reports __pwned and failures. */
const IMPORTER = `
import { readFileSync } from "node:fs";
const groups = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = [];
for (const g of groups) {
  const r = { id: g.id, pwned: [], failed: [] };
  for (const url of g.urls) {
    globalThis.__pwned = undefined;
    try {
      await import(url);
    } catch (e) {
      r.failed.push(url + ": " + String(e && e.message || e).split("\\n")[0]);
    }
    if (globalThis.__pwned !== undefined) r.pwned.push(url);
  }
  out.push(r);
}
process.stdout.write(JSON.stringify(out));
`;

let work: string;
beforeAll(() => {
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  work = mkdtempSync(join(ROOT, ".tmp", "hostile-strings-"));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function runImporter(groups: { id: number; urls: string[] }[]): { id: number; pwned: string[]; failed: string[] }[] {
  const script = join(work, "importer.mjs");
  const list = join(work, `groups-${groups[0]?.id ?? 0}.json`);
  writeFileSync(script, IMPORTER);
  writeFileSync(list, JSON.stringify(groups));
  const r = spawnSync(process.execPath, [script, list], { cwd: ROOT, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`the importer failed (${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout) as { id: number; pwned: string[]; failed: string[] }[];
}

/**
 * Writes a mutant's generated modules as .js under `dir` (inside this checkout: they import the runtime
 * package's build from its node_modules); returns their paths.
 */
function writeModules(dir: string, files: readonly VirtualFile[]): string[] {
  mkdirSync(dir, { recursive: true });
  const paths: string[] = [];
  for (const f of files.filter(isChecked)) {
    let js: string;
    try {
      js = transpile(f.path, f.contents);
    } catch {
      continue; // does not parse: reported as such
    }
    const out = join(dir, f.path.replace(/\.ts$/, ".js"));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, js);
    paths.push(f.path);
  }
  return paths;
}

describe(`hostile strings in every place of ${SPEC} (and ${SECOND_SPEC})`, () => {
  it("never crash the compiler, never run, and always type-check", async () => {
    const t0 = Date.now();
    const failures: string[] = [];
    const fail = (m: Mutant | undefined, msg: string) => failures.push(m ? `${what(m)}: ${msg}` : msg);

    // --- The unmutated specs: which emitters and modules the check can cover today. ---
    const base: Record<string, { doc: unknown; hash: string; files: VirtualFile[]; emitters: string[]; readme: string }> = {};
    const excluded: string[] = [];
    for (const name of [SPEC, SECOND_SPEC]) {
      const r = resolveSpec(name, ROOT);
      if (!r.ok) throw new Error(r.message);
      const c = await compile(r.source, { format: false, emitters: ["types"] });
      expect(c.ir, name).toBeDefined();
      const emitters: string[] = [];
      for (const e of EMITTERS) {
        try {
          await emit(c.ir!, { emitters: [e.name], format: false });
          emitters.push(e.name);
        } catch (error) {
          excluded.push(`${name}: emitter ${e.name} (${(error as Error).message.split("\n")[0]})`);
        }
      }
      const files = await emit(c.ir!, { emitters, format: false });
      base[name] = {
        doc: parseYaml(r.source.text),
        hash: c.ir!.spec.hash,
        files,
        emitters,
        readme: markdownShape(files.find((f) => f.path === "README.md")?.contents ?? ""),
      };
    }

    // Modules of the unmutated output that import cleanly: those are imported for every mutant.
    const importable: Record<string, Set<string>> = {};
    {
      const groups = Object.entries(base).map(([name, b], i) => {
        const paths = writeModules(join(work, `base-${i}`), b.files);
        return { id: i, name, paths, urls: paths.map((p) => pathToFileURL(join(work, `base-${i}`, p.replace(/\.ts$/, ".js"))).href) };
      });
      const results = runImporter(groups.map((g) => ({ id: g.id, urls: g.urls })));
      for (const g of groups) {
        const r = results.find((x) => x.id === g.id)!;
        expect(r.pwned, g.name).toEqual([]);
        const failed = new Set(r.failed.map((f) => f.split(": ")[0]));
        importable[g.name] = new Set(g.paths.filter((p, j) => !failed.has(g.urls[j])));
        for (const f of r.failed) excluded.push(`${g.name}: module ${f.slice(f.indexOf(`base-${g.id}/`) + `base-${g.id}/`.length)}`);
      }
    }
    if (excluded.length) process.stderr.write(`hostile-strings: left out for now (they fail on the unmutated spec):\n  ${excluded.join("\n  ")}\n`);

    // --- The mutants. ---
    const mutants: Mutant[] = [];
    const slotCount: Record<string, { slots: number; classes: number; all: number }> = {};
    let slotIndex = 0;
    for (const [name, perClass] of [
      [SPEC, SLOTS_PER_CLASS],
      [SECOND_SPEC, SLOTS_PER_CLASS],
    ] as const) {
      const all = slotsOf(base[name].doc);
      // The second spec: only the classes the first one does not have.
      const known = name === SPEC ? new Set<string>() : new Set(slotsOf(base[SPEC].doc).map((s) => s.cls));
      const chosen = sample(all.filter((s) => !known.has(s.cls)), perClass);
      slotCount[name] = { slots: chosen.length, classes: new Set(chosen.map((s) => s.cls)).size, all: all.length };
      for (const slot of chosen) {
        const k = slotIndex++;
        for (const [j, hostile] of HOSTILE.entries()) {
          if ((k + j) % HOSTILE.length >= STRINGS_PER_SLOT) continue;
          // As JSON (which the loader reads and locates as it does YAML): much faster to write and read.
          const text = JSON.stringify(mutate(base[name].doc, slot, hostile), null, 2);
          mutants.push({ id: mutants.length, spec: name, slot, hostile, file: `hostile/${name}.json`, text });
        }
      }
    }

    let refused = 0;
    const compiled: { m: Mutant; files: VirtualFile[] }[] = [];
    for (const m of mutants) {
      let r;
      try {
        r = await compile({ file: m.file, text: m.text }, { format: false, emitters: base[m.spec].emitters });
      } catch (e) {
        fail(m, `the compiler threw: ${(e as Error).stack?.split("\n").slice(0, 3).join(" | ")}`);
        continue;
      }
      if (!r.files) {
        refused++;
        const errors = r.diagnostics.filter((d) => d.severity === "error");
        if (errors.length === 0) fail(m, "refused without an error");
        for (const d of errors) {
          const l = d.location;
          if (!l || l.file !== m.file || !(l.line >= 1) || !(l.col >= 1)) fail(m, `${d.code} is not located: ${d.message}`);
        }
        continue;
      }
      // The spec's hash is in every header: with the unmutated one's, unchanged modules read the same.
      const hash = r.ir!.spec.hash;
      const baseHash = base[m.spec].hash;
      const files = r.files.map((f) => ({ path: f.path, contents: f.contents.replaceAll(hash, baseHash).replaceAll(hash.slice(0, 16), baseHash.slice(0, 16)) }));
      compiled.push({ m, files });
      for (const f of r.files.filter(isChecked)) {
        try {
          transpile(f.path, f.contents);
        } catch (e) {
          fail(m, `${f.path} does not parse: ${(e as Error).message.split("\n").slice(0, 3).join(" | ")}`);
          continue;
        }
        const n = pwnedIdentifiers(f.path, f.contents);
        if (n > 0) fail(m, `${f.path} has __pwned as code (${n}x)`);
      }
      const readme = r.files.find((f) => f.path === "README.md");
      if (readme && markdownShape(readme.contents) !== base[m.spec].readme) {
        fail(m, `README.md changed shape: ${markdownShape(readme.contents)} (was ${base[m.spec].readme})`);
      }
    }
    const tCompile = Date.now();

    // --- The decisive check: import every mutant's modules; nothing runs. ---
    // A module whose text is the unmutated one's behaves as that one did (imported above):
    // each mutant's changed modules are imported (with whatever they import).
    const groups = compiled.map(({ m, files }) => {
      const dir = join(work, `m${m.id}`);
      const same = new Set(base[m.spec].files.map((f) => `${f.path}\0${f.contents}`));
      const changed = new Set(files.filter((f) => !same.has(`${f.path}\0${f.contents}`)).map((f) => f.path));
      const paths = writeModules(dir, files).filter((p) => importable[m.spec].has(p) && changed.has(p));
      return { id: m.id, urls: paths.map((p) => pathToFileURL(join(dir, p.replace(/\.ts$/, ".js"))).href) };
    });
    const imported = runImporter(groups);
    let importedModules = 0;
    for (const r of imported) {
      const m = mutants[r.id];
      importedModules += groups.find((g) => g.id === r.id)!.urls.length;
      for (const u of r.pwned) fail(m, `importing ${u.slice(u.lastIndexOf(`/m${m.id}/`))} ran the spec's text`);
      for (const u of r.failed) fail(m, `import failed: ${u.slice(u.lastIndexOf(`/m${m.id}/`))}`);
    }
    expect(imported.length).toBe(compiled.length);
    const tImport = Date.now();

    // --- tsc: a sample of mutants, compiled as `generate` does (prettier included), in one run. ---
    const byHostile = HOSTILE.map((h) => compiled.filter((c) => c.m.hostile === h));
    const per = Math.ceil(TSC_SAMPLE / HOSTILE.length);
    const picked = byHostile.flatMap((list) => {
      const n = Math.min(per, list.length);
      return Array.from({ length: n }, (_, i) => list[Math.floor((i * list.length) / n)]);
    });
    const tscDir = join(work, "tsc");
    const options = JSON.parse(readFileSync(join(ROOT, "output-samples", "tsconfig.json"), "utf8")) as { compilerOptions: object };
    mkdirSync(tscDir, { recursive: true });
    // A mutant's modules that read as the unmutated ones are links to those: tsc checks each text once.
    const roots: string[] = [];
    const tscDirs = new Map<string, Mutant | undefined>();
    const baseTs: Record<string, { dir: string; files: Map<string, string> }> = {};
    const writeTs = (dirName: string, files: readonly VirtualFile[], m: Mutant | undefined) => {
      const dir = join(tscDir, dirName);
      mkdirSync(dir, { recursive: true });
      const same = m ? baseTs[m.spec] : undefined;
      for (const f of files.filter(isChecked)) {
        const out = join(dir, f.path);
        mkdirSync(dirname(out), { recursive: true });
        if (same && same.files.get(f.path) === f.contents) symlinkSync(join(same.dir, f.path), out);
        else {
          writeFileSync(out, f.contents);
          roots.push(`${dirName}/${f.path}`);
        }
      }
      tscDirs.set(dirName, m);
    };
    const tFormat = Date.now();
    for (const [i, name] of [SPEC, SECOND_SPEC].entries()) {
      const r = resolveSpec(name, ROOT);
      if (!r.ok) throw new Error(r.message);
      const files = (await compile(r.source, { emitters: base[name].emitters })).files!;
      writeTs(`base${i}`, files, undefined);
      baseTs[name] = { dir: join(tscDir, `base${i}`), files: new Map(files.map((f) => [f.path, f.contents])) };
    }
    for (const { m } of picked) {
      let r;
      try {
        r = await compile({ file: m.file, text: m.text }, { emitters: base[m.spec].emitters });
      } catch (e) {
        fail(m, `the compiler threw while formatting: ${(e as Error).message.split("\n")[0]}`);
        continue;
      }
      const hash = r.ir!.spec.hash;
      const baseHash = base[m.spec].hash;
      const files = r.files!.map((f) => ({ path: f.path, contents: f.contents.replaceAll(hash, baseHash).replaceAll(hash.slice(0, 16), baseHash.slice(0, 16)) }));
      writeTs(`m${m.id}`, files, m);
    }
    writeFileSync(join(tscDir, "tsconfig.json"), JSON.stringify({ compilerOptions: options.compilerOptions, files: roots }, null, 2));
    const tTsc = Date.now();
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const out = spawnSync(process.execPath, [tsc, "-p", tscDir, "--noEmit", "--strict", "--pretty", "false"], {
      cwd: tscDir,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    // file(line,col): error TSxxxx: message → per directory, without the position.
    const errors = new Map<string, Set<string>>();
    for (const line of out.stdout.split("\n")) {
      const e = /^([^/(]+)\/([^(]+)\(\d+,\d+\): error (TS\d+: .*)$/.exec(line.trim());
      if (!e) continue;
      const set = errors.get(e[1]) ?? new Set<string>();
      set.add(`${e[2]}: ${e[3]}`);
      errors.set(e[1], set);
    }
    const baseline = new Set([...(errors.get("base0") ?? []), ...(errors.get("base1") ?? [])]);
    if (baseline.size) process.stderr.write(`hostile-strings: tsc errors of the unmutated output (ignored):\n  ${[...baseline].join("\n  ")}\n`);
    for (const [dirName, m] of tscDirs) {
      if (!m) continue;
      for (const e of errors.get(dirName) ?? []) if (!baseline.has(e)) fail(m, `tsc: ${e}`);
    }
    const tEnd = Date.now();

    const summary = {
      mutants: mutants.length,
      hostileStrings: HOSTILE.length,
      slots: slotCount,
      refused,
      compiled: compiled.length,
      importedModules,
      tsc: { mutants: picked.length, files: roots.length },
      ms: { compile: tCompile - t0, import: tImport - tCompile, format: tTsc - tFormat, tsc: tEnd - tTsc },
    };
    process.stderr.write(`hostile-strings: ${JSON.stringify(summary)}\n`);
    expect(failures.slice(0, 40), `${failures.length} failures`).toEqual([]);
    expect(compiled.length).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    expect(picked.length).toBeGreaterThan(0);
  });
});
