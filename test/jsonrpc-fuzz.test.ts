/**
 * A JSON-RPC fuzzer against the generated server of every built-in spec, over stdio (a child
 * process) and Streamable HTTP on 127.0.0.1, both started as `npm run demo` starts them. Raw
 * messages, not the SDK client: valid task calls and mutants of them (wrong types, missing and
 * extra fields, unknown and Object.prototype method names, huge strings, deep nesting, batches,
 * bad ids, text that is no JSON, truncated JSON, a byte order mark, NUL bytes). Each message must
 * get the JSON-RPC answer its kind calls for (error family and id, or a result where the mutant
 * is valid), over HTTP with a status that agrees with it, within a bounded wait; no request with
 * an id goes unanswered, and the server, still alive, answers a liveness request after each one.
 *
 * A fixed seed and a small count by default; JSONRPC_FUZZ_RUNS=<n> (and JSONRPC_FUZZ_SEED) for a
 * longer run. Waits are bounds that fail instead of hanging, never timed assertions.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const RUNS = Number(process.env.JSONRPC_FUZZ_RUNS ?? 100);
const SEED = Number(process.env.JSONRPC_FUZZ_SEED ?? 20261203);
/** How long one answer may take before the server counts as hung. */
const BOUND_MS = 15_000;
// Rates high enough that a fuzz run never meets a limit (that answer is tested elsewhere).
const OPTIONS = { pollFrequency: 50, limits: { pollPerMinute: 1e9, resultPerMinute: 1e9, listPerMinute: 1e9, createPerMinute: 1e9, maxConcurrentPerRequestor: 1e6 } };
const PV = "2026-07-28";
const PROTOTYPE_NAMES = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "isPrototypeOf", "__defineGetter__", "toLocaleString"];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Msg = Record<string, any>;

interface Answer {
  /** HTTP status (undefined over stdio). */
  status?: number;
  /** The JSON-RPC answers received for the message (over HTTP: the body's, SSE events included). */
  messages: Msg[];
}

interface Target {
  /** Sends raw text as one message; resolves with what came back for it (bounded). */
  send(text: string, expectAnswer: boolean, id: unknown): Promise<Answer>;
  alive(): boolean;
  close(): Promise<void>;
}

interface SpecFacts {
  spec: string;
  ext: boolean;
  /** The liveness request's method (ping; server/discover where the lifecycle is per request). */
  liveness: string;
  /** The task methods a requestor sends. */
  methods: string[];
  /** Request params every request carries (the per-request envelope). */
  meta: Record<string, Json>;
}

function factsOf(spec: string): SpecFacts {
  const ext = spec === "ext-tasks-2026-07-28";
  const methods = ext ? ["tasks/get", "tasks/update", "tasks/cancel"] : ["tasks/get", "tasks/result", "tasks/list", spec === "sep-1686-draft" ? "tasks/delete" : "tasks/cancel"];
  const meta: Record<string, Json> = ext
    ? {
        "io.modelcontextprotocol/protocolVersion": PV,
        "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "0" },
        "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
      }
    : {};
  return { spec, ext, liveness: ext ? "server/discover" : "ping", methods, meta };
}

function startDemo(spec: string, http: boolean): Promise<{ child: ChildProcess; url?: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "demo-server.ts"), spec, ...(http ? ["--http", "0"] : [])], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, MCP_TASK_GEN_DEMO_OPTIONS: JSON.stringify(OPTIONS) },
    });
    let stderr = "";
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (d: string) => {
      stderr += d;
      if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
      const url = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(stderr)?.[1];
      if (url !== undefined || (!http && stderr.includes('"msg":"serving on stdio"'))) resolve({ child, ...(url === undefined ? {} : { url }), stderr: () => stderr });
    });
    child.once("exit", (code) => reject(new Error(`demo server exited (${code}):\n${stderr}`)));
  });
}

