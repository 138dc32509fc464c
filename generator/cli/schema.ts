/** schema: the JSON Schema of the spec format, printed or written to a file (for editors' YAML support). */
import { writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { specJsonSchema } from "../format.js";
import type { Io } from "./shared.js";

export function schemaCmd(io: Io, o: { out?: string }): number {
  const text = JSON.stringify(specJsonSchema(), null, 2) + "\n";
  if (!o.out) {
    io.out(text.trimEnd());
    return 0;
  }
  const target = resolve(io.cwd, o.out);
  const shown = relative(io.cwd, target) || target;
  try {
    writeFileSync(target, text);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === "ENOENT" ? "its folder does not exist" : err.code === "EISDIR" ? "it is a folder" : `${err.code ?? "error"}: ${err.message.split("\n")[0]}`;
    io.err(`mcp-task-gen: error: cannot write ${shown}: ${why}; name a file in an existing folder`);
    return 1;
  }
  io.out(`mcp-task-gen: wrote the JSON Schema of the spec format to ${shown} (${Buffer.byteLength(text)} bytes)`);
  return 0;
}
