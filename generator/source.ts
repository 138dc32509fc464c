/**
 * A spec source and the limit on its size: what reading a spec needs before it is parsed (specs.ts checks a
 * file's size before reading it), without the YAML parser (load.ts).
 */
import { diag, type Diagnostic } from "./diagnostics.js";

export interface SourceFile {
  /** The name shown in diagnostics (a path relative to the cwd, or builtin:<name>). */
  file: string;
  text: string;
}

/**
 * The largest spec accepted, in bytes: the built-in specs are 23 to 35 KB, so 1 MiB leaves room for thirty
 * times that; far above it is a mistake (a generated or pasted file), refused before it is parsed (and, for a
 * file, before it is read: specs.ts checks its size).
 */
export const MAX_SPEC_BYTES = 1024 * 1024;

/** The refusal of a spec above MAX_SPEC_BYTES (MTG001 at 1:1). */
export function tooLarge(file: string, bytes: number, lineText?: string): Diagnostic {
  return diag(
    "MTG001",
    "error",
    `the spec is ${megabytes(bytes)}, above the limit of ${megabytes(MAX_SPEC_BYTES)}; a spec declares one protocol revision in a few dozen KB, so remove what is not part of it`,
    undefined,
    { file, line: 1, col: 1, ...(lineText === undefined ? {} : { lineText }), length: 1 },
  );
}

function megabytes(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}
