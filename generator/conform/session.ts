/**
 * One requestor's conversation with the server under test: the handshake its
 * lifecycle asks for, the envelope a per-request lifecycle puts on every
 * message, how a task is requested and found in an answer, and the answers the
 * tester gives to the server's own requests (input rounds).
 */
import type { IRType } from "../ir.js";
import type { SpecModel } from "./model.js";
import { minimalValue } from "./schemas.js";
import { HttpWire, isObject, StdioProcess, StdioWire, type Answer, type JsonRpcError, type Wire } from "./wire.js";

/** The envelope keys of a per-request lifecycle (core MCP 2026-07-28). */
export const PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo";
export const CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";
/** The request routing headers of Streamable HTTP on a per-request lifecycle. */
const NAME_FIELDS: Readonly<Record<string, string>> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

export const CLIENT_INFO = { name: "mcp-task-gen-conform", version: "1" };

function nestAt(path: readonly string[], value: unknown): Record<string, unknown> {
  let out: unknown = value;
  for (let i = path.length - 1; i >= 0; i--) out = { [path[i]!]: out };
  return out as Record<string, unknown>;
}

function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObject(v) && isObject(out[k]) ? merge(out[k] as Record<string, unknown>, v) : v;
  return out;
}

export function valueAt(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const p of path) v = isObject(v) && Object.prototype.hasOwnProperty.call(v, p) ? v[p] : undefined;
  return v;
}

/** Where the server under test runs. */
/**
 * Another requestor for the isolation checks' second session: over HTTP, its headers (`otherHeaders`: another
 * principal); over stdio, the command of another server process on the same task store (`other`).
 */
export type Target = { stdio: string; env?: NodeJS.ProcessEnv; other?: string } | { url: string; headers?: Record<string, string>; otherHeaders?: Record<string, string> };

/**
 * How long the tester waits. `startupMs`: for a stdio server's first answer (its start-up);
 * `requestMs`: for any answer, at least (a request the tester gives longer keeps its longer time).
 * An answer that does not come in time makes the run "could not test", never a violation. The defaults
 * hold on a machine whose load is ten times its cores.
 */
export interface Timing {
  startupMs: number;
  requestMs: number;
}

export const DEFAULT_TIMING: Timing = { startupMs: 120_000, requestMs: 60_000 };

/**
 * Makes the sessions of a conform run. Over stdio one server process serves them one after another
 * (each opens its own MCP session on it: a new initialize, or new per-request envelopes), unless
 * `freshProcess`; a process that died is started again for the next session.
 */
export class Connector {
  private process: StdioProcess | undefined;
  /** Server processes started so far (stdio). */
  starts = 0;
  /** How many sessions the shared process served before the latest one. */
  sessionsBefore = 0;

  constructor(
    readonly model: SpecModel,
    readonly target: Target,
    readonly timing: Timing = DEFAULT_TIMING,
    readonly freshProcess = false,
  ) {}

  session(): Session {
    const t = this.target;
    if ("url" in t) return new Session(this.model, t, { timing: this.timing });
    if (this.freshProcess) {
      this.starts++;
      return new Session(this.model, t, { timing: this.timing });
    }
    if (this.process === undefined || this.process.exitReason !== undefined) {
      void this.process?.close();
      this.process = new StdioProcess(t.stdio, t.env);
      this.starts++;
      this.sessionsBefore = 0;
    } else this.sessionsBefore++;
    return new Session(this.model, t, { timing: this.timing, process: this.process });
  }

  /** Why the shared server process died since the last session, once (a crash between runs). */
  died(): string | undefined {
    const p = this.process;
    if (p === undefined || p.exitReason === undefined || this.reported === p) return undefined;
    this.reported = p;
    return p.exitReason;
  }
  private reported: StdioProcess | undefined;

  /**
   * A session of another requestor: over HTTP a new one (with the other principal's headers where given); over
   * stdio one on the other server process (`other`), started once and kept for every run.
   */
  otherSession(): Session {
    const t = this.target;
    if ("url" in t) return new Session(this.model, t.otherHeaders === undefined ? t : { ...t, headers: { ...t.headers, ...t.otherHeaders } }, { timing: this.timing });
    if (t.other === undefined) throw new Error("conform: over stdio another requestor needs the command of another server process");
    if (this.otherProcess === undefined || this.otherProcess.exitReason !== undefined) {
      void this.otherProcess?.close();
      this.otherProcess = new StdioProcess(t.other, t.env);
      this.starts++;
    }
    return new Session(this.model, { stdio: t.other, ...(t.env === undefined ? {} : { env: t.env }) }, { timing: this.timing, process: this.otherProcess });
  }
  private otherProcess: StdioProcess | undefined;

