/**
 * The generated code the demo serves: a built-in spec's in output-samples/<spec>/, or a spec file's,
 * generated on start into a directory of its own.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fail, root } from "./common.js";

/** The directory of the spec's generated server; exits 2 where there is none. */
export function generatedDir(spec: string): string {
  // A caller that generated the spec file's code already (the spec composer) names where: served as it is.
  const given = process.env.MCP_TASK_GEN_DEMO_GENERATED;
  const dir = given !== undefined && given !== "" ? resolve(given) : /\.(ya?ml|json)$/i.test(spec) ? generateInto(spec) : join(root, "output-samples", spec);
  if (!existsSync(join(dir, "server.ts"))) {
    const specs = readdirSync(join(root, "output-samples"), { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(join(root, "output-samples", e.name, "server.ts")));
    fail(`no generated server in output-samples/${spec}/: a built-in spec (${specs.map((e) => e.name).join(", ")}) or a spec file (.yaml, .yml, .json); after changing the generator, npm run samples`);
  }
  return dir;
}

/**
 * Generates a spec file into a directory beside this checkout's node_modules (linked in, so the
 * generated code finds the SDK), the way a user's project would hold it; exits 2 on an invalid spec.
 * The directory is the same for every start of the same spec file from this checkout, so a start whose
 * output is current writes nothing (generate's no-change fast path answers in milliseconds) and the
 * TypeScript loader finds its compiled files in its cache: a start takes as long as importing the server.
 */
function generateInto(specFile: string): string {
  const key = createHash("sha256").update(`${root}\0${resolve(specFile)}`).digest("hex").slice(0, 16);
  const dir = join(tmpdir(), `mcp-task-gen-demo-${key}`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, "node_modules"))) {
    try {
      symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
    } catch (e) {
      // Another demo of the same spec made it at the same time.
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }) + "\n");
  const out = join(dir, "gen");
  const run = spawnSync(process.execPath, [join(root, "bin", "mcp-task-gen.js"), "generate", "--spec", resolve(specFile), "--out", out, "--quiet"], { cwd: dir, encoding: "utf8" });
  if (run.status !== 0) {
    process.stderr.write(run.stderr);
    fail(`the spec ${specFile} did not generate (exit ${run.status ?? "?"}): fix what is reported above`);
  }
  return out;
}
