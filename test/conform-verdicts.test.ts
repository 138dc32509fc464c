/**
 * `conform`'s verdicts are honest: exit 0 when every rule held, 1 only for a broken rule, 3 when the
 * server could not be tested (not reachable, no start-up or answer in time, a crash, shown with its
 * sequence). Over stdio one server process serves every run unless --fresh-process. Under a CPU hog
 * (a load far above the cores) the unmodified demo never gets a violation.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, ROOT, run } from "./helpers/cli.js";

const TSX = join(ROOT, "node_modules/.bin/tsx");
const DEMO = `${TSX} ${join(ROOT, "scripts/demo-server.ts")}`;
const FLAKY = `${process.execPath} ${join(ROOT, "test/helpers/flaky-stdio.mjs")}`;
const SPEC = "mcp-2025-11-25";
const tmp = mkdtempSync(join(tmpdir(), "conform-verdicts-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function conformCli(args: string[], timeoutMs = 240_000) {
  return run(process.execPath, [BIN, "conform", "--spec", SPEC, "--seed", "20261204", ...args], { cwd: ROOT, timeoutMs });
}

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("could not test: exit 3, never a violation", () => {
  it("an HTTP endpoint that nothing listens on", async () => {
    const r = await conformCli(["--url", `http://127.0.0.1:${await closedPort()}/mcp`]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain("COULD NOT TEST (unreachable)");
    expect(r.stderr).not.toContain("rule broken");
  }, 60_000);

  it("a stdio command that cannot start", async () => {
    const r = await conformCli(["--stdio", "exit 7"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/COULD NOT TEST \(unreachable\)[^]*exited \(code 7\)/);
  }, 60_000);

  it("a stdio server that does not answer within --startup-timeout", async () => {
    const started = Date.now();
    const r = await conformCli(["--stdio", "sleep 60", "--startup-timeout", "2"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain("COULD NOT TEST (timeout)");
    expect(r.stderr).toContain("--startup-timeout");
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it("a server that stops answering mid-run: timeout, with the sequence it stopped in", async () => {
    const r = await conformCli(["--stdio", `${FLAKY} stall 12 -- ${DEMO} ${SPEC}`, "--request-timeout", "2", "--json"]);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const report = JSON.parse(r.stdout);
    expect(report.verdict).toBe("untestable");
    expect(report.failure.kind).toBe("timeout");
    expect(report.failure.violation.message).toContain("--request-timeout");
  }, 120_000);

  it("a server whose work never ends, while it answers everything else, broke a rule (progress), not untestable", async () => {
    // Every failing replay while shrinking waits out conform's 15 s for quick work: a minute on a quiet machine.
    const r = await conformCli(["--stdio", `${FLAKY} never-ends 0 -- ${DEMO} ${SPEC}`, "--json"], 420_000);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.verdict).toBe("violation");
    expect(report.failure.violation.rule).toBe("progress");
  }, 450_000);

  it("a server that crashes: a crash, with the sequence it crashed in", async () => {
    const r = await conformCli(["--stdio", `${FLAKY} crash 14 -- ${DEMO} ${SPEC}`]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain("COULD NOT TEST (crash)");
    expect(r.stderr).toMatch(/the sequence it crashed in \(\d+ commands\)/);
    expect(r.stderr).toContain("exited (code 1)");
  }, 120_000);

  it("usage errors of the new options exit 2", async () => {
    expect((await conformCli(["--stdio", "true", "--request-timeout", "0"])).code).toBe(2);
    expect((await conformCli(["--url", "http://127.0.0.1:1/mcp", "--fresh-process"])).code).toBe(2);
    const other = await conformCli(["--stdio", "true", "--other-header", "Authorization: Bearer b"]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("--other-header needs --url");
    const stdio = await conformCli(["--url", "http://127.0.0.1:1/mcp", "--other-stdio", "true"]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain("--other-stdio needs --stdio");
  }, 60_000);
});

describe("over stdio, one server process serves every run", () => {
  it("a new session per run on one process; --fresh-process starts one per run", async () => {
    const one = join(tmp, "one.log");
    const r = await conformCli(["--stdio", `${FLAKY} count ${one} -- ${DEMO} ${SPEC}`, "--runs", "6", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(one, "utf8").trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(r.stdout).serverStarts).toBe(1);
    const fresh = join(tmp, "fresh.log");
    const f = await conformCli(["--stdio", `${FLAKY} count ${fresh} -- ${DEMO} ${SPEC}`, "--runs", "3", "--fresh-process", "--json"]);
    expect(f.code, f.stderr).toBe(0);
    // The probe's process, then one per run, then one for the checks made once per invocation.
    expect(readFileSync(fresh, "utf8").trim().split("\n")).toHaveLength(5);
  }, 240_000);
});

describe("under a CPU hog, the unmodified demo never gets a violation", () => {
  it("stdio and Streamable HTTP, default timeouts", async () => {
    // Busy processes, each ending by itself after its time (bounded even if this test is killed).
    const HOGS = 8;
    const hogMs = 200_000;
    const hogs: ChildProcess[] = Array.from({ length: HOGS }, () =>
      spawn(process.execPath, ["-e", `const end = Date.now() + ${hogMs}; while (Date.now() < end) {}`], { stdio: "ignore" }),
    );
    let http: ChildProcess | undefined;
    try {
      const stdio = await conformCli(["--stdio", `${DEMO} ${SPEC}`, "--runs", "10"], 300_000);
      console.info(`under the hog (load average ${loadavg()[0]!.toFixed(1)}): stdio exit ${stdio.code}`);
      expect([0, 3], stdio.stderr).toContain(stdio.code);
      http = spawn(TSX, [join(ROOT, "scripts/demo-server.ts"), SPEC, "--http", "0"], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
      let err = "";
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the demo did not start:\n${err}`)), 150_000);
        http!.stderr!.on("data", (d: Buffer) => {
          err += d.toString();
          const m = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(err);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
      });
      const overHttp = await conformCli(["--url", url, "--runs", "10"], 300_000);
      console.info(`under the hog (load average ${loadavg()[0]!.toFixed(1)}): HTTP exit ${overHttp.code}`);
      expect([0, 3], overHttp.stderr).toContain(overHttp.code);
    } finally {
      for (const h of hogs) h.kill("SIGKILL");
      http?.kill("SIGTERM");
    }
  }, 600_000);
});
