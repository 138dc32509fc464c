// `prepack` (npm pack, npm publish): builds dist/ only when it is missing or older than a source under
// generator/. Tests pack this checkout while others run the CLI from dist/; rebuilding an up-to-date dist/
// there would rewrite files under their feet. `npm run build` always builds. The package has no `prepare`
// script: a project that installs its tarball is asked to review no install script.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : [],
  );
const stale = sources(join(root, "generator")).some((src) => {
  const out = join(root, "dist", relative(root, src)).replace(/\.ts$/, ".js");
  return !existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs;
});
const precompiled = join(root, "dist", "generator", "emit", "templates.precompiled.cjs");
if ((stale || !existsSync(precompiled)) && !existsSync(join(root, "node_modules", "typescript", "package.json"))) {
  process.stderr.write("mcp-task-gen: dist/ must be built first, with the dev dependencies: run `npm ci`, then `npm pack` again\n");
  process.exit(1);
}
if (stale || !existsSync(precompiled)) {
  execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", ["run", "build"], { cwd: root, stdio: "inherit" });
}
