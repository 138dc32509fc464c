/**
 * Mutations of spec documents, drawn by fast-check: the spec fuzzer (test/spec-fuzz.test.ts) feeds them to the
 * compiler, and the conformance test (test/conform.test.ts) runs the demo of every valid one through `conform`.
 */
import { stringify as toYaml } from "yaml";
import { templateTopLevelNames } from "../../generator/emit-names.js";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Doc = { [k: string]: Json };
type Seg = string | number;

// ---------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------

/** Every node of a document with its path (mapping values and list items), without recursion. */
export function nodes(doc: Json): { path: Seg[]; value: Json }[] {
  const out: { path: Seg[]; value: Json }[] = [];
  const stack: { path: Seg[]; value: Json }[] = [{ path: [], value: doc }];
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n);
    const v = n.value;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push({ path: [...n.path, i], value: x }));
    else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) stack.push({ path: [...n.path, k], value: x });
  }
  return out.reverse();
}

function parentOf(doc: Json, path: Seg[]): { parent: Record<Seg, Json>; last: Seg } {
  let p = doc as Record<Seg, Json>;
  for (const s of path.slice(0, -1)) p = p[s] as Record<Seg, Json>;
  return { parent: p, last: path[path.length - 1]! };
}

function setAt(doc: Json, path: Seg[], value: Json): void {
  if (path.length === 0) return;
  const { parent, last } = parentOf(doc, path);
  parent[last] = value;
}

