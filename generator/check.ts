/**
 * Checks: the shape of the document (from the zod schema of the format), then
 * the meaning (references, state machine, error codes and templates, the
 * completeness of declared behaviours). Every finding is a Diagnostic.
 */
import type { z } from "zod";
import { diag, type Code, type Diagnostic } from "./diagnostics.js";
import {
  BUILTINS_IN_TRANSITIONS,
  BUILTINS_IN_TYPES,
  EMPTY_PARAMS,
  guardName,
  PATTERN_NAME_RE,
  reexportedModules,
  RESULT_OBJECT_GUARD,
  schemaName,
  templateTopLevelNames,
} from "./emit-names.js";
import {
  closest,
  PRIMITIVES,
  SpecSchema,
  type Spec,
  type TypeExpr,
} from "./format.js";
import type { Loaded } from "./load.js";
import { suggestionText, suggestOperations } from "./migrate.js";
import { methodOperations } from "./operations.js";
import { fieldsOf, methodNames as generatedNames, parseShorthand, resolveShallow, stronglyConnected, TYPE_NAME_LIKE } from "./spec-helpers.js";
import { managedTaskFields, namedTypeOf } from "./task-shape.js";

type Path = (string | number)[];

export interface Checked {
  spec?: Spec;
  diagnostics: Diagnostic[];
}

export function check(loaded: Loaded): Checked {
  const diagnostics: Diagnostic[] = [];
  const report = (code: Code, severity: "error" | "warning", message: string, path: Path, key = false) => {
    let location = loaded.locate(path, { key });
    // Point at the placeholder itself when it is on the located line.
    const placeholder = code === "MTG051" ? /^placeholder (\{[^{}]*\})/.exec(message)?.[1] : undefined;
    if (location && placeholder && location.lineText !== undefined) {
      const at = location.lineText.indexOf(placeholder, location.col - 1);
      if (at >= 0) location = { ...location, col: at + 1, length: placeholder.length };
    }
    diagnostics.push(diag(code, severity, message, path, location));
  };

  // `__proto__` would be dropped or become a prototype on the way through the schema: refuse it first.
  const reserved = reservedProto(loaded.data);
  for (const r of reserved) {
    report(
      "MTG031",
      "error",
      r.key
        ? "'__proto__' cannot be a key: in JavaScript it names an object's prototype, not a property; rename it"
        : "'__proto__' cannot be a value here: generated code and the runtime would read an object's prototype for it; use another name",
      r.path,
      r.key,
    );
  }
  if (reserved.length > 0) return { diagnostics };

  const parsed = SpecSchema.safeParse(loaded.data);
  if (!parsed.success) {
    for (const issue of flattenIssues(parsed.error.issues as ZIssue[], loaded.data)) {
      report(issue.code, "error", issue.message, issue.path, issue.key);
    }
    return { diagnostics };
  }
  const spec = parsed.data;
  semanticChecks(spec, report);
  return { spec, diagnostics };
}

/** Every mapping key `__proto__`, and every string value `__proto__`, in the document. */
function reservedProto(data: unknown): { path: Path; key: boolean }[] {
  const out: { path: Path; key: boolean }[] = [];
  const walk = (v: unknown, path: Path): void => {
    if (v === "__proto__") out.push({ path, key: false });
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === "object") {
      for (const k of Object.keys(v)) {
        if (k === "__proto__") out.push({ path: [...path, k], key: true });
        else walk((v as Record<string, unknown>)[k], [...path, k]);
      }
    }
  };
  walk(data, []);
  return out;
}

/** A field name (token) of HTTP: RFC 9110 section 5.1. */
export const HTTP_TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * A `_meta` key as MCP defines it: an optional prefix (dot-separated labels, each
 * starting with a letter and ending with a letter or digit, then a slash) and a
 * name that begins and ends with a letter or digit (with `-`, `_`, `.` inside).
 */
export const META_KEY_RE =
  /^(?:[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;
/** A dotted path of identifiers, e.g. execution.taskSupport. */
export const DOTTED_PATH_RE = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
/** Path segments that lead into an object's machinery rather than its data. */
const RESERVED_SEGMENTS = new Set(["__proto__", "constructor", "prototype"]);

// ---------------------------------------------------------------------------
// zod issues → diagnostics
// ---------------------------------------------------------------------------

type ZIssue = z.core.$ZodIssue & { errors?: ZIssue[][]; note?: string; options?: unknown[]; discriminator?: string };

interface Flat {
  code: Code;
  message: string;
  path: Path;
  key: boolean;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const seg of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg as string];
  }
  return v;
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return `the string '${v}'`;
  return `${typeof v} ${String(v)}`;
}

function flattenIssues(issues: ZIssue[], data: unknown, base: Path = []): Flat[] {
  const out: Flat[] = [];
  for (const issue of issues) {
    const path = [...base, ...(issue.path as Path)];
    const value = valueAt(data, path);
    if (issue.code === "unrecognized_keys") {
      const keys = (issue as { keys: string[] }).keys;
      out.push({ code: "MTG010", message: issue.message, path: [...path, keys[0]], key: true });
      continue;
    }
    if (issue.code === "invalid_key") {
      // A name in a map of declarations (types, states, methods, errors, ...) that is not a valid name.
      const inner = ((issue as { issues?: { message: string }[] }).issues ?? []).map((i) => i.message.replace(/^Invalid input: /, ""));
      out.push({
        code: "MTG011",
        message: `invalid name '${String(path[path.length - 1])}': ${inner.join("; ") || "not allowed here"}; rename it`,
        path,
        key: true,
      });
      continue;
    }
    if (value === undefined && path.length > 0) {
      const key = path[path.length - 1];
      out.push({
        code: "MTG012",
        message: `missing required key '${String(key)}'; add it here`,
        path: path.slice(0, -1),
        key: true,
      });
      continue;
    }
    if (issue.code === "invalid_union") {
      if (issue.note === "No matching discriminator" && issue.options) {
        const opts = issue.options.map(String);
        const got = value;
        const guess = typeof got === "string" ? closest(got, opts) : undefined;
        out.push({
          code: "MTG011",
          message:
            got === undefined
              ? `missing required key '${issue.discriminator}' (one of ${opts.join(", ")})`
              : `unknown ${issue.discriminator} ${describeValue(got)}${guess ? `, did you mean '${guess}'?` : ""} (expected one of ${opts.join(", ")})`,
          path,
          key: false,
        });
        continue;
      }
      const branches = issue.errors ?? [];
      // Keep the branches whose complaint is not "wrong type at the root":
      // those are the ones the author meant.
      const meant = branches.filter(
        (b) => !b.some((i) => i.code === "invalid_type" && (i.path as Path).length === 0),
      );
      if (meant.length >= 1) {
        out.push(...flattenIssues(meant[0], data, path));
        continue;
      }
      const expected = branches
        .map((b) => b.find((i) => i.code === "invalid_type") as { expected?: string } | undefined)
        .map((i) => i?.expected)
        .filter((x): x is string => !!x);
      out.push({
        code: "MTG011",
        message: `expected ${[...new Set(expected.map(expectedText))].join(" or ") || "another value"}, got ${describeValue(value)}`,
        path,
        key: false,
      });
      continue;
    }
    if (issue.code === "invalid_type") {
      out.push({
        code: "MTG011",
        message: `expected ${expectedText((issue as { expected: string }).expected)}, got ${describeValue(value)}`,
        path,
        key: false,
      });
      continue;
    }
    if (issue.code === "invalid_value") {
      const values = (issue as { values: unknown[] }).values.map(String);
      const guess = typeof value === "string" ? closest(value, values) : undefined;
      out.push({
        code: "MTG011",
        message: `${describeValue(value)} is not allowed here${guess ? `, did you mean '${guess}'?` : ""} (expected one of ${values.join(", ")})`,
        path,
        key: false,
      });
      continue;
    }
    if (issue.code === "invalid_format") {
      out.push({ code: "MTG011", message: `${describeValue(value)} is not valid here: ${issue.message}`, path, key: false });
      continue;
    }
    out.push({ code: "MTG011", message: `${issue.message.replace(/^Invalid input: /, "")}`, path, key: false });
  }
  if (base.length > 0) return out;
  // A key reported as unknown with a "did you mean 'k'" makes "missing key 'k'" at the same place redundant.
  const suggested = new Set(
    out
      .filter((f) => f.code === "MTG010")
      .flatMap((f) => [...f.message.matchAll(/did you mean '([^']+)'/g)].map((m) => JSON.stringify([...f.path.slice(0, -1), m[1]]))),
  );
  return out.filter((f) => !(f.code === "MTG012" && suggested.has(JSON.stringify([...f.path, missingKey(f.message)]))));
}

function missingKey(message: string): string | undefined {
  return /^missing required key '([^']+)'/.exec(message)?.[1];
}

const EXPECTED: Record<string, string> = {
  int: "an integer",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  record: "a mapping",
  null: "null",
};

function expectedText(expected: string): string {
  return EXPECTED[expected] ?? expected;
}

// ---------------------------------------------------------------------------
// Semantic checks
// ---------------------------------------------------------------------------

type Report = (code: Code, severity: "error" | "warning", message: string, path: Path, key?: boolean) => void;

export const JSONRPC_STANDARD_CODES = new Set([-32700, -32600, -32601, -32602, -32603]);

/** The codes MCP 2026-07-28 (the per-request core) defines in its reserved -32020..-32099: header mismatch, missing client capability, unsupported protocol version. */
export const PER_REQUEST_CORE_CODES = new Set([-32020, -32021, -32022]);

