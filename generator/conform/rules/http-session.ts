/**
 * Rule `http-session`: Streamable HTTP's sessions and streams (the transport section of MCP 2025-11-25), checked
 * once per invocation on a session of its own, and on every session's streams as they come.
 */
import type { SpecModel } from "../model.js";
import type { ConformReport } from "../report.js";
import { checked, defineRule, fail } from "../rule.js";
import { CLIENT_INFO, clientCapabilities } from "../session.js";
import { HttpWire } from "../wire.js";
import type { World } from "../world.js";

export const httpSession = defineRule({
  name: "http-session",
  description:
    "Streamable HTTP, initialize lifecycle, once per invocation on a session of its own: a session id given at initialize is visible ASCII; " +
    "the initialized notification is accepted with HTTP 202; a GET to the endpoint is answered with an SSE stream or 405; " +
    "a request with an unsupported MCP-Protocol-Version gets 400; where the server gave a session id, a request without it gets 400 " +
    "(a SHOULD for servers that require one) or is served (a server that does not), one with a session id the server never gave gets 404 " +
    "(the client cannot tell it from one the server ended), and a DELETE of the session gets 405 or ends it (a request with its id then gets 404). " +
    "An initialize from a foreign Origin (https://dns-rebinding.invalid, which no server can be meant for) gets 403 (DNS rebinding protection); " +
    "the requests without an Origin are served. " +
    "On every session: the standalone GET stream carries no response, the ids of SSE events are unique across the session's streams, " +
    "and no server message (a request by its id, a progress or task status notification by its content, a notification naming a task by its content at the same instant) comes on two streams (no broadcast). " +
    "Resumption (Last-Event-ID) is a MAY of the server, and its MUSTs bind only a server that resumes: conform does not resume a stream.",
  statements: [
    "mcp-2025-11-25/get.transport-server",
    "mcp-2025-11-25/input.transport-server",
    "mcp-2025-11-25/result.transport-server",
  ],
  reads: [],
});

type Check = ConformReport["checks"][number];

/** An Origin no server can be meant for (.invalid never resolves): a page that reached the server by DNS rebinding. */
export const FOREIGN_ORIGIN = "https://dns-rebinding.invalid";

/** A session id the server cannot have given (the shape of a UUID, which most servers give). */
const FORGED = "00000000-0000-4000-8000-00000000c0f0";

interface Exchange {
  status: number;
  contentType: string;
  session: string | null;
  text: string;
}

/** One HTTP exchange; a GET's body (a stream that may never end) is not read. */
async function exchange(url: string, method: string, headers: Record<string, string>, body: unknown, timeoutMs: number): Promise<Exchange> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    const res = await fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: ctl.signal });
    const contentType = res.headers.get("content-type") ?? "";
    const session = res.headers.get("mcp-session-id");
    // A stream is read to its first event (the answer of a POST comes there, or the stream stays open).
    let text = "";
    if (method !== "GET" && res.body !== null) {
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (contentType.includes("text/event-stream") && /"(result|error)"/.test(text) && text.includes("\n\n")) break;
      }
      void reader.cancel().catch(() => undefined);
    } else void res.body?.cancel().catch(() => undefined);
    return { status: res.status, contentType, session, text };
  } finally {
    clearTimeout(timer);
    ctl.abort();
  }
}

