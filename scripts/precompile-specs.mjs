// Part of `npm run build`, after tsc: analyses every built-in spec (load, check, lower) and stores the
// result under dist/generator/precompiled-specs/<sha256 of the spec's text>.json, so that a compile of a
// built-in spec loads no YAML parser, no checks and no zod (generator/precompiled.ts). A spec whose
// analysis depends on its file's name beyond the fields filled in when read, or does not survive JSON,
// is left out (it compiles in full); a spec file edited after the build has another hash and no entry.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist", "generator");
const { analyze } = await import(join(dist, "analyze.js"));
const { precompiledDir, precompiledName, storedAnalysis } = await import(join(dist, "precompiled.js"));
const { builtinSpecs, specDir } = await import(join(dist, "specs.js"));

const out = precompiledDir();
const next = `${out.replace(/\/$/, "")}.tmp`;
rmSync(next, { recursive: true, force: true });
mkdirSync(next, { recursive: true });
for (const name of builtinSpecs()) {
  const text = readFileSync(join(specDir(), `${name}.yaml`), "utf8");
  const json = storedAnalysis(text, analyze);
  if (json === undefined) {
    process.stderr.write(`precompile-specs: ${name}: its analysis depends on more than its text; it compiles in full\n`);
    continue;
  }
  writeFileSync(join(next, precompiledName(text)), json);
}
rmSync(out, { recursive: true, force: true });
renameSync(next, out);
