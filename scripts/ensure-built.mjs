// Builds what a source is newer than, before anything in this checkout runs the CLI (bin/ runs dist/) or
// type-checks generated code (which imports the runtime package's build, runtime/dist/): the tests' global
// setup, `npm run demo`, `npm run mutants` and the composed-spec run. Up-to-date output is left alone, so
// one process building never rewrites files that another is reading.
//
//   node scripts/ensure-built.mjs        (or import { ensureBuilt } from it)
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : [],
  );

/** Whether a generator source is newer than its dist/ output, or the precompiled templates are missing. */
export function distIsStale() {
  const stale = sources(join(root, "generator")).some((src) => {
    const out = join(root, "dist", relative(root, src)).replace(/\.ts$/, ".js");
    return !existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs;
  });
  return stale || !existsSync(join(root, "dist", "generator", "emit", "templates.precompiled.cjs"));
}

export function ensureBuilt() {
  execFileSync(process.execPath, [join(root, "scripts", "build-runtime.mjs"), "--if-stale"], { cwd: root, stdio: "inherit" });
  if (!distIsStale()) return;
  // What `npm run build` does after the runtime: tsc, then the templates precompiled.
  execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
  execFileSync(process.execPath, [join(root, "scripts", "precompile-templates.mjs")], { cwd: root, stdio: "inherit" });
  // Then the generate path's bundle and the build id, as `npm run build` ends (without them a run hashes the
  // generator's files and loads its modules).
  execFileSync(process.execPath, [join(root, "scripts", "bundle-generate.mjs")], { cwd: root, stdio: "inherit" });
  execFileSync(process.execPath, [join(root, "scripts", "build-id.mjs")], { cwd: root, stdio: "inherit" });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ensureBuilt();
