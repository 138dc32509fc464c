// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
/**
 * The client side of a per-request lifecycle: a connection for the TaskClient
 * (client.ts) that speaks stateless Streamable HTTP with fetch. Every request
 * is one POST carrying protocolVersion, clientInfo and the client capabilities
 * in `_meta`, and the headers MCP-Protocol-Version, Mcp-Method, Mcp-Name
 * (tools/call, prompts/get, resources/read), the spec's task id header (the task
 * methods it routes by header, repeating its task id field), and `Mcp-Param-*` for the arguments a listed
 * tool declares with `x-mcp-header` (a tool with an invalid declaration is left
 * out of tools/list and refused). An input_required answer (multi round-trip
 * request) is resolved with `onInputRequest` and the request retried with
 * inputResponses and the requestState. It exists because no SDK client speaks
 * it with tasks: the @modelcontextprotocol/client 2.x client rejects resultType "task".
 */
import type { z } from "zod";
import type { TaskSpecDescriptor } from "./descriptor.js";
import { TaskProtocolError } from "./errors.js";
import { stderrLine } from "./log.js";
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

/** The header a request is routed by, and the params field it repeats. */
export interface NameSource {
  /** The header name, lower-case. */
  readonly header: string;
  readonly field: string;
}

/**
 * The routing header of each method that has one: Mcp-Name repeating a params field for the core
 * requests, and for the task methods the spec routes by header, the spec's header repeating the
 * spec's task id field.
 */
