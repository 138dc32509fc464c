// Regenerates output-samples/<spec>/ for every built-in spec with the built CLI.
import { spawnSync } from "node:child_process";
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
}
// The spec-to-spec migration guides in output-samples/diffs/.
failed ||= spawnSync(process.execPath, [join(root, "scripts", "update-diff-samples.mjs")], { cwd: root, stdio: "inherit" }).status !== 0;

process.exit(failed ? 1 : 0);