/** Rename a mapping key in place, keeping the order of the mapping. */
function renameKey(obj: Record<string, Json>, from: string, to: string): void {
  const entries = Object.entries(obj).map(([k, v]): [string, Json] => [k === from ? to : k, v]);
  for (const k of Object.keys(obj)) delete obj[k];
  for (const [k, v] of entries) Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Replace every reference to a type name (plain, ref, shorthand with [] and ?) by another. */
function renameType(doc: Doc, from: string, to: string): void {
  const re = new RegExp(`^${from}((?:\\[\\])*\\??)$`);
  for (const n of nodes(doc)) if (typeof n.value === "string" && re.test(n.value)) setAt(doc, n.path, n.value.replace(re, `${to}$1`));
  const types = doc.types as Record<string, Json> | undefined;
  if (types && from in types) renameKey(types, from, to);
  if (doc.statusType === from) doc.statusType = to;
}

const ODD_STRINGS = [
  "",
  " ",
  "constructor",
  "__proto__",
  "toString",
  "prototype",
  "hasOwnProperty",
  "0",
  "1e400",
  "-",
  "{x}",
  "${x}",
  "Task",
  "TaskStatus",
  "completed",
  "tasks/get",
  "\u0000",
  "😀 ünïcödé",
  "a".repeat(5_000),
  "line\nbreak",
  "*/",
];
const SWAP_VALUES: Json[] = [null, [], {}, 0, -1, 1.5, 1e300, true, false, "x", "Task", "completed", "string[]", "{x}", [1, "a"], { type: "string" }];

/** Names the generated code declares, plus names derived from a spec's own: a renamed type may take one. */
function generatedNames(doc: Doc): string[] {
  const fixed = [...templateTopLevelNames().values()].flatMap((n) => [...n.exported, ...n.bindings]).filter((n) => /^[A-Z][A-Za-z0-9_]*$/.test(n));
  const types = Object.keys((doc.types as Record<string, Json>) ?? {});
  const methods = Object.values((doc.methods as Record<string, { name?: string }>) ?? {}).flatMap((m) => (m?.name ? [`${m.name}Request`, `${m.name}Params`, `${m.name}Result`] : []));
  return [
    ...new Set([
      ...fixed,
      "Record",
      "Array",
      "Status",
      "Terminal",
      "ResultObject",
      "PATTERN_1",
      "EmptyParams",
      "Readonly",
      String(doc.statusType ?? "TaskStatus"),
      ...types.map((t) => `${t}Schema`),
      ...methods,
      ...methods.map((m) => `${m}Schema`),
    ]),
  ];
}

export type Mutation = (doc: Doc, r: Rand) => string;

/** Choices drawn by fast-check, consumed in order. */
export class Rand {
  private i = 0;
  constructor(private readonly xs: readonly number[]) {}
  /** An integer in [0, n). */
  int(n: number): number {
    const x = this.xs[this.i++ % this.xs.length]!;
    return n <= 0 ? 0 : Math.floor(x * n) % n;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
}

const containers = (doc: Doc) => nodes(doc).filter((n) => n.value !== null && typeof n.value === "object");
const maps = (doc: Doc) => nodes(doc).filter((n) => n.value !== null && typeof n.value === "object" && !Array.isArray(n.value) && Object.keys(n.value).length > 0);
const strings = (doc: Doc) => nodes(doc).filter((n) => typeof n.value === "string");
const NAME_MAPS = ["types", "states", "methods", "errors", "meta", "guards"];

export const MUTATIONS: Record<string, Mutation> = {
  deleteKey(doc, r) {
    const m = r.pick(maps(doc));
    const k = r.pick(Object.keys(m.value as object));
    delete (m.value as Record<string, Json>)[k];
    return `delete ${[...m.path, k].join(".")}`;
  },
  swapType(doc, r) {
    const n = r.pick(nodes(doc).filter((x) => x.path.length > 0));
    const v = r.pick(SWAP_VALUES);
    setAt(doc, n.path, structuredClone(v));
    return `${n.path.join(".")} = ${JSON.stringify(v)}`;
  },
  copySubtree(doc, r) {
    const all = nodes(doc).filter((x) => x.path.length > 0);
    const from = r.pick(all);
    const to = r.pick(all);
    if (to.path.slice(0, from.path.length).join("\0") === from.path.join("\0")) return "copy (no-op)";
    setAt(doc, to.path, structuredClone(from.value));
    return `${to.path.join(".")} = copy of ${from.path.join(".")}`;
  },
  duplicateName(doc, r) {
    // A name declared twice in one mapping (written into the text: data cannot hold it).
    const section = r.pick(NAME_MAPS.filter((s) => doc[s] && Object.keys(doc[s] as object).length >= 2));
    if (!section) return "duplicate (no-op)";
    const keys = Object.keys(doc[section] as object);
    const a = r.pick(keys);
    const b = r.pick(keys.filter((k) => k !== a));
    renameKey(doc[section] as Record<string, Json>, b, `DUPLICATE_OF_${a}`);
    return `duplicate ${section}.${a}`;
  },
  deepNesting(doc, r) {
    const depth = r.pick([10, 33, 50, 70, 1_000]);
    const kind = r.pick(["list", "shorthand", "arrayType", "objectType"]);
    const name = `Deep${depth}`;
    const types = (doc.types ??= {}) as Record<string, Json>;
    if (kind === "list") {
      const n = r.pick(nodes(doc).filter((x) => x.path.length > 0));
      let v: Json = "x";
      for (let i = 0; i < depth; i++) v = [v];
      setAt(doc, n.path, v);
      return `${n.path.join(".")} = ${depth} nested lists`;
    }
    if (kind === "shorthand") types[name] = `string${"[]".repeat(depth)}`;
    else {
      let t: Json = "integer";
      for (let i = 0; i < Math.min(depth, 200); i++) t = kind === "arrayType" ? { type: "array", items: t } : { type: "object", fields: { f: t } };
      types[name] = t;
    }
    return `type ${name}: ${kind} nested ${depth}`;
  },
  hugeList(doc, r) {
    const n = r.pick([17, 65, 300, 3_000]);
    const kind = r.pick(["enum", "union", "strictObject", "states"]);
    const types = (doc.types ??= {}) as Record<string, Json>;
    const values = Array.from({ length: n }, (_, i) => `v${i}`);
    if (kind === "enum") types.Huge = { type: "enum", values };
    else if (kind === "union") types.Huge = { type: "union", variants: values.map((v) => ({ type: "literal", value: v })) };
    else if (kind === "strictObject") types.Huge = { type: "object", strict: true, fields: Object.fromEntries(values.map((v) => [v, r.pick(["string?", "integer", "unknown", "Huge2?"])])) };
    else {
      // An enum field of the task: the status type's enum stays, a big one is added to a field.
      const task = (types.Task as { fields?: Record<string, Json> } | undefined)?.fields;
      if (task) task.huge = { type: "enum", values, optional: true };
    }
    if (kind === "strictObject") types.Huge2 = "string";
    return `${kind} of ${n}`;
  },
  generatedName(doc, r) {
    const to = r.pick(generatedNames(doc));
    const types = Object.keys((doc.types as object) ?? {});
    const target = r.int(4);
    if (target === 0) {
      doc.statusType = to;
      return `statusType = ${to}`;
    }
    if (target === 1) {
      ((doc.types ??= {}) as Record<string, Json>)[to] = r.pick(["string", { type: "object", fields: { a: "integer" } }]);
      return `add type ${to}`;
    }
    const from = r.pick(types);
    if (!from) return "rename (no-op)";
    renameType(doc, from, to);
    return `rename type ${from} → ${to}`;
  },
  oddString(doc, r) {
    const odd = r.pick(ODD_STRINGS);
    if (r.int(2) === 0) {
      const n = r.pick(strings(doc));
      if (!n) return "odd (no-op)";
      setAt(doc, n.path, odd);
      return `${n.path.join(".")} = ${JSON.stringify(odd.slice(0, 20))}`;
    }
    const m = r.pick(maps(doc));
    const k = r.pick(Object.keys(m.value as object));
    renameKey(m.value as Record<string, Json>, k, odd);
    return `key ${[...m.path, k].join(".")} → ${JSON.stringify(odd.slice(0, 20))}`;
  },
  selfReference(doc, r) {
    const types = Object.keys((doc.types as object) ?? {});
    const t = r.pick(types);
    if (!t) return "self (no-op)";
    const other = r.pick(types);
    const shape = r.pick([
      { type: "union", variants: [t, "string"] },
      { type: "union", variants: [other, "null"] },
      { type: "ref", ref: other },
      other,
      `${t}[]`,
      { type: "record", values: t },
    ]);
    (doc.types as Record<string, Json>)[t] = shape as Json;
    return `type ${t} = ${JSON.stringify(shape)}`;
  },
};
export const KINDS = Object.keys(MUTATIONS);

/** The mutants that once broke the compiler, always run first. */
export const KNOWN: [string, string, (doc: Doc) => void][] = [
  ["mcp-2025-11-25", "error context key 'constructor'", (d) => {
    const e = Object.values(d.errors as Record<string, { context?: Record<string, Json>; message: string }>)[0]!;
    e.context = { ...(e.context ?? {}), constructor: "string" };
    e.message += " {constructor}";
  }],
  ["ext-tasks-2026-07-28", "terminal state with role unknown", (d) => void (((d.states as Record<string, { role: string }>).failed!.role = "unknown"))],
  ["mcp-2025-11-25", "capabilities.client: false", (d) => void (((d.behaviour as { capabilities: Record<string, Json> }).capabilities.client = false))],
  ["ext-tasks-2026-07-28", "capabilities.client: false", (d) => void (((d.behaviour as { capabilities: Record<string, Json> }).capabilities.client = false))],
  ["mcp-2025-11-25", "type TaskRuntime", (d) => void ((d.types as Doc).TaskRuntime = "string")],
  ["mcp-2025-11-25", "type Record", (d) => void ((d.types as Doc).Record = "string")],
  ["mcp-2025-11-25", "type BEHAVIOUR", (d) => void ((d.types as Doc).BEHAVIOUR = "string")],
  ["mcp-2025-11-25", "type DESCRIPTOR", (d) => void ((d.types as Doc).DESCRIPTOR = "string")],
  ["mcp-2025-11-25", "type GetTaskRequestSchema", (d) => void ((d.types as Doc).GetTaskRequestSchema = "string")],
  ["sep-1686-draft", "statusType STATES", (d) => void (d.statusType = "STATES")],
  ["sep-1686-draft", "type Status (guard isStatus)", (d) => void ((d.types as Doc).Status = "string")],
  ["mcp-2025-11-25", "a union that contains itself", (d) => void ((d.types as Doc).Loop = { type: "union", variants: ["Loop", "string"] })],
  ["mcp-2025-11-25", "string[] nested 50 deep", (d) => void ((d.types as Doc).Deep = `string${"[]".repeat(50)}`)],
  ["mcp-2025-11-25", "a required field added to the get params", (d) => {
    ((d.types as { GetTaskRequestParams: { fields: Doc } }).GetTaskRequestParams.fields.extra = "string");
  }],
  ["ext-tasks-2026-07-28", "a typed error context", (d) => {
    (d.errors as { rateLimited: { context: Doc } }).rateLimited.context.operation = { type: "object", fields: { a: "Task" } };
  }],
  ["mcp-2025-11-25", "a 3,000-value enum", (d) => void ((d.types as Doc).Big = { type: "enum", values: Array.from({ length: 3_000 }, (_, i) => `v${i}`) })],
  ["ext-tasks-2026-07-28", "a strict object of 3,000 fields", (d) => {
    (d.types as Doc).Wide = { type: "object", strict: true, fields: Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`f${i}`, "string?"])) };
  }],
  ["sep-1686-draft", "a union of 3,000 variants", (d) => {
    (d.types as Doc).Many = { type: "union", variants: Array.from({ length: 3_000 }, (_, i) => ({ type: "literal", value: i })) };
  }],
  ["mcp-2025-11-25", "1,000 nested lists", (d) => {
    let v: Json = 1;
    for (let i = 0; i < 1_000; i++) v = [v];
    (d as Doc).description = v;
  }],
  ["ext-tasks-2026-07-28", "a chain of 8,000 object types by `extends`", (d) => {
    for (let i = 0; i < 8_000; i++) (d.types as Doc)[`Chain${i}`] = { type: "object", ...(i + 1 < 8_000 ? { extends: [`Chain${i + 1}`] } : {}), fields: { [`f${i}`]: "string" } };
  }],
  ["sep-1686-draft", "a chain of 2,000 aliases", (d) => {
    for (let i = 0; i < 2_000; i++) (d.types as Doc)[`Alias${i}`] = i + 1 < 2_000 ? `Alias${i + 1}` : "string";
  }],
  ["mcp-2025-11-25", "a chain of 300 object types by optional fields", (d) => {
    for (let i = 0; i < 300; i++) (d.types as Doc)[`Link${i}`] = { type: "object", fields: { next: i + 1 < 300 ? `Link${i + 1}?` : "string" } };
  }],
  ["mcp-2025-11-25", "a mapping of 10,000 keys", (d) => {
    d.guards = { ...(d.guards as Doc), ...Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`g${i}`, { field: "count", atLeast: i }])) };
  }],
];

