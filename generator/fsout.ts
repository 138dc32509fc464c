/**
 * The only module that writes to disk. It compares virtual files with a
 * directory, plans what to write, and writes atomically. It never deletes or
 * overwrites a file that the directory's manifest does not list as generated,
 * nor a generated file that was edited by hand, unless forced. Even forced, a
 * file that the manifest does not list is never overwritten or deleted.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { MANIFEST_FILE, sha256, type Manifest } from "./manifest.js";
import type { VirtualFile } from "./pipeline.js";

export type Action =
  | { kind: "write"; path: string; reason: "new" | "changed" }
  | { kind: "unchanged"; path: string }
  | { kind: "delete"; path: string }
  | { kind: "conflict"; path: string; reason: "not-generated" | "edited" | "edited-stale" };

export interface Plan {
  out: string;
  actions: Action[];
  files: Map<string, VirtualFile>;
}

export function readManifest(out: string): Manifest | undefined {
  try {
    const m = JSON.parse(readFileSync(join(out, MANIFEST_FILE), "utf8")) as Manifest;
    return m && typeof m === "object" && m.files && typeof m.files === "object" ? m : undefined;
  } catch {
    return undefined;
  }
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

export function plan(out: string, files: readonly VirtualFile[]): Plan {
  const manifest = readManifest(out);
  const generated = manifest?.files ?? {};
  const actions: Action[] = [];
  const byPath = new Map(files.map((f) => [f.path, f]));
  for (const f of files) {
    const target = join(out, f.path);
    const current = readIfExists(target);
    if (current === undefined) {
      actions.push({ kind: "write", path: f.path, reason: "new" });
    } else if (current === f.contents) {
      actions.push({ kind: "unchanged", path: f.path });
    } else if (f.path === MANIFEST_FILE) {
      // Ours only if it parses as a manifest; anything else is someone's file.
      actions.push(manifest ? { kind: "write", path: f.path, reason: "changed" } : { kind: "conflict", path: f.path, reason: "not-generated" });
    } else if (!(f.path in generated)) {
      actions.push({ kind: "conflict", path: f.path, reason: "not-generated" });
    } else if (sha256(current) !== generated[f.path]) {
      actions.push({ kind: "conflict", path: f.path, reason: "edited" });
    } else {
      actions.push({ kind: "write", path: f.path, reason: "changed" });
    }
  }
  // Generated files that the new output no longer has.
  for (const [path, hash] of Object.entries(generated)) {
    if (byPath.has(path) || path.includes("..")) continue;
    const current = readIfExists(join(out, path));
    if (current === undefined) continue;
    actions.push(sha256(current) === hash ? { kind: "delete", path } : { kind: "conflict", path, reason: "edited-stale" });
  }
  return { out, actions, files: byPath };
}

export function conflictMessage(a: Extract<Action, { kind: "conflict" }>, out: string): string {
  const p = join(out, a.path);
  switch (a.reason) {
    case "not-generated":
      return `${p} exists and was not written by mcp-task-gen (it is not in ${MANIFEST_FILE}); move it away or delete it (mcp-task-gen never overwrites a file it did not write, even with --force)`;
    case "edited":
      return `${p} was edited by hand since it was generated; move your changes into your own files, or pass --force to overwrite them`;
    case "edited-stale":
      return `${p} is no longer generated and was edited by hand; it is left in place (delete it yourself, or pass --force)`;
  }
}

/** Can --force resolve this conflict? Only for files the manifest lists as generated. */
export function forceable(a: Action): boolean {
  return a.kind === "conflict" && a.reason !== "not-generated";
}

/**
 * Write a plan. Edited generated files that are no longer generated are left
 * in place; with force, edited generated files are overwritten (stale edited
 * ones deleted). Files not in the manifest are never touched.
 */
export function apply(p: Plan, opts: { force?: boolean } = {}): Action[] {
  const done: Action[] = [];
  if (p.actions.some((a) => a.kind === "conflict" && a.reason !== "edited-stale" && !(opts.force && forceable(a)))) {
    throw new Error("fsout.apply: the plan has conflicts that --force cannot resolve");
  }
  mkdirSync(p.out, { recursive: true });
  // The manifest goes last, so an interrupted run never lists a file it did not write.
  const ordered = [...p.actions].sort((a, b) => Number(a.path === MANIFEST_FILE) - Number(b.path === MANIFEST_FILE));
  for (const a of ordered) {
    if (a.kind === "write" || (a.kind === "conflict" && opts.force && a.reason === "edited")) {
      atomicWrite(join(p.out, a.path), p.files.get(a.path)!.contents);
      done.push(a);
    } else if (a.kind === "delete" || (a.kind === "conflict" && opts.force && a.reason === "edited-stale")) {
      rmSync(join(p.out, a.path), { force: true });
      done.push(a);
    }
  }
  return done;
}

export function atomicWrite(path: string, contents: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, contents);
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

export interface Drift {
  missing: string[];
  changed: string[];
  extra: string[];
}

/** Compare a directory with what generate would write. */
export function drift(out: string, files: readonly VirtualFile[]): Drift {
  const missing: string[] = [];
  const changed: string[] = [];
  const expected = new Set(files.map((f) => f.path));
  for (const f of files) {
    const current = readIfExists(join(out, f.path));
    if (current === undefined) missing.push(f.path);
    else if (current !== f.contents) changed.push(f.path);
  }
  const extra = existsSync(out) ? listFiles(out).filter((p) => !expected.has(p)) : [];
  return { missing, changed, extra };
}

/** Every file under root, relative with forward slashes, sorted (what check compares). */
export function listFiles(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listFiles(root, full));
    else out.push(relative(root, full).split("\\").join("/"));
  }
  return out;
}
