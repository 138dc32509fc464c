/**
 * Vitest global setup: the CLI (bin/mcp-task-gen.js) runs dist/, so build it
 * once, before any worker starts, when a source under generator/ is newer
 * than its output (or the precompiled templates are missing). Building here (not in each test file) keeps two workers
 * from rewriting dist/ under each other's feet.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : [],
  );
}

export function distIsStale(): boolean {
  return sources(join(root, "generator")).some((src) => {
    const out = join(root, "dist", relative(root, src)).replace(/\.ts$/, ".js");
    return !existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs;
  });
}

export default function setup(): void {
  const precompiled = join(root, "dist", "generator", "emit", "templates.precompiled.cjs");
  if (!distIsStale() && existsSync(precompiled)) return;
  // What `npm run build` does: tsc, then the templates precompiled (a template edited since is compiled at run time).
  execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
  execFileSync(process.execPath, [join(root, "scripts", "precompile-templates.mjs")], { cwd: root, stdio: "inherit" });
}
