// Builds the runtime package (runtime/dist/): ES modules with declarations by tsc, then the same modules as
// CommonJS by esbuild, one file for one file (no bundle), so that a CommonJS project imports the runtime
// with `require` and the same declarations. esbuild keeps a dynamic `import()` as it is: the stores load
// their drivers that way, and an ES-module-only driver must still load from the CommonJS build.
// First it makes the runtime's built-in copy of spec mcp-2025-11-25's generated checks (runtime/specs/,
// scripts/builtin-specs.ts) with this repository's generator, run from its sources.
// `--if-stale` (the package's prepack) builds only when a source is newer than its build: tests pack the
// package while others import its build, which a rebuild would remove under their feet. It makes the spec
// copy again only when the copy is missing or older than the spec or a template (a full build always does).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = join(root, "runtime");
const esm = join(pkg, "dist", "esm");
const cjs = join(pkg, "dist", "cjs");
// The runtime's modules, and the generated checks of the built-in specs it serves without a generate step (specs/).
const tree = (dir, under = "") =>
  readdirSync(join(dir, under), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tree(dir, join(under, e.name)) : [join(under, e.name)]));
const sources = () => [...readdirSync(pkg).filter((n) => n.endsWith(".ts")), ...tree(join(pkg, "specs")).map((n) => join("specs", n))].filter((n) => n.endsWith(".ts") && !n.endsWith(".d.ts"));
const built = (n) => join(cjs, n.replace(/\.ts$/, ".js"));
const ifStale = process.argv.includes("--if-stale");
{
  const copy = join(pkg, "specs", "mcp-2025-11-25");
  const copied = ["descriptor.ts", "protocol.ts", "transitions.ts", "guards.ts", "validators.ts", "types.ts"].map((n) => join(copy, n));
  const inputs = [join(root, "spec", "mcp-2025-11-25.yaml"), ...readdirSync(join(root, "templates")).filter((n) => n.endsWith(".hbs")).map((n) => join(root, "templates", n))];
  const newest = Math.max(...inputs.map((f) => statSync(f).mtimeMs));
  if (!ifStale || copied.some((f) => !existsSync(f) || statSync(f).mtimeMs < newest)) {
    try {
      execFileSync(process.execPath, ["--import", "tsx", join(root, "scripts", "builtin-specs.ts")], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
    } catch {
      process.stderr.write("@mcp-task-gen/runtime: making its copy of spec mcp-2025-11-25 failed (above); building it needs the repository's dev dependencies: run `npm ci` at its root first\n");
      process.exit(1);
    }
    // A copy whose text did not change keeps its date; it is current now all the same.
    const now = new Date();
    for (const f of copied) utimesSync(f, now, now);
  }
}
if (ifStale && sources().every((n) => existsSync(built(n)) && statSync(built(n)).mtimeMs >= statSync(join(pkg, n)).mtimeMs)) {
  process.exit(0);
}
const { transformSync } = await import("esbuild").catch(() => {
  process.stderr.write("@mcp-task-gen/runtime: building it needs the repository's dev dependencies: run `npm ci` at its root first\n");
  process.exit(1);
});
rmSync(join(pkg, "dist"), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(pkg, "tsconfig.build.json")], { stdio: "inherit" });
mkdirSync(cjs, { recursive: true });
for (const name of tree(esm).sort()) {
  mkdirSync(dirname(join(cjs, name)), { recursive: true });
  if (name.endsWith(".d.ts")) copyFileSync(join(esm, name), join(cjs, name));
  else if (name.endsWith(".js")) {
    const out = transformSync(readFileSync(join(esm, name), "utf8"), { format: "cjs", platform: "node", target: "node20", sourcefile: name });
    writeFileSync(join(cjs, name), out.code);
  }
}
writeFileSync(join(cjs, "package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
