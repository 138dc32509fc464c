/**
 * The tester's side of the wire: plain JSON-RPC over a stdio child process or
 * Streamable HTTP, with no MCP SDK in between, so that what is checked is what
 * the server sent. Every message both ways is kept in a transcript that a
 * report quotes. Requests the server sends (elicitation, sampling, roots) are
 * answered by a handler the tester sets.
 */
import { spawn, type ChildProcess } from "node:child_process";

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface Answer {
  result?: Record<string, unknown>;
  error?: JsonRpcError;
  /** HTTP status of the exchange (HTTP only). */
  http?: number;
  /** No answer came within the time given. */
  timedOut?: boolean;
  /** The transport broke or the answer was not JSON-RPC (said why). */
  broken?: string;
}

export interface TranscriptEntry {
  dir: "→" | "←";
  message: unknown;
}

export interface RequestOptions {
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** Told the JSON-RPC id the request goes out with (a cancellation notification names it). */
  onId?: (id: number) => void;
}

export type ServerRequestHandler = (method: string, params: Record<string, unknown> | undefined) => Promise<{ result?: unknown; error?: JsonRpcError }>;

export interface Wire {
  request(method: string, params: Record<string, unknown> | undefined, opts?: RequestOptions): Promise<Answer>;
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Notifications received so far, oldest first, with when each came (ms since the epoch). */
  readonly notifications: Array<{ method: string; params?: Record<string, unknown>; at: number }>;
  onServerRequest: ServerRequestHandler;
  readonly transcript: TranscriptEntry[];
  /** Extra headers on every HTTP request after this call (ignored over stdio). */
  setHeaders(headers: Record<string, string>): void;
  close(): Promise<void>;
  /** Why the transport is gone, once it is. */
  readonly closedReason: string | undefined;
}

/** A JSON object (not null, not an array): the one definition conform's modules share. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

abstract class BaseWire implements Wire {
  readonly notifications: Array<{ method: string; params?: Record<string, unknown>; at: number }> = [];
  readonly transcript: TranscriptEntry[] = [];
  onServerRequest: ServerRequestHandler = async () => ({ error: { code: -32601, message: "Method not found" } });
  closedReason: string | undefined;
  protected nextId = 1;
  protected readonly pending = new Map<string | number, (a: Answer) => void>();

  abstract request(method: string, params: Record<string, unknown> | undefined, opts?: RequestOptions): Promise<Answer>;
  abstract notify(method: string, params?: Record<string, unknown>): Promise<void>;
  abstract close(): Promise<void>;
  setHeaders(_headers: Record<string, string>): void {}

  protected record(dir: TranscriptEntry["dir"], message: unknown): void {
    this.transcript.push({ dir, message });
    // A long run keeps what a report can quote: the latest messages.
    if (this.transcript.length > 4000) this.transcript.splice(0, 1000);
  }

  /** Routes one incoming message; server requests are answered through `reply`. */
  protected receive(message: unknown, reply: (m: unknown) => void): void {
    this.record("←", message);
    if (!isObject(message)) return;
    if (typeof message.method === "string") {
      const params = isObject(message.params) ? message.params : undefined;
      if (message.id === undefined) {
        this.notifications.push({ method: message.method, ...(params ? { params } : {}), at: Date.now() });
        return;
      }
      const id = message.id;
      void this.onServerRequest(message.method, params).then(
        (a) => reply(a.error ? { jsonrpc: "2.0", id, error: a.error } : { jsonrpc: "2.0", id, result: a.result ?? {} }),
        (e: unknown) => reply({ jsonrpc: "2.0", id, error: { code: -32603, message: String(e) } }),
      );
      return;
    }
    if (message.id === undefined || message.id === null) return;
    const done = this.pending.get(message.id as string | number);
    if (done === undefined) return;
    this.pending.delete(message.id as string | number);
    if (isObject(message.error)) {
      const e = message.error;
      done({ error: { code: typeof e.code === "number" ? e.code : NaN, message: typeof e.message === "string" ? e.message : "", ...("data" in e ? { data: e.data } : {}) } });
    } else if (isObject(message.result)) done({ result: message.result });
    else done({ broken: `a response with neither an object result nor an error: ${JSON.stringify(message).slice(0, 200)}` });
  }

  protected failAll(reason: string): void {
    this.closedReason ??= reason;
    for (const [, done] of this.pending) done({ broken: reason });
    this.pending.clear();
  }
}

