/**
 * The sha256 of the generator's own files, remembered by their stat: the no-change fast path keys every
 * compile by a fingerprint of the generator build (fastpath.ts), which hashed its ~170 files twice per
 * compile (before and after it) at ~15 ms each. A file whose size, mtime, ctime and inode are as when it was
 * hashed is not read again, as git trusts its index; a file changed within a second of being hashed is not
 * remembered (its mtime could still repeat). So are the folders' listings, by the folder's own stat (a file
 * added, removed or renamed changes its folder's mtime), as git's untracked cache trusts them. The cache is a
 * file of the fast path's cache folder; without one (MCP_TASK_GEN_CACHE=off), or with any doubt, every
 * folder is read and every file hashed.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, type Stats } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { listFiles } from "./fsout.js";

/** file path → [size, mtimeMs, ctimeMs, ino, sha256 hex]. */
type Entries = Record<string, [number, number, number, number, string]>;
/** folder path → [mtimeMs, ctimeMs, ino, its files' names, its folders' names]. */
type Listings = Record<string, [number, number, number, string[], string[]]>;

/** How many files the cache remembers before it starts again (a few generator builds' worth). */
const MAX_FILES = 4096;
/** A file modified this recently (ms) is hashed but not remembered. */
const SETTLED_MS = 1000;

export class FileHashes {
  private entries: Entries = {};
  private dirs: Listings = {};
  private changed = false;

  /** `file`: where the hashes are kept (read now, written by save); none: hash every file. */
  constructor(private readonly file?: string) {
    if (file === undefined) return;
    try {
      const read = JSON.parse(readFileSync(file, "utf8")) as { files?: unknown; dirs?: unknown } | null;
      if (read?.files && typeof read.files === "object" && read.dirs && typeof read.dirs === "object") {
        this.entries = read.files as Entries;
        this.dirs = read.dirs as Listings;
      }
    } catch {
      // none yet, or unreadable: start afresh
    }
  }

  /** The sha256 (hex) of a file's content. */
  hash(path: string): string {
    const before = Date.now();
    const st = statSync(path, { bigint: false });
    const known = this.entries[path];
    if (
      Array.isArray(known) &&
      known[0] === st.size &&
      known[1] === st.mtimeMs &&
      known[2] === st.ctimeMs &&
      known[3] === st.ino &&
      typeof known[4] === "string"
    ) {
      return known[4];
    }
    const sha = createHash("sha256").update(readFileSync(path)).digest("hex");
    if (this.settled(st, before)) {
      if (Object.keys(this.entries).length >= MAX_FILES) this.entries = {};
      this.entries[path] = [st.size, st.mtimeMs, st.ctimeMs, st.ino, sha];
      this.changed = true;
    }
    return sha;
  }

  /**
   * The files under `root`, as paths relative to it with `/`, sorted; undefined when it holds anything but
   * files and folders (a link: the caller lists it its own way).
   */
  list(root: string): string[] | undefined {
    const out: string[] = [];
    const walk = (dir: string, prefix: string): boolean => {
      const before = Date.now();
      const st = statSync(dir);
      let known = this.dirs[dir];
      if (!(Array.isArray(known) && known[0] === st.mtimeMs && known[1] === st.ctimeMs && known[2] === st.ino && Array.isArray(known[3]) && Array.isArray(known[4]))) {
        const entries = readdirSync(dir, { withFileTypes: true });
        if (entries.some((e) => !e.isFile() && !e.isDirectory())) return false;
        const names = (dirs: boolean) => entries.filter((e) => e.isDirectory() === dirs).map((e) => e.name);
        known = [st.mtimeMs, st.ctimeMs, st.ino, names(false), names(true)];
        if (this.settled(st, before)) {
          if (Object.keys(this.dirs).length >= MAX_FILES) this.dirs = {};
          this.dirs[dir] = known;
          this.changed = true;
        }
      }
      for (const f of known[3]) out.push(prefix + f);
      return known[4].every((d) => walk(join(dir, d), `${prefix}${d}/`));
    };
    return walk(root, "") ? out.sort() : undefined;
  }

  /** Whether what was read of a file or folder can be remembered: cached, and unchanged for a while. */
  private settled(st: Stats, before: number): boolean {
    return this.file !== undefined && Math.max(st.mtimeMs, st.ctimeMs) < before - SETTLED_MS;
  }

  /** Keeps what was hashed anew (best effort: the cache is only an optimization). */
  save(): void {
    if (!this.changed || this.file === undefined) return;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
      writeFileSync(tmp, JSON.stringify({ files: this.entries, dirs: this.dirs }));
      renameSync(tmp, this.file);
      this.changed = false;
    } catch {
      // not kept: the next run hashes again
    }
  }
}

/**
 * The digest of the generator's own files: every file that runs under `here` (dist/generator, or generator/
 * from the sources; declarations do not run) and under the package's templates/, by path and sha256, in a
 * stable order. `cache`: where FileHashes keeps what it hashed (none: hash every file).
 */
export function generatorFiles(here: string, root: string, cache?: string): string {
  const hashes = new FileHashes(cache);
  const h = createHash("sha256");
  for (const dir of [here, join(root, "templates")]) {
    const name = relative(root, dir).split(sep).join("/");
    // A link could name a folder, which listFiles follows: it lists them then.
    const files = (hashes.list(dir) ?? listFiles(dir).sort()).filter((p) => !p.endsWith(".d.ts"));
    for (const p of files) h.update(`\0${name}/${p}\0`).update(hashes.hash(join(dir, p)));
  }
  hashes.save();
  return h.digest("hex");
}
