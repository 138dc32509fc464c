/**
 * The generate path as one script with V8's code cache of a whole run: `npm run build` bundles what a
 * generate of a built-in spec runs (the fast path, the generate command, the emitters, the precompiled
 * templates and the Handlebars runtime) into dist/generate.cjs (scripts/bundle-generate.mjs); the other modules it may need (the
 * YAML parser, the checks, zod, the handler update) stay modules, imported from dist/ when needed. Node's
 * compile cache keeps a module's code as compiled when it loads, but V8 compiles most functions lazily,
 * on their first call, and that was most of a cold generate's compile time. A vm.Script can give V8's
 * code cache after the run instead (createCachedData then includes every function that ran), and take it
 * back on the next run (cachedData).
 *
 * The cache is a file of the project's cache folder (cache-dir.ts), named by the Node version, the
 * architecture, Node's and V8's options and the bundle's sha256, and holding the sha256 of its content:
 * V8 checks its own version, flags and the source's length, not the content, so a file that is not what
 * was written is never handed to it. A cache V8 rejects (script.cachedDataRejected) or none: the script
 * compiles as any, and the run writes the cache afresh when the command succeeded.
 *
 * Used only with the build id trusted (build-id.ts: the bundle and every file it was made from as the
 * build left them) and a cache folder; otherwise bin/mcp-task-gen.js loads the modules. The build bundles
 * this module with the two it imports into dist/launch.cjs, which the command requires.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import * as buildId from "./build-id.js";
import { cacheDir } from "./cache-dir.js";
import type * as Fast from "./fastpath.js";
import type * as Cli from "./cli/index.js";

/** What the bundle exports (scripts/bundle-generate.mjs's entry). */
export interface GeneratePath {
  fast: typeof Fast;
  cli: Pick<typeof Cli, "main" | "runCommand">;
  /** After a successful command: keeps V8's code cache of what ran, unless the run used a valid one. */
  saveCodeCache(): void;
}

/** The code caches kept, the newest first (one per Node and build in use). */
const KEEP = 8;
const HASH_BYTES = 32;

/** The parameters the bundle's code is wrapped in (the build rewrote import.meta.url, import() and build-id.js to them). */
const WRAPPER = ["exports", "require", "module", "__mtgUrl", "__mtgImport", "__mtgHost"];

export function codeCacheFile(dir: string, bundleSha256: string): string {
  const key = createHash("sha256")
    .update([process.version, process.arch, process.execArgv.join(" "), process.env.NODE_OPTIONS ?? "", bundleSha256].join("\0"))
    .digest("hex");
  return join(dir, "code", `${key}.bin`);
}

/** The cache's content when the file holds what was written (its sha256 first); undefined otherwise. */
export function readCodeCache(file: string): Buffer | undefined {
  try {
    const data = readFileSync(file);
    if (data.length <= HASH_BYTES) return undefined;
    const payload = data.subarray(HASH_BYTES);
    return createHash("sha256").update(payload).digest().equals(data.subarray(0, HASH_BYTES)) ? payload : undefined;
  } catch {
    return undefined;
  }
}

function writeCodeCache(file: string, payload: Buffer): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(tmp, Buffer.concat([createHash("sha256").update(payload).digest(), payload]));
    renameSync(tmp, file);
    const dir = dirname(file);
    const kept = readdirSync(dir).filter((n) => n.endsWith(".bin"));
    if (kept.length > KEEP) {
      const aged = kept.map((n) => ({ n, t: statSync(join(dir, n)).mtimeMs })).sort((a, b) => b.t - a.t);
      for (const { n } of aged.slice(KEEP)) rmSync(join(dir, n), { force: true });
    }
  } catch {
    // not kept: the next run compiles again
  }
}

/**
 * The generate path from the bundle, when the build id is trusted, the packages' files in the bundle are
 * the ones installed and there is a cache folder; undefined otherwise.
 */
export function generatePath(cwd = process.cwd()): GeneratePath | undefined {
  const dir = cacheDir(cwd);
  const build = dir === undefined ? undefined : buildId.trustedBuild();
  if (dir === undefined || build?.bundle === undefined) return undefined;
  const root = dirname(dirname(buildId.buildIdFile()));
  const bundle = join(root, build.bundle.path);
  const require = createRequire(bundle);
  // The packages' files the bundle holds (the Handlebars runtime) must be the ones installed now.
  for (const [specifier, sha256] of Object.entries(build.bundle.packages)) {
    if (createHash("sha256").update(readFileSync(require.resolve(specifier))).digest("hex") !== sha256) return undefined;
  }
  const source = `(function (${WRAPPER.join(", ")}) {${readFileSync(bundle, "utf8")}\n})`;
  const file = codeCacheFile(dir, build.bundle.sha256);
  const cachedData = readCodeCache(file);
  const script = new vm.Script(source, { filename: bundle, cachedData });
  const compiled = cachedData === undefined || script.cachedDataRejected === true;
  const module = { exports: {} as Omit<GeneratePath, "saveCodeCache"> };
  const url = (path: string) => pathToFileURL(join(root, path)).href;
  // A path of the package (dist/...) or a package's name, as the modules would import it.
  const importer = (specifier: string) => import(specifier.startsWith("dist/") ? url(specifier) : specifier);
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, url, importer, { buildId });
  return {
    ...module.exports,
    saveCodeCache: () => {
      if (compiled) writeCodeCache(file, script.createCachedData());
    },
  };
}
