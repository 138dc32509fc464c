/**
 * Built-in specs and spec resolution: a built-in name, or a path to a file.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { SourceFile } from "./load.js";

export const DEFAULT_SPEC = "sep-1686-draft";

export function specDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, "spec");
    if (existsSync(join(candidate, `${DEFAULT_SPEC}.yaml`))) return candidate;
    dir = dirname(dir);
  }
  throw new Error("mcp-task-gen: cannot find its spec/ directory (is the package installed completely?)");
}

/** Names of the built-in specs, sorted. */
export function builtinSpecs(): string[] {
  return readdirSync(specDir())
    .filter((f) => f.endsWith(".yaml") && !f.includes("schema"))
    .map((f) => f.slice(0, -".yaml".length))
    .sort();
}

export type Resolved = { ok: true; source: SourceFile; builtin: boolean } | { ok: false; message: string };

/** A built-in name or a path; `display` is how diagnostics name the file. */
export function resolveSpec(nameOrPath: string, cwd = process.cwd()): Resolved {
  const builtins = builtinSpecs();
  if (builtins.includes(nameOrPath)) {
    const file = join(specDir(), `${nameOrPath}.yaml`);
    return { ok: true, builtin: true, source: { file: displayPath(file, cwd), text: readFileSync(file, "utf8") } };
  }
  const path = resolve(cwd, nameOrPath);
  if (existsSync(path)) {
    try {
      return { ok: true, builtin: false, source: { file: displayPath(path, cwd), text: readFileSync(path, "utf8") } };
    } catch (e) {
      return { ok: false, message: `cannot read ${nameOrPath}: ${(e as Error).message}` };
    }
  }
  const looksLikePath = /[/\\.]/.test(nameOrPath);
  return {
    ok: false,
    message: looksLikePath
      ? `spec file not found: ${nameOrPath}`
      : `unknown spec '${nameOrPath}': not a built-in spec (${builtins.join(", ")}) nor a file`,
  };
}

function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith("..") && rel.split(/[/\\]/).filter((s) => s === "..").length > 2 ? file : rel || file;
}