const within = <T>(p: Promise<T>, what: string): Promise<T> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${BOUND_MS} ms: ${what}`)), BOUND_MS);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });

/** stdio: one JSON line out per message; answers are collected and matched by id (null for unreadable ids). */
async function stdioTarget(facts: SpecFacts): Promise<Target> {
  const { child } = await startDemo(facts.spec, false);
  const received: Msg[] = [];
  let buf = "";
  let wake: (() => void) | undefined;
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (d: string) => {
    buf += d;
    for (let nl = buf.indexOf("\n"); nl !== -1; nl = buf.indexOf("\n")) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      try {
        received.push(JSON.parse(line) as Msg);
      } catch {
        received.push({ notJson: line.slice(0, 200) });
      }
    }
    wake?.();
  });
  child.stdin!.on("error", () => undefined);
  const next = (pred: (m: Msg) => boolean): Promise<Msg> =>
    new Promise((resolve) => {
      const look = () => {
        const i = received.findIndex(pred);
        if (i === -1) return false;
        resolve(received.splice(i, 1)[0]!);
        return true;
      };
      if (look()) return;
      const prev = wake;
      wake = () => {
        prev?.();
        if (look()) wake = prev;
      };
    });
  let seq = 0;
  const target: Target = {
    async send(text, expectAnswer, id) {
      child.stdin!.write(text + "\n");
      // The liveness request after it: everything answered before it belongs to the message.
      const probe = `live-${++seq}`;
      child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id: probe, method: facts.liveness, params: { _meta: facts.meta } }) + "\n");
      const messages: Msg[] = [];
      if (expectAnswer) {
        const want = typeof id === "string" || typeof id === "number" ? id : null;
        messages.push(await within(next((m) => m.id === want && ("result" in m || "error" in m)), `answer to ${text.slice(0, 120)}`));
      }
      const live = await within(next((m) => m.id === probe), `liveness after ${text.slice(0, 120)}`);
      // Anything else that arrived before the liveness answer was sent for this message.
      messages.push(...received.splice(0, received.length).filter((m) => m.id !== probe));
      if (!("result" in live)) throw new Error(`liveness request failed after ${text.slice(0, 120)}: ${JSON.stringify(live)}`);
      return { messages };
    },
    alive: () => child.exitCode === null && child.signalCode === null,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
  if (!facts.ext) {
    child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "0" } } }) + "\n");
    await within(next((m) => m.id === "init"), "initialize");
    child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  }
  return target;
}

/** Header-safe text: printable ASCII of a size HTTP servers take (anything else is left out, as a client could not send it). */
const headerSafe = (v: unknown): string | undefined => (typeof v === "string" && v.length <= 4096 && /^[\x20-\x7e]*$/.test(v) ? v : undefined);

/** HTTP: one POST per message (in the session opened by initialize, or per request where there is none). */
async function httpTarget(facts: SpecFacts): Promise<Target> {
  const { child, url } = await startDemo(facts.spec, true);
  const base: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (facts.ext) base["mcp-protocol-version"] = PV;
  const post = async (text: string): Promise<Answer> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch {
      parsed = undefined;
    }
    const headers = { ...base };
    if (facts.ext && parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      const m = headerSafe((parsed as Msg).method);
      if (m !== undefined) headers["mcp-method"] = m;
      const p = (parsed as Msg).params;
      const name = p && typeof p === "object" ? headerSafe(p.taskId ?? p.name) : undefined;
      if (name !== undefined) headers["mcp-name"] = name;
    }
    const r = await fetch(url!, { method: "POST", headers, body: text, signal: AbortSignal.timeout(BOUND_MS) });
    const body = await r.text();
    const messages: Msg[] = [];
    if ((r.headers.get("content-type") ?? "").includes("text/event-stream")) {
      for (const line of body.split("\n")) if (line.startsWith("data: ")) messages.push(JSON.parse(line.slice(6)) as Msg);
    } else if (body.trim() !== "") messages.push(JSON.parse(body) as Msg);
    return { status: r.status, messages };
  };
  if (!facts.ext) {
    const r = await fetch(url!, {
      method: "POST",
      headers: base,
      body: JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "0" } } }),
    });
    base["mcp-session-id"] = r.headers.get("mcp-session-id")!;
    await r.text();
    await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  }
  let seq = 0;
  return {
    async send(text) {
      const answer = await within(post(text), `answer to ${text.slice(0, 120)}`);
      const live = await within(post(JSON.stringify({ jsonrpc: "2.0", id: `live-${++seq}`, method: facts.liveness, params: { _meta: facts.meta } })), "liveness");
      if (live.status !== 200 || !live.messages.some((m) => "result" in m)) throw new Error(`liveness request failed after ${text.slice(0, 120)}: ${JSON.stringify(live)}`);
      return answer;
    },
    alive: () => child.exitCode === null && child.signalCode === null,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

// ---------------------------------------------------------------------------
// Messages: valid task calls and their mutants
// ---------------------------------------------------------------------------

/** What a fuzz case sends and what kind of message it is, judged from its text alone. */
interface Case {
  text: string;
  label: string;
}

const anyJson: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>;
const badId: fc.Arbitrary<Json> = fc.oneof(fc.constant(null), fc.boolean(), fc.constant(1.5), fc.constant({}), fc.constant([1] as Json[]), fc.double({ noNaN: true, noDefaultInfinity: true }));
const hugeString = fc.integer({ min: 1, max: 3 }).map((mb) => "x".repeat(mb * 1024 * 1024));
const deep = fc.integer({ min: 1_000, max: 200_000 }).map((n) => ({ n }));

function validCalls(facts: SpecFacts, taskId: string): fc.Arbitrary<Msg> {
  const meta = facts.meta;
  const calls: Msg[] = [
    { method: facts.liveness, params: { _meta: meta } },
    { method: "tools/list", params: { _meta: meta } },
    { method: "tools/call", params: { name: "greet", arguments: { name: "fuzz" }, _meta: meta } },
    ...facts.methods.map((method) => ({
      method,
      params:
        method === "tasks/list"
          ? { _meta: meta }
          : method === "tasks/update"
            ? { taskId, inputResponses: {}, _meta: meta }
            : // A deletion would leave nothing to poll: it gets an id nobody has.
              { taskId: method === "tasks/delete" ? "fuzz-nobody" : taskId, _meta: meta },
    })),
  ];
  return fc.constantFrom(...calls).map((c) => structuredClone(c));
}

type Mutation = (m: Msg) => fc.Arbitrary<{ value: unknown; label: string }>;

const same = (label: string, value: unknown) => fc.constant({ value, label });

function mutations(facts: SpecFacts): Mutation[] {
  return [
    (m) => same("valid", m),
    (m) => fc.constantFrom("1.0", 2, null, undefined).map((v) => ({ value: { ...m, jsonrpc: v }, label: "jsonrpc" })),
    (m) => fc.oneof(fc.integer(), fc.constant(null), fc.constant({}), fc.constant(["x"])).map((v) => ({ value: { ...m, method: v }, label: "method type" })),
    (m) =>
      fc
        .oneof(fc.constantFrom(...PROTOTYPE_NAMES, "tasks/nope", "", "tasks/", "TASKS/GET", `${facts.methods[0]}\u0000`), fc.string({ maxLength: 30 }))
        .map((v) => ({ value: { ...m, method: v }, label: "unknown method" })),
    (m) => badId.map((v) => ({ value: { ...m, id: v }, label: "bad id" })),
    (m) => same("no id", (({ id: _, ...rest }) => rest)(m)),
    (m) => fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(anyJson, { maxLength: 3 })).map((v) => ({ value: { ...m, params: v }, label: "params type" })),
    (m) => same("no params", (({ params: _, ...rest }) => rest)(m)),
    (m) => fc.tuple(fc.string({ maxLength: 10 }), anyJson).map(([k, v]) => ({ value: { ...m, [k === "" ? "x" : k]: v }, label: "extra envelope key" })),
    (m) =>
      fc
        .tuple(fc.constantFrom("taskId", "cursor", "inputResponses", "name", "arguments", "task", "_meta", ...PROTOTYPE_NAMES), fc.oneof(anyJson, fc.constant(undefined)))
        .map(([k, v]) => ({ value: { ...m, params: { ...(m.params ?? {}), [k]: v } }, label: `params.${k}` })),
    (m) =>
      fc
        .constantFrom(5, "x", [], [{ action: "accept" }], { a: 5 }, { a: null }, { a: { method: "elicitation/create" } }, { a: { result: {} } }, { a: { action: "accept", content: {} } })
        .map((v) => ({ value: { ...m, params: { ...(m.params ?? {}), inputResponses: v } }, label: "inputResponses" })),
    (m) => hugeString.map((v) => ({ value: { ...m, params: { ...(m.params ?? {}), taskId: v } }, label: "huge taskId" })),
    (m) => deep.map(({ n }) => ({ value: `${JSON.stringify({ ...m, params: undefined }).slice(0, -1)},"params":{"x":${"[".repeat(n)}${"]".repeat(n)}}}`, label: `deep ${n}` })),
    (m) => fc.array(fc.constant(m), { maxLength: 3 }).map((v) => ({ value: v, label: "batch" })),
    (m) => fc.nat().map((cut) => { const t = JSON.stringify(m); return { value: t.slice(0, cut % t.length), label: "truncated" }; }),
    (m) => same("BOM", "\uFEFF" + JSON.stringify(m)),
    (m) => fc.nat().map((at) => { const t = JSON.stringify(m); const i = at % (t.length + 1); return { value: t.slice(0, i) + "\u0000" + t.slice(i), label: "NUL byte" }; }),
    () => fc.constantFrom("", "{", "}", "nope", "[", "{\"jsonrpc\":", "\u0000", "null", "1", "\"x\"", "true", "[]", "{}").map((v) => ({ value: v, label: "fragment" })),
    (m) => same("response shape", { jsonrpc: "2.0", id: m.id, result: { x: 1 } }),
  ];
}

function cases(facts: SpecFacts, taskId: string): fc.Arbitrary<Case> {
  let n = 0;
  const all = mutations(facts);
  return fc
    .tuple(validCalls(facts, taskId), fc.nat({ max: all.length - 1 }), fc.boolean())
    .chain(([call, which, numeric]) => {
      const id = numeric ? 100_000 + n++ : `fuzz-${n++}`;
      return all[which]!({ jsonrpc: "2.0", id, ...call }).map(({ value, label }) => ({
        text: typeof value === "string" ? value : JSON.stringify(value),
        label: `${label} (${call.method})`,
      }));
    });
}

// ---------------------------------------------------------------------------
// The oracle: what each message must get, judged from its text
// ---------------------------------------------------------------------------

interface Expectation {
  /** Whether a request with a readable id: an answer must come. */
  answer: boolean;
  id: string | number | null;
  /** The acceptable error codes ("result" where a result is acceptable). */
  allowed: Set<number | "result">;
  /** Whether no answer at all is acceptable (notifications, responses). */
  silenceOk: boolean;
}

/** Errors a valid request may meet for its content: bad params, a spec's declared errors, refused or unknown task. */
const CONTENT_ERRORS = [-32602, -32600, -32601, -32012, -32020, -32021, -32022];

function expectationOf(text: string, facts: SpecFacts): Expectation {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    // An empty line is no message on stdio (an empty HTTP body is no JSON: -32700).
    const empty = text.trim() === "";
    return { answer: !empty, id: null, allowed: new Set([-32700]), silenceOk: empty };
  }
  if (Array.isArray(raw) || raw === null || typeof raw !== "object") return { answer: true, id: null, allowed: new Set([-32600]), silenceOk: false };
  const m = raw as Msg;
  const readable = typeof m.id === "string" || typeof m.id === "number";
  const id = readable ? (m.id as string | number) : null;
  const hasId = "id" in m;
  const isResponse = !("method" in m) && ("result" in m || "error" in m);
  if (isResponse) return { answer: false, id, allowed: new Set([-32600]), silenceOk: true };
  const envelopeOk =
    m.jsonrpc === "2.0" && typeof m.method === "string" && (!hasId || typeof m.id === "string" || Number.isSafeInteger(m.id)) && (m.params === undefined || (typeof m.params === "object" && m.params !== null));
  if (!envelopeOk) return { answer: true, id, allowed: new Set([-32600, ...(Array.isArray(m.params) ? [-32602] : [])]), silenceOk: !hasId && m.jsonrpc === "2.0" && typeof m.method === "string" };
  // A notification is never answered (an invalid one may be, with -32600).
  if (!hasId) return { answer: false, id: null, allowed: new Set([-32600]), silenceOk: true };
  const known = [facts.liveness, "tools/list", "tools/call", ...facts.methods];
  if (!known.includes(m.method as string)) {
    // An extra envelope key is an invalid request before the method is looked at.
    return { answer: true, id, allowed: new Set([-32601, -32600, -32602, -32020]), silenceOk: false };
  }
  return { answer: true, id, allowed: new Set<number | "result">(["result", ...CONTENT_ERRORS]), silenceOk: false };
}

/** Whether an HTTP status agrees with the answer it carries. */
function statusAgrees(status: number, answer: Msg | undefined): boolean {
  if (status >= 500) return false;
  if (answer === undefined) return status === 202 || (status >= 400 && status < 500);
  if ("result" in answer) return status === 200;
  const code = answer.error?.code as number;
  if (code === -32700 || code === -32600) return status === 400 || status === 413;
  if (code === -32601) return status === 200 || status === 404;
  if (code === -32020 || code === -32021 || code === -32022) return status === 400;
  return status === 200 || status === 400;
}

function check(c: Case, facts: SpecFacts, got: Answer): string | undefined {
  const e = expectationOf(c.text, facts);
  const answers = got.messages.filter((m) => "result" in m || "error" in m);
  // A message that needs no answer may still get an error without an id; an answer to another id is not its.
  const mine = answers.find((m) => m.id === e.id) ?? (e.answer ? undefined : answers.find((m) => m.id === null));
  if (got.status !== undefined && !statusAgrees(got.status, mine)) return `HTTP ${got.status} with ${JSON.stringify(mine)}`;
  if (mine === undefined) return e.silenceOk ? undefined : `no answer (expected id ${JSON.stringify(e.id)})`;
  if (e.answer && mine.id !== e.id) return `answer id ${JSON.stringify(mine.id)}, expected ${JSON.stringify(e.id)}`;
  if ("result" in mine) return e.allowed.has("result") ? undefined : `a result, expected one of ${[...e.allowed].join(", ")}`;
  const code = mine.error?.code;
  if (code === -32603) return `-32603 for a client's message: ${mine.error.message}`;
  if (!e.allowed.has(code)) return `error ${code} (${mine.error?.message}), expected one of ${[...e.allowed].join(", ")}`;
  return undefined;
}

