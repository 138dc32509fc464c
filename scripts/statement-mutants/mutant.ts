/**
 * What a statement mutant is: a server bug written from one statement of a protocol revision,
 * applied at the wire by the mutating proxy (proxy.ts) to the messages between a client and a real
 * server. Also the small helpers the catalogues share to read and rewrite JSON-RPC messages.
 */

/** One JSON-RPC message as it travels (request, notification, result or error). */
export type Msg = Record<string, any>;

/** Which way a message travels through the proxy. */
export type Direction = "toServer" | "toClient";

export type Transport = "stdio" | "http";

/** The revisions a catalogue is written for; each has a built-in spec of the same name. */
export type Revision = "sep-1686-draft" | "mcp-2025-11-25" | "ext-tasks-2026-07-28";

/** What the proxy tells a mutant about the message in hand. */
export interface Ctx {
  dir: Direction;
  transport: Transport;
  /** The connection the message travels on: one per stdio proxy; the Mcp-Session-Id (or "none") over HTTP. */
  conn: string;
  /** Over HTTP: the TCP connection the client's request came on (a number per connection, in the order they opened). */
  socket?: number;
  /** For a response: the request it answers (its method and params), as the proxy saw it go the other way. */
  request?: { method: string; params?: any };
  /** Over HTTP, for a message to the client: the stream it goes on (the session's standalone GET stream, or a POST's answer). */
  stream?: "get" | "post";
  /**
   * Sends a message of the mutant's own, now or after delayMs (bounded by the proxy). Over HTTP a message to the
   * client goes on the session's newest open stream, or on its standalone GET stream where `on` says so (and one is open).
   */
  inject(dir: Direction, msg: Msg, delayMs?: number, on?: "standalone"): void;
}

/** An HTTP exchange as a mutant may rewrite it before it goes on (status, headers; the body is messages). */
export interface HttpRequestView {
  method: string;
  headers: Record<string, string>;
  messages: Msg[];
}
export interface HttpResponseView {
  status: number;
  headers: Record<string, string>;
  /** The client's HTTP request as it came (its method and headers, before the mutant's onHttpRequest). */
  request: { method: string; headers: Record<string, string> };
  /** The client's request messages this response answers. */
  requestMessages: Msg[];
  /** The response messages (already rewritten by onMessage). */
  messages: Msg[];
  /** Whether the body is an SSE stream (true) or one JSON body (false). A mutant may switch a JSON body to SSE. */
  sse: boolean;
}

/**
 * The rewriting half of a mutant, one per proxy: it may keep state across messages (keyed by ctx.conn
 * when it is per connection). onMessage returns the messages to send on in place of msg ([] drops it,
 * undefined passes it unchanged); a Promise delays them.
 */
export interface Rewriter {
  onMessage?(msg: Msg, ctx: Ctx): Msg[] | undefined | Promise<Msg[] | undefined>;
  onHttpRequest?(req: HttpRequestView): void;
  onHttpResponse?(res: HttpResponseView): void;
}

export interface Mutant {
  /** `<statement-id>/<bug>` */
  name: string;
  /** The id of the statement the bug breaks (seen: wire, party: server). */
  statement: string;
  /** One line: what the buggy server does. */
  description: string;
  /** The transports it is run on (default: stdio). */
  transports?: Transport[];
  /**
   * Run against the demo with authorization (over HTTP: `--auth` with each of AUTH_TOKENS), conform given the first
   * token's Authorization header and the second's as another principal (`--header`, `--other-header`).
   */
  auth?: boolean;
  start(): Rewriter;
}

/** The bearer tokens of the demo a mutant with `auth` runs against: one principal each. */
export const AUTH_TOKENS = ["token-a", "token-b"] as const;

/** A statement no proxy can break, and why. */
export interface Unmutable {
  statement: string;
  reason: string;
}

// ---- helpers shared by the catalogues ----

export const isRequest = (m: Msg) => typeof m.method === "string" && m.id !== undefined;
export const isNotification = (m: Msg) => typeof m.method === "string" && m.id === undefined;
export const isResult = (m: Msg) => m.result !== undefined && m.method === undefined;
export const isError = (m: Msg) => m.error !== undefined && m.method === undefined;

/** A response from the server to a client request of this method. */
export const answers = (m: Msg, ctx: Ctx, method: string | RegExp) =>
  ctx.dir === "toClient" &&
  ctx.request !== undefined &&
  (typeof method === "string" ? ctx.request.method === method : method.test(ctx.request.method)) &&
  (isResult(m) || isError(m));

