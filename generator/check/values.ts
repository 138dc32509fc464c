/**
 * Values a spec declares together with their type (a capability's value and its `type`): the value is what
 * the runtime sends, the type what the spec promises it is, so the one must fit the other.
 */
import { PRIMITIVES, type Spec, type TypeExpr } from "../format.js";
import { fieldsOf, parseShorthand, resolveShallow } from "../spec-helpers.js";
import { managedTaskFields } from "../task-shape.js";
import type { Ctx, Path } from "./context.js";
import type { TaskInfo } from "./task.js";

/** How deep a value is followed into its type (a declared value is small). */
const MAX_DEPTH = 32;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function optionalField(t: TypeExpr): boolean {
  return typeof t === "string" ? t.endsWith("?") : t.optional === true || t.default !== undefined;
}

/** Why `v` does not fit `t`, with where in `v` (undefined when it fits, or cannot be told). */
export function valueMisfit(spec: Spec, t: TypeExpr, v: unknown, at = "", depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const where = at === "" ? "the value" : `'${at}'`;
  const r = resolveShallow(spec, t);
  if (r === undefined) return undefined;
  if (typeof r === "string") {
    const p = parseShorthand(r);
    if (p === undefined) return undefined;
    if (p.arrayDepth > 0) {
      if (!Array.isArray(v)) return `${where} is not a list`;
      const inner = r.replace(/\?$/, "").slice(0, -2);
      for (const [i, x] of v.entries()) {
        const m = valueMisfit(spec, inner, x, `${at}[${i}]`, depth + 1);
        if (m !== undefined) return m;
      }
      return undefined;
    }
    if (!(PRIMITIVES as readonly string[]).includes(p.base)) return undefined;
    const ok: Record<string, (x: unknown) => boolean> = {
      string: (x) => typeof x === "string",
      integer: (x) => Number.isSafeInteger(x),
      number: (x) => typeof x === "number",
      boolean: (x) => typeof x === "boolean",
      null: (x) => x === null,
      object: isObject,
      unknown: () => true,
    };
    return ok[p.base]!(v) ? undefined : `${where} is not ${/^[aeiou]/.test(p.base) ? "an" : "a"} ${p.base}`;
  }
  if (v === null) return r.nullable || r.type === "null" || r.type === "unknown" ? undefined : `${where} is null, which its type does not allow`;
  switch (r.type) {
    case "string":
    case "boolean":
      return typeof v === r.type ? undefined : `${where} is not a ${r.type}`;
    case "integer":
    case "number":
      return typeof v === "number" && (r.type === "number" || Number.isSafeInteger(v)) ? undefined : `${where} is not ${r.type === "integer" ? "an integer" : "a number"}`;
    case "enum":
      return typeof v === "string" && r.values.includes(v) ? undefined : `${where} is not one of ${r.values.join(", ")}`;
    case "literal":
      return v === r.value ? undefined : `${where} is not ${JSON.stringify(r.value)}`;
    case "array": {
      if (!Array.isArray(v)) return `${where} is not a list`;
      for (const [i, x] of v.entries()) {
        const m = valueMisfit(spec, r.items, x, `${at}[${i}]`, depth + 1);
        if (m !== undefined) return m;
      }
      return undefined;
    }
    case "record": {
      if (!isObject(v)) return `${where} is not a mapping`;
      for (const [k, x] of Object.entries(v)) {
        const m = valueMisfit(spec, r.values, x, at === "" ? k : `${at}.${k}`, depth + 1);
        if (m !== undefined) return m;
      }
      return undefined;
    }
    case "union":
      return r.variants.some((x) => valueMisfit(spec, x, v, at, depth + 1) === undefined) ? undefined : `${where} fits none of the variants of its type`;
    case "object": {
      if (!isObject(v)) return `${where} is not a mapping`;
      const fields = fieldsOf(spec, r) ?? {};
      for (const [name, ft] of Object.entries(fields)) {
        const key = at === "" ? name : `${at}.${name}`;
        if (!Object.prototype.hasOwnProperty.call(v, name)) {
          if (!optionalField(ft)) return `'${key}' is missing, which its type requires`;
          continue;
        }
        const m = valueMisfit(spec, ft, v[name], key, depth + 1);
        if (m !== undefined) return m;
      }
      if (r.strict) {
        const extra = Object.keys(v).find((k) => !Object.prototype.hasOwnProperty.call(fields, k));
        if (extra !== undefined) return `'${at === "" ? extra : `${at}.${extra}`}' is not a field of its strict type`;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Each capability's declared value fits its declared type: the value is what goes on the wire. */
export function checkCapabilityValues(ctx: Ctx): void {
  const { spec, report } = ctx;
  for (const side of ["server", "client"] as const) {
    const cap = spec.behaviour.capabilities[side];
    if (!cap || cap.type === undefined) continue;
    const m = valueMisfit(spec, cap.type, cap.value);
    if (m === undefined) continue;
    report(
      "MTG074",
      "error",
      `the ${side} capability's value does not fit its declared type: ${m}; the value is what the runtime declares on the wire, so change it (or the type) until it fits`,
      ["behaviour", "capabilities", side, "value"],
    );
  }
}

/** The types a type expression's fields may be inherited from (its `extends`, followed). */
function extendsChain(spec: Spec, name: string, seen = new Set<string>()): Set<string> {
  if (seen.has(name) || !Object.prototype.hasOwnProperty.call(spec.types, name)) return seen;
  seen.add(name);
  const t = spec.types[name]!;
  if (typeof t !== "string" && t.type === "object") for (const e of t.extends ?? []) extendsChain(spec, e, seen);
  return seen;
}

/**
 * A `default` is what a new task starts a field of its own with: the runtime applies no other. A default
 * anywhere else (another type, a field the runtime fills, a method's params) would be a promise nobody keeps.
 */
export function checkDefaults(ctx: Ctx, task: TaskInfo): void {
  const { spec, report } = ctx;
  const managed = managedTaskFields(spec.behaviour);
  const taskObject = (() => {
    const t = spec.types[task.taskType];
    return t !== undefined && typeof t !== "string" && t.type === "object";
  })();
  // A task type that is a union of status shapes keeps its own fields in the object `Task` (the runtime reads them there).
  const taskShape = (() => {
    const t = spec.types.Task;
    return t !== undefined && typeof t !== "string" && t.type === "object";
  })();
  const owners = taskObject ? extendsChain(spec, task.taskType) : taskShape ? extendsChain(spec, "Task") : new Set<string>();
  const cr = spec.behaviour.creation;
  const creationType = cr.via === "param" && typeof cr.paramType === "string" ? cr.paramType.replace(/\?$/, "") : undefined;
  let reported = 0;
  const walk = (t: TypeExpr | undefined, path: Path, depth: number): void => {
    if (t === undefined || typeof t === "string" || depth > MAX_DEPTH || reported >= 20) return;
    if (t.default !== undefined) {
      const [root, owner, fields, field] = path;
      const own = root === "types" && path.length === 4 && fields === "fields" && owners.has(owner as string) && !managed.has(field as string);
      // A required field of the task request type with a default is reported with the task request (task.ts).
      const requestRequired = root === "types" && owner === creationType && path.length === 4 && t.optional !== true && t.nullable !== true;
      if (!own && !requestRequired) {
        reported++;
        const what = path.length >= 4 && path[path.length - 2] === "fields" ? `field '${String(path[path.length - 1])}'` : "this type";
        const why = root === "types" && owners.has(owner as string) && managed.has(field as string) ? "the runtime fills this field itself" : "only the task type's own fields start with a default";
        report("MTG070", "error", `${what} has a default, but ${why} and nothing applies this one; remove it (say it in the description)`, [...path, "default"]);
      }
    }
    switch (t.type) {
      case "object":
        for (const [name, f] of Object.entries(t.fields ?? {})) walk(f, [...path, "fields", name], depth + 1);
        break;
      case "array":
        walk(t.items, [...path, "items"], depth + 1);
        break;
      case "record":
        walk(t.values, [...path, "values"], depth + 1);
        break;
      case "union":
        t.variants.forEach((v, i) => walk(v, [...path, "variants", i], depth + 1));
        break;
      default:
        break;
    }
  };
  for (const [name, t] of Object.entries(spec.types)) walk(t, ["types", name], 0);
  for (const [name, m] of Object.entries(spec.methods)) {
    walk(m.params, ["methods", name, "params"], 0);
    walk(m.result, ["methods", name, "result"], 0);
  }
  for (const [name, e] of Object.entries(spec.errors)) {
    walk(e.data, ["errors", name, "data"], 0);
    for (const [k, c] of Object.entries(e.context ?? {})) walk(c, ["errors", name, "context", k], 0);
  }
  for (const [name, m] of Object.entries(spec.meta)) walk(m.type, ["meta", name, "type"], 0);
}
