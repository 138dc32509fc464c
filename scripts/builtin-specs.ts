// Copies the generated checks of the built-in spec mcp-2025-11-25 (output-samples/, kept up to date by
// `npm run samples`) into the runtime package, runtime/specs/, for `@mcp-task-gen/runtime/mcp-server`: a
// server on the SDK's McpServer gains tasks without a generate step. Two imports change: zod's `zod/v4`
// (which zod 3.25+ and zod 4 both have, so a project on either works) and the runtime's own types by path.
// test/mcp-server-adopt.test.ts fails when the copy drifts from the samples. Run: npx tsx scripts/builtin-specs.ts
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const BUILTIN_FILES = ["descriptor.ts", "protocol.ts", "transitions.ts", "guards.ts", "validators.ts", "types.ts"];

/** The runtime's copy of one generated file. */
export function builtinCopy(text: string): string {
  return text.replace(/from "zod";/g, 'from "zod/v4";').replace(/from "@mcp-task-gen\/runtime\/codegen";/g, 'from "../../codegen.js";');
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const spec = "mcp-2025-11-25";
  const out = join(root, "runtime", "specs", spec);
  mkdirSync(out, { recursive: true });
  for (const f of BUILTIN_FILES) writeFileSync(join(out, f), builtinCopy(readFileSync(join(root, "output-samples", spec, f), "utf8")));
}