/**
 * A server started as a child process (`sh -c command`), JSON-RPC on its stdin and stdout, one message a
 * line. Several wires may speak over it one after another (one MCP session each): the process keeps the
 * JSON-RPC ids unique across them, so a late answer to a closed wire's request reaches no one.
 */
export class StdioProcess {
  private readonly child: ChildProcess;
  private buffer = "";
  readonly stderr: string[] = [];
  /** Why the process is gone, once it is. */
  exitReason: string | undefined;
  /** Whether the server has written anything yet (until then, its start-up is still under way). */
  started = false;
  /** Whether its stdout closed (every message it wrote has been read). */
  outputClosed = false;
  nextId = 1;
  private listener: { line: (message: unknown) => void; notJson: (line: string) => void; exit: (reason: string) => void } | undefined;

  constructor(command: string, env?: NodeJS.ProcessEnv) {
    // Its own process group: a shell that does not exec its command leaves the server as its child, and
    // closing must end both.
    this.child = spawn(command, { shell: true, detached: true, stdio: ["pipe", "pipe", "pipe"], env: env ?? process.env });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (chunk: string) => {
      this.started = true;
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf("\n"); nl !== -1; nl = this.buffer.indexOf("\n")) {
        const line = this.buffer.slice(0, nl).replace(/\r$/, "");
        this.buffer = this.buffer.slice(nl + 1);
        if (line.trim() === "") continue;
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          this.listener?.notJson(line);
          continue;
        }
        this.listener?.line(message);
      }
    });
    this.child.stdout!.on("close", () => (this.outputClosed = true));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (chunk: string) => {
      this.stderr.push(chunk);
      if (this.stderr.length > 200) this.stderr.splice(0, 100);
    });
    const gone = (reason: string) => {
      this.exitReason ??= reason;
      this.listener?.exit(reason);
    };
    this.child.on("exit", (code, signal) => gone(`the server process exited (${signal ?? `code ${code}`})`));
    this.child.on("error", (e) => gone(`the server process could not start: ${e.message}`));
    this.child.stdin!.on("error", () => undefined);
  }

  /** Hands the process's output to one wire (the one whose session is open). */
  attach(listener: StdioProcess["listener"]): void {
    this.listener = listener;
  }

  detach(listener: StdioProcess["listener"]): void {
    if (this.listener === listener) this.listener = undefined;
  }

  write(line: string): void {
    if (this.exitReason === undefined) this.child.stdin!.write(`${line}\n`);
  }

  /** Closes the server's stdin, as a client that shuts a stdio server down does first (the process is left to end). */
  endInput(): void {
    this.child.stdin!.end();
  }

  /** Asks the server to stop (SIGTERM to its process group), the stdio shutdown's next step where closing stdin did not end it. */
  terminate(): void {
    try {
      if (this.child.pid !== undefined && this.exitReason === undefined) process.kill(-this.child.pid, "SIGTERM");
    } catch {
      // The group is gone already.
    }
  }

  async close(): Promise<void> {
    const signal = (sig: NodeJS.Signals) => {
      try {
        process.kill(-this.child.pid!, sig);
      } catch {
        // The group is gone already.
      }
    };
    if (this.child.exitCode !== null || this.child.signalCode !== null || this.child.pid === undefined) {
      // The shell ended; what it started may not have.
      if (this.child.pid !== undefined) signal("SIGKILL");
      return;
    }
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.stdin!.end();
    const timer = setTimeout(() => signal("SIGKILL"), 2000);
    signal("SIGTERM");
    await exited;
    clearTimeout(timer);
    signal("SIGKILL");
  }
}

/**
 * One session's wire over a stdio server: its own process (closed with the wire), or a process it shares
 * with the sessions before and after it (left running).
 */
