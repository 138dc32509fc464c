// The runtime's built-in copy of the generated checks of spec mcp-2025-11-25 (runtime/specs/mcp-2025-11-25/,
// build output, not committed), for `@mcp-task-gen/runtime/mcp-server`: a server on the SDK's McpServer gains
// tasks without a generate step. The runtime's build (scripts/build-runtime.mjs) makes it from
// spec/mcp-2025-11-25.yaml with this repository's generator. Two imports change: zod's `zod/v4` (which zod
// 3.25+ and zod 4 both have, so a project on either works) and the runtime's own entry point by path.
// Files whose text is unchanged are not rewritten. Run alone: npx tsx scripts/builtin-specs.ts
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "../generator/pipeline.js";
import { resolveSpec } from "../generator/specs.js";

export const BUILTIN_SPEC = "mcp-2025-11-25";
export const BUILTIN_FILES = ["descriptor.ts", "protocol.ts", "transitions.ts", "guards.ts", "validators.ts", "types.ts"];

/** The runtime's copy of one generated file. */
export function builtinCopy(text: string): string {
  return text.replace(/from "zod";/g, 'from "zod/v4";').replace(/from "@mcp-task-gen\/runtime\/codegen";/g, 'from "../../codegen.js";');
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Writes the copy into runtime/specs/<spec>/; the files it wrote (those whose text changed). */
export async function writeBuiltinSpecs(): Promise<string[]> {
  const resolved = resolveSpec(BUILTIN_SPEC, root);
  if (!resolved.ok) throw new Error(resolved.message);
  const { diagnostics, files } = await compile(resolved.source);
  if (!files) throw new Error(`spec ${BUILTIN_SPEC} does not compile: ${JSON.stringify(diagnostics)}`);
  const out = join(root, "runtime", "specs", BUILTIN_SPEC);
  mkdirSync(out, { recursive: true });
  const written: string[] = [];
  for (const name of BUILTIN_FILES) {
    const file = files.find((f) => f.path === name);
    if (!file) throw new Error(`the generated code of ${BUILTIN_SPEC} has no ${name}`);
    const text = builtinCopy(file.contents);
    const path = join(out, name);
    if (existsSync(path) && readFileSync(path, "utf8") === text) continue;
    writeFileSync(path, text);
    written.push(name);
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const written = await writeBuiltinSpecs();
  process.stdout.write(`runtime/specs/${BUILTIN_SPEC}/: ${written.length === 0 ? "unchanged" : `wrote ${written.join(", ")}`}\n`);
}
