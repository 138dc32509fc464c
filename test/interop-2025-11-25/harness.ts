/**
 * Harness of the mcp-2025-11-25 interop tests: the real SDK on the other side.
 *
 * - `startOurServer`: the demo server built from output-samples/mcp-2025-11-25/
 *   (our generated TaskRuntime) in a child process, for SDK clients
 *   (`client.experimental.tasks`).
 * - `startSdkServer`: an McpServer using the SDK's own task implementation
 *   (sdk-task-server.ts) in a child process, for our generated TaskClient.
 *
 * Both over stdio (one session) or Streamable HTTP on 127.0.0.1 (a new session
 * per `connect()`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult, type Task } from "@modelcontextprotocol/sdk/types.js";
import { TaskClient } from "../../output-samples/mcp-2025-11-25/client.js";
import { auditOf, httpChild } from "../seed-harness.js";

export const root = join(import.meta.dirname, "..", "..");
export const SPEC = "mcp-2025-11-25";
const demo = join(root, "scripts", "demo-server.ts");
const sdkServer = join(root, "test", "interop-2025-11-25", "sdk-task-server.ts");

export type Kind = "stdio" | "http";

export interface Conn {
  client: Client;
  /** Our generated client stubs on `client`. */
  tasks: TaskClient;
  /** Replace to answer elicitations differently (default: accept, confirm true). */
  onElicit: { fn: (request: ElicitRequest) => Promise<ElicitResult> };
  /** Elicitation requests received, in order. */
  elicitations: ElicitRequest[];
  /** notifications/tasks/status received, in order. */
  statuses: Task[];
  close(): Promise<void>;
}

export interface Served {
  kind: Kind;
  /** A new client (a new session over HTTP; stdio has exactly one). */
  connect(): Promise<Conn>;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Audit events the server logged (our server only). */
  audit(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

function makeClient(): Omit<Conn, "close" | "tasks"> {
  const client = new Client({ name: "interop-2025-11-25", version: "0.0.0" }, { capabilities: { elicitation: { form: {} } } });
  const onElicit: Conn["onElicit"] = { fn: async () => ({ action: "accept", content: { confirm: true } }) };
  const elicitations: ElicitRequest[] = [];
  const statuses: Task[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicitations.push(req);
    return onElicit.fn(req);
  });
  return { client, onElicit, elicitations, statuses };
}

async function start(script: string, args: string[], env: Record<string, string>, kind: Kind): Promise<Served> {
  const conns: Conn[] = [];
  const wrap = async (transport: Transport): Promise<Conn> => {
    const parts = makeClient();
    await parts.client.connect(transport);
    // TaskClient owns the notifications/tasks/status handler of its client; it hands every pushed task on.
    const tasks = new TaskClient(parts.client, { defaultPollFrequency: 50, onStatusNotification: (t) => void parts.statuses.push(t as Task) });
    const conn: Conn = { ...parts, tasks, close: () => parts.client.close() };
    conns.push(conn);
    return conn;
  };
  if (kind === "stdio") {
    let err = "";
    let used = false;
    let first: Conn | undefined;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", script, ...args],
      cwd: root,
      env: { ...getDefaultEnvironment(), ...env },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => (err += d.toString("utf8")));
    first = await wrap(transport);
    return {
      kind,
      async connect() {
        if (used || !first) throw new Error("stdio has one session");
        used = true;
        return first;
      },
      stderr: () => err,
      audit: () => auditOf(err),
      close: async () => {
        await first?.close();
        first = undefined;
      },
    };
  }
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", script, ...args, "--http", "0"], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const served = httpChild(child, "server");
  const url = await served.url;
  return {
    kind,
    connect: () => wrap(new StreamableHTTPClientTransport(new URL(url))),
    stderr: served.stderr,
    audit: () => auditOf(served.stderr()),
    async close() {
      for (const c of conns) await c.close().catch(() => undefined);
      await served.stop();
    },
  };
}

/** Our generated server (the demo server of output-samples/mcp-2025-11-25) with TaskServerOptions overrides. */
export function startOurServer(kind: Kind, options: Record<string, unknown>): Promise<Served> {
  return start(demo, [SPEC], { MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify(options) }, kind);
}

/** The SDK's McpServer + registerToolTask + InMemoryTaskStore. */
export function startSdkServer(kind: Kind): Promise<Served> {
  return start(sdkServer, [], { SDK_TASK_SERVER_POLL: "50" }, kind);
}
