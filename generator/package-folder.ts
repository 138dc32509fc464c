/**
 * The folders this package ships beside its code (spec/, templates/): found by walking up from
 * the running module, so the same lookup works from generator/ (tsx), dist/generator/ and an installed copy.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const found = new Map<string, string>();

/** The package's folder `name`, known by a file `marker` inside it (looked for once per process: every template's render asks). */
export function packageFolder(name: string, marker: string): string {
  const key = `${name}\0${marker}`;
  const known = found.get(key);
  if (known !== undefined) return known;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, name);
    if (existsSync(join(candidate, marker))) {
      found.set(key, candidate);
      return candidate;
    }
    dir = dirname(dir);
  }
  throw new Error(`mcp-task-gen: cannot find its ${name}/ directory (is the package installed completely?)`);
}
