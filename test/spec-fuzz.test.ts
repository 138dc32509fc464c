/**
 * Spec fuzzing: the compiler either refuses a spec with located diagnostics or
 * generates code that passes `tsc --strict`; it never throws and never hangs.
 *
 * Mutants of the built-in specs are generated with fast-check from a fixed seed:
 * each parses a built-in spec (YAML → data), mutates one random node (deletes a
 * key, swaps a value's type, copies a subtree over another, duplicates a name,
 * nests deeply, adds a huge enum, union or object, renames a type or the status
 * type to a name the generated code declares, puts odd strings in values and
 * keys) and dumps it back as YAML or JSON. A fixed list of mutants that once
 * broke the compiler comes first.
 *
 * Each mutant is compiled in-process (without prettier, which cannot change what
 * type-checks) under a per-mutant time bound. A refused mutant must carry at
 * least one error, every error located at file:line:col. A compiled mutant is
 * written out (modules identical to the unmutated output as links to it, so tsc
 * reads each text once; runtime/ shared), and the compiled mutants are
 * type-checked in batches, one `tsc --noEmit --strict` run per batch with the
 * options of output-samples/tsconfig.json.
 *
 * SPEC_FUZZ_RUNS sets the number of random mutants (default 200, under a minute
 * on two cores); SPEC_FUZZ_SEED the seed.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { templateTopLevelNames, type VirtualFile } from "../generator/emit/index.js";
import { RUNTIME_DIR } from "../generator/emit/runtime.js";
import { compile } from "../generator/pipeline.js";
import { builtinSpecs, resolveSpec } from "../generator/specs.js";
import { ROOT } from "./helpers/cli.js";

const RUNS = Number(process.env.SPEC_FUZZ_RUNS ?? 200);
const SEED = Number(process.env.SPEC_FUZZ_SEED ?? 20260728);
/** A mutant whose compilation takes longer than this is a hang. */
const MUTANT_MS = 15_000;
/** Compiled mutants per tsc run. */
const TSC_BATCH = 100;

vi.setConfig({ testTimeout: Math.max(300_000, RUNS * 2_000), hookTimeout: 120_000 });

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Doc = { [k: string]: Json };
type Seg = string | number;

interface Mutant {
  id: number;
  spec: string;
  what: string;
  text: string;
  json: boolean;
}

// ---------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------

/** Every node of a document with its path (mapping values and list items), without recursion. */
function nodes(doc: Json): { path: Seg[]; value: Json }[] {
  const out: { path: Seg[]; value: Json }[] = [];
  const stack: { path: Seg[]; value: Json }[] = [{ path: [], value: doc }];
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n);
    const v = n.value;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push({ path: [...n.path, i], value: x }));
    else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) stack.push({ path: [...n.path, k], value: x });
  }
  return out.reverse();
}

function parentOf(doc: Json, path: Seg[]): { parent: Record<Seg, Json>; last: Seg } {
  let p = doc as Record<Seg, Json>;
  for (const s of path.slice(0, -1)) p = p[s] as Record<Seg, Json>;
  return { parent: p, last: path[path.length - 1]! };
}

function setAt(doc: Json, path: Seg[], value: Json): void {
  if (path.length === 0) return;
  const { parent, last } = parentOf(doc, path);
  parent[last] = value;
}