  /** The last lines the shared server process wrote to stderr. */
  stderrTail(): string {
    const err = this.process?.stderr.join("").trim() ?? "";
    return err === "" ? "" : `; its stderr ends: ${err.slice(-600)}`;
  }

  async close(): Promise<void> {
    await this.process?.close();
    this.process = undefined;
    await this.otherProcess?.close();
    this.otherProcess = undefined;
  }
}

/** An answer to a server's input request that fits what it asked (elicitation, sampling, roots). */
export function answerInput(method: string, params: Record<string, unknown> | undefined): unknown {
  if (method === "elicitation/create") {
    const schema = isObject(params?.requestedSchema) ? params!.requestedSchema : {};
    const props = isObject(schema.properties) ? schema.properties : {};
    const content: Record<string, unknown> = {};
    for (const [k, p] of Object.entries(props)) {
      const t = isObject(p) ? p.type : undefined;
      const choices = isObject(p) && Array.isArray(p.enum) ? p.enum : undefined;
      content[k] = choices?.length ? choices[0] : t === "boolean" ? true : t === "number" || t === "integer" ? 1 : "conform";
    }
    return params?.mode === "url" ? { action: "accept" } : { action: "accept", content };
  }
  if (method === "sampling/createMessage") return { role: "assistant", content: { type: "text", text: "conform" }, model: "conform" };
  if (method === "roots/list") return { roots: [] };
  return undefined;
}

/** The capabilities the tester declares: input of every kind, and the spec's own client capability. */
/** The capabilities the tester declares whatever the spec: it answers elicitation and sampling itself. */
export const BASE_CAPABILITIES: Readonly<Record<string, unknown>> = Object.freeze({ elicitation: { form: {} }, sampling: {}, roots: {} });

export function clientCapabilities(model: SpecModel): Record<string, unknown> {
  const c = model.ir.behaviour.capabilities.client;
  const caps: Record<string, unknown> = structuredClone({ ...BASE_CAPABILITIES });
  if (c === false) return caps;
  // The tester answers the server's input requests itself: it declares no task-augmented ones.
  const value = structuredClone(isObject(c.value) ? c.value : {});
  for (const path of Object.values(c.augments ?? {})) {
    let at: unknown = value;
    for (const p of path.slice(0, -1)) at = isObject(at) ? at[p] : undefined;
    if (isObject(at)) delete at[path[path.length - 1]!];
  }
  return merge(caps, nestAt(c.path, value));
}

/** A request's params and headers as the lifecycle sends them: per-request ones carry the envelope. */
export function envelope(model: SpecModel, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown>): { params: Record<string, unknown>; headers: Record<string, string> } {
  if (!model.perRequest) return { params, headers: {} };
  const version = model.ir.spec.protocol.protocolVersion ?? "";
  const given = isObject(params._meta) ? params._meta : {};
  // The core's envelope; where the spec names another meta entry for the client's capabilities, they travel there
  // too (as a generated client sends them: the core's by its SDK, the spec's by the runtime).
  const declared = model.metaKey(model.ir.behaviour.creation.capabilityMeta);
  const meta = { [PROTOCOL_VERSION_KEY]: version, [CLIENT_INFO_KEY]: CLIENT_INFO, [CLIENT_CAPABILITIES_KEY]: capabilities, ...(declared === undefined ? {} : { [declared]: capabilities }), ...given };
  const headers: Record<string, string> = { "mcp-method": method, "mcp-protocol-version": version };
  const http = model.ir.behaviour.http;
  const field = NAME_FIELDS[method] ?? (http !== false && http.methods.includes(method) ? model.idField : undefined);
  const header = NAME_FIELDS[method] !== undefined ? "mcp-name" : http !== false ? http.header.toLowerCase() : undefined;
  if (field !== undefined && header !== undefined && typeof params[field] === "string") headers[header] = params[field] as string;
  return { params: { ...params, _meta: meta }, headers };
}

/** A request the server sent the tester (see `Session.serverRequests`). */
export interface ServerRequestSeen {
  method: string;
  relatedTaskId?: string;
  duringTask: boolean;
  resultsOpen: string[];
  statusBefore?: string;
}

