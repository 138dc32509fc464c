// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
/**
 * The client side of a per-request lifecycle: a connection for the TaskClient
 * (client.ts) that speaks stateless Streamable HTTP with fetch. Every request
 * is one POST carrying protocolVersion, clientInfo and the client capabilities
 * in `_meta`, and the headers MCP-Protocol-Version, Mcp-Method and Mcp-Name
 * (tools/call, prompts/get, resources/read, and the task methods the spec routes
 * by header, with params.taskId). An input_required answer (multi round-trip
 * request) is resolved with `onInputRequest` and the request retried with
 * inputResponses and the requestState. It exists because no SDK client speaks
 * it with tasks: the @modelcontextprotocol/client 2.x client rejects resultType "task".
 */
import type { z } from "zod";
import type { TaskSpecDescriptor } from "./descriptor.js";
import { TaskProtocolError } from "./errors.js";
import { isObject } from "./plan.js";

/** What the connection reads from a descriptor: the protocol version, `_meta` keys and header routing. */
export type StatelessClientDescriptor = Pick<TaskSpecDescriptor, "spec" | "behaviour" | "meta">;

/** The core `_meta` keys of a per-request lifecycle. */
export interface EnvelopeKeys {
  readonly protocolVersion: string;
  readonly clientInfo: string;
  readonly clientCapabilities: string;
}

const DEFAULT_CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities";

/** The core protocol version a descriptor's connection speaks ("" when the spec names none). */
export function protocolVersionOf(descriptor: StatelessClientDescriptor): string {
  return descriptor.spec.protocol.protocolVersion ?? "";
}

/** The `_meta` keys of the envelope: the client-capabilities key is the spec's own where it declares one. */
export function envelopeKeysOf(descriptor: StatelessClientDescriptor): EnvelopeKeys {
  const declared = descriptor.behaviour.creation.capabilityMeta;
  const key = declared === undefined ? undefined : descriptor.meta[declared];
  return {
    protocolVersion: "io.modelcontextprotocol/protocolVersion",
    clientInfo: "io.modelcontextprotocol/clientInfo",
    clientCapabilities: key ?? DEFAULT_CLIENT_CAPABILITIES_KEY,
  };
}

/** Methods whose Mcp-Name header repeats a params field: the core ones and the task methods the spec routes by header. */
export function nameSourcesOf(descriptor: StatelessClientDescriptor): Readonly<Record<string, string>> {
  const http = descriptor.behaviour.http;
  return {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    ...(http === false ? {} : Object.fromEntries(http.methods.map((m) => [m, "taskId"]))),
  };
}

/** An input request of an input_required result (elicitation/create, sampling/createMessage, roots/list). */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** Answers one input request; `key` identifies it in the answer. */
export type InputHandler = (request: InputRequest, key: string) => Promise<unknown>;

export interface StatelessClientOptions {
  /** The server's endpoint, e.g. http://127.0.0.1:3000/mcp. */
  url: string | URL;
  clientInfo?: { name: string; version: string };
  /** The capabilities declared on every request (default none); a request may add more in its own `_meta`. */
  capabilities?: Record<string, unknown>;
  /** Answers input requests of input_required results. Without it such a result rejects. */
  onInputRequest?: InputHandler;
  /** Extra HTTP headers on every request (e.g. Authorization). */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Most input_required rounds one request may take. Default 8. */
  maxInputRounds?: number;
}

export interface StatelessRequestOptions {
  /** Timeout (ms) of one HTTP exchange. Default 60 s. */
  timeout?: number;
  maxTotalTimeout?: number;
  signal?: AbortSignal;
  /** Extra headers of this request (replace defaults of the same name). */
  headers?: Record<string, string>;
}

/** Deep merge of capability objects (later wins on leaves). */
export function mergeCapabilities(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObject(v) && isObject(out[k]) ? mergeCapabilities(out[k] as Record<string, unknown>, v) : v;
  return out;
}

