/**
 * The paths of the spec format, read from its JSON Schema (spec/mcp-task-spec.schema.json):
 * `a.b` for a property, `a.*` for the value of a mapping of names (types, states, ...), `a[].b` for a
 * property of a list's items and `a=v` for each value of an enum (the runtime behaves differently per
 * value). The type-expression language, which appears wherever a type is declared, is listed once
 * under `<type>`: each place a type goes is a path of its own, what a type says is a `<type>.…` path.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

type Node = Record<string, unknown>;

/** The root of the type-expression group. */
export const TYPE_GROUP = "<type>";

/** The schema's definition of a type expression, and of a JSON value. */
const TYPE_REF = "#/$defs/__schema0";

export function formatPaths(root: string): string[] {
  const schema = JSON.parse(readFileSync(join(root, "spec/mcp-task-spec.schema.json"), "utf8")) as Node;
  const defs = schema.$defs as Record<string, Node>;
  const paths = new Set<string>();
  const walk = (node: Node, path: string): void => {
    const ref = node.$ref as string | undefined;
    if (ref !== undefined) return; // a type expression (listed once, under TYPE_GROUP) or a JSON value
    for (const k of ["anyOf", "oneOf"] as const) for (const branch of (node[k] as Node[] | undefined) ?? []) walk(branch, path);
    if (typeof node.const === "string" && path.endsWith(".type")) paths.add(`${path}=${node.const}`);
    const values = node.enum as unknown[] | undefined;
    if (values !== undefined && values.length > 1 && !path.endsWith("[]")) for (const v of values) paths.add(`${path}=${String(v)}`);
    for (const [name, sub] of Object.entries((node.properties as Record<string, Node> | undefined) ?? {})) {
      const p = path === "" ? name : `${path}.${name}`;
      paths.add(p);
      walk(sub, p);
    }
    const extra = node.additionalProperties;
    if (extra !== undefined && typeof extra === "object" && node.propertyNames !== undefined) {
      paths.add(`${path}.*`);
      walk(extra as Node, `${path}.*`);
    }
    if (node.items !== undefined) walk(node.items as Node, `${path}[]`);
  };
  walk(schema, "");
  paths.add(TYPE_GROUP);
  walk(defs[TYPE_REF.split("/").pop()!]!, TYPE_GROUP);
  return [...paths].sort();
}

/** Whether `prefix` is `path` or a prefix of it ending at a segment boundary (`.`, `[`, `=`). */
export function covers(prefix: string, path: string): boolean {
  return path === prefix || (path.startsWith(prefix) && ".[=".includes(path[prefix.length]!));
}

/** The last key a path names (`behaviour.listing.pageSize` → pageSize; `x.mode=inline` → inline; `<type>` → type). */
export function lastKey(path: string): string {
  if (path === TYPE_GROUP) return "type";
  const eq = path.indexOf("=");
  if (eq >= 0) return path.slice(eq + 1);
  const segs = path.replace(/\[\]/g, "").split(".").filter((s) => s !== "*");
  return segs[segs.length - 1]!;
}