/** Rename a mapping key in place, keeping the order of the mapping. */
function renameKey(obj: Record<string, Json>, from: string, to: string): void {
  const entries = Object.entries(obj).map(([k, v]): [string, Json] => [k === from ? to : k, v]);
  for (const k of Object.keys(obj)) delete obj[k];
  for (const [k, v] of entries) Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Replace every reference to a type name (plain, ref, shorthand with [] and ?) by another. */
function renameType(doc: Doc, from: string, to: string): void {
  const re = new RegExp(`^${from}((?:\\[\\])*\\??)$`);
  for (const n of nodes(doc)) if (typeof n.value === "string" && re.test(n.value)) setAt(doc, n.path, n.value.replace(re, `${to}$1`));
  const types = doc.types as Record<string, Json> | undefined;
  if (types && from in types) renameKey(types, from, to);
  if (doc.statusType === from) doc.statusType = to;
}

const ODD_STRINGS = [
  "",
  " ",
  "constructor",
  "__proto__",
  "toString",
  "prototype",
  "hasOwnProperty",
  "0",
  "1e400",
  "-",
  "{x}",
  "${x}",
  "Task",
  "TaskStatus",
  "completed",
  "tasks/get",
  "\u0000",
  "😀 ünïcödé",
  "a".repeat(5_000),
  "line\nbreak",
  "*/",
];
const SWAP_VALUES: Json[] = [null, [], {}, 0, -1, 1.5, 1e300, true, false, "x", "Task", "completed", "string[]", "{x}", [1, "a"], { type: "string" }];

/** Names the generated code declares, plus names derived from a spec's own: a renamed type may take one. */
function generatedNames(doc: Doc): string[] {
  const fixed = [...templateTopLevelNames().values()].flatMap((n) => [...n.exported, ...n.bindings]).filter((n) => /^[A-Z][A-Za-z0-9_]*$/.test(n));
  const types = Object.keys((doc.types as Record<string, Json>) ?? {});
  const methods = Object.values((doc.methods as Record<string, { name?: string }>) ?? {}).flatMap((m) => (m?.name ? [`${m.name}Request`, `${m.name}Params`, `${m.name}Result`] : []));
  return [
    ...new Set([
      ...fixed,
      "Record",
      "Array",
      "Status",
      "Terminal",
      "ResultObject",
      "PATTERN_1",
      "EmptyParams",
      "Readonly",
      String(doc.statusType ?? "TaskStatus"),
      ...types.map((t) => `${t}Schema`),
      ...methods,
      ...methods.map((m) => `${m}Schema`),
    ]),
  ];
}

type Mutation = (doc: Doc, r: Rand) => string;

/** Choices drawn by fast-check, consumed in order. */
class Rand {
  private i = 0;
  constructor(private readonly xs: readonly number[]) {}
  /** An integer in [0, n). */
  int(n: number): number {
    const x = this.xs[this.i++ % this.xs.length]!;
    return n <= 0 ? 0 : Math.floor(x * n) % n;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
}

const containers = (doc: Doc) => nodes(doc).filter((n) => n.value !== null && typeof n.value === "object");
const maps = (doc: Doc) => nodes(doc).filter((n) => n.value !== null && typeof n.value === "object" && !Array.isArray(n.value) && Object.keys(n.value).length > 0);
const strings = (doc: Doc) => nodes(doc).filter((n) => typeof n.value === "string");
const NAME_MAPS = ["types", "states", "methods", "errors", "meta", "guards"];

const MUTATIONS: Record<string, Mutation> = {
  deleteKey(doc, r) {
    const m = r.pick(maps(doc));
    const k = r.pick(Object.keys(m.value as object));
    delete (m.value as Record<string, Json>)[k];
    return `delete ${[...m.path, k].join(".")}`;
  },
  swapType(doc, r) {
    const n = r.pick(nodes(doc).filter((x) => x.path.length > 0));
    const v = r.pick(SWAP_VALUES);
    setAt(doc, n.path, structuredClone(v));
    return `${n.path.join(".")} = ${JSON.stringify(v)}`;
  },
  copySubtree(doc, r) {
    const all = nodes(doc).filter((x) => x.path.length > 0);
    const from = r.pick(all);
    const to = r.pick(all);
    if (to.path.slice(0, from.path.length).join("\0") === from.path.join("\0")) return "copy (no-op)";
    setAt(doc, to.path, structuredClone(from.value));
    return `${to.path.join(".")} = copy of ${from.path.join(".")}`;
  },
  duplicateName(doc, r) {
    // A name declared twice in one mapping (written into the text: data cannot hold it).
    const section = r.pick(NAME_MAPS.filter((s) => doc[s] && Object.keys(doc[s] as object).length >= 2));
    if (!section) return "duplicate (no-op)";
    const keys = Object.keys(doc[section] as object);
    const a = r.pick(keys);
    const b = r.pick(keys.filter((k) => k !== a));
    renameKey(doc[section] as Record<string, Json>, b, `DUPLICATE_OF_${a}`);
    return `duplicate ${section}.${a}`;
  },
  deepNesting(doc, r) {
    const depth = r.pick([10, 33, 50, 70, 1_000]);
    const kind = r.pick(["list", "shorthand", "arrayType", "objectType"]);
    const name = `Deep${depth}`;
    const types = (doc.types ??= {}) as Record<string, Json>;
    if (kind === "list") {
      const n = r.pick(nodes(doc).filter((x) => x.path.length > 0));
      let v: Json = "x";
      for (let i = 0; i < depth; i++) v = [v];
      setAt(doc, n.path, v);
      return `${n.path.join(".")} = ${depth} nested lists`;
    }
    if (kind === "shorthand") types[name] = `string${"[]".repeat(depth)}`;
    else {
      let t: Json = "integer";
      for (let i = 0; i < Math.min(depth, 200); i++) t = kind === "arrayType" ? { type: "array", items: t } : { type: "object", fields: { f: t } };
      types[name] = t;
    }
    return `type ${name}: ${kind} nested ${depth}`;
  },
  hugeList(doc, r) {
    const n = r.pick([17, 65, 300, 3_000]);
    const kind = r.pick(["enum", "union", "strictObject", "states"]);
    const types = (doc.types ??= {}) as Record<string, Json>;
    const values = Array.from({ length: n }, (_, i) => `v${i}`);
    if (kind === "enum") types.Huge = { type: "enum", values };
    else if (kind === "union") types.Huge = { type: "union", variants: values.map((v) => ({ type: "literal", value: v })) };
    else if (kind === "strictObject") types.Huge = { type: "object", strict: true, fields: Object.fromEntries(values.map((v) => [v, r.pick(["string?", "integer", "unknown", "Huge2?"])])) };
    else {
      // An enum field of the task: the status type's enum stays, a big one is added to a field.
      const task = (types.Task as { fields?: Record<string, Json> } | undefined)?.fields;
      if (task) task.huge = { type: "enum", values, optional: true };
    }
    if (kind === "strictObject") types.Huge2 = "string";
    return `${kind} of ${n}`;
  },
  generatedName(doc, r) {
    const to = r.pick(generatedNames(doc));
    const types = Object.keys((doc.types as object) ?? {});
    const target = r.int(4);
    if (target === 0) {
      doc.statusType = to;
      return `statusType = ${to}`;
    }
    if (target === 1) {
      ((doc.types ??= {}) as Record<string, Json>)[to] = r.pick(["string", { type: "object", fields: { a: "integer" } }]);
      return `add type ${to}`;
    }
    const from = r.pick(types);
    if (!from) return "rename (no-op)";
    renameType(doc, from, to);
    return `rename type ${from} → ${to}`;
  },
  oddString(doc, r) {
    const odd = r.pick(ODD_STRINGS);
    if (r.int(2) === 0) {
      const n = r.pick(strings(doc));
      if (!n) return "odd (no-op)";
      setAt(doc, n.path, odd);
      return `${n.path.join(".")} = ${JSON.stringify(odd.slice(0, 20))}`;
    }
    const m = r.pick(maps(doc));
    const k = r.pick(Object.keys(m.value as object));
    renameKey(m.value as Record<string, Json>, k, odd);
    return `key ${[...m.path, k].join(".")} → ${JSON.stringify(odd.slice(0, 20))}`;
  },
  selfReference(doc, r) {
    const types = Object.keys((doc.types as object) ?? {});
    const t = r.pick(types);
    if (!t) return "self (no-op)";
    const other = r.pick(types);
    const shape = r.pick([
      { type: "union", variants: [t, "string"] },
      { type: "union", variants: [other, "null"] },
      { type: "ref", ref: other },
      other,
      `${t}[]`,
      { type: "record", values: t },
    ]);
    (doc.types as Record<string, Json>)[t] = shape as Json;
    return `type ${t} = ${JSON.stringify(shape)}`;
  },
};
const KINDS = Object.keys(MUTATIONS);

/** The mutants that once broke the compiler, always run first. */
const KNOWN: [string, string, (doc: Doc) => void][] = [
  ["mcp-2025-11-25", "error context key 'constructor'", (d) => {
    const e = Object.values(d.errors as Record<string, { context?: Record<string, Json>; message: string }>)[0]!;
    e.context = { ...(e.context ?? {}), constructor: "string" };
    e.message += " {constructor}";
  }],
  ["ext-tasks-2026-07-28", "terminal state with role unknown", (d) => void (((d.states as Record<string, { role: string }>).failed!.role = "unknown"))],
  ["mcp-2025-11-25", "capabilities.client: false", (d) => void (((d.behaviour as { capabilities: Record<string, Json> }).capabilities.client = false))],
  ["ext-tasks-2026-07-28", "capabilities.client: false", (d) => void (((d.behaviour as { capabilities: Record<string, Json> }).capabilities.client = false))],
  ["mcp-2025-11-25", "type TaskRuntime", (d) => void ((d.types as Doc).TaskRuntime = "string")],
  ["mcp-2025-11-25", "type Record", (d) => void ((d.types as Doc).Record = "string")],
  ["mcp-2025-11-25", "type BEHAVIOUR", (d) => void ((d.types as Doc).BEHAVIOUR = "string")],
  ["mcp-2025-11-25", "type DESCRIPTOR", (d) => void ((d.types as Doc).DESCRIPTOR = "string")],
  ["mcp-2025-11-25", "type GetTaskRequestSchema", (d) => void ((d.types as Doc).GetTaskRequestSchema = "string")],
  ["sep-1686-draft", "statusType STATES", (d) => void (d.statusType = "STATES")],
  ["sep-1686-draft", "type Status (guard isStatus)", (d) => void ((d.types as Doc).Status = "string")],
  ["mcp-2025-11-25", "a union that contains itself", (d) => void ((d.types as Doc).Loop = { type: "union", variants: ["Loop", "string"] })],
  ["mcp-2025-11-25", "string[] nested 50 deep", (d) => void ((d.types as Doc).Deep = `string${"[]".repeat(50)}`)],
  ["mcp-2025-11-25", "a required field added to the get params", (d) => {
    ((d.types as { GetTaskRequestParams: { fields: Doc } }).GetTaskRequestParams.fields.extra = "string");
  }],
  ["ext-tasks-2026-07-28", "a typed error context", (d) => {
    (d.errors as { rateLimited: { context: Doc } }).rateLimited.context.operation = { type: "object", fields: { a: "Task" } };
  }],
  ["mcp-2025-11-25", "a 3,000-value enum", (d) => void ((d.types as Doc).Big = { type: "enum", values: Array.from({ length: 3_000 }, (_, i) => `v${i}`) })],
  ["ext-tasks-2026-07-28", "a strict object of 3,000 fields", (d) => {
    (d.types as Doc).Wide = { type: "object", strict: true, fields: Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`f${i}`, "string?"])) };
  }],
  ["sep-1686-draft", "a union of 3,000 variants", (d) => {
    (d.types as Doc).Many = { type: "union", variants: Array.from({ length: 3_000 }, (_, i) => ({ type: "literal", value: i })) };
  }],
  ["mcp-2025-11-25", "1,000 nested lists", (d) => {
    let v: Json = 1;
    for (let i = 0; i < 1_000; i++) v = [v];
    (d as Doc).description = v;
  }],
  ["ext-tasks-2026-07-28", "a chain of 8,000 object types by `extends`", (d) => {
    for (let i = 0; i < 8_000; i++) (d.types as Doc)[`Chain${i}`] = { type: "object", ...(i + 1 < 8_000 ? { extends: [`Chain${i + 1}`] } : {}), fields: { [`f${i}`]: "string" } };
  }],
  ["sep-1686-draft", "a chain of 2,000 aliases", (d) => {
    for (let i = 0; i < 2_000; i++) (d.types as Doc)[`Alias${i}`] = i + 1 < 2_000 ? `Alias${i + 1}` : "string";
  }],
  ["mcp-2025-11-25", "a chain of 300 object types by optional fields", (d) => {
    for (let i = 0; i < 300; i++) (d.types as Doc)[`Link${i}`] = { type: "object", fields: { next: i + 1 < 300 ? `Link${i + 1}?` : "string" } };
  }],
  ["mcp-2025-11-25", "a mapping of 10,000 keys", (d) => {
    d.guards = { ...(d.guards as Doc), ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`g${i}`, { field: "count", atLeast: i }])) };
  }],
];

