/**
 * What every part of the demo server shares: the checkout's root, how it stops on a command line or a spec
 * it cannot serve, its log line on stderr, and the types of the modules it loads (the generated code of a
 * spec and the runtime's stores, queue and per-request server).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export type ServerModule = typeof import("../../output-samples/sep-1686-draft/server.js");
export type StoreModule = typeof import("../../output-samples/sep-1686-draft/store.js");
export type SqliteStoreModule = typeof import("@mcp-task-gen/runtime/store-sqlite");
export type PostgresStoreModule = typeof import("@mcp-task-gen/runtime/store-postgres");
export type WorkersModule = typeof import("@mcp-task-gen/runtime/workers");
export type ProtocolModule = typeof import("../../output-samples/sep-1686-draft/protocol.js");
// The core binding emitted for a per-request lifecycle (protocol.lifecycle per-request).
export type StatelessModule = typeof import("../../output-samples/ext-tasks-2026-07-28/stateless-server.js");
export type StatelessRuntimeModule = typeof import("@mcp-task-gen/runtime/stateless-server");

/** The task runtime of a generated server. */
export type DemoRuntime = InstanceType<ServerModule["TaskRuntime"]>;

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** A spec that cannot be served: said alone (the command line itself was well formed). */
export function fail(message: string): never {
  process.stderr.write(`demo-server: ${message}\n`);
  process.exit(2);
}

export function usage(message: string): never {
  process.stderr.write(`demo-server: ${message}\nusage: npm run --silent demo -- <spec-name> [--http <port>] [--store memory|sqlite:<file>|postgres:<url>] [--options <json>]\n`);
  process.exit(2);
}

export const log = (msg: string, extra: Record<string, unknown> = {}) => process.stderr.write(JSON.stringify({ level: "info", msg, ...extra }) + "\n");
