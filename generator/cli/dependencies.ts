/**
 * What the generated code needs installed beside it: the runtime package of the version it was generated
 * for, and every package it imports listed in the project's package.json. Each missing one is a warning
 * with the command that fixes it.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { RUNTIME_PACKAGE, RUNTIME_VERSION } from "../version.js";
import type { Io } from "./shared.js";

/**
 * The runtime package the generated code imports, as Node would find it from the output folder: a warning
 * with the command to run when it is missing or of another version than the code was generated for (the
 * runtime refuses to start with such code, saying the same).
 */
export function checkInstalledRuntime(io: Io, outDir: string): void {
  const install = `npm install ${RUNTIME_PACKAGE}@${RUNTIME_VERSION}`;
  for (let dir = resolve(outDir); ; dir = dirname(dir)) {
    const file = join(dir, "node_modules", ...RUNTIME_PACKAGE.split("/"), "package.json");
    if (existsSync(file)) {
      let version: unknown;
      try {
        version = (JSON.parse(readFileSync(file, "utf8")) as { version?: unknown }).version;
      } catch {
        version = undefined;
      }
      if (version !== RUNTIME_VERSION) {
        io.err(`mcp-task-gen: warning: the generated code is for ${RUNTIME_PACKAGE} ${RUNTIME_VERSION}, but ${relative(io.cwd, file) || file} is version ${String(version)}; run: ${install}`);
      }
      return;
    }
    if (dirname(dir) === dir) break;
  }
  io.err(`mcp-task-gen: warning: the generated code imports the task runtime, ${RUNTIME_PACKAGE}, which is not installed where it can find it; run: ${install}`);
}

/**
 * A warning for each package the generated code imports that the project's package.json (the nearest
 * above the output) does not list, with the command that adds it: a spec of another lifecycle brings
 * another SDK package, and without it the output does not compile.
 */
export async function warnMissingDependencies(io: Io, outDir: string, files: readonly { path: string; contents: string }[]): Promise<void> {
  let dir = outDir;
  let pkgFile: string | undefined;
  for (;;) {
    if (existsSync(join(dir, "package.json"))) {
      pkgFile = join(dir, "package.json");
      break;
    }
    const up = dirname(dir);
    if (up === dir) return;
    dir = up;
  }
  let pkg: { name?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
  try {
    pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  } catch {
    return; // not ours to complain about
  }
  const { importedPackages, ownPackage } = await import("../init.js");
  const own = ownPackage();
  if (pkg.name === own.name) return; // this repository's own samples
  const listed = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
  const shownPkg = relative(io.cwd, pkgFile) || "package.json";
  for (const name of importedPackages(files)) {
    if (listed.has(name)) continue;
    const range = own.dependencies?.[name] ?? own.devDependencies?.[name];
    io.err(`mcp-task-gen: warning: the generated code imports ${name}, which ${shownPkg} does not list; run: npm install ${range === undefined ? name : `${name}@${range}`}`);
  }
}