export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** A mutant from a rewriting function alone: fn sees every message with a fresh state of the mutant. */
export function mutant(
  name: string,
  description: string,
  fn: (msg: Msg, ctx: Ctx, state: Record<string, any>) => Msg[] | undefined | Promise<Msg[] | undefined>,
  opts: { transports?: Transport[]; http?: Omit<Rewriter, "onMessage">; auth?: boolean } = {},
): Mutant {
  const statement = name.slice(0, name.lastIndexOf("/"));
  return {
    name,
    statement,
    description,
    transports: opts.transports,
    ...(opts.auth ? { auth: true } : {}),
    start() {
      const state: Record<string, any> = {};
      return { onMessage: (m, c) => fn(m, c, state), ...(opts.http ?? {}) };
    },
  };
}

/** Replaces a response's result (a copy of it, to rewrite in place). */
export function withResult(m: Msg, edit: (r: any) => any): Msg[] {
  const r = clone(m.result);
  const out = edit(r);
  return [{ ...m, result: out === undefined ? r : out }];
}

/** An error response in place of m. */
export const errorFor = (m: Msg, code: number, message: string, data?: unknown): Msg[] => [
  { jsonrpc: "2.0", id: m.id, error: data === undefined ? { code, message } : { code, message, data } },
];

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.min(ms, 20_000)));

/** The task object of a result, wherever the revision puts it (result.task or the result itself). */
export function taskOf(r: any): any {
  if (r && typeof r === "object" && r.task && typeof r.task === "object") return r.task;
  return r;
}

/**
 * A server that serves a task method of another principal's task as if the task's owner asked (over HTTP, on an
 * initialize lifecycle, run with `auth`): the request goes on with the owner's session and credentials. A task's
 * owner is the session whose request made it.
 */
export function servedAsOwner(name: string, description: string, methods: RegExp, opts: { runningOnly?: boolean } = {}): Mutant {
  return {
    name,
    statement: name.slice(0, name.lastIndexOf("/")),
    description,
    transports: ["http"],
    auth: true,
    start() {
      const ownerOf = new Map<string, string>();
      const authOf = new Map<string, string>();
      // The status each task was last shown with (where only running tasks are served as their owner's).
      const status = new Map<string, string>();
      const seen = (t: any) => void (typeof t?.taskId === "string" && typeof t?.status === "string" && status.set(t.taskId, t.status));
      const own = (id: unknown, conn: string) => void (typeof id === "string" && conn !== "none" && !ownerOf.has(id) && ownerOf.set(id, conn));
      return {
        onMessage(m, ctx) {
          if (ctx.dir === "toClient") [m.result, m.result?.task, ...(Array.isArray(m.result?.tasks) ? m.result.tasks : []), m.method?.startsWith("notifications/tasks") ? m.params : undefined].forEach(seen);
          if (ctx.dir === "toServer" && isRequest(m) && /^(tools\/call|resources\/read|prompts\/get)$/.test(m.method)) {
            const asked = JSON.stringify(m.params ?? {}).match(/"taskId":"([^"]+)"/);
            if (asked) own(asked[1], ctx.conn);
          }
          if (ctx.dir === "toClient" && m.method === "notifications/tasks/created") own(m.params?.taskId ?? m.params?._meta?.["modelcontextprotocol.io/related-task"]?.taskId, ctx.conn);
          if (answers(m, ctx, /^(tools\/call|resources\/read|prompts\/get)$/) && m.result) own(m.result.task?.taskId ?? m.result.taskId, ctx.conn);
          return undefined;
        },
        onHttpRequest(r) {
          const sid = r.headers["mcp-session-id"];
          if (sid !== undefined && r.headers.authorization !== undefined) authOf.set(sid, r.headers.authorization);
          const m = r.messages[0];
          const owner = m !== undefined && isRequest(m) && methods.test(m.method) && typeof m.params?.taskId === "string" ? ownerOf.get(m.params.taskId) : undefined;
          if (owner === undefined || sid === undefined || owner === sid || !authOf.has(owner)) return;
          if (opts.runningOnly && ["completed", "failed", "cancelled"].includes(status.get(m!.params.taskId) ?? "")) return;
          r.headers["mcp-session-id"] = owner;
          r.headers.authorization = authOf.get(owner)!;
        },
      };
    },
  };
}
