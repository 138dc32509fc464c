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
import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "./diagnostics.js";
import { contractOf, STUB_VALUE_IMPORTS, type Contract } from "./emit/contract.js";
import { renderTemplate } from "./emit/index.js";
import { tidyMarkdown, tidyStatements } from "./formatter.js";
import type { SourceFile } from "./load.js";
import { GENERATOR_NAME, GENERATOR_VERSION, RUNTIME_PACKAGE, RUNTIME_VERSION } from "./version.js";

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
  /**
   * How the scaffold's package.json names the runtime package (a dependency: the generated code imports
   * it). Default: the version this generator depends on; `file:vendor/<tarball>` when no registry has it
   * (see runtimeSource).
   */
  runtimeSource?: string;
  /** The project's absolute path, for the desktop client entry of its README (default: a placeholder). */
  directory?: string;
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
 * How a new project gets one of this generator's packages (the generator, a dev dependency: it only
 * generates; the runtime, a dependency: the generated code imports it):
 * - link: it runs from a checkout; a `file:` link to it, relative to the project (the generator only: a
 *   linked runtime would load the checkout's MCP SDK beside the project's);
 * - range: it was installed from a registry; its version range;
 * - vendor: it was installed from a tarball or a folder (npx ./mcp-task-gen-x.tgz, npm install <file>), or
 *   it is the runtime of a checkout, so no registry has this version: the package is copied into the
 *   project's vendor/ folder, as the tarball it came from or packed again from its files, and named by a
 *   `file:` path there.
 */
export type GeneratorSource =
  | { kind: "link" | "range"; specifier: string }
  | { kind: "vendor"; specifier: string; file: string; tarball: string | undefined; root: string; name: string; fromCheckout: boolean };

/** Where the vendored tarballs go in a new project. */
export const VENDOR_DIR = "vendor";

/** The tarball name npm pack gives a package (`@scope/name` → `scope-name-<version>.tgz`). */
function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

function sourceOf(projectDir: string, name: string, root: string, version: string, linkable: boolean): GeneratorSource {
  const parts = root.split(/[\\/]/);
  const at = parts.lastIndexOf("node_modules");
  const file = `${VENDOR_DIR}/${tarballName(name, version)}`;
  if (at === -1) {
    const rel = relative(projectDir, root).split(sep).join("/");
    if (linkable) return { kind: "link", specifier: `file:${rel === "" ? "." : rel}` };
    return { kind: "vendor", specifier: `file:${file}`, file, tarball: undefined, root, name, fromCheckout: true };
  }
  const resolved = installedFrom(parts.slice(0, at).join(sep) || sep, parts.slice(at).join("/"));
  if (resolved !== undefined && /^https?:/.test(resolved.value)) return { kind: "range", specifier: linkable ? `^${version}` : version };
  const tarball =
    resolved !== undefined && resolved.value.startsWith("file:") && /\.t(ar\.)?gz$/.test(resolved.value)
      ? join(resolved.base, resolved.value.slice("file:".length))
      : undefined;
  return { kind: "vendor", specifier: `file:${file}`, file, tarball, root, name, fromCheckout: false };
}

export function generatorSource(projectDir: string, root = generatorRoot(), version = GENERATOR_VERSION): GeneratorSource {
  return sourceOf(projectDir, GENERATOR_NAME, root, version, true);
}

/**
 * How a new project gets the runtime package, found as the generator's dependency: installed, the package
 * beside the generator; in a checkout, the workspace link leads to its runtime/ folder (packed into
 * vendor/). Undefined when it is not there (the generator was installed without its dependencies).
 */
export function runtimeSource(projectDir: string, root = generatorRoot(), version = RUNTIME_VERSION): GeneratorSource | undefined {
  let dir: string;
  try {
    dir = dirname(realpathSync(createRequire(join(root, "package.json")).resolve(`${RUNTIME_PACKAGE}/package.json`)));
  } catch {
    return undefined;
  }
  return sourceOf(projectDir, RUNTIME_PACKAGE, dir, version, false);
}

/**
 * Where npm got the package installed at `<base>/<key>`, from the lockfile beside it (npm 7 and later keep
 * one in node_modules/.package-lock.json, npx's cache included); undefined when no lockfile says.
 */
function installedFrom(base: string, key: string): { value: string; base: string } | undefined {
  for (const lock of [join(base, "node_modules", ".package-lock.json"), join(base, "package-lock.json")]) {
    try {
      const entry = (JSON.parse(readFileSync(lock, "utf8")) as { packages?: Record<string, { resolved?: unknown }> }).packages?.[key];
      if (typeof entry?.resolved === "string") return { value: entry.resolved, base };
    } catch {
      // the next candidate
    }
  }
  return undefined;
}

/** An npm package name from a directory name. */
export function packageName(dir: string): string {
  const n = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, "-")
    .replace(/^[._-]+|[-_.]+$/g, "");
  return n.length > 0 && n.length <= 214 ? n : "mcp-server";
}