/** Core MCP requests a task may wrap (checked so typos do not pass silently). */
export const CORE_REQUESTS = new Set([
  "tools/call",
  "resources/read",
  "prompts/get",
  "completion/complete",
  "sampling/createMessage",
  "elicitation/create",
  "roots/list",
  "tools/list",
  "resources/list",
  "prompts/list",
]);

function suggest(word: string, candidates: Iterable<string>): string {
  const g = closest(word, candidates);
  return g ? `, did you mean '${g}'?` : "";
}


export { fieldsOf, methodStem, parseShorthand, resolveShallow, stronglyConnected, type ShorthandParts } from "./spec-helpers.js";

function semanticChecks(spec: Spec, report: Report): void {
  const statusType = spec.statusType ?? "TaskStatus";
  const typeNames = new Set(Object.keys(spec.types));
  if (typeNames.has(statusType)) {
    report(
      "MTG030",
      "error",
      `type '${statusType}' is generated from \`states\`; remove it from \`types\` or set statusType to another name`,
      ["types", statusType],
      true,
    );
  }
  const allTypes = new Set([...typeNames, statusType]);
  const stateNames = new Set(Object.keys(spec.states));
  const methodNames = new Set(Object.keys(spec.methods));
  const errorNames = new Set(Object.keys(spec.errors));
  const metaNames = new Set(Object.keys(spec.meta));
  const guardNames = new Set(Object.keys(spec.guards ?? {}));

  // --- types ---------------------------------------------------------------
  const walkType = (t: TypeExpr, path: Path, asField: boolean): void => {
    if (typeof t === "string") {
      const p = parseShorthand(t)!;
      if (p.optional && !asField) {
        report("MTG011", "error", `'?' marks an optional field; it cannot be used outside an object's fields`, path);
      }
      if (!(PRIMITIVES as readonly string[]).includes(p.base) && !allTypes.has(p.base)) {
        report(
          "MTG026",
          "error",
          `'${p.base}' is neither a primitive (${PRIMITIVES.join(", ")}) nor a declared type${suggest(p.base, [...allTypes, ...PRIMITIVES])}`,
          path,
        );
      }
      return;
    }
    switch (t.type) {
      case "ref":
        if (!allTypes.has(t.ref)) {
          report("MTG020", "error", `undefined type '${t.ref}'${suggest(t.ref, allTypes)}; declare it under \`types\``, [...path, "ref"]);
        }
        break;
      case "array":
        walkType(t.items, [...path, "items"], false);
        break;
      case "record":
        walkType(t.values, [...path, "values"], false);
        break;
      case "union":
        t.variants.forEach((v, i) => walkType(v, [...path, "variants", i], false));
        break;
      case "object":
        for (const [name, f] of Object.entries(t.fields ?? {})) walkType(f, [...path, "fields", name], true);
        for (const [i, e] of (t.extends ?? []).entries()) {
          if (!typeNames.has(e)) {
            report("MTG020", "error", `undefined type '${e}'${suggest(e, typeNames)}; declare it under \`types\``, [...path, "extends", i]);
          } else if (objectOf(spec, e) === undefined) {
            report("MTG011", "error", `'${e}' is not an object type, so it cannot be extended`, [...path, "extends", i]);
          }
        }
        break;
      case "string":
        if (t.pattern !== undefined) {
          try {
            new RegExp(t.pattern, "u");
          } catch (e) {
            report(
              "MTG080",
              "error",
              `invalid regular expression (${(e as Error).message.replace(/^Invalid regular expression: /, "")}); fix the pattern (ECMAScript syntax, u flag)`,
              [...path, "pattern"],
            );
          }
        }
        break;
    }
    if (t.optional && !asField) {
      report("MTG011", "error", "`optional` only applies to an object's fields", [...path, "optional"], true);
    }
  };
  for (const [name, t] of Object.entries(spec.types)) walkType(t, ["types", name], false);
  for (const [m, def] of Object.entries(spec.methods)) {
    if (def.params !== undefined) walkType(def.params, ["methods", m, "params"], false);
    if (def.result !== undefined) walkType(def.result, ["methods", m, "result"], false);
  }
  for (const [n, e] of Object.entries(spec.errors)) {
    for (const [k, t] of Object.entries(e.context ?? {})) walkType(t, ["errors", n, "context", k], false);
    if (e.data !== undefined) walkType(e.data, ["errors", n, "data"], false);
  }
  for (const [n, m] of Object.entries(spec.meta)) walkType(m.type, ["meta", n, "type"], false);
  const b = spec.behaviour;
  if (b.creation.paramType !== undefined) walkType(b.creation.paramType, ["behaviour", "creation", "paramType"], false);
  if (b.creation.ack.resultType !== undefined) walkType(b.creation.ack.resultType, ["behaviour", "creation", "ack", "resultType"], false);
  for (const side of ["server", "client"] as const) {
    const c = b.capabilities[side];
    if (c && c.type !== undefined) walkType(c.type, ["behaviour", "capabilities", side, "type"], false);
  }

  // Type expressions nested so deep that TypeScript gives up on the types inferred from them.
  const typeRoots: [TypeExpr, Path][] = [
    ...Object.entries(spec.types).map(([name, t]): [TypeExpr, Path] => [t, ["types", name]]),
    ...Object.entries(spec.methods).flatMap(([m, def]) =>
      (["params", "result"] as const).flatMap((k): [TypeExpr, Path][] => (def[k] === undefined ? [] : [[def[k]!, ["methods", m, k]]])),
    ),
    ...Object.entries(spec.errors).flatMap(([n, e]): [TypeExpr, Path][] => [
      ...Object.entries(e.context ?? {}).map(([k, t]): [TypeExpr, Path] => [t, ["errors", n, "context", k]]),
      ...(e.data === undefined ? [] : [[e.data, ["errors", n, "data"]] as [TypeExpr, Path]]),
    ]),
    ...Object.entries(spec.meta).map(([n, m]): [TypeExpr, Path] => [m.type, ["meta", n, "type"]]),
    ...(b.creation.paramType === undefined ? [] : [[b.creation.paramType, ["behaviour", "creation", "paramType"]] as [TypeExpr, Path]]),
    ...(b.creation.ack.resultType === undefined ? [] : [[b.creation.ack.resultType, ["behaviour", "creation", "ack", "resultType"]] as [TypeExpr, Path]]),
    ...(["server", "client"] as const).flatMap((side): [TypeExpr, Path][] => {
      const c = b.capabilities[side];
      return c && c.type !== undefined ? [[c.type, ["behaviour", "capabilities", side, "type"]]] : [];
    }),
  ];
  for (const [t, path] of typeRoots) {
    const deep = tooDeep(t, path);
    if (deep) {
      report(
        "MTG066",
        "error",
        `this type nests ${deep.depth} levels of lists, records, unions and objects; generated code type-checks at most ${MAX_TYPE_DEPTH}, so name an inner part under \`types\` and refer to it`,
        deep.path,
      );
    }
  }

  // Inheritance so deep that flattening it (and reading it) is unreasonable.
  const inherit = extendsDepths(spec);
  const tooDeepParents = new Set<string>();
  for (const [name, d] of inherit) {
    const t = spec.types[name];
    if (d > MAX_TYPE_DEPTH && t && typeof t !== "string" && t.type === "object") for (const e of t.extends ?? []) tooDeepParents.add(e);
  }
  let deepInheritance = false;
  for (const [name, d] of inherit) {
    if (d <= MAX_TYPE_DEPTH || tooDeepParents.has(name)) continue;
    deepInheritance = true;
    report(
      "MTG066",
      "error",
      `type '${name}' inherits through ${d} levels of \`extends\`; at most ${MAX_TYPE_DEPTH} are allowed, so extend fewer types in a row`,
      ["types", name, "extends"],
      true,
    );
  }
  if (deepInheritance) return;

  // A type that is only itself: TypeScript cannot declare `type A = A | string`.
  const selfDefinedTypes = selfDefined(spec);
  for (const [name, cycle] of selfDefinedTypes) {
    report(
      "MTG065",
      "error",
      `type '${name}' is defined by itself (${cycle.join(" → ")}) with no object, list or record in between; wrap the inner reference in a list or an object field`,
      ["types", name],
      true,
    );
  }
  // A long chain of such references: TypeScript resolves each alias eagerly, one stack frame per link.
  if (selfDefinedTypes.length === 0) {
    const next = (n: string) => [...new Set(directRefs(spec, spec.types[n]!))];
    const chains = longestChains(Object.keys(spec.types), next);
    const inner = new Set<string>();
    for (const [name, d] of chains) if (d > MAX_TYPE_DEPTH) for (const m of next(name)) inner.add(m);
    for (const [name, d] of chains) {
      if (d <= MAX_TYPE_DEPTH || inner.has(name)) continue;
      report(
        "MTG066",
        "error",
        `type '${name}' is defined through ${d} types in a row with no object, list or record in between; TypeScript resolves at most ${MAX_TYPE_DEPTH}, so shorten the chain`,
        ["types", name],
        true,
      );
    }
  }

  // Discriminated unions: every variant is an object with the discriminator.
  const checkUnions = (t: TypeExpr, path: Path): void => {
    if (typeof t === "string") return;
    if (t.type === "union") {
      if (t.discriminator) {
        t.variants.forEach((v, i) => {
          const fields = fieldsOf(spec, v);
          if (fields === undefined) {
            report("MTG062", "error", `variant ${i + 1} of a union discriminated by '${t.discriminator}' is not an object`, [...path, "variants", i]);
          } else {
            const f = fields[t.discriminator!];
            const tag = f === undefined ? undefined : resolveShallow(spec, f);
            if (!tag || typeof tag === "string" || (tag.type !== "literal" && tag.type !== "enum")) {
              report(
                "MTG062",
                "error",
                `variant ${i + 1} needs a required field '${t.discriminator}' of literal or enum type to be told apart`,
                [...path, "variants", i],
              );
            }
          }
        });
      }
      t.variants.forEach((v, i) => checkUnions(v, [...path, "variants", i]));
    } else if (t.type === "object") {
      for (const [n, f] of Object.entries(t.fields ?? {})) checkUnions(f, [...path, "fields", n]);
    } else if (t.type === "array") checkUnions(t.items, [...path, "items"]);
    else if (t.type === "record") checkUnions(t.values, [...path, "values"]);
  };
  for (const [name, t] of Object.entries(spec.types)) checkUnions(t, ["types", name]);

  // A type that cannot be finite: a cycle through required, non-nullable object fields.
  for (const [name, cycle] of requiredCycles(spec)) {
    report(
      "MTG063",
      "error",
      `type '${name}' requires itself (${cycle.join(" → ")}); make a field on the cycle optional or nullable, or use an array`,
      ["types", name],
      true,
    );
  }

  // Generated names must be unique: method stems, and the types they generate vs declared types.
  const generated = new Map<string, string>();
  for (const [m, def] of Object.entries(spec.methods)) {
    const names = generatedNames(m, def);
    const fresh = [names.messageName, ...[names.paramsName, names.resultName].filter((n) => n !== undefined && !allTypes.has(n))];
    for (const n of fresh as string[]) {
      const prev = generated.get(n) ?? (allTypes.has(n) ? `type ${n}` : undefined);
      if (prev) {
        report("MTG030", "error", `method '${m}' generates the name '${n}', already taken by ${prev}; set a distinct \`name\``, ["methods", m], true);
      } else generated.set(n, `method '${m}'`);
    }
    if (def.kind === "notification" && def.result !== undefined) {
      report("MTG011", "error", "a notification has no result; remove `result`", ["methods", m, "result"], true);
    }
    for (const [i, e] of (def.errors ?? []).entries()) {
      if (!errorNames.has(e)) report("MTG023", "error", `undefined error '${e}'${suggest(e, errorNames)}; declare it under \`errors\``, ["methods", m, "errors", i]);
    }
  }

  // --- names the generated modules declare --------------------------------------
  checkGeneratedNames(spec, statusType, report);

  // --- states --------------------------------------------------------------
  const initials = Object.entries(spec.states).filter(([, s]) => s.initial);
  if (initials.length === 0) {
    report("MTG040", "error", "no initial state; mark exactly one state with `initial: true`", ["states"], true);
  } else if (initials.length > 1) {
    for (const [n] of initials.slice(1)) {
      report("MTG041", "error", `more than one initial state ('${initials[0][0]}' and '${n}'); keep \`initial: true\` on one`, ["states", n, "initial"], true);
    }
  }
  const roles = new Map<string, string>();
  const terminalRoles = new Set(["completed", "failed", "cancelled", "unknown"]);
  for (const [n, s] of Object.entries(spec.states)) {
    // Several states may share a role: the first one declared is where the runtime moves tasks for it.
    if (!roles.has(s.role)) roles.set(s.role, n);
    if (terminalRoles.has(s.role) !== (s.terminal === true)) {
      report(
        "MTG046",
        "error",
        terminalRoles.has(s.role)
          ? `state '${n}' has role '${s.role}', which ends a task; mark it \`terminal: true\``
          : `state '${n}' is terminal but its role '${s.role}' is not an ending; use completed, failed, cancelled or unknown`,
        ["states", n],
        true,
      );
    }
    if (s.initial && s.terminal) {
      report("MTG042", "error", `the initial state '${n}' cannot be terminal`, ["states", n, "terminal"], true);
    }
  }

  const asList = (x: string | string[]) => (Array.isArray(x) ? x : [x]);
  const edges = new Map<string, Set<string>>();
  for (const n of stateNames) edges.set(n, new Set());
  const seenEdges = new Map<string, number>();
  let undefinedStates = false;
  spec.transitions.forEach((tr, i) => {
    const froms = asList(tr.from);
    const tos = asList(tr.to);
    for (const [k, list] of [["from", froms], ["to", tos]] as const) {
      list.forEach((s, j) => {
        if (!stateNames.has(s)) {
          const p: Path = Array.isArray(tr[k]) ? ["transitions", i, k, j] : ["transitions", i, k];
          report("MTG021", "error", `undefined state '${s}'${suggest(s, stateNames)}; declare it under \`states\``, p);
          undefinedStates = true;
        }
      });
    }
    if (tr.guard !== undefined && !guardNames.has(tr.guard)) {
      report("MTG025", "error", `undefined guard '${tr.guard}'${suggest(tr.guard, guardNames)}; declare it under \`guards\``, ["transitions", i, "guard"]);
    }
    for (const f of froms) {
      if (spec.states[f]?.terminal) {
        report(
          "MTG042",
          "error",
          `state '${f}' is terminal, so no transition may leave it; remove it from \`from\` or make it non-terminal`,
          ["transitions", i, "from"],
        );
      }
      for (const t of tos) {
        if (!stateNames.has(f) || !stateNames.has(t)) continue;
        const key = `${f}→${t}`;
        if (seenEdges.has(key)) {
          report("MTG047", "warning", `transition ${f} → ${t} is already declared in transition ${seenEdges.get(key)! + 1}; remove the repetition`, ["transitions", i]);
        } else seenEdges.set(key, i);
        edges.get(f)!.add(t);
      }
    }
  });
  // With a misspelt state in a transition, reachability findings would only repeat that mistake.
  if (initials.length >= 1 && !undefinedStates) {
    const reach = new Set<string>([initials[0][0]]);
    const queue = [initials[0][0]];
    while (queue.length) for (const t of edges.get(queue.shift()!) ?? []) if (!reach.has(t)) (reach.add(t), queue.push(t));
    for (const n of stateNames) {
      if (!reach.has(n)) {
        report("MTG043", "error", `state '${n}' cannot be reached from the initial state '${initials[0][0]}'; add a transition into it or remove it`, ["states", n], true);
      }
    }
  }
  for (const n of undefinedStates ? [] : stateNames) {
    if (spec.states[n].terminal) continue;
    const seen = new Set([n]);
    const queue = [n];
    let ok = false;
    while (queue.length && !ok) {
      for (const t of edges.get(queue.shift()!) ?? []) {
        if (spec.states[t]?.terminal) ok = true;
        if (!seen.has(t)) (seen.add(t), queue.push(t));
      }
    }
    if (!ok) {
      report("MTG044", "error", `non-terminal state '${n}' can never reach a terminal state; add a transition to one`, ["states", n], true);
    }
  }

  // --- errors ----------------------------------------------------------------
  // The core under a per-request lifecycle (MCP 2026-07-28) splits the server range: -32000..-32019 is
  // legacy (new code SHOULD NOT use it), -32020..-32099 belongs to the core specification, and
  // application-specific codes SHOULD lie outside -32768..-32000. Older cores only know JSON-RPC's ranges.
  const perRequestCore = spec.protocol.lifecycle === "per-request";
  for (const [n, e] of Object.entries(spec.errors)) {
    const c = e.code;
    const reservedBlock = c >= -32768 && c <= -32000;
    const serverRange = c >= -32099 && c <= -32000;
    if (reservedBlock && !serverRange && !JSONRPC_STANDARD_CODES.has(c)) {
      report(
        "MTG050",
        "error",
        `code ${c} lies in JSON-RPC's reserved block (-32768..-32000) but is not a standard code (-32700, -32600..-32603) nor in the server range (-32099..-32000); choose another code`,
        ["errors", n, "code"],
      );
    } else if (perRequestCore) {
      if (c >= -32019 && c <= -32000) {
        report(
          "MTG050",
          "warning",
          `code ${c} lies in -32000..-32019, which the per-request core (MCP 2026-07-28) calls legacy: new code SHOULD NOT use it; allocate an application-specific code outside -32768..-32000`,
          ["errors", n, "code"],
        );
      } else if (serverRange && !PER_REQUEST_CORE_CODES.has(c)) {
        report(
          "MTG050",
          "warning",
          `code ${c} lies in -32020..-32099, which the per-request core (MCP 2026-07-28) reserves for codes it defines (${[...PER_REQUEST_CORE_CODES].join(", ")}); allocate an application-specific code outside -32768..-32000`,
          ["errors", n, "code"],
        );
      }
    } else if (!reservedBlock && !JSONRPC_STANDARD_CODES.has(c)) {
      report(
        "MTG050",
        "warning",
        `code ${c} is outside the JSON-RPC ranges (standard -32700, -32600..-32603; server -32099..-32000); MCP peers may not recognise it; prefer a server code (-32099..-32000)`,
        ["errors", n, "code"],
      );
    }
    const ctx = new Set(Object.keys(e.context ?? {}));
    const used = new Set<string>();
    for (const m of e.message.matchAll(/\{([^{}]*)\}/g)) {
      const name = m[1];
      used.add(name);
      if (!ctx.has(name)) {
        report(
          "MTG051",
          "error",
          `placeholder {${name}} has no value: declare '${name}' under this error's \`context\`${suggest(name, ctx)}`,
          ["errors", n, "message"],
        );
      }
    }
    for (const k of ctx) {
      if (!used.has(k)) report("MTG052", "warning", `context value '${k}' is never used in the message; use {${k}} in the message or remove it`, ["errors", n, "context", k], true);
    }
  }

  // --- behaviour -----------------------------------------------------------------
  const ref = (kind: "method" | "error" | "state" | "meta", name: string | undefined | false, path: Path) => {
    if (name === undefined || name === false) return;
    const [set, code, section] =
      kind === "method"
        ? ([methodNames, "MTG022", "methods"] as const)
        : kind === "error"
          ? ([errorNames, "MTG023", "errors"] as const)
          : kind === "state"
            ? ([stateNames, "MTG021", "states"] as const)
            : ([metaNames, "MTG024", "meta"] as const);
    if (!set.has(name)) report(code, "error", `undefined ${kind} '${name}'${suggest(name, set)}; declare it under \`${section}\``, path);
  };
  const need = (cond: boolean, what: string, path: Path, because: string) => {
    if (!cond) report("MTG060", "error", `missing \`${what}\`: ${because}`, path, true);
  };
  const B: Path = ["behaviour"];
  const cr = b.creation;
  const crP = [...B, "creation"];
  if (cr.via === "meta") {
    need(cr.meta !== undefined, "meta", crP, "creation via meta needs the meta entry that carries the task request");
    ref("meta", cr.meta, [...crP, "meta"]);
  } else if (cr.via === "param") {
    need(cr.param !== undefined, "param", crP, "creation via param needs the params field that carries the task request");
    need(cr.paramType !== undefined, "paramType", crP, "creation via param needs the type of that field");
  } else {
    need(cr.capabilityMeta !== undefined, "capabilityMeta", crP, "creation via client-capability needs the meta entry holding the client's capabilities");
    need(cr.capability !== undefined, "capability", crP, "creation via client-capability needs the extension id the client lists");
    ref("meta", cr.capabilityMeta, [...crP, "capabilityMeta"]);
  }
  if (cr.taskId.assignedBy === "requestor") {
    need(cr.taskId.field !== undefined, "field", [...crP, "taskId"], "a requestor-assigned id needs the field of the task request that holds it");
  }
  ref("error", cr.taskId.duplicateError, [...crP, "taskId", "duplicateError"]);
  ref("error", cr.requiredTaskError, [...crP, "requiredTaskError"]);
  for (const side of ["server", "client"] as const) {
    cr.requests[side].forEach((m, i) => {
      if (m !== "*" && !CORE_REQUESTS.has(m) && !methodNames.has(m)) {
        report("MTG022", "warning", `'${m}' is not a known MCP request${suggest(m, CORE_REQUESTS)}`, [...crP, "requests", side, i]);
      }
    });
  }
  if (cr.toolSwitch) {
    ref("error", cr.toolSwitch.forbiddenError, [...crP, "toolSwitch", "forbiddenError"]);
    ref("error", cr.toolSwitch.requiredError, [...crP, "toolSwitch", "requiredError"]);
  }
  if (cr.ack.mode === "notification") {
    need(cr.ack.notification !== undefined, "notification", [...crP, "ack"], "ack mode notification needs the notification method");
    ref("method", cr.ack.notification, [...crP, "ack", "notification"]);
  } else {
    need(cr.ack.resultType !== undefined, "resultType", [...crP, "ack"], `ack mode ${cr.ack.mode} needs the type of the immediate answer`);
  }

  const taskType = b.taskType ?? "Task";
  // For a union task type (a status-dependent shape), a field may live on any variant.
  const taskFields = typeNames.has(taskType) ? fieldsOf(spec, taskType, new Set(), true) : undefined;
  if (!typeNames.has(taskType)) {
    report("MTG020", "error", `the task type '${taskType}' is not declared${suggest(taskType, typeNames)}; declare it or set behaviour.taskType`, [...B, ...(b.taskType ? ["taskType"] : [])], !b.taskType);
  }
  const field = (name: string | undefined, path: Path) => {
    if (name === undefined || taskFields === undefined) return;
    if (!(name in taskFields)) {
      report("MTG061", "error", `the task type '${taskType}' has no field '${name}'${suggest(name, Object.keys(taskFields))}`, path);
    }
  };
  // The runtime reads these two on every task: the id and the status, in the fields the spec names.
  const idField = b.taskIdField ?? "taskId";
  const statusField = b.statusField ?? "status";
  if (taskFields !== undefined) {
    for (const [required, key] of [[idField, "taskIdField"], [statusField, "statusField"]] as const) {
      if (!(required in taskFields)) {
        report(
          "MTG061",
          "error",
          `the task type '${taskType}' has no field '${required}'; every task carries its id and its status (name the fields with behaviour.taskIdField and behaviour.statusField)`,
          b[key] === undefined ? ["types", taskType] : [...B, key],
          b[key] === undefined,
        );
      }
    }
    // Defaults of the task's own fields: the runtime starts every task with them.
    for (const [name, t] of Object.entries(taskFields)) {
      if (typeof t === "string" || t.default === undefined) continue;
      const problem = defaultProblem(spec, t, t.default);
      if (problem !== undefined) {
        report("MTG070", "error", `the default of field '${name}' ${problem}`, ["types", taskType, "fields", name, "default"]);
      }
    }
    // A field no behaviour fills is the task's own: the work sets it, so a new task needs a value for it.
    const managed = managedTaskFields(b);
    const own = fieldsOf(spec, taskType);
    for (const [name, t] of Object.entries(own ?? {})) {
      const optional = typeof t === "string" ? t.endsWith("?") : t.optional === true || t.nullable === true || t.default !== undefined;
      if (managed.has(name) || optional) continue;
      report(
        "MTG060",
        "error",
        `field '${name}' of the task type is the task's own (no behaviour fills it), and it is required: give it a \`default\` a new task starts with, or make it optional`,
        ["types", taskType, "fields", name],
        true,
      );
    }
  }
  if (cr.via === "param" && cr.paramType !== undefined) {
    const t = cr.paramType;
    const name = namedTypeOf(t);
    const anyObject = t === "object" || t === "object?" || (typeof t !== "string" && t.type === "object" && t.fields === undefined);
    if (!anyObject && (name === undefined || !typeNames.has(name))) {
      report("MTG011", "error", "creation.paramType must name a type declared under `types` (or be `object`): its generated validator checks every task request", [...crP, "paramType"]);
    }
  }
  // Names that become keys of the generated tables and of the runtime's lookups: one that every JavaScript
  // object already has (toString, constructor, ...) would be found declared through the prototype.
  const inherited = new Set(Object.getOwnPropertyNames(Object.prototype));
  for (const section of ["states", "errors", "guards", "meta", "methods"] as const) {
    for (const name of Object.keys((spec as Record<string, unknown>)[section] ?? {})) {
      if (inherited.has(name)) {
        report("MTG031", "error", `'${name}' cannot name one of \`${section}\`: every JavaScript object has a '${name}', so generated lookups would find it through the prototype; rename it`, [section, name], true);
      }
    }
  }
  // Past this many states the generated unions are more than TypeScript checks (TS2590).
  if (stateNames.size > MAX_STATES) {
    report("MTG011", "error", `${stateNames.size} states: at most ${MAX_STATES} are supported (the generated types of more fail to type-check); merge states that share a role`, ["states"], true);
  }
  // A request the core protocol defines is the SDK's: declared as a task method, its handler would never run.
  for (const [method, m] of Object.entries(spec.methods)) {
    if (CORE_METHODS.has(method)) {
      report("MTG069", "error", `'${method}' is a core MCP method: the SDK underneath answers it, so a task method of that name would never be reached; name it otherwise (e.g. 'tasks/${method.split("/").pop()}')`, ["methods", method], true);
    }
    if (m.kind === "request" && m.operation === "transition" && m.to !== undefined && spec.states[m.to]?.role === "completed") {
      report(
        "MTG067",
        "error",
        `'${method}' would move a task to '${m.to}', a completed state, without a result: the result method could never answer it; let the work complete it, or move it to a state of another role`,
        ["methods", method, "to"],
      );
    }
  }
  // The acknowledgement in the request's own answer is { task }: its type must hold the task there.
  if (cr.ack.mode === "result" && cr.ack.resultType !== undefined) {
    const ackFields = fieldsOf(spec, cr.ack.resultType);
    if (ackFields !== undefined && !("task" in ackFields)) {
      report(
        "MTG061",
        "error",
        `the acknowledgement type has no field 'task': in ack mode result the task is sent as { task }; name its field 'task' (fields: ${Object.keys(ackFields).join(", ") || "none"})`,
        ["behaviour", "creation", "ack", "resultType"],
      );
    }
  }
  // The task request's own type (a creation param or meta entry): what the runtime reads of it is its retention.
  const creationType =
    cr.via === "param" ? namedTypeOf(cr.paramType) : cr.via === "meta" ? namedTypeOf(spec.meta?.[cr.meta ?? ""]?.type) : undefined;
  const creationFields = creationType !== undefined && typeNames.has(creationType) ? fieldsOf(spec, creationType) : undefined;
  for (const [name, t] of Object.entries(creationFields ?? {})) {
    if (typeof t !== "string" && t.default !== undefined && t.optional !== true && t.nullable !== true) {
      report(
        "MTG070",
        "error",
        `field '${name}' of the task request type ${creationType} is required and has a default: a request without it is refused, so the default is never applied; make it optional or remove the default`,
        ["types", creationType!, "fields", name, "default"],
      );
    }
    const managedHere = managedTaskFields(b);
    if (taskFields !== undefined && name in taskFields && name !== cr.retentionField && name !== idField && !managedHere.has(name)) {
      report(
        "MTG060",
        "warning",
        `field '${name}' of the task request type ${creationType} has the name of a task field, but a task does not start with the requested value (its own fields start with their defaults and are set by the work); rename one of them, or have the work copy it (ctx.setFields)`,
        ["types", creationType!, "fields", name],
      );
    }
  }
  // What a guard can read: the task's own fields (the work sets them) and its count of unanswered inputs.
  if (taskFields !== undefined) {
    const managed = managedTaskFields(b);
    const readable = new Set(["pendingInputs", ...Object.keys(taskFields).filter((f) => !managed.has(f))]);
    // One diagnostic per field read, at its first guard (a spec may hold thousands of guards).
    const unreadable = new Map<string, string[]>();
    for (const [name, g] of Object.entries(spec.guards ?? {})) {
      if (!readable.has(g.field)) unreadable.set(g.field, [...(unreadable.get(g.field) ?? []), name]);
    }
    for (const [fieldName, guards] of unreadable) {
      const others = guards.length > 1 ? ` (so do ${guards.length - 1} other guard${guards.length > 2 ? "s" : ""}: ${guards.slice(1, 4).join(", ")}${guards.length > 4 ? ", ..." : ""})` : "";
      report(
        "MTG061",
        "error",
        `guard '${guards[0]}' reads '${fieldName}'${others}, which the runtime never gives a guard, so its transitions could never happen: a guard reads pendingInputs or a field of the task type that the work sets (${[...readable].join(", ")})${suggest(fieldName, readable)}`,
        ["guards", guards[0]!, "field"],
      );
    }
  }
  // The status field carries a state: its type is the status enum.
  const statusDecl = taskFields?.[statusField];
  if (statusDecl !== undefined) {
    const named = typeof statusDecl === "string" ? statusDecl.replace(/\?$/, "") : statusDecl.type === "ref" ? statusDecl.ref : undefined;
    // A status-dependent task type (a union) pins each variant's status to a state or a few.
    const pinned =
      typeof statusDecl !== "string" &&
      ((statusDecl.type === "literal" && typeof statusDecl.value === "string" && stateNames.has(statusDecl.value)) ||
        (statusDecl.type === "enum" && statusDecl.values.every((v) => stateNames.has(v))));
    if (named !== statusType && !pinned) {
      report(
        "MTG061",
        "error",
        `the status field '${statusField}' of the task type must have the status type ${statusType} (the runtime writes a state name into it), not ${typeof statusDecl === "string" ? statusDecl : statusDecl.type}`,
        ["types", taskType, "fields", statusField],
      );
    }
  }
  checkOperations(spec, report, { idField, taskType, stateNames, errorNames });
  checkEvents(spec, report, stateNames);
  checkSdkTaskShape(spec, report, taskFields, taskType);
  checkSdkCapabilityKeys(spec, report);
  if (b.retention) {
    field(b.retention.field, [...B, "retention", "field"]);
    ref("error", b.retention.expiredError, [...B, "retention", "expiredError"]);
    if (b.retention.max < b.retention.default) {
      report("MTG011", "error", `retention.max (${b.retention.max}) is below retention.default (${b.retention.default})`, [...B, "retention", "max"]);
    }
  }
  if (b.polling) field(b.polling.field, [...B, "polling", "field"]);
  if (cr.retentionField !== undefined && !b.retention) {
    report("MTG060", "error", "creation.retentionField asks for a retention time, but the spec declares no `retention`; declare it or remove retentionField", [...crP, "retentionField"]);
  }

  const r = b.results;
  const rP = [...B, "results"];
  if (r.mode !== "inline") {
    need(r.method !== undefined, "method", rP, `results mode ${r.mode} needs the result method`);
    ref("method", r.method, [...rP, "method"]);
  } else {
    need(r.resultField !== undefined, "resultField", rP, "results mode inline needs the status field that carries the result");
    need(r.errorField !== undefined, "errorField", rP, "results mode inline needs the status field that carries the error");
  }
  if (r.mode === "error-until-completed") {
    need(r.notReadyError !== undefined, "notReadyError", rP, "results mode error-until-completed needs the error answered before completion");
  }
  ref("error", r.notReadyError, [...rP, "notReadyError"]);
  ref("error", r.cancelledError, [...rP, "cancelledError"]);

  const o = b.outcomes;
  for (const k of ["toolError", "protocolError", "unexpected"] as const) {
    ref("state", o[k], [...B, "outcomes", k]);
    if (stateNames.has(o[k]) && !spec.states[o[k]].terminal) {
      report("MTG011", "error", `outcomes.${k} must name a terminal state; '${o[k]}' is not`, [...B, "outcomes", k]);
    }
  }
  field(o.failureField, [...B, "outcomes", "failureField"]);
  field(o.statusMessageField, [...B, "outcomes", "statusMessageField"]);

  const c = b.cancellation;
  const cP = [...B, "cancellation"];
  if (c.via === "method") {
    need(c.method !== undefined, "method", cP, "cancellation via method needs the cancel method");
    ref("method", c.method, [...cP, "method"]);
  }
  if (c.terminal === "error") need(c.terminalError !== undefined, "terminalError", cP, "terminal: error needs the error to answer");
  ref("error", c.terminalError, [...cP, "terminalError"]);
  ref("method", c.deleteMethod, [...cP, "deleteMethod"]);
  (c.deletableStatuses ?? []).forEach((s, i) => ref("state", s, [...cP, "deletableStatuses", i]));
  if (!stateNames.has("cancelled") && ![...Object.values(spec.states)].some((s) => s.role === "cancelled")) {
    report("MTG060", "error", "cancellation needs a state with role cancelled", cP, true);
  }

  const inp = b.input || undefined;
  const iP = [...B, "input"];
  if (inp) {
  ref("state", inp.status, [...iP, "status"]);
  ref("state", inp.resume, [...iP, "resume"]);
  if (inp.via === "inline-poll") {
    need(inp.requestsField !== undefined, "requestsField", iP, "input via inline-poll needs the status field carrying input requests");
    need(inp.updateMethod !== undefined, "updateMethod", iP, "input via inline-poll needs the method that answers them");
    need(inp.responsesField !== undefined, "responsesField", iP, "input via inline-poll needs the params field carrying answers");
  }
  ref("method", inp.updateMethod, [...iP, "updateMethod"]);
  inp.requests.forEach((m, i) => {
    if (!CORE_REQUESTS.has(m) && !methodNames.has(m)) report("MTG022", "warning", `'${m}' is not a known MCP request${suggest(m, CORE_REQUESTS)}`, [...iP, "requests", i]);
  });
  }

  if (b.listing) {
    ref("method", b.listing.method, [...B, "listing", "method"]);
    ref("error", b.listing.invalidCursorError, [...B, "listing", "invalidCursorError"]);
    if (b.listing.maxPageSize < b.listing.pageSize) {
      report("MTG011", "error", `listing.maxPageSize (${b.listing.maxPageSize}) is below listing.pageSize (${b.listing.pageSize})`, [...B, "listing", "maxPageSize"]);
    }
  }
  if (b.statusNotifications) ref("method", b.statusNotifications.method, [...B, "statusNotifications", "method"]);
  if (b.relatedTask) {
    const rt = b.relatedTask;
    ref("meta", rt.meta, [...B, "relatedTask", "meta"]);
    rt.results.forEach((m, i) => ref("method", m, [...B, "relatedTask", "results", i]));
    (rt.notOnResults ?? []).forEach((m, i) => ref("method", m, [...B, "relatedTask", "notOnResults", i]));
    // The runtime names the related task as { taskId } (the related-task meta of every MCP revision),
    // whatever the task's own id field: a type that holds it otherwise would be broken by every message.
    const entry = Object.prototype.hasOwnProperty.call(spec.meta, rt.meta) ? spec.meta[rt.meta] : undefined;
    const t = entry?.type;
    const undeclared = typeof t === "string" && TYPE_NAME_LIKE.test(t) && !typeNames.has(t);
    if (entry !== undefined && t !== undefined && !undeclared && !(RELATED_TASK_ID in (fieldsOf(spec, t) ?? {}))) {
      report(
        "MTG061",
        "error",
        `the related-task meta '${rt.meta}' names its task in a field '${RELATED_TASK_ID}', which its type has not; give the type a '${RELATED_TASK_ID}: string' field`,
        ["meta", rt.meta, "type"],
      );
    }
  }
  ref("error", c.deleteRefusedError, [...cP, "deleteRefusedError"]);
  ref("error", b.notFoundError, [...B, "notFoundError"]);
  ref("error", b.internalError, [...B, "internalError"]);
  for (const side of ["server", "client"] as const) {
    const cap = b.capabilities[side];
    for (const m of Object.keys((cap && cap.gates) || {})) ref("method", m, [...B, "capabilities", side, "gates", m]);
    for (const m of Object.keys((cap && cap.augments) || {})) {
      if (!CORE_REQUESTS.has(m) && !methodNames.has(m)) {
        report("MTG022", "warning", `'${m}' is not a known MCP request${suggest(m, CORE_REQUESTS)}`, [...B, "capabilities", side, "augments", m]);
      }
    }
    if (cap) {
      (cap.requiredBy ?? []).forEach((m, i) => ref("method", m, [...B, "capabilities", side, "requiredBy", i]));
      ref("error", cap.missingError, [...B, "capabilities", side, "missingError"]);
      if (cap.requiredBy?.length) {
        need(cap.missingError !== undefined || cr.requiredTaskError !== undefined, "missingError", [...B, "capabilities", side], "methods in requiredBy need the error answered without the capability (or creation.requiredTaskError)");
      }
    }
  }
  if (spec.protocol.lifecycle === "per-request") {
    need(spec.protocol.protocolVersion !== undefined, "protocolVersion", ["protocol"], "lifecycle per-request puts the protocol version on every request");
  }
  if (b.http) {
    b.http.methods.forEach((m, i) => ref("method", m, [...B, "http", "methods", i]));
    ref("error", b.http.mismatchError, [...B, "http", "mismatchError"]);
  }
  if (b.unsupportedMethods) {
    ref("error", b.unsupportedMethods.error, [...B, "unsupportedMethods", "error"]);
    b.unsupportedMethods.methods.forEach((m, i) => {
      if (methodNames.has(m)) {
        report("MTG030", "error", `'${m}' is declared as a method and as unsupported; keep one`, [...B, "unsupportedMethods", "methods", i]);
      }
    });
  }
  // --- strings the generated code uses as names --------------------------------------
  if (b.http && !HTTP_TOKEN_RE.test(b.http.header)) {
    report(
      "MTG081",
      "error",
      `'${b.http.header}' is not an HTTP header name: use letters, digits and ! # $ % & ' * + - . ^ _ \` | ~ only (no spaces, and none of " ( ) , / : ; < = > ? @ [ \\ ] { }), e.g. Mcp-Task-Id`,
      [...B, "http", "header"],
    );
  }
  for (const [n, m] of Object.entries(spec.meta)) {
    if (!META_KEY_RE.test(m.key)) {
      report(
        "MTG082",
        "error",
        `'${m.key}' is not a \`_meta\` key MCP allows: write an optional prefix of dot-separated labels and a slash, then a name of letters, digits, - _ . that starts and ends with a letter or digit, e.g. io.modelcontextprotocol/related-task`,
        ["meta", n, "key"],
      );
    }
  }
  const dottedPath = (value: string | undefined, path: Path) => {
    if (value === undefined) return;
    const segs = value.split(".");
    if (!DOTTED_PATH_RE.test(value)) {
      report("MTG083", "error", `'${value}' is not a dotted path of identifiers: write names of letters, digits, _ and $ joined by dots, e.g. execution.taskSupport`, path);
    } else if (segs.some((x) => RESERVED_SEGMENTS.has(x))) {
      report("MTG031", "error", `'${value}' walks into '${segs.find((x) => RESERVED_SEGMENTS.has(x))}', which every JavaScript object has; rename that segment`, path);
    }
  };
  if (cr.toolSwitch) dottedPath(cr.toolSwitch.field, [...crP, "toolSwitch", "field"]);
  if (b.statusNotifications) dottedPath(b.statusNotifications.subscribeField, [...B, "statusNotifications", "subscribeField"]);
  for (const side of ["server", "client"] as const) {
    const cap = b.capabilities[side];
    if (!cap) continue;
    const segments = (list: readonly string[], path: Path) =>
      list.forEach((x, i) => {
        if (RESERVED_SEGMENTS.has(x)) {
          report("MTG031", "error", `'${x}' cannot be a path segment: every JavaScript object has it, so the runtime would find it declared; rename it`, [...path, i]);
        }
      });
    segments(cap.path, [...B, "capabilities", side, "path"]);
    for (const [m, p] of Object.entries(cap.gates ?? {})) segments(p, [...B, "capabilities", side, "gates", m]);
    for (const [m, p] of Object.entries(cap.augments ?? {})) segments(p, [...B, "capabilities", side, "augments", m]);
  }

  ref("error", b.limits.rateLimitError, [...B, "limits", "rateLimitError"]);
  ref("error", b.limits.concurrencyError, [...B, "limits", "concurrencyError"]);

  // --- examples ------------------------------------------------------------------
  (spec.examples ?? []).forEach((ex, i) => {
    if (ex.method !== undefined && !methodNames.has(ex.method)) {
      report("MTG071", "error", `example '${ex.name}' names undefined method '${ex.method}'${suggest(ex.method, methodNames)}; declare it under \`methods\` or fix the name`, ["examples", i, "method"]);
    }
    if (ex.type !== undefined && !allTypes.has(ex.type)) {
      report("MTG071", "error", `example '${ex.name}' names undefined type '${ex.type}'${suggest(ex.type, allTypes)}; declare it under \`types\` or fix the name`, ["examples", i, "type"]);
    }
    if ((ex.kind === "type" || ex.kind === "meta") && ex.type === undefined) {
      report("MTG060", "error", `example '${ex.name}' of kind ${ex.kind} needs \`type\``, ["examples", i], true);
    }
    if ((ex.kind === "request" || ex.kind === "result" || ex.kind === "notification") && ex.method === undefined) {
      report("MTG060", "error", `example '${ex.name}' of kind ${ex.kind} needs \`method\``, ["examples", i], true);
    }
  });

  // Methods nobody uses are worth a warning: a generated handler nobody wires is dead code.
  const { operations } = methodOperations(spec);
  const usedMethods = new Set<string>();
  const use = (m: string | false | undefined) => m && usedMethods.add(m);
  use(cr.ack.notification);
  use(r.method);
  use(c.method);
  use(c.deleteMethod);
  use(inp?.updateMethod);
  for (const m of operations.keys()) use(m);
  if (b.listing) use(b.listing.method);
  if (b.statusNotifications) use(b.statusNotifications.method);
  if (b.http) b.http.methods.forEach(use);
  if (b.relatedTask) b.relatedTask.results.forEach(use);
  if (b.statusNotifications && b.statusNotifications.subscribeMethod) use(b.statusNotifications.subscribeMethod);
  for (const side of ["server", "client"] as const) {
    const cap = b.capabilities[side];
    Object.keys((cap && cap.gates) || {}).forEach(use);
    if (cap) (cap.requiredBy ?? []).forEach(use);
  }
  let suggested: ReturnType<typeof suggestOperations> | undefined;
  const unnamedRequests = () => [...methodNames].filter((x) => !usedMethods.has(x) && spec.methods[x]!.kind === "request");
  for (const m of methodNames) {
    if (!usedMethods.has(m) && spec.methods[m]!.kind === "request") {
      const hint = (suggested ??= suggestOperations(spec, unnamedRequests(), new Set([...operations.values()].map((o) => o.operation)))).get(m)!;
      const old = Object.values(spec.methods).every((x) => x.operation === undefined) ? "; specs written for mcp-task-gen 0.1 declare no operations, and since 0.2 each task request that no behaviour names says what it does" : "";
      report(
        "MTG067",
        "error",
        `request '${m}' declares no operation and no behaviour names it, so no server could answer it${old}; ${suggestionText(hint)}, or another operation (get, result, list, cancel, update, delete, transition, custom), or remove it`,
        ["methods", m],
        true,
      );
    } else if (!usedMethods.has(m)) {
      report("MTG064", "warning", `method '${m}' is declared but no behaviour uses it; reference it under \`behaviour\` or remove it`, ["methods", m], true);
    }
  }
}

