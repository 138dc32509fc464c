/**
 * Names: keys JavaScript reserves, names the generated modules declare, and
 * spec strings the generated code uses as names (HTTP headers, `_meta` keys,
 * property paths).
 */
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
} from "../emit-names.js";
import { methodNames as generatedNames } from "../spec-helpers.js";
import type { Ctx, Path } from "./context.js";

/** Every mapping key `__proto__`, and every string value `__proto__`, in the document. */
export function reservedProto(data: unknown): { path: Path; key: boolean }[] {
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
/** The `_meta` keys MCP itself defines without a prefix. */
export const MCP_OWN_META_KEYS: ReadonlySet<string> = new Set(["progressToken"]);

/** Path segments that lead into an object's machinery rather than its data. */
const RESERVED_SEGMENTS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Every type name of the spec becomes a top-level name of the output: the type
 * in types.ts, its zod schema `<Name>Schema` in validators.ts and its guard
 * `is<Name>` in guards.ts, and index.ts re-exports all of these modules with
 * `export *`. So none of them may be a name the output already declares (read
 * from the templates), nor a name another type of the spec produces.
 */
export function checkGeneratedNames(ctx: Ctx): void {
  const { spec, report, statusType } = ctx;
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

/** Declared names that every JavaScript object already has. */
export function checkPrototypeNames(ctx: Ctx): void {
  const { spec, report } = ctx;
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
}

/** Spec strings the generated code uses as names: the HTTP header, `_meta` keys, property paths. */
export function checkNameStrings(ctx: Ctx): void {
  const { spec, report } = ctx;
  const b = spec.behaviour;
  const B: Path = ["behaviour"];
  const cr = b.creation;
  const crP = [...B, "creation"];
  if (b.http && !HTTP_TOKEN_RE.test(b.http.header)) {
    report(
      "MTG081",
      "error",
      `'${b.http.header}' is not an HTTP header name: use letters, digits and ! # $ % & ' * + - . ^ _ \` | ~ only (no spaces, and none of " ( ) , / : ; < = > ? @ [ \\ ] { }), e.g. Mcp-Task-Id`,
      [...B, "http", "header"],
    );
  }
  const metaByKey = new Map<string, string>();
  for (const [n, m] of Object.entries(spec.meta)) {
    if (!META_KEY_RE.test(m.key)) {
      report(
        "MTG082",
        "error",
        `'${m.key}' is not a \`_meta\` key MCP allows: write an optional prefix of dot-separated labels and a slash, then a name of letters, digits, - _ . that starts and ends with a letter or digit, e.g. io.modelcontextprotocol/related-task`,
        ["meta", n, "key"],
      );
    } else if (MCP_OWN_META_KEYS.has(m.key)) {
      report(
        "MTG082",
        "error",
        `'${m.key}' is MCP's own \`_meta\` key (the token a requestor gives to get progress notifications); an entry of the spec under it would be read as that token; give it a key of its own with a prefix, e.g. com.example/${m.key}`,
        ["meta", n, "key"],
      );
    }
    const other = metaByKey.get(m.key);
    if (other !== undefined) {
      report("MTG030", "error", `meta '${n}' has the key '${m.key}' of meta '${other}': one \`_meta\` entry cannot carry both; give each its own key`, ["meta", n, "key"]);
    } else metaByKey.set(m.key, n);
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
}
