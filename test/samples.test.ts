/**
 * The committed output samples are exactly what the generator writes today,
 * they type-check under `tsc --strict`, and the published JSON Schema of the
 * spec format is the one derived from the zod schema.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { specJsonSchema } from "../generator/format.js";
import { listFiles } from "../generator/fsout.js";
import { compile } from "../generator/pipeline.js";
import { builtinSpecs, resolveSpec } from "../generator/specs.js";

const root = join(import.meta.dirname, "..");
const samples = join(root, "output-samples");

describe("output-samples", () => {
  for (const spec of builtinSpecs()) {
    it(`${spec}: the committed output is fresh (run \`npm run samples\` if this fails)`, async () => {
      const r = resolveSpec(spec, root);
      if (!r.ok) throw new Error(r.message);
      const { diagnostics, files } = await compile(r.source);
      expect(diagnostics).toEqual([]);
      const dir = join(samples, spec);
      const committed = listFiles(dir).sort();
      expect(committed).toEqual(files!.map((f) => f.path).sort());
      // Only what the spec decides: the runtime is imported from its package, whose version the manifest names.
      expect(committed.filter((f) => f.startsWith("runtime/"))).toEqual([]);
      const manifest = JSON.parse(readFileSync(join(dir, "mcp-task-gen.manifest.json"), "utf8")) as { runtime?: unknown };
      expect(manifest.runtime).toEqual({ package: "@mcp-task-gen/runtime", version: JSON.parse(readFileSync(join(root, "runtime", "package.json"), "utf8")).version });
      const stale = files!.filter((f) => readFileSync(join(dir, f.path), "utf8") !== f.contents).map((f) => f.path);
      expect(stale, `stale files in output-samples/${spec}`).toEqual([]);
    });
  }
  // That the output compiles (noUnusedLocals and the other strict settings too): test/compile-matrix.test.ts.
});

describe("the spec format's JSON Schema", () => {
  const published = JSON.parse(readFileSync(join(root, "spec", "mcp-task-spec.schema.json"), "utf8"));

  it("is the one derived from the zod schema (run `npm run schema` if this fails)", () => {
    expect(published).toEqual(specJsonSchema());
  });

  it("accepts every built-in spec, as an editor's YAML language server would", () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(published);
    for (const spec of builtinSpecs()) {
      const data = parseYaml(readFileSync(join(root, "spec", `${spec}.yaml`), "utf8"));
      const ok = validate(data);
      expect(ok, `${spec}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    }
  });

  it("rejects an unknown key, as the compiler does", () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(published);
    const data = parseYaml(readFileSync(join(root, "spec", "sep-1686-draft.yaml"), "utf8"));
    expect(validate({ ...data, tpyes: {} })).toBe(false);
  });
});