// ---------------------------------------------------------------------------
// helpers over the raw spec
// ---------------------------------------------------------------------------

/** The member of the related-task meta that names the task. */
const RELATED_TASK_ID = "taskId";

function objectOf(spec: Spec, name: string) {
  const r = resolveShallow(spec, name);
  return r && typeof r !== "string" && r.type === "object" ? r : undefined;
}

/** Types on a cycle through required, non-nullable object fields (and refs, extends), each with its cycle. */
function requiredCycles(spec: Spec): [string, string[]][] {
  const has = (n: string) => Object.prototype.hasOwnProperty.call(spec.types, n);
  const needs = (t: TypeExpr): string[] => {
    if (typeof t === "string") {
      const p = parseShorthand(t);
      if (!p || p.arrayDepth > 0 || p.optional) return [];
      return has(p.base) ? [p.base] : [];
    }
    if (t.nullable || t.optional) return [];
    if (t.type === "ref") return has(t.ref) ? [t.ref] : [];
    if (t.type === "object") {
      return [...(t.extends ?? []).filter(has), ...Object.values(t.fields ?? {}).flatMap(needs)];
    }
    return []; // arrays, records and unions can end (empty array, other variant)
  };
  return cyclesOf(Object.keys(spec.types), (n) => [...new Set(needs(spec.types[n]!))]);
}