export class StdioWire extends BaseWire {
  readonly process: StdioProcess;
  private readonly owned: boolean;
  private readonly listener: NonNullable<StdioProcess["listener"]>;

  /** `startupMs`: how long the first answer of a process that has written nothing yet may take. */
  constructor(
    server: string | StdioProcess,
    env?: NodeJS.ProcessEnv,
    readonly startupMs = 0,
  ) {
    super();
    this.owned = typeof server === "string";
    this.process = typeof server === "string" ? new StdioProcess(server, env) : server;
    this.listener = {
      line: (message) => this.receive(message, (m) => this.write(m)),
      notJson: (line) => {
        this.record("←", line);
        this.failAll(`the server wrote a line that is not JSON to stdout: ${line.slice(0, 200)}`);
      },
      exit: (reason) => this.failAll(reason),
    };
    if (this.process.exitReason !== undefined) this.failAll(this.process.exitReason);
    else this.process.attach(this.listener);
  }

  get stderr(): string[] {
    return this.process.stderr;
  }

  private write(message: unknown): void {
    this.record("→", message);
    if (this.closedReason === undefined) this.process.write(JSON.stringify(message));
  }

  request(method: string, params: Record<string, unknown> | undefined, opts: RequestOptions = {}): Promise<Answer> {
    if (this.closedReason !== undefined) return Promise.resolve({ broken: this.closedReason });
    const id = this.process.nextId++;
    opts.onId?.(id);
    // A server still starting answers its first request once it is up: that answer has the start-up's time.
    const timeoutMs = this.process.started || this.startupMs === 0 ? (opts.timeoutMs ?? 10_000) : this.startupMs;
    return new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ timedOut: true });
      }, timeoutMs);
      this.pending.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      this.write({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    });
  }

  /** Writes a raw line (a malformed message, for the tester's bad-input checks). */
  rawLine(line: string): void {
    this.record("→", line);
    if (this.closedReason === undefined) this.process.write(line);
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    this.write({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  async close(): Promise<void> {
    this.process.detach(this.listener);
    this.failAll("closed");
    if (this.owned) await this.process.close();
  }
}

/** How far apart in time two equal notifications on two streams are taken for one message sent twice. */
const BROADCAST_WINDOW_MS = 5_000;

/** Streamable HTTP: one POST per message; answers as JSON or as an SSE stream. */
export class HttpWire extends BaseWire {
  /** The HTTP response to each request sent (its method, status and Content-Type), for the transport's rules. */
  readonly responses: Array<{ method: string; status: number; contentType: string }> = [];
  /** What the session's SSE streams carried against the transport's rules (a response on the standalone stream, an event id twice, a message on two streams). */
  readonly streamFlaws: string[] = [];
  /** SSE events received, and the ids they carried (unique across the session's streams). */
  sseEvents = 0;
  private readonly eventIds = new Set<string>();
  /** The server's messages (a request by its id, a notification by its content) lately received, and on which stream. */
  private readonly carried = new Map<string, { stream: string; at: number }>();
  private headers: Record<string, string> = {};
  private sessionId: string | undefined;
  private readonly inflight = new Set<AbortController>();

  constructor(readonly url: string) {
    super();
  }

  setHeaders(headers: Record<string, string>): void {
    this.headers = { ...this.headers, ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
  }

  /** The headers every POST carries: JSON in, JSON or SSE out, the session once the server named one. */
  baseHeaders(): Record<string, string> {
    return {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(this.sessionId === undefined ? {} : { "mcp-session-id": this.sessionId }),
      ...this.headers,
    };
  }

  /** One POST of a raw body; the response as received (for the transport checks). */
  async post(body: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<{ status: number; contentType: string; text: string }> {
    const ctl = new AbortController();
    this.inflight.add(ctl);
    const timer = setTimeout(() => ctl.abort(), timeoutMs);
    try {
      const res = await fetch(this.url, { method: "POST", headers, body, signal: ctl.signal });
      const text = await res.text();
      return { status: res.status, contentType: res.headers.get("content-type") ?? "", text };
    } finally {
      clearTimeout(timer);
      this.inflight.delete(ctl);
    }
  }

  async request(method: string, params: Record<string, unknown> | undefined, opts: RequestOptions = {}): Promise<Answer> {
    const id = this.nextId++;
    opts.onId?.(id);
    const message = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
    this.record("→", message);
    const ctl = new AbortController();
    this.inflight.add(ctl);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, opts.timeoutMs ?? 10_000);
    const answered = new Promise<Answer>((resolve) => this.pending.set(id, resolve));
    try {
      const res = await fetch(this.url, {
        method: "POST",
        headers: { ...this.baseHeaders(), ...(opts.headers ?? {}) },
        body: JSON.stringify(message),
        signal: ctl.signal,
      });
      const session = res.headers.get("mcp-session-id");
      if (session !== null && this.sessionId === undefined) this.sessionId = session;
      const type = res.headers.get("content-type") ?? "";
      this.responses.push({ method, status: res.status, contentType: type });
      if (type.includes("text/event-stream") && res.body !== null) {
        await this.readStream(res.body, id);
      } else {
        const text = await res.text();
        let parsed: unknown;
        try {
          parsed = text === "" ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (parsed === undefined) {
          this.pending.delete(id);
          return { http: res.status, broken: `HTTP ${res.status} with no JSON-RPC body${text ? `: ${text.slice(0, 200)}` : ""}` };
        }
        for (const m of Array.isArray(parsed) ? parsed : [parsed]) this.receive(m, (r) => void this.answerServer(r));
      }
      if (this.pending.has(id)) {
        this.pending.delete(id);
        return { http: res.status, broken: `HTTP ${res.status}: the response ended without answering request ${id}` };
      }
      return { ...(await answered), http: res.status };
    } catch (e) {
      this.pending.delete(id);
      if (timedOut) return { timedOut: true };
      return { broken: `HTTP request failed: ${(e as Error).message}` };
    } finally {
      clearTimeout(timer);
      this.inflight.delete(ctl);
    }
  }

  /** Reads an SSE stream until it ends, or (for a request's stream) until request `id` is answered. */
  private async readStream(body: ReadableStream<Uint8Array>, id: number | undefined): Promise<void> {
    const reader = body.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += value.replace(/\r\n?/g, "\n");
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const eventId = event
            .split("\n")
            .find((l) => l.startsWith("id:"))
            ?.slice(3)
            .trim();
          if (eventId !== undefined && eventId !== "") {
            if (this.eventIds.has(eventId)) this.streamFlaws.push(`SSE event id ${JSON.stringify(eventId.slice(0, 80))} came twice in one session (an event id is unique across all the session's streams)`);
            this.eventIds.add(eventId);
          }
          const data = event
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).replace(/^ /, ""))
            .join("\n");
          if (!data) continue;
          let message: unknown;
          try {
            message = JSON.parse(data);
          } catch {
            continue;
          }
          this.sseEvents++;
          // The standalone stream (a GET) never carries a response: conform resumes no stream.
          if (id === undefined && isObject(message) && message.method === undefined && ("result" in message || "error" in message)) {
            this.streamFlaws.push(`the standalone GET stream carried a response (to request ${JSON.stringify(message.id)}); only a resumed stream may`);
          }
          if (isObject(message) && typeof message.method === "string") this.noteStream(message, id === undefined ? "the standalone GET stream" : `the stream of POST request ${id}`);
          this.receive(message, (r) => void this.answerServer(r));
          if (id !== undefined && !this.pending.has(id)) return;
        }
      }
    } finally {
      void reader.cancel().catch(() => undefined);
    }
  }

  /**
   * Notes on which stream a server message came: the same message on two streams (a broadcast) is a flaw,
   * as the transport sends each message on one of the connected streams only. A request is the same by its
   * id; a notification by its content, within BROADCAST_WINDOW_MS (a server may send equal notifications
   * apart in time, but a broadcast goes out to every stream at once), and only one that is told apart from
   * its neighbours by what it carries (see `identifiable`): two log messages of the same text may rightly
   * come from two tasks, one on a request's stream and the other on the standalone one.
   */
  private noteStream(message: Record<string, unknown>, stream: string): void {
    const now = Date.now();
    for (const [key, seen] of this.carried) {
      if (now - seen.at <= BROADCAST_WINDOW_MS) break;
      this.carried.delete(key);
    }
    const request = message.id !== undefined;
    const kind = request ? "request" : identifiable(message);
    if (kind === undefined) return;
    const key = request ? `request ${JSON.stringify(message.id)}` : `notification ${JSON.stringify(message)}`;
    const before = this.carried.get(key);
    if (before === undefined) this.carried.set(key, { stream, at: now });
    else if (before.stream !== stream && (kind !== "of-a-task" || now - before.at <= SAME_INSTANT_MS)) {
      const what = request ? `the server's ${String(message.method)} request ${JSON.stringify(message.id)}` : `the same ${String(message.method)} notification`;
      this.streamFlaws.push(`${what} came on ${before.stream} and on ${stream} (a message is sent on one of the connected streams only, not broadcast)`);
    }
  }

  /**
   * Opens the session's standalone stream (GET), where a server may send requests and notifications
   * that belong to no open request (the input requests of a task, for one). A server without one
   * answers 405, which is allowed.
   */
  openStandalone(): void {
    const ctl = new AbortController();
    this.inflight.add(ctl);
    const headers: Record<string, string> = { ...this.baseHeaders(), accept: "text/event-stream" };
    delete headers["content-type"];
    void (async () => {
      try {
        const res = await fetch(this.url, { method: "GET", headers, signal: ctl.signal });
        if (res.ok && res.body !== null && (res.headers.get("content-type") ?? "").includes("text/event-stream")) await this.readStream(res.body, undefined);
        else await res.body?.cancel();
      } catch {
        // Closed by close(), or the server has no standalone stream.
      } finally {
        this.inflight.delete(ctl);
      }
    })();
  }

  /** Sends the tester's answer to a server request as its own POST. */
  private async answerServer(message: unknown): Promise<void> {
    this.record("→", message);
    try {
      await this.post(JSON.stringify(message), this.baseHeaders());
    } catch {
      // The server went away; the pending requests say so.
    }
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const message = { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) };
    this.record("→", message);
    try {
      await this.post(JSON.stringify(message), this.baseHeaders());
    } catch {
      // As above.
    }
  }

  async close(): Promise<void> {
    for (const c of this.inflight) c.abort();
    if (this.sessionId !== undefined) {
      try {
        await fetch(this.url, { method: "DELETE", headers: this.baseHeaders(), signal: AbortSignal.timeout(2000) });
      } catch {
        // Closing is best effort.
      }
    }
    this.failAll("closed");
  }
}

/**
 * Whether a notification's content tells it apart from others of its method: progress (its token and progress)
 * and a task's status (its id and status) are "unique"; another notification naming a task in its `_meta` (a log
 * message of a task's work) is "of-a-task", the same as an equal one only within SAME_INSTANT_MS, since a task may
 * say the same thing twice, a second apart, first on a request's stream and then on the standalone one; one naming
 * no task is not told apart (two tasks' logs may read the same).
 */
function identifiable(message: Record<string, unknown>): "unique" | "of-a-task" | undefined {
  const params = message.params;
  if (params === null || typeof params !== "object") return undefined;
  const p = params as Record<string, unknown>;
  if (message.method === "notifications/progress") return p.progressToken !== undefined && typeof p.progress === "number" ? "unique" : undefined;
  if (typeof p.taskId === "string" && typeof p.status === "string") return "unique";
  const meta = p._meta;
  if (meta === null || typeof meta !== "object") return undefined;
  return Object.values(meta as Record<string, unknown>).some((v) => v !== null && typeof v === "object" && typeof (v as Record<string, unknown>).taskId === "string") ? "of-a-task" : undefined;
}

/** How close in time two equal notifications of a task on two streams must come to be one message broadcast. */
const SAME_INSTANT_MS = 1_000;