export class Session {
  readonly wire: Wire;
  /** The server's answer to the handshake (initialize lifecycle). */
  serverCapabilities: Record<string, unknown> | undefined;
  /**
   * The server's requests seen: the related task id they carried, whether a request that carries a task's input was
   * open, the tasks whose result requests were open (the streams it may have come on), and the status the task
   * showed before the request was answered (where it named a task and the spec has a get method).
   */
  readonly serverRequests: ServerRequestSeen[] = [];
  /** Every JSON-RPC error the server answered on this session, with the method of the request it answers, oldest first. */
  readonly errors: Array<{ method: string; error: JsonRpcError }> = [];
  /** What the tester does before it answers a task's input request (a check that acts while the task waits). */
  beforeInputAnswer: ((seen: ServerRequestSeen) => Promise<void>) | undefined;
  /** Per task, the turn of the last of its input requests: answered one after the other. */
  private readonly inputTurns = new Map<string, Promise<void>>();
  /** The task ids the result requests still open address, how many each. */
  private readonly openResults = new Map<string, number>();
  /** Requests of the tester still open, by method: a server request that comes while one that carries a task's input is open is that task's. */
  private readonly openByMethod = new Map<string, number>();
  private readonly inputCarriers: ReadonlySet<string>;
  private readonly capabilities: Record<string, unknown>;
  readonly timing: Timing;

  /** `process`: a stdio server process this session shares with others (left running when it closes). */
  constructor(
    readonly model: SpecModel,
    target: Target,
    opts: { timing?: Timing; process?: StdioProcess } = {},
  ) {
    this.timing = opts.timing ?? DEFAULT_TIMING;
    this.wire = "stdio" in target ? new StdioWire(opts.process ?? target.stdio, target.env, this.timing.startupMs) : new HttpWire(target.url);
    if ("url" in target && target.headers) this.wire.setHeaders(target.headers);
    const b = model.ir.behaviour;
    this.capabilities = clientCapabilities(model);
    // The requests a task's input comes on: the result method (its stream), and a creation request kept open.
    const result = model.op("result")?.method;
    this.inputCarriers = new Set([...(result === undefined ? [] : [result]), ...(b.creation.ack.mode === "notification" ? ["tools/call"] : [])]);
    const related = b.relatedTask === false ? undefined : model.metaKey(b.relatedTask.meta);
    const get = model.op("get")?.method;
    const inputRequests = b.input === false ? [] : b.input.requests;
    this.wire.onServerRequest = async (method, params) => {
      const meta = isObject(params?._meta) ? params._meta : {};
      const rel = related === undefined ? undefined : meta[related];
      const duringTask = [...this.inputCarriers].some((m) => (this.openByMethod.get(m) ?? 0) > 0);
      const seen: ServerRequestSeen = { method, duringTask, resultsOpen: [...this.openResults.keys()], ...(isObject(rel) && typeof rel.taskId === "string" ? { relatedTaskId: rel.taskId } : {}) };
      // The task an input request names, read before it is answered: what the requestor is shown while it waits.
      // A task's requests are answered one at a time, each read a little after the one before was answered: a task
      // that asked two at once still waits for the second.
      let release = () => {};
      if (seen.relatedTaskId !== undefined && get !== undefined && inputRequests.includes(method)) {
        const id = seen.relatedTaskId;
        const before = this.inputTurns.get(id);
        const mine = new Promise<void>((r) => (release = () => setTimeout(r, 0)));
        const turn = (before ?? Promise.resolve()).then(() => mine);
        this.inputTurns.set(id, turn);
        void turn.then(() => this.inputTurns.get(id) === turn && this.inputTurns.delete(id));
        if (before !== undefined) {
          await before;
          await new Promise((r) => setTimeout(r, 150));
        }
        const g = await this.request(get, { [model.idField]: id }, 5000);
        const status = taskIn(model, g.result)?.[model.statusField];
        if (typeof status === "string") seen.statusBefore = status;
      }
      this.serverRequests.push(seen);
      if (this.beforeInputAnswer !== undefined && seen.relatedTaskId !== undefined && inputRequests.includes(method)) await this.beforeInputAnswer(seen);
      release();
      if (method === "ping") return { result: {} };
      const result = answerInput(method, params);
      return result === undefined ? { error: { code: -32601, message: "Method not found" } } : { result };
    };
  }

  /** The handshake of an initialize lifecycle; nothing for a per-request one. */
  async open(): Promise<Answer | undefined> {
    if (this.model.perRequest) return undefined;
    const a = await this.wire.request(
      "initialize",
      { protocolVersion: this.model.ir.spec.protocol.protocolVersion ?? "2025-06-18", capabilities: this.capabilities, clientInfo: CLIENT_INFO },
      { timeoutMs: this.timing.requestMs },
    );
    if (a.result) {
      this.serverCapabilities = isObject(a.result.capabilities) ? a.result.capabilities : {};
      const version = a.result.protocolVersion;
      if (this.wire instanceof HttpWire && typeof version === "string") this.wire.setHeaders({ "mcp-protocol-version": version });
      await this.wire.notify("notifications/initialized");
      if (this.wire instanceof HttpWire) this.wire.openStandalone();
    }
    return a;
  }