// ---------------------------------------------------------------------------
// Type depth, self-defined types, and names shared with the generated code
// ---------------------------------------------------------------------------

/** The deepest type expression generated validators and types can hold (TypeScript stops inferring further). */
export const MAX_TYPE_DEPTH = 32;

/** Where a type expression first gets deeper than MAX_TYPE_DEPTH, and how deep it is, if it does. */
function tooDeep(root: TypeExpr, rootPath: Path): { path: Path; depth: number } | undefined {
  const children = (t: TypeExpr, path: Path): [TypeExpr, Path][] => {
    if (typeof t === "string") return [];
    switch (t.type) {
      case "array":
        return [[t.items, [...path, "items"]]];
      case "record":
        return [[t.values, [...path, "values"]]];
      case "union":
        return t.variants.map((v, i): [TypeExpr, Path] => [v, [...path, "variants", i]]);
      case "object":
        return Object.entries(t.fields ?? {}).map(([n, f]): [TypeExpr, Path] => [f, [...path, "fields", n]]);
      default:
        return [];
    }
  };
  const memo = new Map<TypeExpr, number>();
  const depthOf = (t: TypeExpr): number => {
    if (typeof t === "string") return 1 + (parseShorthand(t)?.arrayDepth ?? 0);
    let d = memo.get(t);
    if (d === undefined) {
      d = 1 + children(t, []).reduce((max, [c]) => Math.max(max, depthOf(c)), 0);
      memo.set(t, d);
    }
    return d;
  };
  const total = depthOf(root);
  if (total <= MAX_TYPE_DEPTH) return undefined;
  // Follow the deepest branch down to the node below the limit (or the shorthand that crosses it).
  let at: [TypeExpr, Path] = [root, rootPath];
  for (let level = 1; level <= MAX_TYPE_DEPTH; level++) {
    const next = children(at[0], at[1]);
    if (next.length === 0) break;
    at = next.reduce((best, c) => (depthOf(c[0]) > depthOf(best[0]) ? c : best));
  }
  return { path: at[1], depth: total };
}

