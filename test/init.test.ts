/**
 * `mcp-task-gen init`, end to end, exactly as the README's quick start tells a
 * newcomer (its commands are read from the README): from this checkout,
 * `npx mcp-task-gen init <dir>`, then `npm install` and `npm test` in the new project (offline-friendly: --prefer-offline, from the
 * npm cache that installed this repository). The scaffold names this checkout
 * as its mcp-task-gen (a `file:` link, since the package is on no registry);
 * nothing is swapped in behind its back. Its tests start the server and drive
 * it through the generated client.
 *
 * One install (the default spec, mcp-2025-11-25, over stdio) is shared: the
 * other scaffolds (sep-1686-draft over Streamable HTTP, ext-tasks-2026-07-28
 * over stateless HTTP) link its node_modules or install their own, and build
 * and test the same way. The scaffold's tests run a task on each task store:
 * PostgreSQL is a database of its own on the cluster the test setup started (DATABASE_URL). The
 * README's "Connect a client" commands are run as written, with stdin closed
 * and no terminal: the Inspector's commands (`npx --yes`, on the Node 22 of the
 * conformance folder), `npm run client -- ...`, the desktop client entry, the
 * client example; and the Inspector's CLI shows why a second server cannot open
 * the default store.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, relative, sep } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cli, ROOT, STACK_TRACE, run, tempDirs, type Run } from "./helpers/cli.js";
import { inspectorCli } from "./helpers/inspector.js";
import { freePort } from "./helpers/net.js";
import { node22 } from "./helpers/node22.js";
import { readmeCommands } from "./helpers/readme.js";
import { freshDatabase, query } from "./runtime/store-postgres-db.js";

vi.setConfig({ testTimeout: 300_000, hookTimeout: 600_000 });

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";

/** The child npm must not inherit `npm test`'s npm_* variables; its scripts run this node. */
const env: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false",
};

const dirs = tempDirs("mcp-task-gen-init-");
// The scaffold's own tests run a task on a PostgreSQL store when DATABASE_URL names one: a database of this
// file's own, whose job queue no other test file's servers share.
let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
beforeAll(async () => {
  database = await freshDatabase("init");
  env.DATABASE_URL = database.url;
});
afterAll(async () => {
  dirs.cleanup();
  await database?.drop();
});