/** The result of an answer, JSON or the data of an SSE event. */
function resultOf(text: string): Record<string, unknown> | undefined {
  const bodies = [text, ...text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim())];
  for (const b of bodies) {
    try {
      const m = JSON.parse(b) as { result?: Record<string, unknown> };
      if (m && typeof m === "object" && m.result) return m.result;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/**
 * The session checks, on a session of their own (initialize lifecycle only: a per-request lifecycle has no
 * session). Undefined where the session could not be opened (the runs say why).
 */
export async function sessionChecks(target: { url: string; headers?: Record<string, string> }, model: SpecModel, timeoutMs: number): Promise<Check[]> {
  if (model.perRequest) return [];
  const out: Check[] = [];
  try {
    await sessionChecksInto(out, target, model, timeoutMs);
  } catch {
    // The server went away or did not answer in time: the runs say so; what was seen stands.
  }
  return out;
}

async function sessionChecksInto(out: Check[], target: { url: string; headers?: Record<string, string> }, model: SpecModel, timeoutMs: number): Promise<Check[]> {
  const push = (ok: boolean, message: string) => out.push({ rule: httpSession.name, ok, message });
  const given = Object.fromEntries(Object.entries(target.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const base = { "content-type": "application/json", accept: "application/json, text/event-stream", ...given };
  const asked = model.ir.spec.protocol.protocolVersion ?? "2025-06-18";
  const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id, method, params });
  const init = await exchange(target.url, "POST", base, rpc(1, "initialize", { protocolVersion: asked, capabilities: clientCapabilities(model), clientInfo: CLIENT_INFO }), timeoutMs);
  const hello = resultOf(init.text);
  if (init.status !== 200 || hello === undefined) return [];
  const foreign = await exchange(target.url, "POST", { ...base, origin: FOREIGN_ORIGIN }, rpc(6, "initialize", { protocolVersion: asked, capabilities: clientCapabilities(model), clientInfo: CLIENT_INFO }), timeoutMs);
  push(foreign.status === 403, `an initialize with Origin ${FOREIGN_ORIGIN} (a foreign origin, as a DNS rebinding page sends) was answered HTTP ${foreign.status} (403: the server validates the Origin)`);
  const sid = init.session;
  const version = typeof hello.protocolVersion === "string" ? hello.protocolVersion : asked;
  if (sid !== null) push(/^[\x21-\x7e]+$/.test(sid), `the session id given at initialize is ${/^[\x21-\x7e]+$/.test(sid) ? "" : "not "}visible ASCII (0x21 to 0x7E): ${JSON.stringify(sid.slice(0, 80))}`);
  const inSession = { ...base, "mcp-protocol-version": version, ...(sid === null ? {} : { "mcp-session-id": sid }) };
  const n = await exchange(target.url, "POST", inSession, { jsonrpc: "2.0", method: "notifications/initialized" }, timeoutMs);
  push(n.status === 202, `the initialized notification was answered HTTP ${n.status} (a notification accepted gets 202)`);
  const getHeaders: Record<string, string> = { ...inSession, accept: "text/event-stream" };
  delete getHeaders["content-type"];
  const g = await exchange(target.url, "GET", getHeaders, undefined, timeoutMs);
  const sse = g.status === 200 && g.contentType.toLowerCase().includes("text/event-stream");
  push(sse || g.status === 405, `a GET to the endpoint was answered HTTP ${g.status} with Content-Type ${JSON.stringify(g.contentType)} (an SSE stream, or 405 where the server offers none)`);
  const v = await exchange(target.url, "POST", { ...inSession, "mcp-protocol-version": "1999-01-01" }, rpc(2, "ping"), timeoutMs);
  push(v.status === 400, `a request with MCP-Protocol-Version 1999-01-01 (unsupported) was answered HTTP ${v.status} (400)`);
  if (sid === null) return out;
  const without: Record<string, string> = { ...inSession };
  delete without["mcp-session-id"];
  const w = await exchange(target.url, "POST", without, rpc(3, "ping"), timeoutMs);
  push(w.status === 400 || (w.status >= 200 && w.status < 300), `a request without the Mcp-Session-Id the server gave was answered HTTP ${w.status} (400 where the server requires it, or served where it does not)`);
  const f = await exchange(target.url, "POST", { ...inSession, "mcp-session-id": sid === FORGED ? `${FORGED}0` : FORGED }, rpc(4, "ping"), timeoutMs);
  push(f.status === 404, `a request with a session id the server never gave was answered HTTP ${f.status} (404: no such session)`);
  const d = await exchange(target.url, "DELETE", inSession, undefined, timeoutMs);
  if (d.status === 405) {
    push(true, "a DELETE of the session was answered 405 (the server does not let clients end sessions)");
    return out;
  }
  push(d.status >= 200 && d.status < 300, `a DELETE of the session was answered HTTP ${d.status} (it ends the session, or 405)`);
  const after = await exchange(target.url, "POST", inSession, rpc(5, "ping"), timeoutMs);
  push(after.status === 404, `a request of a session ended by DELETE was answered HTTP ${after.status} (404)`);
  return out;
}

/** What the session's streams carried since the last look: no response on the standalone stream, no event id twice. */
export function checkStreams(w: World): void {
  const wire = w.session.wire;
  if (!(wire instanceof HttpWire) || wire.sseEvents === 0) return;
  checked(httpSession);
  const flaw = wire.streamFlaws.shift();
  if (flaw !== undefined) fail(httpSession, flaw);
}