/** For each object type, the length of its longest chain of `extends` (1 without any). */
function extendsDepths(spec: Spec): Map<string, number> {
  return longestChains(Object.keys(spec.types), (n) => {
    const t = Object.prototype.hasOwnProperty.call(spec.types, n) ? spec.types[n] : undefined;
    return t && typeof t !== "string" && t.type === "object" ? (t.extends ?? []) : [];
  });
}

/** For each node, the number of nodes on its longest path (1 without successors), without recursion; a cycle ends a path. */
function longestChains(names: readonly string[], next: (n: string) => readonly string[]): Map<string, number> {
  const depth = new Map<string, number>();
  const open = new Set<string>();
  for (const root of names) {
    if (depth.has(root)) continue;
    const work: [string, number][] = [[root, 0]];
    open.add(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      const ps = next(top[0]);
      if (top[1] < ps.length) {
        const p = ps[top[1]++]!;
        if (!depth.has(p) && !open.has(p)) (open.add(p), work.push([p, 0]));
        continue;
      }
      work.pop();
      open.delete(top[0]);
      depth.set(top[0], 1 + ps.reduce((max, p) => Math.max(max, depth.get(p) ?? 0), 0));
    }
  }
  return depth;
}

/** The references a type is made of directly: named types it is, or is a union of (no object, list or record in between). */
function directRefs(spec: Spec, t: TypeExpr, acc: string[] = []): string[] {
  if (typeof t === "string") {
    const p = parseShorthand(t);
    if (p && p.arrayDepth === 0 && Object.prototype.hasOwnProperty.call(spec.types, p.base)) acc.push(p.base);
  } else if (t.type === "ref") {
    if (Object.prototype.hasOwnProperty.call(spec.types, t.ref)) acc.push(t.ref);
  } else if (t.type === "union") {
    for (const v of t.variants) directRefs(spec, v, acc);
  }
  return acc;
}