function must(r: Run, what: string): Run {
  expect(r.stderr, what).not.toMatch(STACK_TRACE);
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

const npm = (cwd: string, args: string[], timeoutMs = 240_000) => run(NPM, args, { cwd, env, timeoutMs });
const json = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, string>>;

/** node --test's summary counts. */
function summary(out: string): { pass: number; fail: number; skipped: number } {
  // TAP's "# pass 9" (node 20 writing to a pipe) or the spec reporter's "ℹ pass 9" (node 22 and later).
  const n = (k: string) => Number(new RegExp(`^(?:#|ℹ) ${k} (\\d+)$`, "m").exec(out)?.[1] ?? NaN);
  return { pass: n("pass"), fail: n("fail"), skipped: n("skipped") };
}

const runtimeVersion = (JSON.parse(readFileSync(join(ROOT, "runtime", "package.json"), "utf8")) as { version: string }).version;
let tmp: string;
let seed: string;
let initRun: Run;
/** The README's quick start for `folder`: the arguments of its npx, npm install and npm test commands. */
let quickStart: { init: string[]; install: string[]; test: string[] };
/** The scaffold's package.json as init wrote it (the README's installs add to it later). */
let initPkg: Record<string, Record<string, string>>;

beforeAll(async () => {
  tmp = dirs.make();
  env.MCP_TASK_GEN_CACHE = join(tmp, "cache");
  seed = join(tmp, "srv-stdio");
  // The README's quick start: npx mcp-task-gen init <dir> (here, in this checkout), then npm install and npm
  // test there (its folder is this temp folder; npm's quiet, offline-friendly flags are added to the install).
  const [init, ...rest] = readmeCommands("## Quick start: a new server");
  expect(init!.slice(0, 3)).toEqual(["npx", "mcp-task-gen", "init"]);
  const folder = init![3]!;
  expect(rest).toEqual([["cd", folder], ["npm", "install"], ["npm", "test"]]);
  quickStart = { init: init!.slice(1).map((a) => (a === folder ? seed : a)), install: rest[1]!.slice(1), test: rest[2]!.slice(1) };
  initRun = must(await run(NPX, quickStart.init, { cwd: ROOT, env, timeoutMs: 120_000 }), "npx mcp-task-gen init");
  initPkg = json(join(seed, "package.json"));
  must(await npm(seed, [...quickStart.install, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], 480_000), "npm install");
  // What init's "Next:" adds on a Node without built-in SQLite (before 22.13), as it prints it.
  const driver = /^ {2}npm install (better-sqlite3@12) /m.exec(initRun.stdout);
  expect(driver !== null).toBe(!/^(22\.(1[3-9]|[2-9]\d)|2[3-9]|[3-9]\d)/.test(process.versions.node));
  if (driver) must(await npm(seed, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", driver[1]!], 480_000), "npm install better-sqlite3");
  // The README's install for the PostgreSQL store (Scaling out); `generate` and `check` need nothing more.
  const readme = readFileSync(join(seed, "README.md"), "utf8");
  const line = /`(npm install pg@8 pg-boss@10)`/.exec(readme)?.[1];
  expect(line).toBeDefined();
  must(await npm(seed, [...line!.split(" ").slice(1), "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], 480_000), line!);
}, 900_000);

describe("mcp-task-gen init (the default spec, stdio)", () => {
  it("writes a project: package.json, tsconfig, config, generated code, user-owned handlers, entry point, test, README", () => {
    expect(initRun.stdout).toContain("a stdio MCP server for spec mcp-2025-11-25");
    // The few lines that matter, not one per file.
    expect(initRun.stdout.split("\n").length).toBeLessThan(15);
    expect(readFileSync(join(seed, "src/handlers/echo.ts"), "utf8")).toContain(`taskSupport: "optional",`);
    expect(initRun.stdout).toContain("npm install");
    for (const f of [
      "package.json",
      "tsconfig.json",
      "mcp-task-gen.config.json",
      "README.md",
      ".gitignore",
      "src/server.ts",
      "src/client.ts",
      "src/worker.ts",
      "src/handlers/index.ts",
      "src/handlers/echo.ts",
      "test/server.test.ts",
      "src/tasks/handlers.ts",
      "src/tasks/server.ts",
      "src/tasks/client.ts",
      "src/tasks/mcp-task-gen.manifest.json",
    ]) {
      expect(existsSync(join(seed, f)), f).toBe(true);
    }
    expect(json(join(seed, "mcp-task-gen.config.json"))).toEqual({ spec: "mcp-2025-11-25", out: "src/tasks", handlers: "src/handlers" });
    const pkg = initPkg;
    expect(pkg.scripts.generate).toBe("mcp-task-gen");
    expect(pkg.scripts.worker).toBe("node dist/src/worker.js");
    // No store driver (SQLite is built into Node 22+; better-sqlite3, pg and pg-boss are installed when
    // needed, as the README says): nothing to compile. TypeScript also reads the handler files for generate and check.
    expect(Object.keys(pkg.dependencies)).toEqual(["@mcp-task-gen/runtime", "@modelcontextprotocol/sdk", "zod"]);
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(["@types/node", "mcp-task-gen", "typescript"]);
    // This checkout, linked: the package is on no registry. The generated code needs nothing of it at run time.
    expect(pkg.devDependencies["mcp-task-gen"]).toBe(`file:${relative(seed, ROOT).split(sep).join("/")}`);
    // The install scripts it needs are reviewed: the SQLite driver's build, and the linked checkout's (npm
    // names the link by its path from node_modules/, and lists the checkout's own esbuild with it).
    const link = pkg.devDependencies["mcp-task-gen"]!.slice("file:".length);
    expect(pkg.allowScripts).toEqual({ "better-sqlite3": true, [`file:../${link}`]: true, esbuild: true });
    // The runtime is a dependency the generated code imports: this checkout's runtime package, packed
    // into vendor/ (a link would load the checkout's SDK beside the project's), installed as a package
    // (its build: JavaScript with declarations), and never copied into the output.
    expect(pkg.dependencies["@mcp-task-gen/runtime"]).toBe(`file:vendor/mcp-task-gen-runtime-${runtimeVersion}.tgz`);
    expect(initRun.stdout).toContain(`vendor/mcp-task-gen-runtime-${runtimeVersion}.tgz`);
    expect(existsSync(join(seed, "src/tasks/runtime"))).toBe(false);
    const installed = json(join(seed, "node_modules/@mcp-task-gen/runtime/package.json")) as unknown as { version: string };
    expect(installed.version).toBe(runtimeVersion);
    expect(existsSync(join(seed, "node_modules/@mcp-task-gen/runtime/dist/esm/server.js"))).toBe(true);
    expect(existsSync(join(seed, "node_modules/@mcp-task-gen/runtime/server.ts"))).toBe(false);
    expect(json(join(seed, "tsconfig.json")).compilerOptions).toMatchObject({ strict: true });
    // User-owned files are not in the generated manifest.
    expect(Object.keys(json(join(seed, "src/tasks/mcp-task-gen.manifest.json")).files)).not.toContain("../handlers/index.ts");
  });

  it("builds and passes its own tests, the example tool run as a task through the generated client", async () => {
    const r = must(await npm(seed, quickStart.test), "npm test");
    expect(summary(r.stdout + r.stderr)).toEqual({ pass: 11, fail: 0, skipped: 0 });
    // A passed test: "ok 6 - <name>" (TAP) or "✔ <name> (12ms)" (the spec reporter).
    const passed = (name: string) => new RegExp(`^(?:ok \\d+ - |✔ )${name.replace(/[()]/g, "\\$&")}(?: \\(.*\\))?$`, "m");
    for (const store of ["memory", "sqlite", "postgres"]) expect(r.stdout).toMatch(passed(`runs a task with TASK_STORE=${store}`));
    expect(r.stdout).toMatch(passed("over stdio on a shared store (PostgreSQL), each client sees only its own tasks"));
    expect(r.stdout).toContain("runs the example tool as a task through the generated client");
    expect(r.stdout).toContain("a task and its result outlive a restart of the server (the SQLite task store)");
    expect(r.stdout).toMatch(passed("exits within 2 s of its client going away (stdin closed), mid-task, and releases the task store"));
    expect(r.stdout).toMatch(passed("a second server on the same task store file says which process holds it and what to do"));
  });

  it("`npm run generate` (the installed mcp-task-gen, from the config) finds everything up to date", async () => {
    const r = must(await npm(seed, ["run", "--silent", "generate"]), "npm run generate");
    expect(r.stdout).toMatch(/mcp-2025-11-25 → src\/tasks\/: 0 written, \d+ unchanged/);
    expect(r.stdout).toContain("src/handlers/: in step with the contract of spec mcp-2025-11-25");
    // And check, as the scaffold's README gives it for CI (the installed command, reading the config).
    const checked = must(await npm(seed, ["exec", "--", "mcp-task-gen", "check"]), "mcp-task-gen check");
    expect(checked.stdout).toContain("src/tasks/ is up to date with mcp-2025-11-25");
    expect(checked.stdout).toContain("src/handlers/ is in step with the contract of spec mcp-2025-11-25");
  });
});

describe("the scaffold README's \"Connect a client\", run as written where no terminal answers", () => {
  const readme = () => readFileSync(join(seed, "README.md"), "utf8");
  const section = () => readme().slice(readme().indexOf("## Connect a client"), readme().indexOf("\n## ", readme().indexOf("## Connect a client") + 3));
  const blocks = (lang: string) => [...section().matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)\\n```", "g"))].map((m) => m[1]!);
  const block = (lang: string) => blocks(lang)[0]!;
  /** The commands of the section's sh blocks, comments dropped. */
  const commands = () => blocks("sh").flatMap((b) => b.split("\n")).map((l) => l.replace(/(^|\s)#.*$/, "").trim()).filter((l) => l !== "");
  /** The Inspector needs Node 22.19 or later: the conformance folder's Node 22 comes first on PATH (and runs `node` in its command). */
  const inspectorEnv = () => ({ ...env, PATH: [dirname(node22()), env.PATH].join(delimiter) });
  // Every command runs with stdin closed, no terminal (helpers/cli.ts run): npx cannot ask there.

  it("the Inspector's CLI commands, as written (npx --yes), list the example tool and call it", async () => {
    must(await npm(seed, ["run", "build"]), "npm run build");
    const lines = commands().filter((l) => l.startsWith("npx --yes @modelcontextprotocol/inspector --cli "));
    expect(lines).toHaveLength(2);
    const outputs: string[] = [];
    for (const line of lines) outputs.push(must(await run(NPX, line.split(" ").slice(1), { cwd: seed, env: inspectorEnv(), timeoutMs: 240_000 }), line).stdout);
    expect((JSON.parse(outputs[0]!) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain("echo");
    expect(JSON.parse(outputs[1]!)).toEqual({ content: [{ type: "text", text: "hello" }] });
  });

  it("the Inspector's web UI command, as written, starts the Inspector and serves its page", async () => {
    const line = commands().find((l) => l.startsWith("npx --yes @modelcontextprotocol/inspector node "));
    expect(line).toBeDefined();
    const ports = { CLIENT_PORT: String(await freePort()), MCP_SANDBOX_PORT: String(await freePort()) };
    // No browser to open here, no keychain: the page is fetched, secrets stay in memory.
    const settings = { ...ports, MCP_AUTO_OPEN_ENABLED: "false", MCP_INSPECTOR_SECRET_STORE: "memory", HOME: join(tmp, "home") };
    const child = spawn(NPX, line!.split(" ").slice(1), { cwd: seed, env: { ...inspectorEnv(), ...settings }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the Inspector did not start:\n${out}`)), 180_000);
        const poll = setInterval(() => {
          const m = new RegExp(`http://127\\.0\\.0\\.1:${ports.CLIENT_PORT}\\?MCP_INSPECTOR_API_TOKEN=[0-9a-f]+`).exec(out);
          if (m) (clearTimeout(timer), clearInterval(poll), resolve(m[0]));
        }, 100);
        child.once("exit", (code) => (clearTimeout(timer), clearInterval(poll), reject(new Error(`the Inspector exited (${code}):\n${out}`))));
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<html");
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
      await exited;
    }
  });

  it("`npm run client -- echo ...`, as written, runs the tool as a task: its status, progress as it arrives, then the result", async () => {
    const line = commands().find((l) => l.startsWith("npm run client -- "));
    expect(line).toBe("npm run client -- echo message=hello delayMs=2000");
    const child = spawn(NPM, line!.split(" ").slice(1), { cwd: seed, env, stdio: ["ignore", "pipe", "pipe"] });
    const lines: { text: string; at: number }[] = [];
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    let partial = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      const parts = (partial + d).split("\n");
      partial = parts.pop()!;
      for (const text of parts) lines.push({ text, at: Date.now() });
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code, err).toBe(0);
    const own = lines.filter((l) => !l.text.startsWith(">") && l.text !== "");
    expect(own.map((l) => l.text).slice(0, -1)).toEqual(["status working", "progress 1/5", "progress 2/5", "progress 3/5", "progress 4/5", "progress 5/5", "status completed"]);
    expect(JSON.parse(own.at(-1)!.text)).toMatchObject({ content: [{ type: "text", text: "hello" }] });
    // As they arrive: the steps are 400 ms apart, and each line is printed when its notification comes.
    const progress = own.filter((l) => l.text.startsWith("progress"));
    expect(progress.at(-1)!.at - progress[0]!.at).toBeGreaterThan(1_000);
  });

  it("the desktop client entry starts the server, as a desktop client would (command and args from the JSON)", async () => {
    const entry = Object.values((JSON.parse(block("json")) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers)[0]!;
    expect(entry.args[0]).toBe(join(seed, "dist/src/server.js").split(sep).join("/"));
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const client = new Client({ name: "desktop", version: "1.0.0" });
    // A desktop client looks the command up on its PATH.
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, cwd: tmp, env: { PATH: env.PATH! }, stderr: "ignore" }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
    } finally {
      await client.close();
    }
  });

  it("the client example (src/client.ts, as the README shows it) runs the tool as a task", async () => {
    expect(readFileSync(join(seed, "src/client.ts"), "utf8")).toContain(block("ts"));
    const r = must(await npm(seed, ["run", "--silent", "client"]), "npm run client");
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toMatchObject({ content: [{ type: "text", text: "hello from a task" }] });
  });

  it("`npm run client` hands the server it starts the settings the shell gives (TASK_STORE): the task is in PostgreSQL", async () => {
    const r = must(await run(NPM, ["run", "--silent", "client"], { cwd: seed, env: { ...env, TASK_STORE: `postgres:${database!.url}` }, timeoutMs: 240_000 }), "npm run client");
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { _meta: Record<string, { taskId: string }> };
    const taskId = out._meta["io.modelcontextprotocol/related-task"]!.taskId;
    const rows = await query(`SELECT status FROM mcp_tasks.tasks WHERE task_id = $1`, [JSON.stringify(taskId)], database!.url);
    expect(rows.rows).toEqual([{ status: JSON.stringify("completed") }]);
  });

  it("with `npm start` holding the default store, the Inspector's CLI (as written) and `npm run client` show which process holds it and what to do", async () => {
    must(await npm(seed, ["run", "build"]), "npm run build");
    // The README's `npm start`, left running: its server holds tasks.db.
    const first = spawn(NPM, ["start"], { cwd: seed, env, stdio: ["pipe", "ignore", "pipe"] });
    let err = "";
    first.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const firstExit = new Promise((resolve) => first.once("exit", resolve));
    try {
      await vi.waitFor(() => expect(err).toContain('"serving on stdio"'), { timeout: 30_000, interval: 50 });
      const line = commands().find((l) => l.startsWith("npx --yes @modelcontextprotocol/inspector --cli node dist/src/server.js --method tools/list"))!;
      const r = await run(NPX, line.split(" ").slice(1), { cwd: seed, env: inspectorEnv(), timeoutMs: 240_000 });
      expect(r.code).toBe(1);
      // The Inspector's error, as JSON on its stderr (beside the server's own lines, which it passes on).
      const error = r.stderr.split("\n").find((l) => l.startsWith('{"error"'));
      expect(error, r.stderr).toBeDefined();
      const shown = (JSON.parse(error!) as { error: { message: string } }).error.message;
      expect(shown).toMatch(/tasks\.db is open elsewhere \(another process or store\): process \d+ holds it \(node \S+dist\/src\/server\.js, since /);
      expect(shown).toContain("stop that process");
      expect(shown).toContain("TASK_STORE=memory keeps tasks in memory");
      expect(r.stderr).not.toMatch(STACK_TRACE);
      // And `npm run client`, whose server is refused the same way, says so without a stack trace.
      const client = await npm(seed, ["run", "--silent", "client"]);
      expect(client.code).toBe(1);
      expect(client.stderr).toMatch(/tasks\.db is open elsewhere \(another process or store\): process \d+ holds it/);
      expect(client.stderr).not.toMatch(STACK_TRACE);
    } finally {
      first.stdin.end();
      await firstExit;
    }
  });
});

