/**
 * What conform learns once per invocation before its runs: the transport's own rules over Streamable HTTP, the
 * tools the server offers and the other requests it lets become tasks.
 */
import type { SpecModel } from "./model.js";
import { CannotTestError, type ConformReport } from "./report.js";
import { CLIENT_INFO, clientCapabilities, envelope, Session, type Target, type Timing, valueAt } from "./session.js";
import { HttpWire } from "./wire.js";
import { type Augmentable, isObject, mayAugment } from "./world.js";

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------

/** Checks of the server's transport that need no model (Streamable HTTP's own rules). */
export async function transportChecks(target: Target, model: SpecModel, timing: Timing): Promise<ConformReport["checks"] | CannotTestError> {
  if (!("url" in target)) return [];
  const out: ConformReport["checks"] = [];
  const wire = new HttpWire(target.url);
  // A request the server would serve, so that only the rule under test differs.
  const method = model.perRequest ? "server/discover" : "initialize";
  const e = envelope(model, method, model.perRequest ? {} : { protocolVersion: model.ir.spec.protocol.protocolVersion ?? "2025-06-18", capabilities: {}, clientInfo: CLIENT_INFO }, clientCapabilities(model));
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: e.params });
  const base = { "content-type": "application/json", ...e.headers, ...(target.headers ?? {}) };
  try {
    const r = await wire.post(body, { ...base, accept: "application/json" }, timing.requestMs);
    out.push({ rule: "http-accept", ok: r.status === 406, message: `a POST whose Accept lacks text/event-stream got HTTP ${r.status} (expected 406)` });
    const big = await wire.post(body, { ...base, accept: "application/json, text/event-stream", "x-conform-padding": "x".repeat(20_000) }, timing.requestMs);
    let jsonBody = false;
    try {
      jsonBody = isObject(JSON.parse(big.text));
    } catch {
      jsonBody = false;
    }
    out.push({
      rule: "http-header-limit",
      ok: big.status < 400 || jsonBody,
      message: big.status < 400 ? `20 kB of headers accepted (HTTP ${big.status})` : `20 kB of headers refused with HTTP ${big.status} and ${jsonBody ? "a JSON-RPC error body" : "no JSON-RPC body"}`,
    });
  } catch (e) {
    const why = (e as Error).name === "AbortError" ? `no answer within ${timing.requestMs / 1000} s` : (e as Error).message;
    return new CannotTestError("unreachable", `the server could not be reached at ${target.url}: ${why}`);
  }
  return out;
}

/**
 * Whether the server declares `method` as one it makes tasks of, where the spec gates that on a capability
 * (`augments`); a server that does not must serve a task request of it plainly.
 */
export function augmentDeclared(model: SpecModel, serverCapabilities: Record<string, unknown> | undefined, method: string): boolean {
  const caps = model.ir.behaviour.capabilities.server;
  const augments = caps === false ? undefined : caps.augments;
  if (augments === undefined || caps === false || serverCapabilities === undefined) return true;
  const path = Object.prototype.hasOwnProperty.call(augments, method) ? augments[method] : undefined;
  return path === undefined || valueAt(serverCapabilities, [...caps.path, ...path]) !== undefined;
}

/**
 * resources/read and prompts/get as tasks, where the spec allows it and the server offers a resource or a
 * prompt (the first it lists; a prompt's required arguments filled); where the server does not declare the
 * request among its task requests, it must serve it plainly.
 */
export async function otherAugmentable(session: Session, model: SpecModel): Promise<Augmentable[]> {
  const out: Augmentable[] = [];
  if (mayAugment(model, "resources/read") && isObject(session.serverCapabilities) && session.serverCapabilities.resources !== undefined) {
    const a = await session.request("resources/list", {});
    const r = (Array.isArray(a.result?.resources) ? a.result.resources : []).find((x: unknown) => isObject(x) && typeof x.uri === "string");
    if (r) out.push({ method: "resources/read", params: { uri: r.uri } });
  }
  if (mayAugment(model, "prompts/get") && isObject(session.serverCapabilities) && session.serverCapabilities.prompts !== undefined) {
    const a = await session.request("prompts/list", {});
    const p = (Array.isArray(a.result?.prompts) ? a.result.prompts : []).find((x: unknown) => isObject(x) && typeof x.name === "string");
    if (p) {
      const args = Array.isArray(p.arguments) ? p.arguments.filter((x: unknown) => isObject(x) && x.required === true && typeof x.name === "string") : [];
      out.push({ method: "prompts/get", params: { name: p.name, arguments: Object.fromEntries(args.map((x: { name: string }) => [x.name, "conform"])) } });
    }
  }
  return out;
}

/** The tools the server offers; undefined where it did not answer (it could not be tested). */
export async function listTools(session: Session, seen?: (result: Record<string, unknown>) => void): Promise<Map<string, Record<string, unknown>> | undefined> {
  const a = await session.request("tools/list", {});
  if (a.result) seen?.(a.result);
  if (a.timedOut || (a.broken !== undefined && session.wire.closedReason !== undefined)) return undefined;
  const tools = new Map<string, Record<string, unknown>>();
  for (const t of Array.isArray(a.result?.tools) ? a.result.tools : []) if (isObject(t) && typeof t.name === "string") tools.set(t.name, t);
  return tools;
}
