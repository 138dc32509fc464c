/**
 * The harness of the adopted-quickstart tests (test/mcp-server-adopt.test.ts on SDK 1.x,
 * test/mcp-server-v2-adopt.test.ts on @modelcontextprotocol/server 2.x): a server file run as a child over stdio
 * or Streamable HTTP on 127.0.0.1, the clients connected to it, the plain calls whose answers must not change, and
 * `mcp-task-gen conform` on it.
 * Each test gives the client and transports of its own SDK.
 */
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { httpChild } from "../seed-harness.js";
import { ROOT } from "./cli.js";

/** A server file being served: a new client connected to it, what it wrote on stderr, and how to stop it all. */
export type Served<C, A extends unknown[]> = { connect(...args: A): Promise<C>; stderr(): string; close(): Promise<void> };

/** What a test's SDK gives the harness: a client (with the test's own arguments), and the transports to the server. */
export interface ClientKit<C extends { connect(transport: T): Promise<void>; close(): Promise<void> }, T, A extends unknown[]> {
  client(...args: A): C;
  /** A transport that runs `args` with `command` in `cwd`, its stderr piped. */
  stdio(command: string, args: string[], cwd: string): T & { readonly stderr: { on(event: "data", listener: (d: Buffer) => void): unknown } | null };
  http(url: URL): T;
}

/**
 * Serves `file` over `kind` (stateless: HTTP with `--stateless`): over stdio each client runs its own child; over
 * HTTP one child serves them all.
 */
export async function serve<C extends { connect(transport: T): Promise<void>; close(): Promise<void> }, T, A extends unknown[]>(
  kit: ClientKit<C, T, A>,
  file: string,
  kind: "stdio" | "http" | "stateless",
): Promise<Served<C, A>> {
  const clients: C[] = [];
  const client = (args: A) => {
    const c = kit.client(...args);
    clients.push(c);
    return c;
  };
  const closeClients = () => Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  if (kind === "stdio") {
    let err = "";
    return {
      async connect(...args: A) {
        const transport = kit.stdio(process.execPath, [file], ROOT);
        transport.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")));
        const c = client(args);
        await c.connect(transport);
        return c;
      },
      stderr: () => err,
      close: async () => void (await closeClients()),
    };
  }
  const child = spawn(process.execPath, [file, "--http", "0", ...(kind === "stateless" ? ["--stateless"] : [])], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const served = httpChild(child, file);
  const url = new URL(await served.url);
  return {
    async connect(...args: A) {
      const c = client(args);
      await c.connect(kit.http(url));
      return c;
    },
    stderr: served.stderr,
    async close() {
      await closeClients();
      await served.stop();
    },
  };
}

/** Calls of the quickstart's tools that run plainly: an adopted server answers each exactly as before. */
export const PLAIN_CALLS = [
  { name: "get_alerts", arguments: { state: "ca" } },
  { name: "get_forecast", arguments: { latitude: 38.58, longitude: -121.49 } },
  { name: "get_alerts", arguments: { state: "California" } },
  { name: "get_forecast", arguments: { latitude: "north" } },
  { name: "slow_tool", arguments: { seconds: 0.05 } },
  { name: "slow_tool", arguments: { seconds: -1 } },
  { name: "no_such_tool", arguments: {} },
];

/** The quickstart's tools as conform's outcomes: its slow tool completes, and runs long; nothing fails or asks. */
const OUTCOMES = { complete: { name: "slow_tool", arguments: { seconds: 0.2 } }, long: { name: "slow_tool", arguments: { seconds: 30 } }, fail: null, error: null, input: null };

/** The arguments of `mcp-task-gen conform` against mcp-2025-11-25 on `target` (`--stdio <command>`, `--url <url>`), with the quickstart's outcomes, 8 runs. */
export const conformArgs = (...target: string[]): string[] => ["bin/mcp-task-gen.js", "conform", "--spec", "mcp-2025-11-25", ...target, "--outcomes", JSON.stringify(OUTCOMES), "--runs", "8"];

/** `mcp-task-gen conform` on server file `file` run over stdio: its report (it fails where a rule broke). */
export async function conformOverStdio(file: string): Promise<string> {
  const run = await promisify(execFile)(process.execPath, conformArgs("--stdio", `node ${file}`), { cwd: ROOT, timeout: 120_000 });
  return run.stdout;
}