/**
 * The peers a module of the runtime package needs beside it (its optional peers, which the project lists):
 * every module the SDK and zod, the per-request ones the SDK 2.x server as well. The stores' drivers are
 * not here: the runtime loads each only when that store is opened, and says what to install.
 */
function runtimePeers(module: string): string[] {
  return ["@modelcontextprotocol/sdk", "zod", ...(module.startsWith("stateless-") ? ["@modelcontextprotocol/server"] : [])];
}

/**
 * External packages the generated code needs installed beside it: what it imports (e.g. zod,
 * @modelcontextprotocol/sdk, the runtime package) and the peers of the runtime modules it imports.
 */
export function importedPackages(files: readonly { path: string; contents: string }[]): string[] {
  const found = new Set<string>();
  for (const f of files) {
    if (!f.path.endsWith(".ts")) continue;
    for (const m of f.contents.matchAll(/\bfrom\s+"([^"./][^"]*)"|\bimport\s*\(\s*"([^"./][^"]*)"\s*\)/g)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith("node:")) continue;
      const parts = spec.split("/");
      found.add(spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
      if (spec.startsWith(`${RUNTIME_PACKAGE}/`)) for (const peer of runtimePeers(spec.slice(RUNTIME_PACKAGE.length + 1))) found.add(peer);
    }
  }
  return [...found].sort();
}

/**
 * The scaffold's reviewed install scripts: better-sqlite3 builds its driver (where the user installs it:
 * a Node before 22.13 has no built-in SQLite). A generator linked from a
 * checkout (`file:<dir>`) builds itself, and npm lists the checkout's own tree with it (esbuild); npm
 * names such a link by its path from node_modules/.
 */
function allowedScripts(generatorSource: string | undefined): Record<string, boolean> {
  const allowed: Record<string, boolean> = { "better-sqlite3": true };
  if (generatorSource?.startsWith("file:") && !/\.t(ar\.)?gz$/.test(generatorSource)) {
    allowed[`file:../${generatorSource.slice("file:".length)}`] = true;
    allowed.esbuild = true;
  }
  return allowed;
}

/**
 * The stores' drivers, which the runtime loads only when it opens that store: better-sqlite3 (SQLite on a
 * Node before 22.13), pg and pg-boss (TASK_STORE=postgres:<url>). Installed by the user when needed (the README
 * and the runtime's message say how), never by default.
 */
const OPTIONAL_DRIVERS = new Set(["better-sqlite3", "pg", "pg-boss"]);

const NODE_BUILTINS = new Set(["crypto", "http", "https", "fs", "path", "url", "events", "stream", "os", "child_process", "util", "net", "buffer", "assert", "timers"]);

