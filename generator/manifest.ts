/**
 * The manifest's name, shape and hash: shared by the pure core (which writes
 * it), fsout.ts (which reads it) and the no-change fast path (which re-hashes
 * what it lists). Node built-ins only, so the fast path loads nothing heavy.
 */
import { createHash } from "node:crypto";

export const MANIFEST_FILE = "mcp-task-gen.manifest.json";

export interface Manifest {
  generator: string;
  version: string;
  spec: { name: string; sha256: string };
  /** The runtime package the generated code imports, and the version it was generated for. */
  runtime?: { package: string; version: string };
  files: Record<string, string>;
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
