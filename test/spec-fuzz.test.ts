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
 * reads each text once; the runtime imported from its package), and the compiled mutants are
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
import { parse as parseYaml } from "yaml";
import type { VirtualFile } from "../generator/emit/index.js";
import { compile } from "../generator/pipeline.js";
import { builtinSpecs, resolveSpec } from "../generator/specs.js";
import { ROOT } from "./helpers/cli.js";
import { dump, KINDS, KNOWN, MUTATIONS, Rand, type Doc } from "./helpers/spec-mutants.js";

const RUNS = Number(process.env.SPEC_FUZZ_RUNS ?? 200);
const SEED = Number(process.env.SPEC_FUZZ_SEED ?? 20260728);
/** A mutant whose compilation takes longer than this is a hang. */
const MUTANT_MS = 15_000;
/** Compiled mutants per tsc run. */
const TSC_BATCH = 100;

vi.setConfig({ testTimeout: Math.max(300_000, RUNS * 2_000), hookTimeout: 120_000 });


interface Mutant {
  id: number;
  spec: string;
  what: string;
  text: string;
  json: boolean;
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

const isChecked = (f: VirtualFile) => f.path.endsWith(".ts");

describe("spec fuzzing: mutants of the built-in specs", () => {
  it(`are refused with located diagnostics or generate code that passes tsc --strict (${RUNS} random mutants, seed ${SEED})`, async () => {
    const t0 = Date.now();
    const specs = builtinSpecs();
    const base: Record<string, { doc: Doc; hash: string; files: Map<string, string>; dir: string }> = {};
    const tscDir = join(work, "tsc");
    mkdirSync(tscDir, { recursive: true });
    for (const [i, name] of specs.entries()) {
      const r = resolveSpec(name, ROOT);
      if (!r.ok) throw new Error(r.message);
      const c = await compile(r.source, { format: false });
      expect(c.files, name).toBeDefined();
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
      for (const [path, contents] of files) {
        if (!path.endsWith(".ts")) continue;
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
      const roots = Object.values(base).flatMap((b) => [...b.files.keys()].filter((p) => p.endsWith(".ts")).map((p) => `${b.dir}/${p}`));
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