function dump(doc: Doc, asJson: boolean): string {
  const text = asJson ? JSON.stringify(doc, null, 1) : toYaml(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
  // A name declared twice: the placeholder key becomes the name it repeats.
  return text.replace(/DUPLICATE_OF_([A-Za-z0-9_/]+)/g, "$1");
}

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------

let work: string;
beforeAll(() => {
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  work = mkdtempSync(join(ROOT, ".tmp", "spec-fuzz-"));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const isChecked = (f: VirtualFile) => f.path.endsWith(".ts") && !f.path.startsWith(`${RUNTIME_DIR}/`);

describe("spec fuzzing: mutants of the built-in specs", () => {
  it(`are refused with located diagnostics or generate code that passes tsc --strict (${RUNS} random mutants, seed ${SEED})`, async () => {
    const t0 = Date.now();
    const specs = builtinSpecs();
    const base: Record<string, { doc: Doc; hash: string; files: Map<string, string>; dir: string }> = {};
    const runtimeDir = join(work, "runtime");
    const tscDir = join(work, "tsc");
    mkdirSync(tscDir, { recursive: true });
    for (const [i, name] of specs.entries()) {
      const r = resolveSpec(name, ROOT);
      if (!r.ok) throw new Error(r.message);
      const c = await compile(r.source, { format: false });
      expect(c.files, name).toBeDefined();
      for (const f of c.files!.filter((x) => x.path.startsWith(`${RUNTIME_DIR}/`))) {
        const out = join(runtimeDir, f.path.slice(RUNTIME_DIR.length + 1));
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, f.contents);
      }
      base[name] = { doc: parseYaml(r.source.text) as Doc, hash: c.ir!.spec.hash, files: new Map(c.files!.map((f) => [f.path, f.contents])), dir: `base${i}` };
    }

    // --- the mutants ---
    const mutants: Mutant[] = [];
    for (const [spec, what, mutate] of KNOWN) {
      const doc = structuredClone(base[spec]!.doc);
      mutate(doc);
      const json = what.includes("nested lists");
      mutants.push({ id: mutants.length, spec, what: `known: ${what}`, text: dump(doc, json), json });
    }
    const arb = fc.record({
      spec: fc.constantFrom(...specs),
      kind: fc.constantFrom(...KINDS),
      choices: fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 8, maxLength: 8 }),
      json: fc.boolean(),
    });
    for (const s of fc.sample(arb, { seed: SEED, numRuns: RUNS })) {
      const doc = structuredClone(base[s.spec]!.doc);
      const what = `${s.kind}: ${MUTATIONS[s.kind]!(doc, new Rand(s.choices))}`;
      const json = s.json || what.includes("1000");
      mutants.push({ id: mutants.length, spec: s.spec, what, text: dump(doc, json), json });
    }

    // --- compile each ---
    const failures: string[] = [];
    const fail = (m: Mutant, msg: string) => failures.push(`#${m.id} ${m.spec} ${m.what}: ${msg}`);
    let refused = 0;
    let crashes = 0;
    let hangs = 0;
    let slowest = 0;
    const compiled: { m: Mutant; files: VirtualFile[] }[] = [];
    for (const m of mutants) {
      const file = `fuzz/${m.spec}.${m.json ? "json" : "yaml"}`;
      const start = Date.now();
      let r;
      try {
        r = await compile({ file, text: m.text }, { format: false });
      } catch (e) {
        crashes++;
        fail(m, `the compiler threw: ${(e as Error).stack?.split("\n").slice(0, 3).join(" | ")}`);
        continue;
      }
      const ms = Date.now() - start;
      slowest = Math.max(slowest, ms);
      if (ms > MUTANT_MS) {
        hangs++;
        fail(m, `took ${ms} ms (bound ${MUTANT_MS} ms)`);
      }
      if (!r.files) {
        refused++;
        const errors = r.diagnostics.filter((d) => d.severity === "error");
        if (errors.length === 0) fail(m, "refused without an error");
        for (const d of errors) {
          const l = d.location;
          if (!l || l.file !== file || !(l.line >= 1) || !(l.col >= 1)) fail(m, `${d.code} is not located: ${d.message}`);
          if (/Maximum call stack|RangeError|TypeError|undefined is not/.test(d.message)) fail(m, `${d.code} reports an internal error: ${d.message}`);
        }
        continue;
      }
      // The spec's hash is in every header: with the unmutated one's, unchanged modules read the same.
      const hash = r.ir!.spec.hash;
      const baseHash = base[m.spec]!.hash;
      const files = r.files.filter(isChecked).map((f) => ({ path: f.path, contents: f.contents.replaceAll(hash, baseHash).replaceAll(hash.slice(0, 16), baseHash.slice(0, 16)) }));
      compiled.push({ m, files });
    }
    const tCompile = Date.now();

    // --- type-check the compiled ones, in batches ---
    const options = JSON.parse(readFileSync(join(ROOT, "output-samples", "tsconfig.json"), "utf8")) as { compilerOptions: object };
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const writeOutput = (dirName: string, files: Iterable<[string, string]>, same: { dir: string; files: Map<string, string> } | undefined, roots: string[]) => {
      const dir = join(tscDir, dirName);
      mkdirSync(dir, { recursive: true });
      symlinkSync(runtimeDir, join(dir, RUNTIME_DIR), "dir");
      for (const [path, contents] of files) {
        if (!path.endsWith(".ts") || path.startsWith(`${RUNTIME_DIR}/`)) continue;
        const out = join(dir, path);
        mkdirSync(dirname(out), { recursive: true });
        if (same && same.files.get(path) === contents) symlinkSync(join(tscDir, same.dir, path), out);
        else {
          writeFileSync(out, contents);
          roots.push(`${dirName}/${path}`);
        }
      }
    };
    for (const b of Object.values(base)) writeOutput(b.dir, b.files, undefined, []);
    let tscFailures = 0;
    let typeChecked = 0;
    let tscRuns = 0;
    for (let i = 0; i < compiled.length; i += TSC_BATCH) {
      const batch = compiled.slice(i, i + TSC_BATCH);
      const roots = Object.values(base).flatMap((b) => [...b.files.keys()].filter((p) => p.endsWith(".ts") && !p.startsWith(`${RUNTIME_DIR}/`)).map((p) => `${b.dir}/${p}`));
      for (const { m, files } of batch) writeOutput(`m${m.id}`, files.map((f) => [f.path, f.contents]), base[m.spec], roots);
      const project = join(tscDir, `tsconfig.${tscRuns}.json`);
      writeFileSync(project, JSON.stringify({ compilerOptions: options.compilerOptions, files: roots }, null, 2));
      const out = spawnSync(process.execPath, ["--stack-size=4000", tsc, "-p", project, "--noEmit", "--strict", "--pretty", "false"], {
        cwd: tscDir,
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
      });
      tscRuns++;
      const errors = new Map<string, string[]>();
      for (const line of out.stdout.split("\n")) {
        const e = /^([^/(]+)\/([^(]+)\(\d+,\d+\): error (TS\d+: .*)$/.exec(line.trim());
        if (!e) continue;
        errors.set(e[1]!, [...(errors.get(e[1]!) ?? []), `${e[2]}: ${e[3]!.slice(0, 200)}`]);
      }
      const baseline = Object.values(base).flatMap((b) => errors.get(b.dir) ?? []);
      expect(baseline, "the unmutated output type-checks").toEqual([]);
      if (out.status !== 0 && errors.size === 0) {
        // tsc itself failed (e.g. overflowed its stack): every mutant of the batch is suspect.
        for (const { m } of batch) fail(m, `tsc failed on its batch: ${(out.stderr || out.stdout).split("\n").slice(0, 3).join(" | ")}`);
        tscFailures += batch.length;
        continue;
      }
      for (const { m } of batch) {
        typeChecked++;
        const es = errors.get(`m${m.id}`);
        if (es?.length) {
          tscFailures++;
          fail(m, `tsc: ${es.slice(0, 3).join(" ; ")}`);
        }
      }
    }
    const tEnd = Date.now();

    const figures = {
      seed: SEED,
      mutants: mutants.length,
      known: KNOWN.length,
      random: RUNS,
      refused,
      compiled: compiled.length,
      typeChecked,
      crashes,
      hangs,
      tscFailures,
      tscRuns,
      slowestCompileMs: slowest,
      ms: { compile: tCompile - t0, tsc: tEnd - tCompile },
    };
    process.stderr.write(`spec-fuzz: ${JSON.stringify(figures)}\n`);
    expect(failures.slice(0, 30), `${failures.length} failures`).toEqual([]);
    expect(refused).toBeGreaterThan(0);
    expect(compiled.length).toBeGreaterThan(0);
  });
});
