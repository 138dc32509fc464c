/**
 * `mcp-task-gen init`: the files of a new MCP server project, as virtual files
 * (pure: nothing is written here; the CLI writes generated files through
 * fsout.ts and every other file only when it is absent).
 *
 *   package.json, tsconfig.json, mcp-task-gen.config.json, README.md, .gitignore
 *   src/tasks/            generated (rewritten whole by `npm run generate`)
 *   src/handlers/         user-owned: index.ts (class Handlers implements ServerHandlers)
 *                         and one file per tool (an example tool)
 *   src/server.ts         user-owned entry point (stdio or Streamable HTTP)
 *   src/worker.ts         user-owned worker entry point (npm run worker: queued task work)
 *   test/server.test.ts   user-owned test: drives the server through the generated client
 *   spec/<file>           a copy of the spec, when it is a file rather than a built-in name
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "./diagnostics.js";
import { contractOf } from "./emit/contract.js";
import { renderTemplate } from "./emit/index.js";
import { formatInProcess } from "./formatter.js";
import type { SourceFile } from "./load.js";
import { compile } from "./pipeline.js";
import { GENERATOR_NAME, GENERATOR_VERSION } from "./version.js";

export type Transport = "stdio" | "http";

/** Where the scaffold puts things (relative to the project directory). */
export const LAYOUT = {
  out: "src/tasks",
  handlers: "src/handlers",
  config: "mcp-task-gen.config.json",
  specDir: "spec",
} as const;

export interface InitOptions {
  /** The package name (default: from the directory name). */
  name: string;
  /** The spec source, compiled into src/tasks/. */
  source: SourceFile;
  /** A built-in spec name, or undefined when the spec is a file (then it is copied into spec/). */
  builtin: string | undefined;
  /**
   * stdio or http. Default: stdio, or http for a spec with a per-request
   * lifecycle (served over stateless Streamable HTTP only).
   */
  transport?: Transport;
  /** The generator's own package.json (for dependency versions); default: the installed one. */
  generatorPackage?: PackageJson;
  /**
   * How the scaffold's package.json names mcp-task-gen (a dev dependency: it only
   * generates; the generated code needs no part of it at run time). Default: the
   * generator's own version range; `file:<path>` when it runs from a checkout
   * rather than from a registry install (see generatorSpecifier).
   */
  generatorSource?: string;
}

export interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export type Owner = "generated" | "user";

export interface ScaffoldFile {
  /** Relative to the project directory, forward slashes. */
  path: string;
  contents: string;
  /**
   * generated: written through the manifest of src/tasks/ (rewritten by every
   * generate); user: written once, when absent, then never again.
   */
  owner: Owner;
}

/** An option the spec does not allow (the CLI answers exit 2). */
export class InitUsageError extends Error {}

export interface Scaffold {
  diagnostics: Diagnostic[];
  /** Present when the spec compiles. */
  files?: ScaffoldFile[];
  /** How the config names the spec. */
  specRef: string;
  /** The transport the entry point serves. */
  transport?: Transport;
}

/** The generator's package.json (next to dist/ or generator/). */
export function ownPackage(): PackageJson {
  for (const rel of ["../package.json", "../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as PackageJson;
      if (pkg.name === GENERATOR_NAME) return pkg;
    } catch {
      // the next candidate
    }
  }
  return { name: GENERATOR_NAME, version: GENERATOR_VERSION };
}

/** The root of the running generator's package (the folder of its package.json). */
export function generatorRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;
      if (pkg.name === GENERATOR_NAME) return dir;
    } catch {
      // look higher
    }
    dir = dirname(dir);
  }
  return dirname(dirname(fileURLToPath(import.meta.url)));
}

/**
 * How a project at `projectDir` depends on this generator: the version range when
 * the generator was installed from a registry (it lives in a node_modules folder),
 * else a `file:` link to the checkout it runs from, relative to the project, so
 * `npm install` in the project works without a registry copy of mcp-task-gen.
 */
export function generatorSpecifier(projectDir: string, root = generatorRoot(), version = GENERATOR_VERSION): string {
  if (root.split(/[\\/]/).includes("node_modules")) return `^${version}`;
  const rel = relative(projectDir, root).split(sep).join("/");
  return `file:${rel === "" ? "." : rel}`;
}

