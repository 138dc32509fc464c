/**
 * Test harness for the seed end-to-end tests: starts the demo server (built from
 * output-samples/sep-1686-draft/) in a child process, over stdio or Streamable
 * HTTP, and connects real SDK clients with the generated TaskClient.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { TaskClient } from "../output-samples/sep-1686-draft/client.js";

export const root = join(import.meta.dirname, "..");
export const SPEC = "sep-1686-draft";
const tsxLoader = ["--import", "tsx"];
const demo = join(root, "scripts", "demo-server.ts");

export type Elicit = (request: ElicitRequest) => Promise<ElicitResult>;

export interface Conn {
  client: Client;
  tasks: TaskClient;
  /** Replace to answer elicitations. */
  onElicit: { fn: Elicit };
  /** Elicitation requests received, in order. */
  elicitations: ElicitRequest[];
  close(): Promise<void>;
}

export interface ServerHandle {
  transport: "stdio" | "http";
  /** Opens a new client (a new session over HTTP; stdio has exactly one). */
  connect(): Promise<Conn>;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Audit events the server logged. */
  audit(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

function makeClient(): { client: Client; onElicit: { fn: Elicit }; elicitations: ElicitRequest[] } {
  const client = new Client({ name: "seed-e2e", version: "0.0.0" }, { capabilities: { elicitation: {} } });
  const onElicit: { fn: Elicit } = { fn: async () => ({ action: "decline" }) };
  const elicitations: ElicitRequest[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicitations.push(req);
    return onElicit.fn(req);
  });
  return { client, onElicit, elicitations };
}

/** The audit events a demo server logged on stderr (one JSON line each). */
export function auditOf(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith('{"audit"')) continue;
    try {
      out.push((JSON.parse(line) as { audit: Record<string, unknown> }).audit);
    } catch {
      // a partial line
    }
  }
  return out;
}

export async function startStdio(options: Record<string, unknown> = {}, extraArgs: string[] = []): Promise<ServerHandle> {
  const { client, onElicit, elicitations } = makeClient();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...tsxLoader, demo, SPEC, ...extraArgs],
    cwd: root,
    env: { ...getDefaultEnvironment(), MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify(options) },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")));
  const tasks = new TaskClient(client, { defaultPollFrequency: 50 });
  await client.connect(transport);
  let used = false;
  const conn: Conn = { client, tasks, onElicit, elicitations, close: () => client.close() };
  return {
    transport: "stdio",
    async connect() {
      if (used) throw new Error("stdio has one session");
      used = true;
      return conn;
    },
    stderr: () => err,
    audit: () => auditOf(err),
    close: () => client.close(),
  };
}

export async function startHttp(options: Record<string, unknown> = {}): Promise<ServerHandle> {
  const child: ChildProcess = spawn(process.execPath, [...tsxLoader, demo, SPEC, "--http", "0"], {
    cwd: root,
    env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify(options) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString("utf8")));
  const served = httpChild(child, "demo server");
  const url = await served.url;
  const conns: Conn[] = [];
  return {
    transport: "http",
    async connect() {
      const { client, onElicit, elicitations } = makeClient();
      const tasks = new TaskClient(client, { defaultPollFrequency: 50 });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const conn: Conn = { client, tasks, onElicit, elicitations, close: () => client.close() };
      conns.push(conn);
      return conn;
    },
    stderr: () => served.stderr() + (out ? `\n[stdout]\n${out}` : ""),
    audit: () => auditOf(served.stderr()),
    async close() {
      for (const c of conns) await c.close().catch(() => undefined);
      await served.stop();
    },
  };
}

/**
 * A server child started with `--http 0`: its stderr, collected; the URL it logs once listening
 * (`"msg":"listening"` with a `"url"`; rejected if it exits first or says nothing for 30 s); and a stop.
 */
export function httpChild(child: ChildProcess, what: string): { url: Promise<string>; stderr: () => string; stop: () => Promise<void> } {
  let err = "";
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${err}`)), 30_000);
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString("utf8");
      const m = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`${what} exited (${code}):\n${err}`)));
  });
  return {
    url,
    stderr: () => err,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once("exit", r)));
    },
  };
}

/** Polls `check` until it returns a value (bounded). */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (e) {
      lastError = e;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`);
}

/** A promise with its resolve function. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The error a promise rejects with (fails when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<{ code?: number; message: string; name?: string } & Record<string, unknown>> {
  try {
    await p;
  } catch (e) {
    return e as { code?: number; message: string };
  }
  throw new Error("expected a rejection");
}
