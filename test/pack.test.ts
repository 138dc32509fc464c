/**
 * The package works when packed: `npm pack`, install the tarball into an empty
 * project, run `npx mcp-task-gen` there, and type-check what it generated
 * under a strict tsconfig with the typescript of this repository.
 *
 * One pack and one install (offline-friendly: --prefer-offline, from the npm
 * cache that installed this repository), shared by every assertion.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { listFiles } from "../generator/fsout.js";
import { compile, MANIFEST_FILE } from "../generator/pipeline.js";
import { DEFAULT_SPEC, resolveSpec } from "../generator/specs.js";
import { ROOT, run, STACK_TRACE, tempDirs, type Run } from "./helpers/cli.js";
import { footprint } from "../scripts/footprint.mjs";
import { freshDatabase } from "./runtime/store-postgres-db.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string };
const runtimeVersion = (JSON.parse(readFileSync(join(ROOT, "runtime", "package.json"), "utf8")) as { version: string }).version;
const installedVersion = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

/**
 * The child npm must not inherit `npm test`'s npm_* variables (they point at
 * this repository: local prefix, lifecycle event, ...).
 */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
const env: NodeJS.ProcessEnv = { ...cleanEnv, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };

// One pack + install is shared; the steps are slow on a loaded machine.
vi.setConfig({ testTimeout: 240_000 });

const dirs = tempDirs("mcp-task-gen-pack-");
afterAll(() => dirs.cleanup());

function must(r: Run, what: string): Run {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

let tmp: string;
let tarball: string;
let packedFiles: string[];
let runtimeTarball: string;
let runtimeFiles: string[];
let project: string;
let generated: Run;

beforeAll(async () => {
  tmp = dirs.make();
  // The installed generator's no-change cache (generator/fastpath.ts) stays in the temp dir.
  env.MCP_TASK_GEN_CACHE = join(tmp, "cache");
  // dist/ is built by the global setup; --ignore-scripts keeps `prepack` from
  // checking it again while other test files run the CLI from it.
  const packed = must(
    await run(NPM, ["pack", "--ignore-scripts", "--json", "--pack-destination", tmp], { cwd: ROOT, env, timeoutMs: 120_000 }),
    "npm pack",
  );
  const info = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(tmp, info[0].filename);
  packedFiles = info[0].files.map((f) => f.path);
  // The runtime package, which the CLI depends on and generated code imports (its build is made by the
  // global setup too).
  const packedRuntime = must(
    await run(NPM, ["pack", "./runtime", "--ignore-scripts", "--json", "--pack-destination", tmp], { cwd: ROOT, env, timeoutMs: 120_000 }),
    "npm pack ./runtime",
  );
  const runtimeInfo = JSON.parse(packedRuntime.stdout) as { filename: string; files: { path: string }[] }[];
  runtimeTarball = join(tmp, runtimeInfo[0].filename);
  runtimeFiles = runtimeInfo[0].files.map((f) => f.path);

  project = join(tmp, "consumer");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }, null, 2));
  must(
    await run(
      NPM,
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--no-package-lock",
        "--loglevel=error",
        // Both packages: no registry has either (the CLI depends on the runtime's version).
        runtimeTarball,
        tarball,
        // What the generated code imports (generate names them when package.json lacks them).
        `@modelcontextprotocol/sdk@${installedVersion("@modelcontextprotocol/sdk")}`,
        `zod@${installedVersion("zod")}`,
        `@types/node@${installedVersion("@types/node")}`,
      ],
      { cwd: project, env, timeoutMs: 240_000 },
    ),
    "npm install",
  );
  generated = await run(NPX, ["--no", "mcp-task-gen"], { cwd: project, env, timeoutMs: 120_000 });
}, 300_000);