/** The files of a new project. */
export async function scaffold(o: InitOptions): Promise<Scaffold> {
  const specFile = o.builtin === undefined ? `${LAYOUT.specDir}/${basename(o.source.file)}` : undefined;
  const specRef = o.builtin ?? specFile!;
  // The compiler is loaded here, not with this module: generate reads importedPackages and ownPackage from it.
  const compiled = await (await import("./pipeline.js")).compile(o.source);
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

  // Runtime dependencies: what the generated code imports, plus what the user-owned files import. The
  // stores' drivers are not among them: the runtime loads each only when it opens that store, and says
  // what to install when it is missing. SQLite is built into every Node the project supports (node:sqlite,
  // without a flag from 22.13: the engines field), so its install compiles nothing; TASK_STORE=postgres:<url>
  // needs pg and pg-boss (README, "Scaling out"): a new project installs nothing it does not run.
  const runtimeDeps = new Set([...importedPackages(compiled.files), "@modelcontextprotocol/sdk", "zod"]);
  const dependencies = Object.fromEntries(
    [...runtimeDeps]
      .filter((d) => !NODE_BUILTINS.has(d) && !OPTIONAL_DRIVERS.has(d))
      .sort()
      .map((d) => [d, d === RUNTIME_PACKAGE ? (o.runtimeSource ?? version(d, RUNTIME_VERSION)) : version(d, "*")]),
  );
  const devDependencies = {
    "@types/node": version("@types/node", "^20.0.0"),
    [GENERATOR_NAME]: o.generatorSource ?? `^${pkg.version ?? GENERATOR_VERSION}`,
    // The compiler; also what `generate` and `check` read src/handlers/ with, to keep it in step.
    typescript: version("typescript", "^5.9.0"),
  };

  const has = (name: string) => contract.members.some((m) => m.name === name);
  // What the handlers template writes: the tools, a resource, a prompt (and the context their handlers take).
  const members = { tools: has("tools"), resources: has("readResource"), prompts: has("getPrompt"), requestHandlers: has("readResource") || has("getPrompt") };
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
    ...members,
    greetingJson: JSON.stringify(`Hello from ${o.name}!`),
    statusField: ir.behaviour.statusField ?? "status",
    idField: ir.behaviour.taskIdField ?? "taskId",
    retention: ir.behaviour.retention !== false,
    polling: ir.behaviour.polling !== false,
    taskRequests: contract.members.filter((m) => m.task).map((m) => m.method),
    context: contract.context.map((c) => c.name),
    hasContext: contract.context.length > 0,
    ...handlerStubs(contract, members),
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
        // Node 22.13 and later: the default task store runs on node:sqlite, which needs no flag from there.
        engines: { node: ">=22.13" },
        scripts: {
          generate: GENERATOR_NAME,
          build: "tsc -p tsconfig.json",
          typecheck: "tsc -p tsconfig.json --noEmit",
          start: "node dist/src/server.js",
          client: "node dist/src/client.js",
          // Runs queued task work for servers on a shared PostgreSQL database (README, "Scaling out").
          worker: "node dist/src/worker.js",
          // A glob: the shell expands it, or node --test does where the shell does not (Windows).
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
    mcpServersJson: JSON.stringify(
      {
        mcpServers: {
          [o.name]:
            transport === "stdio"
              ? { command: "node", args: [`${(o.directory ?? `/path/to/${o.name}`).split(sep).join("/")}/dist/src/server.js`] }
              : { type: "http", url: "http://127.0.0.1:3000/mcp" },
        },
      },
      null,
      2,
    ),
    clientExample: "",
  };
  // The README shows the client example as the file holds it (without its header comment).
  view.clientExample = tidyStatements(renderTemplate("init/client.ts.hbs", view)).replace(/^(\/\/.*\n)+/, "").trimEnd();

  const user = (path: string, template: string): ScaffoldFile => ({ path, contents: renderTemplate(`init/${template}`, view), owner: "user" });
  const files: ScaffoldFile[] = [
    user("package.json", "package.json.hbs"),
    user("tsconfig.json", "tsconfig.json.hbs"),
    user(LAYOUT.config, "mcp-task-gen.config.json.hbs"),
    user("README.md", "README.md.hbs"),
    user(".gitignore", "gitignore.hbs"),
    user("src/server.ts", "server.ts.hbs"),
    user("src/client.ts", "client.ts.hbs"),
    user("src/worker.ts", "worker.ts.hbs"),
    user(`${LAYOUT.handlers}/index.ts`, "handlers-index.ts.hbs"),
    ...(view.tools ? [user(`${LAYOUT.handlers}/echo.ts`, "tool-echo.ts.hbs")] : []),
    user("test/server.test.ts", "server.test.ts.hbs"),
    ...(specFile ? [{ path: specFile, contents: o.source.text, owner: "user" as const }] : []),
  ];
  const formatted = files.map(format);
  const generated = compiled.files.map((f) => ({ path: `${LAYOUT.out}/${f.path}`, contents: f.contents, owner: "generated" as const }));
  return { diagnostics: compiled.diagnostics, files: [...formatted, ...generated], specRef, transport };
}

/**
 * The scaffold's files are laid out as the generated ones are (formatter.ts: no prettier in the install;
 * the templates are written as prettier prints them, and a test holds them to it), but for the user's
 * spec, kept as written.
 */
function format(f: ScaffoldFile): ScaffoldFile {
  if (f.path.endsWith(".ts")) return { ...f, contents: tidyStatements(f.contents) };
  if (f.path.endsWith(".md")) return { ...f, contents: tidyMarkdown(f.contents) };
  return f;
}

/** The members the handlers template writes itself, by the flag that turns each on. */
const TEMPLATE_MEMBERS: Record<string, "tools" | "resources" | "prompts"> = {
  tools: "tools",
  listResources: "resources",
  readResource: "resources",
  listPrompts: "prompts",
  getPrompt: "prompts",
};

/** The template's own type imports from the contract module, by flag. */
const TEMPLATE_TYPES: Record<string, readonly string[]> = {
  always: ["ServerHandlers"],
  requestHandlers: ["HandlerContext"],
  resources: ["ListResourcesResult", "ReadResourceRequest", "ReadResourceResult"],
  prompts: ["GetPromptRequest", "GetPromptResult", "ListPromptsResult"],
};

/**
 * The stubs of the contract's members that the template does not write (the spec's custom operations),
 * as a regeneration would add them, so that the project compiles from the start; and the imports from
 * the contract module, values and types apart, each sorted.
 */
function handlerStubs(contract: Contract, flags: Record<"tools" | "resources" | "prompts" | "requestHandlers", boolean>) {
  const extra = contract.members.filter((m) => !(m.name in TEMPLATE_MEMBERS && flags[TEMPLATE_MEMBERS[m.name]]));
  const names = new Set([...TEMPLATE_TYPES.always, ...Object.entries(TEMPLATE_TYPES).flatMap(([k, v]) => (k !== "always" && flags[k as keyof typeof flags] ? v : []))]);
  for (const m of extra) m.imports.forEach((i) => names.add(i));
  const byName = (a: string, b: string) => a.localeCompare(b);
  return {
    stubs: extra.map((m) => m.stub.map((l) => (l === "" ? "" : `  ${l}`)).join("\n")).join("\n\n"),
    contractValues: [...names].filter((n) => STUB_VALUE_IMPORTS.has(n)).sort(byName),
    contractTypes: [...names].filter((n) => !STUB_VALUE_IMPORTS.has(n)).sort(byName),
  };
}