  /** A request as this lifecycle sends it: with the per-request envelope and routing headers where it has them. */
  request(
    method: string,
    params: Record<string, unknown> = {},
    timeoutMs = 10_000,
    onId?: (id: number) => void,
    meta?: { omit?: readonly string[]; set?: Record<string, unknown>; headers?: Record<string, string | undefined> },
  ): Promise<Answer> {
    const e = envelope(this.model, method, params, this.capabilities);
    // Headers set or (undefined) left out, over those the lifecycle sends.
    for (const [k, v] of Object.entries(meta?.headers ?? {})) {
      if (v === undefined) delete e.headers[k];
      else e.headers[k] = v;
    }
    if (meta !== undefined && isObject(e.params._meta)) {
      const m: Record<string, unknown> = { ...e.params._meta, ...(meta.set ?? {}) };
      for (const k of meta.omit ?? []) delete m[k];
      e.params = { ...e.params, _meta: m };
    }
    this.openByMethod.set(method, (this.openByMethod.get(method) ?? 0) + 1);
    const resultOf = method === this.model.op("result")?.method && typeof params[this.model.idField] === "string" ? (params[this.model.idField] as string) : undefined;
    if (resultOf !== undefined) this.openResults.set(resultOf, (this.openResults.get(resultOf) ?? 0) + 1);
    return this.seen(method, this.wire.request(method, e.params, { timeoutMs: Math.max(timeoutMs, this.timing.requestMs), headers: e.headers, ...(onId ? { onId } : {}) })).finally(() => {
      this.openByMethod.set(method, (this.openByMethod.get(method) ?? 1) - 1);
      if (resultOf === undefined) return;
      const left = (this.openResults.get(resultOf) ?? 1) - 1;
      if (left > 0) this.openResults.set(resultOf, left);
      else this.openResults.delete(resultOf);
    });
  }

  /**
   * A request whose right answer is none yet (a blocking result of running work): it waits `ms` exactly, not
   * --request-timeout, since silence is the pass. A slow machine can only hide an early answer, never invent one.
   */
  probe(method: string, params: Record<string, unknown>, ms: number): Promise<Answer> {
    const e = envelope(this.model, method, params, this.capabilities);
    return this.seen(method, this.wire.request(method, e.params, { timeoutMs: ms, headers: e.headers }));
  }

  /** Keeps the error an answer carries, for the checks of every error the server answered. */
  private seen(method: string, answer: Promise<Answer>): Promise<Answer> {
    return answer.then((a) => {
      if (a.error) this.errors.push({ method, error: a.error });
      return a;
    });
  }

  /** The params that ask for `request` to run as a task (with the requestor's id where it picks one). */
  taskParams(params: Record<string, unknown>, requestorId: string | undefined, ttl: number | undefined): Record<string, unknown> {
    const c = this.model.ir.behaviour.creation;
    // The task request's own declared type: its required fields get small valid values (the id and retention below).
    const base = creationType(this.model) === undefined ? {} : minimalValue(this.model.ir, creationType(this.model)!);
    const body: Record<string, unknown> = isObject(base) ? { ...base } : {};
    if (c.retentionField !== undefined && ttl !== undefined) body[c.retentionField] = ttl;
    if (requestorId !== undefined) body[c.taskId.field ?? this.model.idField] = requestorId;
    if (c.via === "param" && c.param !== undefined) return { ...params, [c.param]: body };
    if (c.via === "meta") {
      const key = this.model.metaKey(c.meta);
      if (key !== undefined) return { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), [key]: body } };
    }
    return params;
  }

  async close(): Promise<void> {
    await this.wire.close();
  }
}

/** The task in an answer: the answer itself, or the one field of it that holds a task. */
export function taskIn(model: SpecModel, value: unknown): Record<string, unknown> | undefined {
  const isTask = (v: unknown): v is Record<string, unknown> => isObject(v) && typeof v[model.idField] === "string" && model.statusField in v;
  if (isTask(value)) return value;
  if (!isObject(value)) return undefined;
  for (const v of Object.values(value)) if (isTask(v)) return v;
  return undefined;
}

/** The declared type of a task request (the params field's, or the meta entry's), where the spec names one. */
export function creationType(model: SpecModel): IRType | undefined {
  const c = model.ir.behaviour.creation;
  if (c.via === "param" && typeof c.paramType === "string" && c.paramType !== "object") return { kind: "ref", name: c.paramType, nullable: false };
  if (c.via === "meta") return model.ir.meta.find((m) => m.name === c.meta)?.type;
  return undefined;
}