/** An npm package name from a directory name. */
export function packageName(dir: string): string {
  const n = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, "-")
    .replace(/^[._-]+|[-_.]+$/g, "");
  return n.length > 0 && n.length <= 214 ? n : "mcp-server";
}

/** External packages imported by the generated code (e.g. zod, @modelcontextprotocol/sdk). */
export function importedPackages(files: readonly { path: string; contents: string }[]): string[] {
  const found = new Set<string>();
  for (const f of files) {
    if (!f.path.endsWith(".ts")) continue;
    for (const m of f.contents.matchAll(/\bfrom\s+"([^"./][^"]*)"|\bimport\s*\(\s*"([^"./][^"]*)"\s*\)/g)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith("node:")) continue;
      const parts = spec.split("/");
      found.add(spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
    }
  }
  return [...found].sort();
}

/**
 * The scaffold's reviewed install scripts: better-sqlite3 builds its driver. A generator linked from a
 * checkout (`file:<dir>`) builds itself, and npm lists the checkout's own tree with it (esbuild); npm
 * names such a link by its path from node_modules/.
 */
function allowedScripts(generatorSource: string | undefined): Record<string, boolean> {
  const allowed: Record<string, boolean> = { [SQLITE_DRIVER]: true };
  if (generatorSource?.startsWith("file:") && !/\.t(ar\.)?gz$/.test(generatorSource)) {
    allowed[`file:../${generatorSource.slice("file:".length)}`] = true;
    allowed.esbuild = true;
  }
  return allowed;
}

/** The SQLite driver of the scaffold's default task store (runtime/store-sqlite.ts). */
const SQLITE_DRIVER = "better-sqlite3";

/**
 * The scaffold's range of the SQLite driver: major version 12, the one the runtime's store is written
 * against (a caret on the version this generator was tested with, when that is a 12.x).
 */
export function sqliteRange(tested: string): string {
  const m = /^[\^~]?(12\.\d+\.\d+)$/.exec(tested);
  return m ? `^${m[1]}` : "^12.0.0";
}

const NODE_BUILTINS = new Set(["crypto", "http", "https", "fs", "path", "url", "events", "stream", "os", "child_process", "util", "net", "buffer", "assert", "timers"]);

