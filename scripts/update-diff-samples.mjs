// Regenerates output-samples/diffs/<old>__<new>.{md,json} with the built CLI (`mcp-task-gen diff`):
// the migration guides between consecutive built-in revisions of the protocol.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "bin", "mcp-task-gen.js");
const outDir = join(root, "output-samples", "diffs");

// One upgrade step each; test/diff.test.ts checks the same list.
const DIFF_PAIRS = [
  ["sep-1686-draft", "mcp-2025-11-25"],
  ["mcp-2025-11-25", "ext-tasks-2026-07-28"],
];

mkdirSync(outDir, { recursive: true });
let failed = false;
for (const [from, to] of DIFF_PAIRS) {
  for (const [ext, flags] of [["md", []], ["json", ["--json"]]]) {
    const r = spawnSync(process.execPath, [cli, "diff", from, to, "--fail-on", "none", ...flags], { cwd: root, encoding: "utf8" });
    if (r.status !== 0) {
      process.stderr.write(r.stderr);
      failed = true;
      continue;
    }
    const file = join(outDir, `${from}__${to}.${ext}`);
    writeFileSync(file, r.stdout);
    process.stdout.write(`  wrote ${join("output-samples", "diffs", `${from}__${to}.${ext}`)}\n`);
  }
}
process.exit(failed ? 1 : 0);