/**
 * Declared types that are their own definition: a cycle through references and
 * union variants only (with no object, list or record on the way), each with
 * the cycle it is on. Found with Tarjan's algorithm, without recursion.
 */
function selfDefined(spec: Spec): [string, string[]][] {
  return cyclesOf(Object.keys(spec.types), (n) => [...new Set(directRefs(spec, spec.types[n]!))]);
}

/**
 * The nodes on a cycle of a graph, each with the shortest cycle through it, in
 * time linear in the graph (plus the cycles reported).
 */
function cyclesOf(names: readonly string[], next: (n: string) => string[]): [string, string[]][] {
  const edges = new Map(names.map((n) => [n, next(n)]));
  const cyclic = new Set<string>();
  for (const scc of stronglyConnected(names, (n) => edges.get(n) ?? [])) {
    if (scc.length > 1 || (edges.get(scc[0]!) ?? []).includes(scc[0]!)) for (const n of scc) cyclic.add(n);
  }
  const out: [string, string[]][] = [];
  for (const name of names) {
    if (!cyclic.has(name)) continue;
    // The shortest way back to itself, for the message (breadth first, inside the cycle).
    const prev = new Map<string, string>();
    const queue = [name];
    let last: string | undefined;
    for (let qi = 0; qi < queue.length && last === undefined; qi++) {
      const n = queue[qi]!;
      for (const m of edges.get(n) ?? []) {
        if (!cyclic.has(m)) continue;
        if (m === name) {
          last = n;
          break;
        }
        if (!prev.has(m)) (prev.set(m, n), queue.push(m));
      }
    }
    const cycle = [name];
    for (let n = last; n !== undefined && n !== name; n = prev.get(n)) cycle.unshift(n);
    cycle.unshift(name);
    out.push([name, cycle]);
  }
  return out;
}

