import { readFileSync } from "node:fs";

export const GENERATOR_NAME = "mcp-task-gen";

/** The package version, read from package.json next to the generator. */
export const GENERATOR_VERSION: string = (() => {
  for (const rel of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (pkg.name === GENERATOR_NAME && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return "0.0.0";
})();
