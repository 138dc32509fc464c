/**
 * Vitest global setup: the CLI (bin/mcp-task-gen.js) runs dist/, and output generated outside this
 * checkout imports the runtime package's build (runtime/dist/), so build both once, before any worker
 * starts, when a source is newer than its output (scripts/ensure-built.mjs). Building here (not in each
 * test file) keeps two workers from rewriting dist/ under each other's feet.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBuilt } from "../scripts/ensure-built.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

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
  ensureBuilt();
  return stopPostgres;
}