/**
 * Every type name of the spec becomes a top-level name of the output: the type
 * in types.ts, its zod schema `<Name>Schema` in validators.ts and its guard
 * `is<Name>` in guards.ts, and index.ts re-exports all of these modules with
 * `export *`. So none of them may be a name the output already declares (read
 * from the templates), nor a name another type of the spec produces.
 */
function checkGeneratedNames(spec: Spec, statusType: string, report: Report): void {
  const templates = templateTopLevelNames();
  const fixed = new Map<string, string>();
  const add = (file: string, names: Iterable<string> | undefined) => {
    for (const n of names ?? []) if (!fixed.has(n)) fixed.set(n, file);
  };
  for (const file of reexportedModules()) add(file, templates.get(file)?.exported);
  for (const file of ["types.ts", "guards.ts", "validators.ts"]) add(file, templates.get(file)?.bindings);
  add("guards.ts", [RESULT_OBJECT_GUARD]);

  interface Owner {
    what: string;
    path: Path;
    key: boolean;
  }
  const owners = new Map<string, Owner>();
  const clash = (n: string, owner: Owner, derived: string, transitions: boolean): string | undefined => {
    const subject = derived === n ? owner.what : `${owner.what} makes the generated name '${derived}', which`;
    if (BUILTINS_IN_TYPES.has(derived) || (transitions && BUILTINS_IN_TRANSITIONS.has(derived))) {
      return `${subject} is a TypeScript built-in the generated code refers to`;
    }
    const file = fixed.get(derived) ?? (transitions && templates.get("transitions.ts")?.bindings.has(derived) ? "transitions.ts" : undefined);
    if (file) return `${subject} is already declared by the generated ${file}`;
    if (PATTERN_NAME_RE.test(derived)) return `${subject} is the name of a pattern constant the generated guards.ts declares`;
    const other = owners.get(derived);
    if (other) return `${subject} is also the name generated for ${other.what}`;
    return undefined;
  };
  const claim = (n: string, owner: Owner, kinds: ("type" | "schema" | "guard")[], transitions = false) => {
    const derived = kinds.map((k) => (k === "type" ? n : k === "schema" ? schemaName(n) : guardName(n)));
    for (const d of derived) {
      const why = clash(n, owner, d, transitions);
      if (why) {
        report("MTG032", "error", `${why}; rename it`, owner.path, owner.key);
        return;
      }
    }
    for (const d of derived) owners.set(d, owner);
  };

  claim(statusType, { what: `status type '${statusType}'`, path: spec.statusType ? ["statusType"] : ["states"], key: !spec.statusType }, ["type", "schema", "guard"], true);
  const declared = new Set([...Object.keys(spec.types), statusType]);
  let emptyParams = false;
  for (const [m, def] of Object.entries(spec.methods)) {
    const names = generatedNames(m, def);
    const owner = (n: string): Owner => ({ what: `the type '${n}' of method '${m}'`, path: def.name ? ["methods", m, "name"] : ["methods", m], key: !def.name });
    // A generated name equal to a declared type's or another method's is MTG030 (above).
    if (!owners.has(names.messageName) && !declared.has(names.messageName)) claim(names.messageName, owner(names.messageName), ["type", "schema"]);
    for (const n of [names.paramsName, names.resultName]) {
      if (n !== undefined && !declared.has(n) && !owners.has(n)) claim(n, owner(n), ["type", "schema", "guard"]);
    }
    if (def.params === undefined) emptyParams = true;
  }
  for (const name of Object.keys(spec.types)) {
    if (name === statusType) continue; // reported as MTG030
    claim(name, { what: `type '${name}'`, path: ["types", name], key: true }, ["type", "schema", "guard"]);
  }
  if (emptyParams) {
    const taken = owners.get(EMPTY_PARAMS) ?? owners.get(schemaName(EMPTY_PARAMS)) ?? owners.get(guardName(EMPTY_PARAMS));
    if (taken) {
      report(
        "MTG032",
        "error",
        `${taken.what} is the name generated for the params of a method that declares none (${EMPTY_PARAMS}, ${schemaName(EMPTY_PARAMS)}, ${guardName(EMPTY_PARAMS)}); rename it`,
        taken.path,
        taken.key,
      );
    }
  }
}

// ---------------------------------------------------------------------------
// operations, events, task field defaults, the SDK underneath
// ---------------------------------------------------------------------------

/** The most states a spec may declare: measured, 300 type-check and 400 fail with TS2590 (union too complex). */
export const MAX_STATES = 300;

/** Methods of core MCP (2025-11-25 and 2026-07-28) that the SDK underneath serves or sends itself. */
const CORE_METHODS = new Set([
  ...["initialize", "ping", "server/discover", "tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list", "resources/read"],
  ...["resources/templates/list", "resources/subscribe", "resources/unsubscribe", "subscriptions/listen", "completion/complete", "logging/setLevel"],
  ...["sampling/createMessage", "elicitation/create", "roots/list"],
  ...["notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/message", "notifications/roots/list_changed"],
  ...["notifications/resources/updated", "notifications/resources/list_changed", "notifications/tools/list_changed", "notifications/prompts/list_changed"],
  "notifications/elicitation/complete",
]);

const SINGLE_OPERATIONS = new Set(["get", "result", "list", "cancel", "update", "delete"]);
/** Operations that address one task, whose params carry its id. */
const ADDRESSING_OPERATIONS = new Set(["get", "result", "cancel", "update", "delete", "transition"]);