describe("the packed package", () => {
  it("contains the CLI, the compiled generator, the templates and the built-in specs, and no tests nor runtime", () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        "package.json",
        "bin/mcp-task-gen.js",
        "bin/package.json",
        "dist/generator/cli/index.js",
        "dist/generator/index.js",
        "dist/generator/index.d.ts",
        // The templates precompiled by `npm run build` (prepare).
        "dist/generator/emit/templates.precompiled.cjs",
        `spec/${DEFAULT_SPEC}.yaml`,
        "spec/mcp-task-spec.schema.json",
        "templates/types.ts.hbs",
      ]),
    );
    expect(packedFiles.filter((f) => /^(test|generator|node_modules|output-samples|runtime)\//.test(f))).toEqual([]);
    expect((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies["@mcp-task-gen/runtime"]).toBe(runtimeVersion);
  });

  it("the runtime package holds its build (ES modules, CommonJS, declarations) and no sources", () => {
    expect(runtimeTarball.endsWith(`mcp-task-gen-runtime-${runtimeVersion}.tgz`)).toBe(true);
    expect(runtimeFiles).toEqual(
      expect.arrayContaining(["package.json", "README.md", "dist/esm/server.js", "dist/esm/server.d.ts", "dist/cjs/server.js", "dist/cjs/server.d.ts", "dist/cjs/package.json", "dist/esm/specs/mcp-2025-11-25/descriptor.js", "dist/cjs/specs/mcp-2025-11-25/descriptor.js"]),
    );
    expect(runtimeFiles.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
    expect(runtimeFiles.filter((f) => !/^(package\.json|README\.md|dist\/(esm|cjs)\/(specs\/(mcp-2025-11-25\/)?)?[a-z0-9-]+\.(js|d\.ts)|dist\/cjs\/package\.json)$/.test(f))).toEqual([]);
  });

  it("the installed runtime's entry points load as CommonJS (require) and as ES modules (import), one module for one file; its other modules are not reachable", async () => {
    // (The per-request modules need @modelcontextprotocol/server, which this project does not install.)
    const modules = ["server", "client", "store", "store-sqlite", "store-postgres", "workers", "task-context", "errors", "transports", "codegen", "mcp-server"];
    const cjs = must(
      await run(process.execPath, ["-e", `for (const m of ${JSON.stringify(modules)}) { const x = require("@mcp-task-gen/runtime/" + m); if (Object.keys(x).length === 0) throw new Error(m); console.log(m, require.resolve("@mcp-task-gen/runtime/" + m)); }`], { cwd: project, env }),
      "require",
    );
    expect(cjs.stdout.trim().split("\n").map((l) => l.split(" ")[1]!.split(sep).join("/"))).toEqual(modules.map((m) => expect.stringMatching(new RegExp(`node_modules/@mcp-task-gen/runtime/dist/cjs/${m}\\.js$`))));
    const esm = must(
      await run(process.execPath, ["--input-type=module", "-e", `for (const m of ${JSON.stringify(modules)}) { const x = await import("@mcp-task-gen/runtime/" + m); if (Object.keys(x).length === 0) throw new Error(m); console.log(m, import.meta.resolve("@mcp-task-gen/runtime/" + m)); }`], { cwd: project, env }),
      "import",
    );
    expect(esm.stdout.trim().split("\n").map((l) => l.split(" ")[1])).toEqual(modules.map((m) => expect.stringMatching(new RegExp(`node_modules/@mcp-task-gen/runtime/dist/esm/${m}\\.js$`))));
    // Only the entry points: a module of the runtime's own is not reachable by its path.
    for (const internal of ["plan", "machine", "server-core", "specs/sdk1"]) {
      const refused = await run(process.execPath, ["-e", `require("@mcp-task-gen/runtime/${internal}")`], { cwd: project, env });
      expect(refused.code, internal).not.toBe(0);
      expect(refused.stderr, internal).toContain("ERR_PACKAGE_PATH_NOT_EXPORTED");
    }
    const { TaskRuntime } = (await import(pathToFileURL(join(project, "node_modules/@mcp-task-gen/runtime/dist/esm/server.js")).href)) as { TaskRuntime: unknown };
    expect(typeof TaskRuntime).toBe("function");
  });

  it("installs into an empty project, with its bin linked, and asks to run no install script", () => {
    const installed = join(project, "node_modules", pkg.name);
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { version: string; scripts?: Record<string, string> };
    expect(manifest.version).toBe(pkg.version);
    // npm lists these (npm install-scripts) for a project to review: the package has none.
    for (const script of ["preinstall", "install", "postinstall", "prepare"]) expect(manifest.scripts?.[script], script).toBeUndefined();
    expect(existsSync(join(project, "node_modules", ".bin", "mcp-task-gen"))).toBe(true);
  });

  it("`npx mcp-task-gen` generates the default spec into ./mcp-tasks/", async () => {
    expect(generated.stderr).not.toMatch(STACK_TRACE);
    expect(generated.code, generated.stderr).toBe(0);
    expect(generated.stdout).toContain(`mcp-task-gen: ${DEFAULT_SPEC} → mcp-tasks/`);
    // Byte for byte what this repository's compiler produces.
    const r = resolveSpec(DEFAULT_SPEC, ROOT);
    if (!r.ok) throw new Error(r.message);
    const files = (await compile(r.source)).files!;
    const out = join(project, "mcp-tasks");
    expect(listFiles(out).sort()).toEqual(files.map((f) => f.path).sort());
    for (const f of files) expect(readFileSync(join(out, f.path), "utf8"), f.path).toBe(f.contents);
    expect(files.map((f) => f.path)).toContain(MANIFEST_FILE);
  });

  it("the generated files type-check under a strict tsconfig", async () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify(
        {
          compilerOptions: {
            target: "ES2022",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            noUnusedLocals: true,
            noUnusedParameters: true,
            noImplicitReturns: true,
            noFallthroughCasesInSwitch: true,
            types: ["node"],
          },
          include: ["mcp-tasks/**/*.ts"],
        },
        null,
        2,
      ),
    );
    const tsc = await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: project, env, timeoutMs: 180_000 });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.code).toBe(0);
  }, 200_000);

  it("the installed command finds its built-in specs and checks its own output", async () => {
    const list = must(await run(NPX, ["--no", "mcp-task-gen", "list-specs"], { cwd: project, env }), "list-specs");
    expect(list.stdout).toContain(`${DEFAULT_SPEC} (default)`);
    const check = await run(NPX, ["--no", "mcp-task-gen", "check"], { cwd: project, env, timeoutMs: 120_000 });
    expect(check.stderr).toBe("");
    expect(check.code).toBe(0);
    const version = must(await run(NPX, ["--no", "--", "mcp-task-gen", "--version"], { cwd: project, env }), "--version");
    expect(version.stdout.trim()).toBe(pkg.version);
  }, 200_000);
});