export function dump(doc: Doc, asJson: boolean): string {
  const text = asJson ? JSON.stringify(doc, null, 1) : toYaml(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
  // A name declared twice: the placeholder key becomes the name it repeats.
  return text.replace(/DUPLICATE_OF_([A-Za-z0-9_/]+)/g, "$1");
}


// ---------------------------------------------------------------------------
// Semantic mutations: a spec that still says something coherent, in other words.
// ---------------------------------------------------------------------------

/** Replaces every string value equal to `from` (and keys of the named sections) by `to`. */
function renameEverywhere(doc: Doc, from: string, to: string, sections: readonly string[]): void {
  for (const n of nodes(doc)) if (n.value === from) setAt(doc, n.path, to);
  for (const s of sections) {
    const m = doc[s] as Record<string, Json> | undefined;
    if (m && typeof m === "object" && from in m) renameKey(m, from, to);
  }
}

const CORE_METHODS = /^(tools|prompts|resources|sampling|elicitation|roots|completion|logging|notifications\/(cancelled|progress|message|initialized)|initialize|ping|server\/discover|subscriptions)\b/;

/**
 * Mutations that keep a spec meaningful while changing what a server of it must do: renamed states,
 * methods and errors (every reference follows), other error codes and messages, other outcome states,
 * another answer to cancelling a terminal task, small list pages. Each one either validates, and then
 * the demo generated from it must pass `conform`, or is refused by the checker.
 */
export const SEMANTIC: Record<string, Mutation> = {
  renameState(doc, r) {
    const states = Object.keys((doc.states as object) ?? {});
    const s = r.pick(states);
    if (!s) return "renameState (no-op)";
    renameEverywhere(doc, s, `st_${s}`, ["states"]);
    return `state ${s} → st_${s}`;
  },
  renameMethod(doc, r) {
    const methods = Object.keys((doc.methods as object) ?? {}).filter((m) => !CORE_METHODS.test(m));
    const m = r.pick(methods);
    if (!m) return "renameMethod (no-op)";
    const to = `conform${m}`;
    renameEverywhere(doc, m, to, ["methods"]);
    return `method ${m} → ${to}`;
  },
  renameError(doc, r) {
    const errors = Object.keys((doc.errors as object) ?? {});
    const e = r.pick(errors);
    if (!e) return "renameError (no-op)";
    renameEverywhere(doc, e, `${e}Renamed`, ["errors"]);
    return `error ${e} → ${e}Renamed`;
  },
  errorCode(doc, r) {
    const errors = (doc.errors ?? {}) as Record<string, { code?: Json }>;
    const e = r.pick(Object.keys(errors));
    if (!e) return "errorCode (no-op)";
    const code = r.pick([-32001, -32050, -32099, -31001, -31500]);
    errors[e]!.code = code;
    return `error ${e} code ${code}`;
  },
  errorMessage(doc, r) {
    const errors = (doc.errors ?? {}) as Record<string, { message?: Json }>;
    const e = r.pick(Object.keys(errors));
    if (!e) return "errorMessage (no-op)";
    errors[e]!.message = `${String(errors[e]!.message)} (see the server's documentation)`;
    return `error ${e} message extended`;
  },
  outcome(doc, r) {
    const b = doc.behaviour as { outcomes?: Record<string, Json> } | undefined;
    const states = Object.entries((doc.states ?? {}) as Record<string, { terminal?: Json; role?: Json }>).filter(([, s]) => s.terminal === true && (s.role === "completed" || s.role === "failed"));
    if (!b?.outcomes || !states.length) return "outcome (no-op)";
    const which = r.pick(["toolError", "protocolError", "unexpected"]);
    const to = r.pick(states)[0];
    b.outcomes[which] = to;
    return `outcomes.${which} = ${to}`;
  },
  cancelTerminal(doc, r) {
    const c = (doc.behaviour as { cancellation?: Record<string, Json> } | undefined)?.cancellation;
    if (!c) return "cancelTerminal (no-op)";
    const to = r.pick(["ignore", "error", "ack"]);
    c.terminal = to;
    return `cancellation.terminal = ${to}`;
  },
  pageSize(doc, r) {
    const l = (doc.behaviour as { listing?: Json } | undefined)?.listing;
    if (!l || typeof l !== "object" || Array.isArray(l)) return "pageSize (no-op)";
    const size = 1 + r.int(3);
    (l as Record<string, Json>).pageSize = size;
    return `listing.pageSize = ${size}`;
  },
};
export const SEMANTIC_KINDS = Object.keys(SEMANTIC);
