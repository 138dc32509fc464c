/**
 * Where mcp-task-gen keeps what it may reuse between runs (the no-change fast path's entries, fastpath.ts,
 * and the generate path's code cache, launch.ts): $MCP_TASK_GEN_CACHE (a directory), else the project's
 * nearest node_modules/.cache/mcp-task-gen (no node_modules: no cache); MCP_TASK_GEN_CACHE=off disables it.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Bumped whenever what the cache's entries mean changes. */
export const CACHE_VERSION = "v2";

export function cacheDir(cwd: string): string | undefined {
  const env = process.env.MCP_TASK_GEN_CACHE;
  if (env !== undefined && /^(off|0|false|no)$/i.test(env)) return undefined;
  if (env) return join(resolve(env), CACHE_VERSION);
  // Project-local, where build tools keep their caches: the nearest node_modules/.cache.
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules"))) return join(dir, "node_modules", ".cache", "mcp-task-gen", CACHE_VERSION);
    if (dirname(dir) === dir) return undefined;
  }
}
