/**
 * The build id: the digest of the generator's own files (dist/generator's runnable files and templates/, as
 * file-hashes.ts's generatorFiles computes it), taken by `npm run build` as its last step
 * (scripts/build-id.mjs) and kept in dist/build-id.json with each file's size and mtime then, and the
 * sha256 of the generate path's bundle (dist/generate.cjs, launch.ts). A run trusts it instead of hashing
 * those files again only while every file it lists is as the build left it: the same size, and the mtime
 * the build recorded or, in a package extracted from a tarball (npm gives every file one time), the mtime
 * of build-id.json itself. A file edited since (in dist/ or templates/, without a rebuild) has a newer
 * mtime, and one removed or renamed no stat: then there is no build id, and the caller hashes the files
 * (fastpath.ts) and loads the modules (bin/mcp-task-gen.js). The build records only files unchanged for a
 * second, so that an edit after it cannot share a recorded mtime. Each of their folders must list the
 * names it listed then (a template added or removed changes what the emitters see: emit-names.ts lists
 * templates/).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the build id is, beside dist/generator (none when running from the sources). */
export function buildIdFile(): string {
  return join(dirname(dirname(fileURLToPath(import.meta.url))), "build-id.json");
}

export interface BuildId {
  /** The digest of the generator's files (generatorFiles). */
  files: string;
  /**
   * The generate path's bundle: its path relative to the package root, its sha256, and the sha256 of each
   * package's file in it, by the specifier that resolves it (launch.ts checks them).
   */
  bundle?: { path: string; sha256: string; packages: Record<string, string> };
  /** Each file the build id stands for, relative to the package root: its size and mtime (ms) at the build. */
  stats: Record<string, [number, number]>;
  /** Each folder of dist/generator and templates/, relative to the package root: the names in it, sorted. */
  dirs: Record<string, string[]>;
}

let memo: BuildId | null | undefined;

/** The build id when every file it lists is as the build left it (read again if `fresh`); undefined otherwise. */
export function trustedBuild(fresh = false): BuildId | undefined {
  if (memo !== undefined && !fresh) return memo ?? undefined;
  memo = null;
  try {
    const file = buildIdFile();
    const extracted = statSync(file).mtimeMs;
    const id = JSON.parse(readFileSync(file, "utf8")) as BuildId;
    if (typeof id?.files !== "string" || !id.stats || typeof id.stats !== "object" || !id.dirs || typeof id.dirs !== "object") return undefined;
    // The paths are relative and use "/", which every platform's file functions take: joined as text, once each.
    const root = `${dirname(dirname(file))}/`;
    for (const [path, [size, mtime]] of Object.entries(id.stats)) {
      const st = statSync(root + path, { throwIfNoEntry: false });
      if (st === undefined || !st.isFile() || st.size !== size || (st.mtimeMs !== mtime && st.mtimeMs !== extracted)) return undefined;
    }
    for (const [path, names] of Object.entries(id.dirs)) {
      if (JSON.stringify(readdirSync(root + path).sort()) !== JSON.stringify(names)) return undefined;
    }
    const b = id.bundle;
    if (b !== undefined && !(typeof b.path === "string" && b.path in id.stats && typeof b.sha256 === "string" && b.packages && typeof b.packages === "object")) return undefined;
    memo = id;
  } catch {
    // no build id, or a file it lists is gone: not trusted
  }
  return memo ?? undefined;
}
