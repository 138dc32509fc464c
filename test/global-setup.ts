/**
 * Vitest global setup: the CLI (bin/mcp-task-gen.js) runs dist/, and output generated outside this
 * checkout imports the runtime package's build (runtime/dist/), so build both once, before any worker
 * starts, when a source is newer than its output (or the precompiled templates are missing). Building here (not in each test file) keeps two workers
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

/**
 * A throwaway PostgreSQL cluster for the PostgreSQL store's tests, unless MCP_TASK_GEN_PG_URL names one
 * already (CI starts its own). Without PostgreSQL's server binaries nothing starts, and those tests fail
 * saying how to get one: they never skip.
 */
function startPostgres(): (() => void) | undefined {
  if (process.env.MCP_TASK_GEN_PG_URL) return undefined;
  let out: string;
  try {
    out = execFileSync("bash", [join(root, "scripts", "pg-test-cluster.sh"), "start"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return undefined;
  }
  const vars = Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  if (!vars.MCP_TASK_GEN_PG_URL || !vars.MCP_TASK_GEN_PG_DIR) return undefined;
  process.env.MCP_TASK_GEN_PG_URL = vars.MCP_TASK_GEN_PG_URL;
  process.env.MCP_TASK_GEN_PG_DIR = vars.MCP_TASK_GEN_PG_DIR;
  return () => {
    try {
      execFileSync("bash", [join(root, "scripts", "pg-test-cluster.sh"), "stop", vars.MCP_TASK_GEN_PG_DIR!], { cwd: root, stdio: "ignore" });
    } catch {
      // Already gone.
    }
  };
}

export default function setup(): (() => void) | undefined {
  const stopPostgres = startPostgres();
  build();
  return stopPostgres;
}

function build(): void {
  // The runtime package's build (runtime/dist/): what generated code outside this checkout imports.
  execFileSync(process.execPath, [join(root, "scripts", "build-runtime.mjs"), "--if-stale"], { cwd: root, stdio: "inherit" });
  const precompiled = join(root, "dist", "generator", "emit", "templates.precompiled.cjs");
  if (!distIsStale() && existsSync(precompiled)) return;
  // What `npm run build` does: tsc, then the templates precompiled (a template edited since is compiled at run time).
  execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
  execFileSync(process.execPath, [join(root, "scripts", "precompile-templates.mjs")], { cwd: root, stdio: "inherit" });
}
