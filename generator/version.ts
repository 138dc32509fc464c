import { readFileSync } from "node:fs";

export const GENERATOR_NAME = "mcp-task-gen";

/** The package generated code imports the task runtime from. */
export const RUNTIME_PACKAGE = "@mcp-task-gen/runtime";

const own: { version?: string; dependencies?: Record<string, string> } = (() => {
  for (const rel of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string; dependencies?: Record<string, string> };
      if (pkg.name === GENERATOR_NAME && pkg.version) return pkg;
    } catch {
      // try the next candidate
    }
  }
  return {};
})();

/** The package version, read from package.json next to the generator. */
export const GENERATOR_VERSION: string = own.version ?? "0.0.0";

/**
 * The runtime version generated code is written for: the exact version of the runtime package this
 * generator depends on (the two are released together).
 */
export const RUNTIME_VERSION: string = own.dependencies?.[RUNTIME_PACKAGE] ?? GENERATOR_VERSION;