describe("the tarball, used outside the checkout", () => {
  let outside: string;
  beforeAll(() => {
    outside = join(tmp, "outside");
    mkdirSync(outside);
  });

  it("`npm install <runtime tarball> <tarball>` in an empty project brings in at most 30 MB", async () => {
    const bare = join(outside, "bare");
    mkdirSync(bare);
    writeFileSync(join(bare, "package.json"), JSON.stringify({ name: "bare", version: "1.0.0", private: true }, null, 2));
    must(
      await run(NPM, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error", runtimeTarball, tarball], { cwd: bare, env, timeoutMs: 240_000 }),
      "npm install <runtime tarball> <tarball>",
    );
    const { bytes, packages } = footprint(join(bare, "node_modules"));
    console.log(`npm install <runtime tarball> <tarball>: ${(bytes / 1e6).toFixed(1)} MB in ${packages} packages`);
    expect(bytes).toBeLessThanOrEqual(30e6);
    // The generator needs neither MCP SDK, nor prettier, nor TypeScript (an optional peer) to run.
    for (const absent of ["@modelcontextprotocol/sdk", "@modelcontextprotocol/server", "prettier", "ts-morph", "typescript"]) {
      expect(existsSync(join(bare, "node_modules", absent)), absent).toBe(false);
    }
    const help = must(await run(NPX, ["--no", "--", "mcp-task-gen", "--help"], { cwd: bare, env }), "--help");
    expect(help.stdout).toContain("mcp-task-gen init");
    // Without TypeScript, generating with a handler folder still generates, and says what to install to keep it in step.
    mkdirSync(join(bare, "src", "handlers"), { recursive: true });
    writeFileSync(join(bare, "src", "handlers", "index.ts"), "export class Handlers {}\n");
    const gen = await run(NPX, ["--no", "--", "mcp-task-gen", "generate", "--spec", "mcp-2025-11-25", "--out", "src/tasks", "--handlers", "src/handlers"], { cwd: bare, env, timeoutMs: 120_000 });
    expect(gen.stderr).not.toMatch(STACK_TRACE);
    expect(gen.code, gen.stderr).toBe(0);
    expect(existsSync(join(bare, "src", "tasks", "handlers.ts"))).toBe(true);
    expect(gen.stderr).toContain("npm install --save-dev typescript");
    expect(readFileSync(join(bare, "src", "handlers", "index.ts"), "utf8")).toBe("export class Handlers {}\n");
    expect(gen.stdout).not.toContain("in step with the contract");
    // check cannot vouch for the handler files without it: exit 1, with the same advice.
    const check = await run(NPX, ["--no", "--", "mcp-task-gen", "check", "--spec", "mcp-2025-11-25", "--out", "src/tasks", "--handlers", "src/handlers"], { cwd: bare, env, timeoutMs: 120_000 });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("src/handlers/: handler files not checked against the contract");
  });

  it("`npx -p <runtime tarball> -p <tarball> mcp-task-gen init srv`: the scaffold carries both tarballs, installs from the registry alone, passes its tests and check, and its production install holds no compiler", async () => {
    // npx installs the tarballs in its own cache, as a newcomer's first command does.
    const local = (file: string) => `./${relative(outside, file).split(sep).join("/")}`.replace(/^\.\/\.\.\//, "../");
    // A database of this test's own: the scaffold's servers share one job queue per database.
    const database = await freshDatabase("pack");
    onTestFinished(() => database.drop());
    const npxEnv = { ...env, npm_config_prefer_offline: "true", DATABASE_URL: database.url };
    const both = ["-p", local(runtimeTarball), "-p", local(tarball), "mcp-task-gen"];
    const help = must(await run(NPX, ["--yes", ...both, "--help"], { cwd: outside, env: npxEnv, timeoutMs: 240_000 }), "npx <tarballs> --help");
    expect(help.stdout).toContain("Commands:");
    const init = must(await run(NPX, ["--yes", ...both, "init", "srv"], { cwd: outside, env: npxEnv, timeoutMs: 240_000 }), "npx <tarballs> init srv");
    expect(init.stdout).toContain("a stdio MCP server for spec mcp-2025-11-25");
    const srv = join(outside, "srv");
    const scaffoldPkg = JSON.parse(readFileSync(join(srv, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    // No registry has these versions: the scaffold depends on copies of the tarballs it was made with, the
    // generator for development, the runtime for production.
    const vendored = `vendor/${pkg.name}-${pkg.version}.tgz`;
    expect(scaffoldPkg.devDependencies[pkg.name]).toBe(`file:${vendored}`);
    expect(readFileSync(join(srv, vendored)).equals(readFileSync(tarball))).toBe(true);
    const vendoredRuntime = `vendor/mcp-task-gen-runtime-${runtimeVersion}.tgz`;
    expect(scaffoldPkg.dependencies["@mcp-task-gen/runtime"]).toBe(`file:${vendoredRuntime}`);
    expect(readFileSync(join(srv, vendoredRuntime)).equals(readFileSync(runtimeTarball))).toBe(true);
    const installed = must(await run(NPM, ["install", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: srv, env: npxEnv, timeoutMs: 480_000 }), "npm install");
    // Nothing to review or compile: no install script in the whole tree, no native module.
    expect(installed.stdout + installed.stderr).not.toContain("install-scripts");
    const lock = JSON.parse(readFileSync(join(srv, "package-lock.json"), "utf8")) as { packages: Record<string, { hasInstallScript?: boolean }> };
    expect(Object.entries(lock.packages).filter(([, p]) => p.hasInstallScript).map(([k]) => k)).toEqual([]);
    // Dev tools included, at most 60 MB.
    const size = footprint(join(srv, "node_modules"));
    console.log(`the scaffold's npm install: ${(size.bytes / 1e6).toFixed(1)} MB in ${size.packages} packages`);
    expect(size.bytes).toBeLessThanOrEqual(60e6);
    // Nothing of this checkout is linked in behind the user's back.
    expect(readFileSync(join(srv, "package-lock.json"), "utf8")).not.toContain(ROOT);
    // What the scaffold says to install: the SQLite driver on a Node without one built in (init's "Next:"),
    // pg and pg-boss for the PostgreSQL store (README, Scaling out). check needs nothing more (below).
    const readme = readFileSync(join(srv, "README.md"), "utf8");
    const extras = [/^ {2}npm install (better-sqlite3@12) /m.exec(init.stdout)?.[1], /`npm install (pg@8 pg-boss@10)`/.exec(readme)?.[1]];
    expect(extras.slice(1)).not.toContain(undefined);
    for (const extra of extras.filter((e) => e !== undefined)) {
      must(await run(NPM, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...extra.split(" ")], { cwd: srv, env: npxEnv, timeoutMs: 480_000 }), `npm install ${extra}`);
    }
    const tests = must(await run(NPM, ["test"], { cwd: srv, env: npxEnv, timeoutMs: 240_000 }), "npm test");
    // TAP (node 20 writing to a pipe) or the spec reporter (node 22 and later).
    expect(tests.stdout).toMatch(/^(#|ℹ) fail 0$/m);
    expect(tests.stdout).toMatch(/^(#|ℹ) skipped 0$/m);
    const check = must(await run(NPX, ["--no", "mcp-task-gen", "check"], { cwd: srv, env: npxEnv, timeoutMs: 120_000 }), "mcp-task-gen check");
    expect(check.stdout).toContain("src/tasks/ is up to date with mcp-2025-11-25");
    expect(check.stdout).toContain("src/handlers/ is in step with the contract of spec mcp-2025-11-25");

    // The production install (npm ci --omit=dev) of the built server: the runtime, the SDK, zod, and
    // neither the compiler nor its dependencies nor TypeScript; and the server answers there.
    const prod = join(outside, "srv-production");
    mkdirSync(prod);
    for (const f of ["package.json", "package-lock.json", "vendor", "dist"]) cpSync(join(srv, f), join(prod, f), { recursive: true });
    const ci = must(await run(NPM, ["ci", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: prod, env: npxEnv, timeoutMs: 480_000 }), "npm ci --omit=dev");
    const prodLock = JSON.parse(readFileSync(join(prod, "package-lock.json"), "utf8")) as { packages: Record<string, unknown> };
    const why = (name: string) => `${name}: ${JSON.stringify(prodLock.packages[`node_modules/${name}`])} ${ci.stdout} ${ci.stderr}`;
    const top = readdirSync(join(prod, "node_modules")).flatMap((n) => (n.startsWith("@") ? readdirSync(join(prod, "node_modules", n)).map((m) => `${n}/${m}`) : [n]));
    expect(top).toEqual(expect.arrayContaining(["@mcp-task-gen/runtime", "@modelcontextprotocol/sdk", "zod"]));
    for (const absent of [pkg.name, "yargs", "handlebars", "fast-check", "yaml", "typescript", "ts-morph", "@types/node"]) expect(top, why(absent)).not.toContain(absent);
    const server = spawn(process.execPath, ["dist/src/server.js"], { cwd: prod, env: { ...npxEnv, TASK_STORE: "memory" }, stdio: ["pipe", "pipe", "pipe"] });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        let out = "";
        let err = "";
        const timer = setTimeout(() => reject(new Error(`no answer from the production server in 30 s: ${err}`)), 30_000);
        server.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
        server.stdout.setEncoding("utf8").on("data", (d: string) => {
          out += d;
          if (out.includes("\n")) (clearTimeout(timer), resolve(out.split("\n")[0]!));
        });
        server.on("exit", (code) => (clearTimeout(timer), reject(new Error(`the production server exited (${code}): ${err}`))));
        server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "pack-test", version: "1.0.0" } } })}\n`);
      });
      const reply = JSON.parse(answer) as { id: number; result?: { capabilities?: { tasks?: unknown } } };
      expect(reply.id).toBe(1);
      expect(reply.result?.capabilities?.tasks).toBeDefined();
    } finally {
      server.kill();
    }
  }, 900_000);
});