function checkOperations(
  spec: Spec,
  report: Report,
  ctx: { idField: string; taskType: string; stateNames: Set<string>; errorNames: Set<string> },
): void {
  const { operations, conflicts } = methodOperations(spec);
  for (const c of conflicts) {
    report("MTG067", "error", `'${c.method}' declares operation ${c.declared}, but ${c.by} makes it the ${c.implied} operation; make them agree`, ["methods", c.method, "operation"]);
  }
  const holders = new Map<string, string>();
  for (const [method, m] of Object.entries(spec.methods)) {
    const path: Path = ["methods", method];
    if (m.kind === "notification") {
      if (m.operation !== undefined) report("MTG011", "error", "a notification has no operation (nobody answers it); remove `operation`", [...path, "operation"]);
      if (m.to !== undefined) report("MTG011", "error", "a notification has no transition; remove `to`", [...path, "to"]);
      continue;
    }
    const op = operations.get(method);
    if (m.to !== undefined && op?.operation !== "transition") {
      report("MTG011", "error", "`to` belongs to operation transition; remove it or set `operation: transition`", [...path, "to"]);
    }
    if (op === undefined) continue;
    if (SINGLE_OPERATIONS.has(op.operation)) {
      const prev = holders.get(op.operation);
      if (prev !== undefined) {
        report("MTG067", "error", `'${method}' and '${prev}' are both the ${op.operation} operation; a requestor could not tell which to call, so keep one`, [...path, ...(m.operation ? ["operation"] : [])], !m.operation);
      } else holders.set(op.operation, method);
    }
    if (op.operation === "transition") {
      if (m.to === undefined) report("MTG060", "error", "missing `to`: a transition operation names the state it moves the task to", path, true);
      else if (!ctx.stateNames.has(m.to)) report("MTG021", "error", `undefined state '${m.to}'${suggest(m.to, ctx.stateNames)}; declare it under \`states\``, [...path, "to"]);
      else {
        const into = spec.transitions.some((tr) => (Array.isArray(tr.to) ? tr.to : [tr.to]).includes(m.to!));
        if (!into) report("MTG067", "error", `no transition of the table leads to '${m.to}', so '${method}' could never succeed; add one under \`transitions\``, [...path, "to"]);
      }
    }
    if (ADDRESSING_OPERATIONS.has(op.operation) && m.params !== undefined) {
      const fields = fieldsOf(spec, m.params);
      if (fields !== undefined && !(ctx.idField in fields)) {
        report("MTG061", "error", `'${method}' addresses one task (operation ${op.operation}), but its params have no '${ctx.idField}' field to name it`, [...path, "params"]);
      }
    }
  }
  if (!holders.has("get") && spec.behaviour.results.mode !== "inline") {
    report(
      "MTG067",
      "warning",
      "no request is the get operation, so a requestor can only wait for a result, never read a task's status; mark one with `operation: get`",
      ["methods"],
      true,
    );
  }
}

function checkEvents(spec: Spec, report: Report, stateNames: Set<string>): void {
  const events = spec.behaviour.events;
  if (events === undefined) return;
  const edges = new Set<string>();
  for (const tr of spec.transitions) {
    for (const f of Array.isArray(tr.from) ? tr.from : [tr.from]) for (const t of Array.isArray(tr.to) ? tr.to : [tr.to]) edges.add(`${f}→${t}`);
  }
  for (const [event, state] of Object.entries(events) as [string, string | undefined][]) {
    if (state === undefined) continue;
    const path: Path = ["behaviour", "events", event];
    if (!stateNames.has(state)) {
      report("MTG021", "error", `undefined state '${state}'${suggest(state, stateNames)}; declare it under \`states\``, path);
      continue;
    }
    if (!spec.states[state]!.terminal) {
      report("MTG011", "error", `events.${event} must name a terminal state: the task ends there; '${state}' is not terminal`, path);
      continue;
    }
    // The event can happen in every state a task has not ended in (expiry, restart and cancellation) or
    // while its work runs (exception): each such state needs its transition, or the event could not apply.
    const from = Object.entries(spec.states)
      .filter(([n, s]) => !s.terminal && n !== state && (event !== "exception" || s.role === "running" || s.role === "input_required"))
      .map(([n]) => n);
    const missing = from.filter((f) => !edges.has(`${f}→${state}`));
    if (missing.length > 0) {
      report(
        "MTG068",
        "error",
        `events.${event} leads to '${state}', but the transition table has no ${missing.map((f) => `${f} → ${state}`).join(", ")}; the runtime applies events through the table, so add ${missing.length === 1 ? "it" : "them"}`,
        path,
      );
    }
  }
}

/** The task fields the task-augmented tools/call answer of the SDK 1.32 `Server` must carry (its CreateTaskResultSchema). */
const SDK_TASK_FIELDS = ["taskId", "status", "ttl", "createdAt", "lastUpdatedAt"];
const SDK_TASK_STATUSES = new Set(["working", "input_required", "completed", "failed", "cancelled"]);

/**
 * Under the initialize lifecycle the runtime sits on the SDK 1.32 `Server`, whose own tools/call
 * wrapper (used by `McpServer.registerTool`) checks any answer to a request carrying `params.task`
 * against its task shape. A spec that carries its task request there must give tasks that shape.
 */
function checkSdkTaskShape(spec: Spec, report: Report, taskFields: Record<string, TypeExpr> | undefined, taskType: string): void {
  const b = spec.behaviour;
  const cr = b.creation;
  if ((spec.protocol.lifecycle ?? "initialize") !== "initialize" || cr.via !== "param" || cr.param !== "task") return;
  if (!cr.requests.server.includes("tools/call") && !cr.requests.server.includes("*")) return;
  const problems: string[] = [];
  if (cr.ack.mode !== "result") problems.push("the answer must be `{ task }` (creation.ack.mode result)");
  if ((b.taskIdField ?? "taskId") !== "taskId") problems.push("the id must be in `taskId`");
  if ((b.statusField ?? "status") !== "status") problems.push("the status must be in `status`");
  if (!b.retention || b.retention.field !== "ttl") problems.push("the retention must be in `ttl` (behaviour.retention.field)");
  const missing = taskFields === undefined ? [] : SDK_TASK_FIELDS.filter((f) => !(f in taskFields));
  if (missing.length > 0) problems.push(`the task type '${taskType}' lacks ${missing.join(", ")}`);
  const early = Object.entries(spec.states).filter(([, s]) => s.initial || s.role === "running").map(([n]) => n);
  const odd = early.filter((n) => !SDK_TASK_STATUSES.has(n));
  if (odd.length > 0) problems.push(`a new task's status (${odd.join(", ")}) must be one of ${[...SDK_TASK_STATUSES].join(", ")}`);
  if (problems.length === 0) return;
  report(
    "MTG069",
    "error",
    `a task request carried in \`params.task\` of tools/call is checked by the SDK 1.32 Server underneath against its own task shape, and this spec's would fail it: ${problems.join("; ")}. Give tasks that shape, or carry the task request in another field (creation.param)`,
    ["behaviour", "creation", "param"],
  );
}

/** The capability keys the SDK 1.32 keeps when it reads the other side's capabilities (it drops any other). */
const SDK_CAPABILITY_KEYS = {
  server: ["experimental", "logging", "completions", "prompts", "resources", "tools", "tasks", "extensions"],
  client: ["experimental", "sampling", "elicitation", "roots", "tasks", "extensions"],
} as const;

/** The requests the per-request binding can serve as tasks. */
const PER_REQUEST_TASK_METHODS: readonly string[] = ["tools/call", "resources/read", "prompts/get"];

/** Under the initialize lifecycle a capability must live under a key the SDK 1.32 keeps, or the peer never sees it. */
function checkSdkCapabilityKeys(spec: Spec, report: Report): void {
  if (spec.protocol.lifecycle === "per-request") {
    // The per-request binding (on @modelcontextprotocol/server 2.x) runs as tasks the requests whose results that SDK
    // lets carry one; other requests it answers plainly.
    spec.behaviour.creation.requests.server.forEach((m, i) => {
      if (PER_REQUEST_TASK_METHODS.includes(m)) return;
      report(
        "MTG069",
        "error",
        `the per-request binding underneath serves only ${PER_REQUEST_TASK_METHODS.join(", ")} as tasks (the requests whose results @modelcontextprotocol/server 2.x lets carry one), so '${m}' would be advertised and never served as one; remove it, or use lifecycle initialize`,
        ["behaviour", "creation", "requests", "server", i],
      );
    });
    return;
  }
  for (const side of ["server", "client"] as const) {
    const cap = spec.behaviour.capabilities[side];
    if (!cap || cap.path.length === 0) continue;
    const keys: readonly string[] = SDK_CAPABILITY_KEYS[side];
    if (keys.includes(cap.path[0]!)) continue;
    report(
      "MTG069",
      "error",
      `the SDK 1.32 underneath drops ${side} capability keys it does not know, so '${cap.path[0]}' would never reach the peer; put the capability under one it keeps (${keys.join(", ")}), e.g. path: [experimental, ${cap.path[0]}]`,
      ["behaviour", "capabilities", side, "path", 0],
    );
  }
}

/** Why `value` cannot be the default of a field of type `t` (undefined when it can). */
function defaultProblem(spec: Spec, t: TypeExpr, value: unknown): string | undefined {
  if (value === null) return typeof t !== "string" && t.nullable ? undefined : "is null, but the field is not nullable";
  const r = resolveShallow(spec, t);
  if (r === undefined) return undefined;
  const kind = typeof r === "string" ? (parseShorthand(r)?.arrayDepth ? "array" : (parseShorthand(r)?.base ?? r)) : r.type;
  const is = (ok: boolean, what: string) => (ok ? undefined : `must be ${what}, not ${JSON.stringify(value)}`);
  switch (kind) {
    case "string":
      return is(typeof value === "string", "a string");
    case "integer":
      return is(Number.isSafeInteger(value), "an integer");
    case "number":
      return is(typeof value === "number" && Number.isFinite(value), "a number");
    case "boolean":
      return is(typeof value === "boolean", "true or false");
    case "enum":
      return typeof r !== "string" && r.type === "enum" ? is(typeof value === "string" && r.values.includes(value), `one of ${r.values.join(", ")}`) : undefined;
    case "literal":
      return typeof r !== "string" && r.type === "literal" ? is(value === r.value, JSON.stringify(r.value)) : undefined;
    case "array":
      return is(Array.isArray(value), "a list");
    case "object":
    case "record":
      return is(typeof value === "object" && !Array.isArray(value), "a mapping");
    default:
      return undefined;
  }
}
