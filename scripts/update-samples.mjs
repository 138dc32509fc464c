// Regenerates output-samples/<spec>/ for every built-in spec with the built CLI.
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, unlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "bin", "mcp-task-gen.js");
const list = spawnSync(process.execPath, [cli, "list-specs"], { encoding: "utf8" });
let failed = false;
for (const line of list.stdout.trim().split("\n")) {
  const spec = line.split(" ")[0];
  const r = spawnSync(process.execPath, [cli, "generate", "--spec", spec, "--out", join("output-samples", spec), "--quiet", "--force"], {
    cwd: root,
    stdio: "inherit",
  });
  failed ||= r.status !== 0;
  linkRuntime(join(root, "output-samples", spec, "runtime"));
}
// The spec-to-spec migration guides in output-samples/diffs/.
failed ||= spawnSync(process.execPath, [join(root, "scripts", "update-diff-samples.mjs")], { cwd: root, stdio: "inherit" }).status !== 0;

/**
 * The runtime is copied verbatim into every output; in the samples each copied file is
 * a link to runtime/ of this repository, so the repository keeps one copy. (A copy that
 * differs from its source is left as a file: the samples test then reports it.)
 */
function linkRuntime(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (lstatSync(file).isSymbolicLink()) continue;
    const source = join(root, "runtime", name);
    if (!existsSync(source) || readFileSync(source, "utf8") !== readFileSync(file, "utf8")) continue;
    unlinkSync(file);
    symlinkSync(join("..", "..", "..", "runtime", name), file);
  }
}
process.exit(failed ? 1 : 0);
