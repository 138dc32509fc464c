/**
 * The demo server's command line: the spec, the transport (stdio or --http), the task store, the job
 * queue and worker switches, --options (also from MCP_TASK_GEN_DEMO_OPTIONS) and the --auth tokens.
 */
import { postgresUrl } from "@mcp-task-gen/runtime/store-postgres";
import { usage } from "./common.js";

/** The command line (the arguments after the script); exits 2 with the usage line on one it cannot read. */
export function parseArgs(argv: string[]) {
  let spec: string | undefined;
  let http: number | undefined;
  let options: string | undefined = process.env.MCP_TASK_GEN_DEMO_OPTIONS;
  let mcp = false;
  const auth: string[] = [];
  let queue = false;
  let localWorker = true;
  let workerOnly = false;
  let runnerId: string | undefined;
  let store: StoreChoice = { kind: "memory" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--http") {
      const v = argv[++i];
      if (v === undefined || !/^\d+$/.test(v) || Number(v) > 65535) usage(`--http needs a port number, got ${v ?? "nothing"}`);
      http = Number(v);
    } else if (a === "--options") {
      options = argv[++i];
      if (options === undefined) usage("--options needs a JSON object");
    } else if (a === "--store") store = parseStore(argv[++i]);
    else if (a.startsWith("--store=")) store = parseStore(a.slice("--store=".length));
    else if (a === "--mcp-server") mcp = true;
    else if (a === "--auth" || a.startsWith("--auth=")) auth.push(parseAuth(a === "--auth" ? argv[++i] : a.slice("--auth=".length)));
    else if (a === "--queue") queue = true;
    else if (a === "--no-local-worker") localWorker = false;
    else if (a === "--worker") workerOnly = queue = true;
    else if (a === "--runner-id") {
      runnerId = argv[++i];
      if (runnerId === undefined || !/^[\w.:-]{1,100}$/.test(runnerId)) usage("--runner-id needs a name (letters, digits, . : - _)");
    } else if (a.startsWith("-")) usage(`unknown option ${a}`);
    else if (spec === undefined) spec = a;
    else usage(`unexpected argument ${a}`);
  }
  if (spec === undefined) usage("which spec? e.g. sep-1686-draft");
  if (!/^[a-z0-9][a-z0-9.-]*$/.test(spec) && !/\.(ya?ml|json)$/i.test(spec)) usage(`not a spec name nor a spec file (.yaml, .yml, .json): ${spec}`);
  let parsed: Record<string, unknown> = {};
  if (options) {
    try {
      parsed = JSON.parse(options) as Record<string, unknown>;
    } catch {
      usage("--options is not valid JSON");
    }
  }
  if (queue && store.kind !== "postgres") usage("--queue and --worker need --store postgres:<url> (servers and workers share the tasks)");
  return { spec, http, options: parsed, mcp, store, auth, queue, localWorker, workerOnly, runnerId };
}

/** --auth <token>: a bearer token (visible ASCII, no spaces). */
function parseAuth(v: string | undefined): string {
  if (v === undefined || !/^[\x21-\x7e]+$/.test(v)) usage("--auth needs a bearer token (visible ASCII characters, no spaces)");
  return v;
}

export type StoreChoice = { kind: "memory" } | { kind: "sqlite"; file: string } | { kind: "postgres"; url: string };

/** --store memory | sqlite:<file> | postgres:<url> (the URL itself, postgres://... or postgresql://..., also does). */
function parseStore(v: string | undefined): StoreChoice {
  if (v === undefined) usage("--store needs memory, sqlite:<file> or postgres:<url>");
  if (v === "memory") return { kind: "memory" };
  if (v.startsWith("sqlite:")) {
    const file = v.slice("sqlite:".length);
    if (file === "") usage("--store sqlite: needs a file, e.g. --store sqlite:./tasks.db");
    return { kind: "sqlite", file };
  }
  if (v.startsWith("postgres:") || v.startsWith("postgresql:")) {
    const url = postgresUrl(v) ?? "";
    if (!/^postgres(ql)?:\/\/./.test(url)) usage("--store postgres: needs a connection URL, e.g. --store postgres:postgres://user:password@127.0.0.1:5432/tasks");
    return { kind: "postgres", url };
  }
  usage(`--store takes memory, sqlite:<file> or postgres:<url>, got ${v}`);
}

/** The demo's own fields of --options; the others are the runtime's TaskServerOptions. */
export interface DemoOptions {
  http?: { headersTimeoutMs?: number; requestTimeoutMs?: number; maxBodyBytes?: number; maxParamsKeys?: number; allowedOrigins?: string[] };
  rememberExpiredMs?: number;
  startupWaitMs?: number;
  storeSchema?: string;
  workerConcurrency?: number;
  retryTools?: Record<string, number>;
  queueName?: string;
  queueSchema?: string;
  pgBossModule?: string;
}
