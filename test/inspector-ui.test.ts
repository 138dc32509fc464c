/**
 * The MCP Inspector's web UI (2.12, from the conformance folder, on its Node 22) in a real browser
 * (Debian's chromium, driven by playwright-core; no browser download), against a new scaffold over stdio
 * with the command its README gives: connect, list the tools, call echo plainly, then as a task, and see
 * the task complete; then a second server on the task store another one holds: marked failed, with the
 * reason. A screenshot of each step is kept in a folder under the OS temp dir (printed), for CI to keep as
 * an artefact.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cli, ROOT, run, tempDirs, type Run } from "./helpers/cli.js";
import { freePort } from "./helpers/net.js";
import { conformanceFile, node22 } from "./helpers/node22.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 600_000 });

const CHROMIUM = "/usr/bin/chromium";
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

const dirs = tempDirs("mcp-task-gen-inspector-ui-");
/** The screenshots: kept after the run. */
const shots = mkdtempSync(join(tmpdir(), "mcp-task-gen-inspector-ui-shots-"));
let step = 0;

/** The Inspector runs on Node 22 (it needs 22.19 or later), and so does the `node` of the README's command. */
const env: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k))),
  PATH: [dirname(node22()), process.env.PATH ?? ""].join(delimiter),
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false",
  // No browser of its own, no keychain: the test's browser opens the page, secrets stay in memory.
  MCP_AUTO_OPEN_ENABLED: "false",
  MCP_INSPECTOR_SECRET_STORE: "memory",
};

function must(r: Run, what: string): Run {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

let project: string;
let inspector: ChildProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let url: string;

async function shot(name: string): Promise<void> {
  const file = join(shots, `${++step}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no ${CHROMIUM}: apt-get install -y chromium (Debian's package; .ci/run installs it)`);
  console.log(`inspector UI screenshots: ${shots}`);
  const tmp = dirs.make();
  env.MCP_TASK_GEN_CACHE = join(tmp, "cache");
  project = join(tmp, "srv");
  must(await cli(["init", project], tmp), "init");
  must(await run(NPM, ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: project, env, timeoutMs: 480_000 }), "npm install");
  must(await run(NPM, ["run", "build"], { cwd: project, env, timeoutMs: 240_000 }), "npm run build");

  // The README's command for the web UI, run as written (npx resolves the package to the conformance folder's).
  const readme = readFileSync(join(project, "README.md"), "utf8");
  const line = /^npx --yes @modelcontextprotocol\/inspector (node dist\/src\/server\.js) +# the web UI/m.exec(readme);
  expect(line, "the README's web UI command").not.toBeNull();
  const [clientPort, sandboxPort] = [await freePort(), await freePort()];
  const launcher = conformanceFile("@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");
  inspector = spawn(node22(), [launcher, ...line![1]!.split(" ")], {
    cwd: project,
    env: { ...env, CLIENT_PORT: String(clientPort), MCP_SANDBOX_PORT: String(sandboxPort), HOME: join(tmp, "home") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  inspector.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  inspector.stderr!.setEncoding("utf8").on("data", (d: string) => (out += d));
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Inspector did not start:\n${out}`)), 60_000);
    const poll = setInterval(() => {
      const m = new RegExp(`http://127\\.0\\.0\\.1:${clientPort}\\?MCP_INSPECTOR_API_TOKEN=[0-9a-f]+`).exec(out);
      if (m) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(m[0]);
      }
    }, 100);
    inspector!.once("exit", (code) => reject(new Error(`the Inspector exited (${code}):\n${out}`)));
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
}, 900_000);

afterAll(async () => {
  await browser?.close();
  if (inspector && inspector.exitCode === null) {
    const exited = new Promise((resolve) => inspector!.once("exit", resolve));
    inspector.kill();
    await exited;
  }
  dirs.cleanup();
});

describe("the Inspector's web UI, connected to the scaffold over stdio", () => {
  it("connects with the README's command", async () => {
    await page.goto(url);
    await page.getByLabel('Connect or disconnect "node"').click({ force: true });
    await page.getByText("Connected", { exact: true }).waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByText("MCP 2025-11-25").count()).toBeGreaterThan(0);
    await shot("connected");
  });

  it("lists the tools", async () => {
    await page.getByText("Tools", { exact: true }).first().click();
    await page.getByText("Tools (1)").waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByRole("button", { name: "echo" }).count()).toBe(1);
    await shot("tools");
  });

  it("calls echo plainly", async () => {
    await page.getByRole("button", { name: "echo" }).click();
    await page.getByRole("textbox", { name: "message" }).fill("hello from the browser");
    await page.getByRole("button", { name: "Execute Tool" }).click();
    await page.getByText("hello from the browser", { exact: true }).last().waitFor({ timeout: 30_000 });
    await shot("echo-result");
  });

  it("calls echo as a task: working, then completed", async () => {
    // The results replaced the form: back to the tool's form.
    const form = page.getByRole("textbox", { name: "message" });
    await page.getByRole("button", { name: "echo" }).click();
    if (!(await form.isVisible())) await page.locator("button:near(:text('Results'))").first().click();
    await form.fill("hello from a task");
    await page.getByRole("textbox", { name: "delayMs" }).fill("3000");
    await page.getByLabel("Run as task").check({ force: true });
    await page.getByRole("button", { name: "Execute Tool" }).click();
    const panel = page.getByText("Task Details").first();
    await panel.waitFor({ timeout: 30_000 });
    await page.getByText(/^working$/i).first().waitFor({ timeout: 30_000 }).catch(async (e: unknown) => {
      await shot("task-not-working");
      throw e;
    });
    await shot("task-working");
    await page.getByText(/^completed$/i).first().waitFor({ timeout: 30_000 });
    await page.getByText("hello from a task", { exact: true }).last().waitFor({ timeout: 30_000 });
    await shot("task-completed");
  });

  it("a second server on a held task store: marked failed, with which process holds it and what to do", async () => {
    // Disconnected, the Inspector's server leaves and frees tasks.db; a server started here (as `npm start`) takes it.
    await page.getByRole("button", { name: "Disconnect from server" }).click();
    await expect.poll(() => page.getByLabel('Connect or disconnect "node"').isChecked(), { timeout: 30_000 }).toBe(false);
    let holder: ChildProcess | undefined;
    for (let attempt = 0; holder === undefined && attempt < 20; attempt++) {
      const child = spawn(node22(), ["dist/src/server.js"], { cwd: project, env, stdio: ["pipe", "ignore", "pipe"] });
      let err = "";
      child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
      const serving = await new Promise<boolean>((resolve) => {
        const poll = setInterval(() => err.includes('"serving on stdio"') && (clearInterval(poll), resolve(true)), 50);
        child.once("exit", () => (clearInterval(poll), resolve(false)));
      });
      if (serving) holder = child;
      else await new Promise((resolve) => setTimeout(resolve, 250)); // the Inspector's server still closing
    }
    expect(holder, "a server holding tasks.db").toBeDefined();
    try {
      await page.getByLabel('Connect or disconnect "node"').click({ force: true });
      await page.getByText(`process ${holder!.pid} holds it`, { exact: false }).first().waitFor({ timeout: 30_000 });
      await expect.poll(() => page.getByText("TASK_STORE=memory keeps tasks in memory", { exact: false }).count()).toBeGreaterThan(0);
      await expect.poll(() => page.getByText("Failed", { exact: true }).count()).toBeGreaterThan(0);
      await shot("store-held");
    } finally {
      const exited = new Promise((resolve) => holder!.once("exit", resolve));
      holder!.stdin!.end();
      await exited;
    }
  });
});