/** A header value as sent: plain when it is visible ASCII without surrounding blanks, else `=?base64?...?=`. */
export function encodeHeaderValue(value: string): string {
  return /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith("=?") ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/**
 * One JSON-RPC exchange per HTTP POST, no session. Results resolve; JSON-RPC
 * errors reject as TaskProtocolError with the HTTP status in `httpStatus`.
 */
export class StatelessHttpClient {
  readonly url: URL;
  /** The core protocol version sent on every request. */
  readonly protocolVersion: string;
  /** The `_meta` keys of the envelope. */
  readonly envelopeKeys: EnvelopeKeys;
  private readonly nameSources: Readonly<Record<string, string>>;
  private nextId = 1;
  private discovered: Promise<Record<string, unknown>> | undefined;

  constructor(
    descriptor: StatelessClientDescriptor,
    readonly options: StatelessClientOptions,
  ) {
    this.url = new URL(options.url);
    this.protocolVersion = protocolVersionOf(descriptor);
    this.envelopeKeys = envelopeKeysOf(descriptor);
    this.nameSources = nameSourcesOf(descriptor);
  }

  /**
   * Sends a request and validates its result with `resultSchema`; answers
   * input_required rounds with `onInputRequest` on the way.
   */
  async request<S extends z.ZodType>(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: S,
    options: StatelessRequestOptions = {},
  ): Promise<z.output<S>> {
    const base = request.params ?? {};
    let params: Record<string, unknown> = base;
    const rounds = this.options.maxInputRounds ?? 8;
    for (let round = 0; ; round++) {
      const result = await this.send(request.method, params, options);
      if (result.resultType !== "input_required") {
        const parsed = resultSchema.safeParse(result);
        if (!parsed.success) {
          throw new TaskProtocolError(
            "invalidResult",
            -32603,
            `Invalid result of ${request.method}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "result"}: ${i.message}`).join("; ")}`,
          );
        }
        return parsed.data;
      }
      if (round >= rounds) throw new TaskProtocolError("inputRounds", -32603, `${request.method}: more than ${rounds} input_required rounds`);
      const handler = this.options.onInputRequest;
      const asked = isObject(result.inputRequests) ? result.inputRequests : {};
      if (handler === undefined && Object.keys(asked).length > 0) {
        throw new TaskProtocolError("inputRequired", -32603, `${request.method} needs input (${Object.keys(asked).join(", ")}) and no onInputRequest handler is set`);
      }
      const inputResponses: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(asked)) inputResponses[key] = await handler!(value as InputRequest, key);
      params = { ...base, inputResponses, ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {}) };
    }
  }

  /** server/discover (memoised): supported versions, capabilities, serverInfo. */
  discover(): Promise<Record<string, unknown>> {
    this.discovered ??= this.send("server/discover", {}, {}).catch((e: unknown) => {
      this.discovered = undefined;
      throw e;
    });
    return this.discovered;
  }

  /** One HTTP exchange: the raw result object of the response matching the request. */
  async send(method: string, params: Record<string, unknown>, options: StatelessRequestOptions = {}): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const keys = this.envelopeKeys;
    const givenMeta = isObject(params._meta) ? params._meta : {};
    const givenCaps = givenMeta[keys.clientCapabilities];
    const meta: Record<string, unknown> = {
      [keys.protocolVersion]: this.protocolVersion,
      [keys.clientInfo]: this.options.clientInfo ?? { name: "mcp-task-gen-client", version: "0.0.0" },
      ...givenMeta,
      [keys.clientCapabilities]: mergeCapabilities(this.options.capabilities ?? {}, isObject(givenCaps) ? givenCaps : {}),
    };
    const body = { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } };
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": this.protocolVersion,
      "mcp-method": method,
    };
    const source = Object.prototype.hasOwnProperty.call(this.nameSources, method) ? this.nameSources[method] : undefined;
    if (source !== undefined && typeof params[source] === "string") headers["mcp-name"] = encodeHeaderValue(params[source] as string);
    for (const [k, v] of Object.entries({ ...(this.options.headers ?? {}), ...(options.headers ?? {}) })) headers[k.toLowerCase()] = v;
    const timeout = AbortSignal.timeout(options.timeout ?? 60_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const doFetch = this.options.fetch ?? fetch;
    const response = await doFetch(this.url, { method: "POST", headers, body: JSON.stringify(body), signal });
    const type = response.headers.get("content-type") ?? "";
    const message = type.includes("text/event-stream") ? await readEvent(response, id) : await readJson(response);
    if (!isObject(message)) throw new TaskProtocolError("transport", -32603, `HTTP ${response.status}: no JSON-RPC response to ${method}`, undefined, response.status);
    if (isObject(message.error)) {
      const e = message.error;
      throw new TaskProtocolError("remote", typeof e.code === "number" ? e.code : -32603, typeof e.message === "string" ? e.message : "error", e.data, response.status);
    }
    if (!isObject(message.result)) throw new TaskProtocolError("transport", -32603, `HTTP ${response.status}: expected a JSON-RPC result for ${method}`, undefined, response.status);
    return message.result;
  }
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads an SSE response until the message answering `id` (a request on the stream is a protocol violation). */
async function readEvent(response: Response, id: number): Promise<unknown> {
  if (response.body === null) return undefined;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return undefined;
      buffer += value.replace(/\r\n?/g, "\n");
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
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
        if (!isObject(message)) continue;
        if (typeof message.method === "string" && message.id !== undefined) {
          throw new TaskProtocolError("invalidRequest", -32600, `Server sent request '${message.method}' on a response stream; the stateless lifecycle forbids this`);
        }
        if (message.id === id && ("result" in message || "error" in message)) return message;
      }
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}
