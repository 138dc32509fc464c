/**
 * A task read through a fresh connection, once per invocation (rule `get`): on the per-request lifecycle over
 * Streamable HTTP, the get method of a task the tester made, sent on a new TCP connection that shares nothing with
 * the requests before it but the requestor's headers, answers that task: the server keeps a task by the id the
 * request names, not by the connection it was made on.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { Create } from "./commands/create.js";
import { observe } from "./follow.js";
import { checked, fail } from "./rule.js";
import { rules } from "./rules/index.js";
import { goneByRetention } from "./rules/retention.js";
import { clientCapabilities, envelope, taskIn } from "./session.js";
import type { JsonRpcError } from "./wire.js";
import { count, idParams, isLimitError, isObject, mayAugment, type World } from "./world.js";

/** One POST on a connection of its own (no keep-alive pool); the body as received. */
function postAlone(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  const send = url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: "POST", agent: false, headers: { ...headers, "content-length": Buffer.byteLength(body) }, timeout: timeoutMs }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** The JSON-RPC answer to request `id` in a JSON body or an SSE stream. */
function answerIn(text: string, id: number): Record<string, unknown> | undefined {
  const bodies = [text, ...text.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim())];
  for (const b of bodies) {
    try {
      const parsed: unknown = JSON.parse(b);
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) if (isObject(m) && m.id === id && m.method === undefined) return m;
    } catch {
      // not this one
    }
  }
  return undefined;
}

export async function freshConnectionRead(w: World, skipped: string[]): Promise<void> {
  const get = w.model.op("get");
  if (get === undefined || !w.model.perRequest) return;
  if (!("url" in w.target)) {
    skipped.push("a task read through a fresh connection: over stdio the connection is the server process, and a new one holds the task only where the store outlives the process, which the tester cannot know");
    return;
  }
  let t = w.tasks.find((x) => !x.gone && !x.deleted);
  if (t === undefined && w.outcomes.complete !== undefined && w.tools.has(w.outcomes.complete.name) && mayAugment(w.model, "tools/call")) t = (await new Create("complete").make(w))?.t;
  if (t === undefined) {
    skipped.push("a task read through a fresh connection: no task of the once-per-run session to read");
    return;
  }
  count(w, "once: a task read through a fresh connection");
  const e = envelope(w.model, get.method, idParams(w, t.id), clientCapabilities(w.model));
  const id = 1;
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", ...e.headers, ...Object.fromEntries(Object.entries(w.target.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])) };
  const sent = Date.now();
  let res: { status: number; text: string };
  try {
    res = await postAlone(w.target.url, headers, JSON.stringify({ jsonrpc: "2.0", id, method: get.method, params: e.params }), w.session.timing.requestMs);
  } catch (err) {
    fail(rules.transport, `${get.method} of task ${t.id} through a fresh connection: ${(err as Error).message}`);
  }
  const a = answerIn(res.text, id);
  checked(rules.get);
  if (a === undefined) fail(rules.transport, `${get.method} of task ${t.id} through a fresh connection: HTTP ${res.status} with no answer to the request`, undefined, res.text.slice(0, 300));
  if (isObject(a.error)) {
    if (typeof a.error.code === "number" && isLimitError(w.model, a.error.code)) return;
    // Past a short retention the server may have forgotten it: the tester learns nothing of the connection then.
    if (goneByRetention(w, t, a.error as unknown as JsonRpcError)) return;
    fail(rules.get, `${get.method} of task ${t.id} through a fresh connection was refused: a task is kept by the id each request names, not by the connection it was made on`, "the task", a.error);
  }
  const task = taskIn(w.model, a.result);
  if (task?.[w.model.idField] !== t.id) fail(rules.get, `${get.method} of task ${t.id} through a fresh connection answered ${task === undefined ? "no task" : `task ${String(task[w.model.idField])}`}`, t.id, a.result);
  observe(w, t, task, `${get.method} through a fresh connection`, sent);
}
