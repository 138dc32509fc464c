/**
 * The analyses the build precompiles (generator/precompiled.ts, scripts/precompile-specs.mjs): every built-in
 * spec has one, and compiling from it gives exactly what the full path gives (diagnostics, IR and every
 * file's bytes), whatever the file is called; a changed text has none; and the build stores nothing it could
 * not give back exactly.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../generator/diagnostics.js";
import { compile, emitAnalysed } from "../generator/pipeline.js";
import { precompiledAnalysis, storedAnalysis, type Analysis } from "../generator/precompiled.js";
import { builtinSpecs, specDir } from "../generator/specs.js";
import { ROOT } from "./helpers/cli.js";

/** What `npm run build` stored (the tests run after a build: pretest). */
const STORED = join(ROOT, "dist", "generator", "precompiled-specs");

describe("precompiled analyses of the built-in specs", () => {
  for (const spec of builtinSpecs()) {
    it(`${spec}: the stored analysis compiles to what the full path compiles to, byte for byte`, async () => {
      const text = readFileSync(join(specDir(), `${spec}.yaml`), "utf8");
      for (const file of [`builtin/${spec}.yaml`, "../elsewhere/my spec.yaml"]) {
        const source = { file, text };
        const stored = precompiledAnalysis(source, STORED);
        expect(stored, `${spec} has no stored analysis: run npm run build`).toBeDefined();
        const fast = await emitAnalysed(stored!);
        const full = await compile(source);
        expect(fast.diagnostics).toEqual(full.diagnostics);
        expect(fast.ir).toEqual(full.ir);
        expect(fast.files!.map((f) => f.path)).toEqual(full.files!.map((f) => f.path));
        for (const [i, f] of fast.files!.entries()) expect(f.contents === full.files![i]!.contents, f.path).toBe(true);
        // Immutable, as the IR the compiler lowers.
        expect(Object.isFrozen(stored!.ir!.types[0]!.type)).toBe(true);
      }
    });
  }

  it("a spec text changed by one byte has no stored analysis", () => {
    const text = readFileSync(join(specDir(), "mcp-2025-11-25.yaml"), "utf8");
    expect(precompiledAnalysis({ file: "s.yaml", text }, STORED)).toBeDefined();
    expect(precompiledAnalysis({ file: "s.yaml", text: `${text}\n` }, STORED)).toBeUndefined();
    expect(precompiledAnalysis({ file: "s.yaml", text: text.replace(/\n/g, "\r\n") }, STORED)).toBeUndefined();
  });

  it("the build stores no analysis that depends on the file's name elsewhere, on the locale, or does not survive JSON", () => {
    const at = (file: string, line: number, code: string): Diagnostic => ({ code, severity: "warning", message: code, location: { file, line, col: 1 } });
    const ok = (d: Diagnostic[]): ((s: { file: string }) => Analysis) => () => ({ diagnostics: d });
    expect(storedAnalysis("x", (s) => ({ diagnostics: [at(s.file, 1, "MTG010"), at(s.file, 2, "MTG011")] }))).toBeDefined();
    // The name in a message, not only in the location.
    expect(storedAnalysis("x", (s) => ({ diagnostics: [{ ...at(s.file, 1, "MTG010"), message: `in ${s.file}` }] }))).toBeUndefined();
    // Two diagnostics at one place: localeCompare orders them.
    expect(storedAnalysis("x", (s) => ({ diagnostics: [at(s.file, 1, "MTG010"), at(s.file, 1, "MTG011")] }))).toBeUndefined();
    // Values JSON cannot hold.
    expect(storedAnalysis("x", ok([{ ...at("f", 1, "MTG010"), path: [Number.NaN] }]))).toBeUndefined();
    expect(storedAnalysis("x", ok([{ ...at("f", 1, "MTG010"), path: [-0] }]))).toBeUndefined();
  });
});