describe("other specs and transports (sharing the install)", () => {
  const scaffold = async (name: string, args: string[], install = false) => {
    const r = must(await cli(["init", name, ...args], tmp), `init ${name}`);
    const dir = join(tmp, name);
    // A scaffold whose dependencies are the seed's shares its install; another installs its own, and what
    // init's "Next:" adds on a Node without built-in SQLite.
    if (install) {
      must(await npm(dir, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], 480_000), "npm install");
      const driver = /^ {2}npm install (better-sqlite3@12) /m.exec(r.stdout);
      if (driver) must(await npm(dir, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", driver[1]!], 480_000), "npm install better-sqlite3");
    } else symlinkSync(join(seed, "node_modules"), join(dir, "node_modules"), "dir");
    return { r, dir };
  };

  it("sep-1686-draft over Streamable HTTP: builds and passes its own tests", async () => {
    const { r, dir } = await scaffold("srv-http", ["--spec", "sep-1686-draft", "--transport", "http"]);
    expect(r.stdout).toContain("a Streamable HTTP MCP server for spec sep-1686-draft");
    const t = must(await npm(dir, ["test"]), "npm test");
    expect(summary(t.stdout + t.stderr)).toEqual({ pass: 9, fail: 0, skipped: 0 });
  });

  it("the first `npm run generate` after init, on a changed spec, says what the change means for the handlers", async () => {
    const { dir } = await scaffold("srv-regen", []);
    writeFileSync(join(dir, "mcp-task-gen.config.json"), JSON.stringify({ spec: "sep-1686-draft", out: "src/tasks", handlers: "src/handlers" }));
    const r = must(await npm(dir, ["run", "--silent", "generate"]), "npm run generate");
    expect(r.stdout).toMatch(/^ {2}states {4}Tasks now start in `submitted` \(was `working`\)/m);
    expect(r.stdout).toMatch(/mcp-task-gen: \d+ changes for the handlers/);
  });

  it("ext-tasks-2026-07-28 (per-request lifecycle) over stateless HTTP: builds and passes its own tests", async () => {
    const { r, dir } = await scaffold("srv-ext", ["--spec", "ext-tasks-2026-07-28"], true);
    expect(r.stdout).toContain("a Streamable HTTP MCP server for spec ext-tasks-2026-07-28");
    // Its dependencies are what its generated code imports.
    expect(Object.keys(json(join(dir, "package.json")).dependencies)).toContain("@modelcontextprotocol/server");
    expect(readFileSync(join(dir, "src/server.ts"), "utf8")).toContain("serveStatelessHttp");
    const t = must(await npm(dir, ["test"]), "npm test");
    // Its store tests on PostgreSQL are skipped, saying what to install: this project installed no pg.
    expect(summary(t.stdout + t.stderr)).toEqual({ pass: 7, fail: 0, skipped: 1 });
    expect(t.stdout).toContain("pg and pg-boss are not installed: npm install pg@8 pg-boss@10");
  });

  it("a spec file (not a built-in name) is copied into the project and named in the config", async () => {
    const own = join(tmp, "my-spec.yaml");
    writeFileSync(own, readFileSync(join(ROOT, "spec", "mcp-2025-11-25.yaml"), "utf8"));
    const r = must(await cli(["init", "srv-own", "--spec", own], tmp), "init --spec <file>");
    expect(r.stdout).toContain("spec spec/my-spec.yaml");
    const dir = join(tmp, "srv-own");
    expect(readFileSync(join(dir, "spec/my-spec.yaml"), "utf8")).toBe(readFileSync(own, "utf8"));
    expect(json(join(dir, "mcp-task-gen.config.json")).spec).toBe("spec/my-spec.yaml");
  });
});

describe("the scaffold README's next steps, run as written", () => {
  const readme = () => readFileSync(join(seed, "README.md"), "utf8");
  /** The ```lang blocks of a section, in order. */
  const sections = (heading: string, lang: string) => {
    const text = readme();
    const from = text.indexOf(`## ${heading}`);
    expect(from, heading).toBeGreaterThan(-1);
    const section = text.slice(from, text.indexOf("\n## ", from + 3));
    return [...section.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);
  };
  const blocks = (heading: string) => sections(heading, "ts");
  const edit = (file: string, from: string, to: string) => {
    const text = readFileSync(join(seed, file), "utf8");
    expect(text, `${file} holds ${JSON.stringify(from)}`).toContain(from);
    writeFileSync(join(seed, file), text.replace(from, to));
  };

  it("Add a tool, then Progress and status: the new tool reports progress to the generated client, through its task", async () => {
    const [tool, importLine, toolsLine] = blocks("Add a tool");
    writeFileSync(join(seed, "src/handlers/countdown.ts"), tool!);
    edit("src/handlers/index.ts", 'import { echo } from "./echo.js";\n', `import { echo } from "./echo.js";\n${importLine}`);
    edit("src/handlers/index.ts", "  readonly tools = [echo];\n", toolsLine!);
    // Progress and status: the README's command, as written (`npm run build && npm run client -- countdown ...`).
    const [build, client] = sections("Progress and status in your client", "sh")[0]!.trim().split(" && ");
    expect(build).toBe("npm run build");
    must(await npm(seed, ["run", "build"]), "npm run build");
    const r = must(await npm(seed, client!.split(" ").slice(1)), client!);
    const lines = r.stdout.trim().split("\n").filter((l) => !l.startsWith(">") && l !== "");
    expect(lines.slice(0, -1)).toEqual(["status working", "progress 1/3: 2 to go", "progress 2/3: 1 to go", "progress 3/3: 0 to go", "status completed"]);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ content: [{ type: "text", text: "counted down from 3" }] });
    // The Inspector's CLI lists it.
    const [node22, inspector] = inspectorCli();
    const listed = must(await run(node22, [inspector, "--cli", "node", "dist/src/server.js", "--method", "tools/list"], { cwd: seed, env, timeoutMs: 60_000 }), "tools/list");
    expect((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(["echo", "countdown"]);
  });

  it("the countdown is cancelled as its README says: an aborted call ends the task cancelled", async () => {
    const script = join(seed, "dist", "cancel-check.mjs");
    writeFileSync(
      script,
      [
        'import { Client } from "@modelcontextprotocol/sdk/client/index.js";',
        'import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";',
        'import { TaskClient, TaskCancelledError } from "./src/tasks/client.js";',
        'const client = new Client({ name: "c", version: "0" });',
        "const tasks = new TaskClient(client);",
        'await client.connect(new StdioClientTransport({ command: process.execPath, args: ["dist/src/server.js"], env: { TASK_STORE: "memory", PATH: process.env.PATH }, stderr: "ignore" }));',
        "const stop = new AbortController();",
        "setTimeout(() => stop.abort(), 500);",
        'const outcome = await tasks.callTool({ name: "countdown", arguments: { from: 100, stepMs: 100 } }, { signal: stop.signal }).then(() => "completed", (e) => (e instanceof TaskCancelledError ? `cancelled ${e.task?.status}` : String(e)));',
        "console.log(outcome);",
        "await client.close();",
      ].join("\n"),
    );
    const r = must(await run(process.execPath, [script], { cwd: seed, env, timeoutMs: 60_000 }), "cancel");
    expect(r.stdout.trim()).toBe("cancelled cancelled");
  });

  it("Retention and polling: the server grants the retention and suggests the poll interval the README sets", async () => {
    const [line] = blocks("Retention and polling");
    edit("src/server.ts", "  if (url === undefined) return { store: await openStore(choice) };\n", line!);
    must(await npm(seed, ["run", "build"]), "npm run build");
    const script = join(seed, "dist", "retention-check.mjs");
    writeFileSync(
      script,
      [
        'import { Client } from "@modelcontextprotocol/sdk/client/index.js";',
        'import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";',
        'import { z } from "zod";',
        'const client = new Client({ name: "c", version: "0" });',
        'await client.connect(new StdioClientTransport({ command: process.execPath, args: ["dist/src/server.js"], env: { TASK_STORE: "memory", PATH: process.env.PATH }, stderr: "ignore" }));',
        'const r = await client.request({ method: "tools/call", params: { name: "echo", arguments: { message: "kept" }, task: {} } }, z.record(z.string(), z.unknown()));',
        "console.log(JSON.stringify(r));",
        "await client.close();",
      ].join("\n"),
    );
    const r = must(await run(process.execPath, [script], { cwd: seed, env, timeoutMs: 60_000 }), "retention");
    expect(JSON.parse(r.stdout)).toMatchObject({ task: { ttl: 60_000, pollInterval: 500 } });
  });
});

describe("init refuses", () => {
  it("a non-empty directory (exit 1, nothing written); --allow-nonempty adds the missing files and keeps the others", async () => {
    const dir = join(tmp, "busy");
    mkdirSync(dir);
    writeFileSync(join(dir, "README.md"), "# mine\n");
    const r = await cli(["init", "busy"], tmp);
    expect(r.stderr).not.toMatch(STACK_TRACE);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("busy/ is not empty (README.md)");
    expect(r.stderr).toContain("--allow-nonempty");
    expect(readdirSync(dir)).toEqual(["README.md"]);

    const forced = must(await cli(["init", "busy", "--allow-nonempty"], tmp), "init --allow-nonempty");
    expect(forced.stdout).toContain("kept       README.md (they exist)");
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("# mine\n");
    expect(existsSync(join(dir, "src/handlers/index.ts"))).toBe(true);
  });

  it("a directory holding only .git counts as empty", async () => {
    const dir = join(tmp, "repo");
    mkdirSync(join(dir, ".git"), { recursive: true });
    must(await cli(["init", "repo"], tmp), "init");
    expect(existsSync(join(dir, "package.json"))).toBe(true);
  });

  it("--transport stdio for a spec served over stateless HTTP only (exit 2)", async () => {
    const r = await cli(["init", "nope", "--spec", "ext-tasks-2026-07-28", "--transport", "stdio"], tmp);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("per-request lifecycle");
    expect(existsSync(join(tmp, "nope"))).toBe(false);
  });

  it("an unknown spec (exit 2)", async () => {
    const r = await cli(["init", "nope2", "--spec", "no-such-spec"], tmp);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown spec 'no-such-spec'");
  });
});
