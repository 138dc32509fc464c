/**
 * The stat-keyed hashes behind the fast path's generator fingerprint (generator/file-hashes.ts): a file
 * or folder is trusted unread only while its stat is as when it was read, and only once it has settled.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileHashes } from "../generator/file-hashes.js";
import { tempDirs } from "./helpers/cli.js";

const dirs = tempDirs("mcp-task-gen-file-hashes-");
afterAll(() => dirs.cleanup());

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
/** Waits until what was just written has settled (its ctime, which no one can set back, a second old). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1100));

describe("FileHashes", () => {
  it("hashes what a file holds, remembers it once settled, and reads it again when it changes (same size too)", async () => {
    const dir = dirs.make();
    const cache = join(dir, "cache", "files.json");
    const file = join(dir, "a.js");
    writeFileSync(file, "one");
    const { atime, mtime } = statSync(file);
    await settle();
    const first = new FileHashes(cache);
    expect(first.hash(file)).toBe(sha("one"));
    first.save();
    expect(Object.keys(JSON.parse(readFileSync(cache, "utf8")).files)).toEqual([file]);
    expect(new FileHashes(cache).hash(file)).toBe(sha("one"));
    // Same size, and its mtime put back: its ctime still moved.
    writeFileSync(file, "two");
    utimesSync(file, atime, mtime);
    expect(new FileHashes(cache).hash(file)).toBe(sha("two"));
  });

  it("does not remember a file changed within the last second (its mtime could repeat)", () => {
    const dir = dirs.make();
    const cache = join(dir, "files.json");
    const file = join(dir, "a.js");
    writeFileSync(file, "fresh");
    const h = new FileHashes(cache);
    expect(h.hash(file)).toBe(sha("fresh"));
    h.save();
    expect(() => readFileSync(cache)).toThrow();
  });

  it("lists a folder's files again when a file is added, removed or renamed in it or below", async () => {
    const dir = dirs.make();
    const cache = join(dir, "..", `${dir.split("/").pop()}-files.json`);
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "b.js"), "");
    writeFileSync(join(dir, "sub", "a.js"), "");
    await settle();
    const h = new FileHashes(cache);
    expect(h.list(dir)).toEqual(["b.js", "sub/a.js"]);
    h.save();
    expect(new FileHashes(cache).list(dir)).toEqual(["b.js", "sub/a.js"]);
    writeFileSync(join(dir, "sub", "c.js"), "");
    expect(new FileHashes(cache).list(dir)).toEqual(["b.js", "sub/a.js", "sub/c.js"]);
  });

  it("without a cache file, hashes and lists every time and keeps nothing", () => {
    const dir = dirs.make();
    writeFileSync(join(dir, "a.js"), "x");
    const h = new FileHashes();
    expect(h.hash(join(dir, "a.js"))).toBe(sha("x"));
    expect(h.list(dir)).toEqual(["a.js"]);
    h.save();
  });
});
