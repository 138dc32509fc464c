// What an install brings in: bytes (apparent file sizes; links not followed) and packages (a folder right
// under a node_modules folder, or under an @scope folder there) below a node_modules folder.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** @param {string} dir a node_modules folder */
export function footprint(dir) {
  let bytes = 0;
  let packages = 0;
  /** @param {string} d @param {boolean} inModules */
  const walk = (d, inModules) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) {
        if (inModules && !e.name.startsWith(".") && !e.name.startsWith("@")) packages++;
        walk(full, e.name === "node_modules" || (inModules && e.name.startsWith("@")));
      } else if (e.isFile()) bytes += statSync(full).size;
    }
  };
  walk(dir, true);
  return { bytes, packages };
}