/** The files of a new project. */
export async function scaffold(o: InitOptions): Promise<Scaffold> {
  const specFile = o.builtin === undefined ? `${LAYOUT.specDir}/${basename(o.source.file)}` : undefined;
  const specRef = o.builtin ?? specFile!;
  const compiled = await compile(o.source);
  if (!compiled.files || !compiled.ir) return { diagnostics: compiled.diagnostics, specRef };
  const ir = compiled.ir;
  const contract = contractOf(ir);
  const perRequest = contract.lifecycle === "per-request";
  if (perRequest && o.transport === "stdio") {
    throw new InitUsageError(
      `spec ${ir.spec.name} has a per-request lifecycle (protocol.lifecycle), served over stateless Streamable HTTP: --transport stdio is not available for it; use --transport http`,
    );
  }
  const transport: Transport = o.transport ?? (perRequest ? "http" : "stdio");
  const pkg = o.generatorPackage ?? ownPackage();
  const version = (name: string, fallback: string) => pkg.dependencies?.[name] ?? pkg.devDependencies?.[name] ?? fallback;

  // Runtime dependencies: what the generated code imports, plus what the user-owned files import.
  const runtimeDeps = new Set([...importedPackages(compiled.files), "@modelcontextprotocol/sdk", "zod"]);
  // The entry point's default task store is SQLite (the runtime loads the driver only when it opens one).
  runtimeDeps.add(SQLITE_DRIVER);
  const dependencies = Object.fromEntries(
    [...runtimeDeps]
      .filter((d) => !NODE_BUILTINS.has(d))
      .sort()
      .map((d) => [d, d === SQLITE_DRIVER ? sqliteRange(version(d, "")) : version(d, "*")]),
  );
  const devDependencies = {
    "@types/node": version("@types/node", "^20.0.0"),
    [GENERATOR_NAME]: o.generatorSource ?? `^${pkg.version ?? GENERATOR_VERSION}`,
    typescript: version("typescript", "^5.9.0"),
  };

  const has = (name: string) => contract.members.some((m) => m.name === name);
  const view = {
    name: o.name,
    spec: ir.spec.name,
    specRef,
    builtin: o.builtin !== undefined,
    revision: ir.spec.protocol.revision,
    protocolName: ir.spec.protocol.name,
    generator: GENERATOR_NAME,
    generatorVersion: pkg.version ?? GENERATOR_VERSION,
    layout: LAYOUT,
    stdio: transport === "stdio",
    http: transport === "http",
    transport: perRequest ? "stateless Streamable HTTP" : transport === "http" ? "Streamable HTTP" : "stdio",
    perRequest,
    initialize: !perRequest,
    tools: has("tools"),
    resources: has("readResource"),
    prompts: has("getPrompt"),
    requestHandlers: has("readResource") || has("getPrompt"),
    greetingJson: JSON.stringify(`Hello from ${o.name}!`),
    taskRequests: contract.members.filter((m) => m.task).map((m) => m.method),
    context: contract.context.map((c) => c.name),
    hasContext: contract.context.length > 0,
    tool: contract.tool
      ? { member: contract.tool.member, required: contract.tool.required, field: contract.tool.field ?? "", value: JSON.stringify("optional") }
      : undefined,
    packageJson: JSON.stringify(
      {
        name: o.name,
        version: "0.1.0",
        private: true,
        description: `An MCP server with task support (${ir.spec.protocol.name} ${ir.spec.protocol.revision}), scaffolded by ${GENERATOR_NAME}.`,
        type: "module",
        engines: { node: ">=20" },
        scripts: {
          generate: GENERATOR_NAME,
          build: "tsc -p tsconfig.json",
          typecheck: "tsc -p tsconfig.json --noEmit",
          start: "node dist/src/server.js",
          // Runs queued task work for servers on a shared PostgreSQL database (README, "Scaling out").
          worker: "node dist/src/worker.js",
          // The shell expands the glob: node 20 takes files, not directories or patterns.
          test: "npm run build && node --test dist/test/*.test.js",
        },
        dependencies,
        devDependencies,
        // The install scripts this project needs, reviewed (npm 11.16+ asks, and npm 12 runs no others).
        allowScripts: allowedScripts(o.generatorSource),
      },
      null,
      2,
    ),
    configJson: JSON.stringify({ spec: specRef, out: LAYOUT.out, handlers: LAYOUT.handlers }, null, 2),
  };

  const user = (path: string, template: string): ScaffoldFile => ({ path, contents: renderTemplate(`init/${template}`, view), owner: "user" });
  const files: ScaffoldFile[] = [
    user("package.json", "package.json.hbs"),
    user("tsconfig.json", "tsconfig.json.hbs"),
    user(LAYOUT.config, "mcp-task-gen.config.json.hbs"),
    user("README.md", "README.md.hbs"),
    user(".gitignore", "gitignore.hbs"),
    user("src/server.ts", "server.ts.hbs"),
    user("src/worker.ts", "worker.ts.hbs"),
    user(`${LAYOUT.handlers}/index.ts`, "handlers-index.ts.hbs"),
    ...(view.tools ? [user(`${LAYOUT.handlers}/echo.ts`, "tool-echo.ts.hbs")] : []),
    user("test/server.test.ts", "server.test.ts.hbs"),
    ...(specFile ? [{ path: specFile, contents: o.source.text, owner: "user" as const }] : []),
  ];
  // The template writes the members every spec of its requests has; the spec's own (custom operations)
  // get the stubs a regeneration would add, so that the project compiles from the start.
  const index = files.find((f) => f.path === `${LAYOUT.handlers}/index.ts`)!;
  const { planSourceUpdate } = await import("./update-user-files.js");
  const root = "/project";
  const planned = await planSourceUpdate({ contract, contractFile: `${root}/${LAYOUT.out}/handlers.ts` }, `${root}/${index.path}`, index.path, index.contents);
  if (planned.update !== undefined) index.contents = planned.update.after;
  const formatted = await Promise.all(files.map(format));
  const generated = compiled.files.map((f) => ({ path: `${LAYOUT.out}/${f.path}`, contents: f.contents, owner: "generated" as const }));
  return { diagnostics: compiled.diagnostics, files: [...formatted, ...generated], specRef, transport };
}

/** The scaffold's files are formatted as the generated ones are, but for the user's spec, kept as written. */
async function format(f: ScaffoldFile): Promise<ScaffoldFile> {
  if (f.path.startsWith(`${LAYOUT.specDir}/`)) return f;
  const { contents } = await formatInProcess(f);
  return { ...f, contents };
}
