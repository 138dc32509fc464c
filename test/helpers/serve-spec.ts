/**
 * A spec's generated server, driven in memory over the real MCP SDK: the spec compiled into
 * .tmp/<folder>/<name>, its server.ts imported (the runtime resolved to its sources), an SDK Server and
 * Client linked in memory, with tools that work a while, fail with a JSON-RPC error, or set the task's
 * own fields.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { compile } from "../../generator/pipeline.js";
import { ROOT } from "./cli.js";

/** Compiles the spec file `file` (relative to the repository) into .tmp/<folder>/<name>; fails on any diagnostic error. */
export async function generateSpec(folder: string, name: string, file: string, change?: (text: string) => string): Promise<string> {
  const original = readFileSync(join(ROOT, file), "utf8");
  const r = await compile({ file, text: change === undefined ? original : change(original) });
  expect(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([]);
  const out = join(ROOT, ".tmp", folder, name);
  rmSync(out, { recursive: true, force: true });
  for (const f of r.files!) {
    mkdirSync(dirname(join(out, f.path)), { recursive: true });
    writeFileSync(join(out, f.path), f.contents);
  }
  return out;
}

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

export interface Served {
  client: Client;
  runtime: any;
  request(method: string, params: Record<string, unknown>): Promise<any>;
  /** The JSON-RPC error a request is answered with (fails the test when it succeeds). */
  refusal(method: string, params: Record<string, unknown>): Promise<{ code: number; message: string; data?: unknown }>;
  close(): Promise<void>;
}

/**
 * The generated server of `out` on an SDK Server with three tools: `slow` (works `ms`, having set the
 * fields `set` first), `broken` (fails with a JSON-RPC error, data included).
 */
export async function serveSpec(out: string, options: Record<string, unknown> = {}): Promise<Served> {
  const gen = (await import(join(out, "server.ts"))) as { TaskRuntime: new (o: Record<string, unknown>) => any; defineTool: (t: unknown) => unknown };
  const runtime = new gen.TaskRuntime({ audit: false, log: () => undefined, ...options });
  const server = new Server({ name: "t", version: "1" }, { capabilities: {} });
  runtime.install(server);
  const slow = gen.defineTool({
    name: "slow",
    taskSupport: "optional",
    inputSchema: z.object({ ms: z.number(), set: z.record(z.string(), z.unknown()).optional() }),
    handler: async ({ ms, set }: { ms: number; set?: Record<string, unknown> }, ctx: { setFields(f: Record<string, unknown>): Promise<void>; whenRunning(): Promise<void>; signal: AbortSignal }) => {
      if (set !== undefined) await ctx.setFields(set);
      const end = Date.now() + ms;
      while (Date.now() < end) {
        await ctx.whenRunning();
        await sleep(10, undefined, { signal: ctx.signal });
      }
      return text("done");
    },
  });
  const broken = gen.defineTool({
    name: "broken",
    taskSupport: "optional",
    inputSchema: z.object({}),
    handler: async () => {
      throw new McpError(ErrorCode.InternalError, "Upstream refused the batch", { upstream: "ledger", retryable: false });
    },
  });
  runtime.registerTools(server, [slow, broken]);
  const client = new Client({ name: "c", version: "1" }, { capabilities: {} });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  await client.connect(ct);
  const request = (method: string, params: Record<string, unknown>) => client.request({ method, params } as never, z.any());
  return {
    client,
    runtime,
    request,
    refusal: async (method, params) => {
      try {
        const answer = await request(method, params);
        throw new Error(`${method} answered ${JSON.stringify(answer)}, not an error`);
      } catch (e) {
        if (!(e instanceof McpError)) throw e;
        // The SDK prefixes the message with "MCP error <code>: ".
        return { code: e.code, message: e.message.replace(/^MCP error -?\d+: /, ""), ...(e.data === undefined ? {} : { data: e.data }) };
      }
    },
    close: async () => {
      await client.close();
      await server.close();
      await runtime.close();
    },
  };
}

/** Reads `read()` until it gives `want` (or `ms` pass); the distinct values seen, in order. */
export async function until<T>(read: () => Promise<T>, want: T, ms = 5_000): Promise<T[]> {
  const seen: T[] = [];
  const end = Date.now() + ms;
  for (;;) {
    const s = await read();
    if (seen[seen.length - 1] !== s) seen.push(s);
    if (s === want || Date.now() > end) return seen;
    await sleep(15);
  }
}