export function nameSourcesOf(descriptor: StatelessClientDescriptor): Readonly<Record<string, NameSource>> {
  const http = descriptor.behaviour.http;
  const idField = descriptor.behaviour.taskIdField ?? "taskId";
  const core = (field: string): NameSource => ({ header: "mcp-name", field });
  return {
    "tools/call": core("name"),
    "prompts/get": core("name"),
    "resources/read": core("uri"),
    ...(http === false ? {} : Object.fromEntries(http.methods.map((m) => [m, { header: http.header.toLowerCase(), field: idField }]))),
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
  /**
   * Told of each tool a tools/list answer offered with invalid header declarations
   * (such a tool is left out of the answer). Default: a warning line on stderr.
   */
  onToolExcluded?: (tool: ExcludedTool) => void;
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

/** The JSON Schema keyword a tool's input schema marks a header-mirrored argument with. */
const PARAM_HEADER_KEY = "x-mcp-header";
/** The prefix of a header that mirrors a tool argument. */
const PARAM_HEADER_PREFIX = "mcp-param-";
/** An HTTP field name (RFC 9110 token): no space, control character, non-ASCII or delimiter. */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The argument types a header may mirror; `number` is excluded because its text form is not canonical. */
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);
/** Schema keywords whose subschemas are not reachable through `properties` alone: a mark under one is invalid. */
const UNREACHABLE = ["items", "prefixItems", "contains", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "propertyNames", "oneOf", "anyOf", "allOf", "not", "if", "then", "else"];
/** Keywords holding a map of subschemas. */
const UNREACHABLE_MAPS = ["patternProperties", "dependentSchemas", "$defs", "definitions"];

/** One argument a tool asks to be mirrored into an `Mcp-Param-{name}` header. */
export interface ParamHeader {
  /** The argument's path from `arguments` (properties may nest). */
  readonly path: readonly string[];
  /** The `{name}` part as declared. */
  readonly name: string;
  readonly type: string;
}

/** What a tool's input schema declares: its mirrored arguments, or why the tool is unusable. */
export type ParamHeaderScan = { ok: true; headers: readonly ParamHeader[] } | { ok: false; reason: string };

/**
 * Reads the header declarations of a tool's input schema. A declaration must be a
 * non-empty HTTP field name, unique regardless of case, on a string, integer or
 * boolean property reached from the root through `properties` alone; any other
 * declaration makes the whole tool invalid (the client must not offer it).
 */
export function scanParamHeaders(inputSchema: unknown): ParamHeaderScan {
  const headers: ParamHeader[] = [];
  const seen = new Map<string, string>();
  const where = (path: readonly string[]) => (path.length === 0 ? "the schema root" : `property '${path.join(".")}'`);
  const visit = (node: unknown, path: readonly string[], reachable: boolean): string | undefined => {
    if (!isObject(node)) return undefined;
    if (Object.prototype.hasOwnProperty.call(node, PARAM_HEADER_KEY)) {
      const name = node[PARAM_HEADER_KEY];
      if (!reachable || path.length === 0) return `${where(path)}: ${PARAM_HEADER_KEY} is allowed only on a property reached through 'properties' alone`;
      if (typeof name !== "string" || name.length === 0) return `${where(path)}: ${PARAM_HEADER_KEY} must be a non-empty string`;
      if (!FIELD_NAME.test(name)) return `${where(path)}: ${PARAM_HEADER_KEY} ${JSON.stringify(name)} is not an HTTP field name (no spaces, control or non-ASCII characters, delimiters)`;
      const type = typeof node.type === "string" ? node.type : undefined;
      if (type === undefined || !HEADER_TYPES.has(type)) return `${where(path)}: ${PARAM_HEADER_KEY} is allowed only on a string, integer or boolean property, not ${type ?? "an untyped one"}`;
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `${where(path)}: ${PARAM_HEADER_KEY} ${JSON.stringify(name)} repeats ${JSON.stringify(prior)} (names are case-insensitive)`;
      seen.set(name.toLowerCase(), name);
      headers.push({ path, name, type });
    }
    if (isObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault !== undefined) return fault;
      }
    }
    for (const k of [...UNREACHABLE, ...UNREACHABLE_MAPS]) {
      const sub = node[k];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : UNREACHABLE_MAPS.includes(k) && isObject(sub) ? Object.values(sub) : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${k}>`], false);
        if (fault !== undefined) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault === undefined ? { ok: true, headers } : { ok: false, reason: fault };
}

/**
 * The `Mcp-Param-*` headers of one tools/call (lower-case names): each declared
 * argument present and not null, as text (booleans `true`/`false`, integers in
 * decimal), base64-wrapped where it is not plain visible ASCII. An argument of the
 * wrong kind, or an integer beyond the exactly representable range, gets no header.
 */
export function paramHeadersOf(declared: readonly ParamHeader[], args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of declared) {
    let value: unknown = args;
    for (const key of h.path) value = isObject(value) ? value[key] : undefined;
    let text: string | undefined;
    if (typeof value === "string") text = value;
    else if (typeof value === "boolean") text = value ? "true" : "false";
    else if (typeof value === "number" && Number.isSafeInteger(value)) text = String(value);
    if (text !== undefined) out[PARAM_HEADER_PREFIX + h.name.toLowerCase()] = encodeHeaderValue(text);
  }
  return out;
}

/** A tool a tools/list answer offered whose header declarations are invalid. */
export interface ExcludedTool {
  name: string;
  reason: string;
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
  private readonly nameSources: Readonly<Record<string, NameSource>>;
  private nextId = 1;
  private discovered: Promise<Record<string, unknown>> | undefined;
  /** Per tool name: the arguments it mirrors into headers, or why it was excluded. */
  private readonly tools = new Map<string, readonly ParamHeader[] | ExcludedTool>();

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

  /**
   * Learns the header declarations of tools (as a tools/list answer lists them, which
   * does this itself) and returns the usable ones: a tool with an invalid declaration
   * is left out and reported to `onToolExcluded`. A tools/call of a tool never learnt
   * carries no `Mcp-Param-*` header.
   */
  registerTools(tools: readonly unknown[]): Array<Record<string, unknown>> {
    const usable: Array<Record<string, unknown>> = [];
    for (const tool of tools) {
      if (!isObject(tool)) continue;
      if (typeof tool.name !== "string") {
        usable.push(tool);
        continue;
      }
      const scan = scanParamHeaders(tool.inputSchema);
      if (scan.ok) {
        this.tools.set(tool.name, scan.headers);
        usable.push(tool);
        continue;
      }
      const excluded: ExcludedTool = { name: tool.name, reason: scan.reason };
      this.tools.set(tool.name, excluded);
      if (this.options.onToolExcluded) this.options.onToolExcluded(excluded);
      else stderrLine({ level: "warn", msg: "tool excluded: invalid header declaration", tool: excluded.name, reason: excluded.reason });
    }
    return usable;
  }

  /** One HTTP exchange: the raw result object of the response matching the request. */
  async send(method: string, params: Record<string, unknown>, options: StatelessRequestOptions = {}): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const keys = this.envelopeKeys;
    const givenMeta = isObject(params._meta) ? params._meta : {};
    const givenCaps = givenMeta[keys.clientCapabilities];
    const capabilities = mergeCapabilities(this.options.capabilities ?? {}, isObject(givenCaps) ? givenCaps : {});
    const meta: Record<string, unknown> = {
      [keys.protocolVersion]: this.protocolVersion,
      [keys.clientInfo]: this.options.clientInfo ?? { name: "mcp-task-gen-client", version: "0.0.0" },
      // The core's envelope always carries them; a spec that names its own entry gets them there too.
      [DEFAULT_CLIENT_CAPABILITIES_KEY]: capabilities,
      ...givenMeta,
      [keys.clientCapabilities]: capabilities,
    };
    const body = { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } };
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": this.protocolVersion,
      "mcp-method": method,
    };
    const source = Object.prototype.hasOwnProperty.call(this.nameSources, method) ? this.nameSources[method] : undefined;
    if (source !== undefined && typeof params[source.field] === "string") headers[source.header] = encodeHeaderValue(params[source.field] as string);
    const tool = method === "tools/call" && typeof params.name === "string" ? this.tools.get(params.name) : undefined;
    if (tool !== undefined && !Array.isArray(tool)) {
      const t = tool as ExcludedTool;
      throw new TaskProtocolError("invalidTool", -32602, `Tool '${t.name}' is not usable: its input schema has an invalid header declaration (${t.reason})`);
    }
    if (tool !== undefined) Object.assign(headers, paramHeadersOf(tool as readonly ParamHeader[], params.arguments));
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
    if (method === "tools/list" && Array.isArray(message.result.tools)) return { ...message.result, tools: this.registerTools(message.result.tools) };
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
