/**
 * End to end: tasks/get round trips per second over stdio and Streamable HTTP,
 * the generated server of each spec against an SDK McpServer with the SDK's
 * InMemoryTaskStore, the same SDK client driving both.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { z } from "zod";
import { fmtNum, fmtRatio, measureAsync, median, perRound, ratioOf, type Settings } from "./harness.js";
import { metaExample, ROOT, SDK_SPEC } from "./messages.js";
import type { Section, Table, TargetResult } from "./report.js";
import { ourServer, sdkServer } from "./servers/setup.js";

/** The client checks what both revisions' tasks/get results share; the same schema for every server. */
const TaskResult = z.looseObject({ taskId: z.string(), status: z.string() });

const loader = () => (process.execArgv.some((a) => a.includes("tsx")) ? process.execArgv : ["--import", "tsx"]);

interface Endpoint {
  name: string;
  taskId: string;
  /** The tasks/get params: the task id, plus the `_meta` the revision requires on every request, if any. */
  params: Record<string, unknown>;
  client: Client;
  close(): Promise<void>;
}

function readyFrom(stream: NodeJS.ReadableStream, what: string, child?: ChildProcess): Promise<{ taskId: string; url?: string }> {
  return new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error(`${what}: no BENCH-READY within 60 s; stderr: ${buf.slice(-1000)}`)), 60_000);
    stream.setEncoding?.("utf8");
    stream.on("data", (d: string) => {
      if (buf.length < 100_000) buf += d;
      const line = buf.split("\n").find((l) => l.startsWith("BENCH-READY "));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line.slice("BENCH-READY ".length)));
      }
    });
    child?.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited ${code} before it was ready: ${buf.slice(-1000)}`));
    });
  });
}

/**
 * What a revision requires on every request: ext-tasks-2026-07-28 (core 2026-07-28) wants the client's
 * capabilities in `_meta` (the spec's own example value); the others want nothing.
 */
async function requestMeta(spec: string | undefined): Promise<Record<string, unknown> | undefined> {
  if (spec === undefined) return undefined;
  const P = (await import(`../output-samples/${spec}/protocol.ts`)) as { META_KEYS?: Record<string, string> };
  const key = P.META_KEYS?.clientCapabilities;
  return key === undefined ? undefined : { [key]: metaExample(spec, "ClientCapabilities") ?? {} };
}

const paramsFor = (taskId: string, meta: Record<string, unknown> | undefined) => (meta ? { taskId, _meta: meta } : { taskId });

async function stdioEndpoint(name: string, script: string, args: string[]): Promise<Endpoint> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [...loader(), script, ...args], cwd: ROOT, stderr: "pipe" });
  const ready = readyFrom(transport.stderr as unknown as NodeJS.ReadableStream, name);
  const client = new Client({ name: "bench-client", version: "0.0.0" });
  await client.connect(transport);
  const { taskId } = await ready;
  return { name, taskId, params: paramsFor(taskId, await requestMeta(args.length > 1 ? args[0] : undefined)), client, close: () => client.close() };
}

async function httpEndpoint(name: string, script: string, args: string[]): Promise<Endpoint> {
  const child = spawn(process.execPath, [...loader(), script, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  try {
    const { taskId, url } = await readyFrom(child.stderr!, name, child);
    const client = new Client({ name: "bench-client", version: "0.0.0" });
    // Every server gets the same header; the 2026-07-28 revision requires it to repeat params.taskId.
    await client.connect(new StreamableHTTPClientTransport(new URL(url!), { requestInit: { headers: { "Mcp-Name": taskId } } }));
    return {
      name,
      taskId,
      params: paramsFor(taskId, await requestMeta(args.length > 1 ? args[0] : undefined)),
      client,
      close: async () => {
        await client.close().catch(() => undefined);
        child.kill();
      },
    };
  } catch (e) {
    child.kill();
    throw e;
  }
}

/** Client and server in this process over the SDK's InMemoryTransport: no IPC, so the server's own work shows. */
async function inProcessEndpoint(name: string, spec: string | undefined): Promise<Endpoint> {
  const f = spec === undefined ? await sdkServer() : await ourServer(spec);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = f.make();
  await server.connect(serverSide);
  const client = new Client({ name: "bench-client", version: "0.0.0" });
  await client.connect(clientSide);
  return {
    name,
    taskId: f.taskId,
    params: paramsFor(f.taskId, await requestMeta(spec)),
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function roundTrip(e: Endpoint): Promise<unknown> {
  return e.client.request({ method: "tasks/get", params: e.params }, TaskResult);
}

export async function runE2e(s: Settings): Promise<Section> {
  const specs = s.quick ? [SDK_SPEC] : [SDK_SPEC, "sep-1686-draft", "ext-tasks-2026-07-28"];
  const ready = specs.filter((sp) => existsSync(join(ROOT, "output-samples", sp, "server.ts")));
  if (ready.length === 0) return notYet("no generated server.ts in output-samples/ yet");
  const sliceMs = s.quick ? 60 : 150;
  const settings: Settings = { ...s, rounds: s.quick ? 4 : 12 };
  const ours = join(ROOT, "bench", "servers", "ours.ts");
  const sdk = join(ROOT, "bench", "servers", "sdk.ts");
  const tables: Table[] = [];
  const targets: TargetResult[] = [];
  const figures: Record<string, number> = {};
  const inProcess: Record<string, string> = {};
  for (const transport of ["in-process", "stdio", "Streamable HTTP"] as const) {
    const mode = transport === "stdio" ? "stdio" : "http";
    const endpoints: Endpoint[] = [];
    try {
      if (transport === "in-process") {
        endpoints.push(await inProcessEndpoint("sdk", undefined));
        for (const sp of ready) endpoints.push(await inProcessEndpoint(sp, sp));
      } else {
        const make = transport === "stdio" ? stdioEndpoint : httpEndpoint;
        endpoints.push(await make("sdk", sdk, [mode]));
        for (const sp of ready) endpoints.push(await make(sp, ours, [sp, mode]));
      }
      for (const e of endpoints) {
        const r = (await roundTrip(e)) as { taskId: string };
        if (r.taskId !== e.taskId) throw new Error(`bench bug: ${e.name} over ${transport} answered for task ${r.taskId}`);
      }
      const res = await measureAsync(
        endpoints.map((e) => ({ name: e.name, fn: () => roundTrip(e) })),
        settings,
        sliceMs,
      );
      const base = res.get("sdk")!;
      const rows: string[][] = [["SDK McpServer + InMemoryTaskStore (2025-11-25)", fmtNum(median(base)), "1×"]];
      for (const sp of ready) {
        const r = ratioOf(perRound(res.get(sp)!, base));
        figures[`${transport}:${sp}/sdk`] = r.median;
        rows.push([`generated server, ${sp}`, fmtNum(median(res.get(sp)!)), fmtRatio(r)]);
        if (transport === "in-process") {
          inProcess[sp] = fmtRatio(r);
          continue;
        }
        const within = r.q1 <= 1 && r.q3 >= 1;
        targets.push({
          target: `tasks/get round trips over ${transport}, generated server (${sp}) ÷ SDK McpServer`,
          bar: "≥ 1×",
          measured: fmtRatio(r),
          status: r.median >= 1 ? "met" : "missed",
          why:
            r.median >= 1
              ? within
                ? "within the noise: the rounds' interquartile range includes 1×"
                : undefined
              : (within ? `within the noise: the rounds' interquartile range includes 1×. ` : "") +
            `In-process, where the server's own work is not diluted by ${transport === "stdio" ? "pipes" : "HTTP"}, the generated server runs at ${inProcess[sp]} the SDK's: ` +
            "per request it checks the params with its generated guard, takes a rate-limit token (a clock read), looks the task up (the store's get: a fresh copy of the record) " +
            "and builds the wire task; the SDK's handler parses the request with zod and spreads a stored object. Over a transport, the client, JSON and the transport dominate both",
        });
      }
      tables.push({
        title:
          transport === "in-process"
            ? "tasks/get in-process over the SDK's InMemoryTransport (round trips/s, one request in flight; no target: shows the servers' own work)"
            : `tasks/get over ${transport} (round trips/s, one request in flight)`,
        columns: ["server", "round trips/s", "÷ SDK"],
        rows,
      });
    } finally {
      for (const e of endpoints) await e.close().catch(() => undefined);
    }
  }
  return {
    id: "e2e",
    title: "End to end",
    method:
      "One SDK `Client` per server; over stdio and HTTP each server runs in its own process (bench/servers/): the SDK's `McpServer` with its `InMemoryTaskStore` (stdio: `StdioServerTransport`; " +
      "HTTP: `StreamableHTTPServerTransport` per session on node:http), and the generated `TaskRuntime` installed on an SDK `Server` " +
      "(stdio: the generated `TaskStdioServerTransport`; HTTP: the generated `serveStreamableHttp`), each holding one task made at start-up. " +
      "The client sends `client.request({ method: \"tasks/get\", params: { taskId } }, schema)` with the same result schema for every server, one request at a time. " +
      `All servers of a transport run at once and are measured interleaved (${settings.rounds} rounds of ${sliceMs} ms per server and transport). ` +
      "In-process: the same servers and client in the bench's process over the SDK's `InMemoryTransport`, to show what the servers' own work costs.",
    tables,
    targets,
    notes: [
      "The generated servers run with auditing off, rate limits lifted (the bench polls thousands of times a second) and one owner for every request " +
        "(so the pre-made task is visible in every HTTP session); otherwise their defaults. The SDK server runs with its defaults.",
      "sep-1686-draft and ext-tasks-2026-07-28 answer their own revision's tasks/get; the SDK server answers 2025-11-25's. The round trip is the same work. " +
        "Requests to the ext-tasks-2026-07-28 server carry the client capabilities in `_meta` as that revision requires; over HTTP every server gets an `Mcp-Name` header with the task id.",
    ],
    figures,
  };
}

function notYet(why: string): Section {
  return {
    id: "e2e",
    title: "End to end",
    method: "Not measured yet: " + why + ".",
    tables: [],
    targets: ["stdio", "Streamable HTTP"].map((t) => ({
      target: `tasks/get round trips over ${t}, generated server ÷ SDK McpServer`,
      bar: "≥ 1×",
      measured: "–",
      status: "not measured yet" as const,
      why,
    })),
    notes: [],
    figures: {},
  };
}