// ---------------------------------------------------------------------------
// The runs
// ---------------------------------------------------------------------------

/** A task of the requestor's, finished, for valid task calls to name. */
async function makeTask(target: Target, facts: SpecFacts): Promise<string> {
  const params: Msg = { name: "slow_compute", arguments: { seconds: 0 }, _meta: { ...facts.meta } };
  if (facts.spec === "sep-1686-draft") params._meta["modelcontextprotocol.io/task"] = { taskId: "fuzz-task" };
  if (facts.spec === "mcp-2025-11-25") params.task = {};
  const got = await target.send(JSON.stringify({ jsonrpc: "2.0", id: "make", method: "tools/call", params }), facts.spec !== "sep-1686-draft", "make");
  if (facts.spec === "sep-1686-draft") return "fuzz-task";
  const r = got.messages.find((m) => m.id === "make")?.result as Msg | undefined;
  const taskId = (r?.task?.taskId ?? r?.taskId) as string | undefined;
  if (typeof taskId !== "string") throw new Error(`no task made: ${JSON.stringify(got)}`);
  return taskId;
}

const SPECS = ["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"];

for (const spec of SPECS) {
  for (const transport of ["stdio", "http"] as const) {
    describe(`JSON-RPC fuzz: ${spec} over ${transport}`, () => {
      const facts = factsOf(spec);
      let target: Target;
      let taskId: string;
      beforeAll(async () => {
        target = transport === "stdio" ? await stdioTarget(facts) : await httpTarget(facts);
        taskId = await makeTask(target, facts);
      }, 60_000);
      afterAll(async () => {
        await target?.close();
      });

      it(`${RUNS} raw messages: the right error family or a result, always an answer to a request, never a crash or a hang`, async () => {
        const failures: string[] = [];
        const tally = new Map<string, number>();
        const outcomes = new Map<string, number>();
        await fc.assert(
          fc.asyncProperty(cases(facts, taskId), async (c) => {
            const e = expectationOf(c.text, facts);
            const got = await target.send(c.text, e.answer, e.id);
            const kind = c.label.split(" (")[0]!.replace(/ \d+$/, "");
            tally.set(kind, (tally.get(kind) ?? 0) + 1);
            const answer = got.messages.find((m) => "result" in m || "error" in m);
            const outcome = answer === undefined ? "no answer" : "result" in answer ? "result" : String(answer.error?.code);
            outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
            const wrong = check(c, facts, got);
            if (process.env.JSONRPC_FUZZ_TRACE) process.stdout.write(`${wrong === undefined ? "ok " : "BAD"} ${c.label}: ${c.text.slice(0, 160)} => ${got.status ?? ""} ${JSON.stringify(got.messages).slice(0, 300)}\n`);
            if (wrong !== undefined) failures.push(`${c.label}: ${wrong}\n    sent: ${c.text.slice(0, 300)}`);
            expect(target.alive()).toBe(true);
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        );
        if (process.env.JSONRPC_FUZZ_REPORT) {
          const list = (m: Map<string, number>) => [...m].sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${v}`).join(", ");
          process.stdout.write(`${spec} ${transport}: ${RUNS} messages, ${failures.length} wrong; answers: ${list(outcomes)}; mutations: ${list(tally)}\n`);
        }
        expect(failures.slice(0, 10)).toEqual([]);
        expect(target.alive()).toBe(true);
      }, 600_000);

      it("an oversized message gets an error and the server goes on serving", async () => {
        const big = JSON.stringify({ jsonrpc: "2.0", id: "big", method: facts.methods[0], params: { taskId: "y".repeat(11 * 1024 * 1024), _meta: facts.meta } });
        const got = await target.send(big, true, null);
        const error = got.messages.find((m) => "error" in m);
        expect(error?.error.code).toBe(-32600);
        if (got.status !== undefined) expect(got.status).toBe(413);
        expect(target.alive()).toBe(true);
      }, 60_000);
    });
  }
}
