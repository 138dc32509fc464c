/**
 * The names generated code declares, as data: the fixed top-level names of
 * every template, the modules index.ts re-exports, and how the emitters name
 * what comes from the spec. The emitters name things with these, and the
 * checker refuses spec names that would collide with them; neither imports
 * the other.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packageFolder } from "./package-folder.js";

/** The zod schema generated for a type (validators.ts). */
export const schemaName = (type: string) => `${type}Schema`;

/** The type guard generated for a type (guards.ts). */
export const guardName = (type: string) => `is${type}`;

/** The constant guards.ts declares for the n-th (from 1) distinct pattern of the spec. */
export const patternName = (n: number) => `PATTERN_${n}`;
/** Any name `patternName` makes. */
export const PATTERN_NAME_RE = /^PATTERN_\d+$/;

/** The type of the params of a method that declares none (with its schema and guard). */
export const EMPTY_PARAMS = "EmptyParams";

/** The guard guards.ts declares for the result of a request whose result type is not named. */
export const RESULT_OBJECT_GUARD = "isResultObject";

/** TypeScript built-ins that generated types.ts refers to by name (a type of the same name would hide them). */
export const BUILTINS_IN_TYPES: ReadonlySet<string> = new Set(["Array", "Record"]);
/** ... and those transitions.ts refers to, where the status type is imported by name. */
export const BUILTINS_IN_TRANSITIONS: ReadonlySet<string> = new Set(["Array", "Record", "Readonly", "Object", "Error", "String"]);

export function templatesDir(): string {
  return packageFolder("templates", "types.ts.hbs");
}

/** Names a module of the output declares at top level, as its template shows them. */
export interface TemplateNames {
  /** The names the module exports. */
  exported: Set<string>;
  /** Every top-level binding of the module (exported or not, imports included). */
  bindings: Set<string>;
}

let scanned: Map<string, TemplateNames> | undefined;

/**
 * The fixed top-level names of every generated module (by output path, e.g.
 * "types.ts"), read from the templates: what they declare, import and export
 * outside of Handlebars expressions. Names that come from the spec (types,
 * their schemas and guards, message types, pattern constants) are not in it;
 * the checker derives those with the functions below.
 */
export function templateTopLevelNames(): ReadonlyMap<string, TemplateNames> {
  if (scanned) return scanned;
  const out = new Map<string, TemplateNames>();
  const dir = templatesDir();
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".ts.hbs")).sort()) {
    // Without Handlebars tags, a template reads as the TypeScript it renders (names from the spec drop out).
    const src = readFileSync(join(dir, name), "utf8").replace(/\{\{\{?[^]*?\}?\}\}/g, "");
    const names: TemplateNames = { exported: new Set(), bindings: new Set() };
    for (const m of src.matchAll(/^(export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:const|let|var|function\*?|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm)) {
      names.bindings.add(m[2]!);
      if (m[1]) names.exported.add(m[2]!);
    }
    for (const m of src.matchAll(/^import\s+(?:type\s+)?(?:([A-Za-z_$][\w$]*)\s*,?\s*)?(?:\*\s+as\s+([A-Za-z_$][\w$]*)|\{([^}]*)\})?\s*from/gm)) {
      if (m[1]) names.bindings.add(m[1]);
      if (m[2]) names.bindings.add(m[2]);
      for (const spec of specifiers(m[3])) names.bindings.add(spec.renamed);
    }
    for (const m of src.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
      for (const spec of specifiers(m[1])) names.exported.add(spec.renamed);
    }
    out.set(name.slice(0, -".hbs".length), names);
  }
  scanned = out;
  return out;
}

/** `a, type b, c as d` → each name and the name it is bound or exported as (a, b, d). */
function specifiers(list: string | undefined): { name: string; renamed: string }[] {
  if (!list) return [];
  return list
    .split(",")
    .map((x) => x.replace(/\/\/.*$/gm, "").trim().replace(/^type\s+/, ""))
    .filter((x) => /^[A-Za-z_$][\w$]*(\s+as\s+[A-Za-z_$][\w$]*)?$/.test(x))
    .map((x) => {
      const [name, renamed] = x.split(/\s+as\s+/);
      return { name: name!, renamed: renamed ?? name! };
    });
}

/** The modules index.ts re-exports with `export *` (their exported names share one namespace). */
export function reexportedModules(): string[] {
  const src = readFileSync(join(templatesDir(), "index.ts.hbs"), "utf8");
  return [...src.matchAll(/^export\s+\*\s+from\s+"\.\/([\w.-]+)\.js"/gm)].map((m) => `${m[1]}.ts`);
}
