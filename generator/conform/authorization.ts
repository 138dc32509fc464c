/**
 * The credentials checks of rule `authorization`, once per invocation over Streamable HTTP where the tester is given
 * an Authorization header: every task request of the spec (the task request of a tool call, each method that names
 * a task, the listing) sent without the credentials and with an invalid bearer token is refused with HTTP 401 and a
 * WWW-Authenticate header. A server that serves them all uses no authorization: nothing is checked then.
 */
import { checked, fail } from "./rule.js";
import { rules } from "./rules/index.js";
import { clientCapabilities, envelope } from "./session.js";
import { HttpWire } from "./wire.js";
import { addressing, count, mayAugment, validParams, type World } from "./world.js";

interface Probe {
  what: string;
  method: string;
  params: Record<string, unknown>;
}

/** One POST of `method` as the session sends it, with `authorization` in place of its own (undefined: none). */
async function postWith(w: World, wire: HttpWire, p: Probe, authorization: string | undefined, id: number): Promise<{ status: number; challenge: string | null }> {
  const e = envelope(w.model, p.method, p.params, clientCapabilities(w.model));
  const headers: Record<string, string> = { ...wire.baseHeaders(), ...e.headers };
  delete headers.authorization;
  if (authorization !== undefined) headers.authorization = authorization;
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), 5000);
  try {
    const res = await fetch(wire.url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method: p.method, params: e.params }), signal: ctl.signal });
    void res.body?.cancel().catch(() => undefined);
    return { status: res.status, challenge: res.headers.get("www-authenticate") };
  } catch {
    // No answer within 5 s: a request that was let in and waits (a blocking result); a refusal comes at once.
    return { status: 0, challenge: null };
  } finally {
    clearTimeout(timer);
    ctl.abort();
  }
}

export async function credentialChecks(w: World, skipped: string[]): Promise<void> {
  const wire = w.session.wire;
  if (!(wire instanceof HttpWire) || !("url" in w.target)) {
    skipped.push("authorization: over stdio no request carries credentials");
    return;
  }
  const given = Object.keys(w.target.headers ?? {}).some((k) => k.toLowerCase() === "authorization");
  if (!given) {
    skipped.push('authorization: the tester was given no credentials (--header "Authorization: Bearer <token>"), so none is refused');
    return;
  }
  const task = w.tasks.find((t) => !t.gone && !t.deleted);
  const probes: Probe[] = [];
  const recipe = w.outcomes.complete;
  if (recipe !== undefined && w.tools.has(recipe.name) && mayAugment(w.model, "tools/call")) {
    probes.push({ what: `a task request of tools/call ${recipe.name}`, method: "tools/call", params: w.session.taskParams({ name: recipe.name, arguments: recipe.arguments ?? {} }, undefined, 60_000) });
  }
  const id = task?.id ?? "conform-no-such-task";
  for (const m of addressing(w.model).filter((x) => w.offered(x.method))) probes.push({ what: `${m.method} of task ${id}`, method: m.method, params: validParams(w, m, id) });
  const list = w.model.op("list");
  if (list !== undefined && w.offered(list.method)) probes.push({ what: list.method, method: list.method, params: {} });
  if (!probes.length) return;
  const invalid = `Bearer conform-invalid-${Math.random().toString(36).slice(2, 12)}`;
  // The read first: where it is served both ways, the server uses no authorization and nothing else is sent.
  const first = probes.find((p) => p.method === w.model.op("get")?.method) ?? probes[0]!;
  const without = await postWith(w, wire, first, undefined, 900_001);
  const withInvalid = await postWith(w, wire, first, invalid, 900_002);
  const served = (s: number) => s >= 200 && s < 300;
  if (served(without.status) && served(withInvalid.status)) {
    skipped.push(`authorization: the server served ${first.what} without credentials and with an invalid bearer token: it uses no authorization`);
    return;
  }
  count(w, "once: task requests without credentials and with an invalid token");
  let n = 900_003;
  for (const p of probes) {
    for (const [how, authorization] of [["without credentials", undefined], ["with an invalid bearer token", invalid]] as const) {
      const r = p === first ? (authorization === undefined ? without : withInvalid) : await postWith(w, wire, p, authorization, n++);
      checked(rules.authorization);
      if (r.status === 0) fail(rules.authorization, `${p.what} ${how} got no answer within 5 s: it was let in (a refusal comes at once)`, 401, "no answer");
      if (served(r.status)) fail(rules.authorization, `${p.what} ${how} was served (HTTP ${r.status}), though the server refuses task requests without valid credentials: every task request is checked`, 401, r.status);
      if (r.status !== 401) fail(rules.authorization, `${p.what} ${how} was answered HTTP ${r.status}; a missing or invalid token is an authorization error of HTTP 401`, 401, r.status);
      if (r.challenge === null) fail(rules.authorization, `${p.what} ${how} was answered HTTP 401 without a WWW-Authenticate header`, "WWW-Authenticate", "none");
    }
  }
}
