/**
 * Keeps user-owned handler files in step with the generated handler contract
 * (generator/emit/contract.ts), safely: TypeScript's parser finds where things are, and
 * the files are changed by inserting text only: every existing byte stays,
 * except the `// mcp-task-gen:` marker lines this module wrote itself (replaced
 * or removed once obsolete).
 *
 *  - A class that `implements ServerHandlers` gets a stub for every contract
 *    member it lacks (and an import of the names the stubs use).
 *  - A member of that class that the contract no longer has is marked with a
 *    comment; it stays, as plain code. Such a member is one any contract can
 *    have, or one typed by the contract's CustomOperations (a custom operation
 *    the spec no longer declares).
 *  - In a `defineTool({ ... })` call, a spec-specific tool member that the
 *    contract no longer has is marked; a tool that lacks a member the contract
 *    requires is marked too (the compiler reports it there; the choice is the
 *    user's, so no value is made up).
 *
 * Nothing else is touched: bodies, comments, formatting and members that are
 * not part of any contract (the user's own helpers) stay as they are. A file
 * that does not parse is left alone with a warning, and so is a file whose
 * update would not parse.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type * as Ts from "typescript";
import {
  KNOWN_MEMBERS,
  KNOWN_TOOL_MEMBERS,
  MARKER_RE,
  missingToolMemberMarker,
  removedMarker,
  STUB_VALUE_IMPORTS,
  type Contract,
} from "./emit/contract.js";

export interface UserFileUpdate {
  /** The file, relative to the project directory (forward slashes). */
  path: string;
  before: string;
  after: string;
  /** One line per change, for the user. */
  notes: string[];
}

export interface UserFilesReport {
  updates: UserFileUpdate[];
  /** Things the user should know that were not changed (a file that does not parse, no class to update, ...). */
  warnings: string[];
  /** Set when the files could not be read against the contract at all (TypeScript is missing). */
  unchecked?: string;
}

export interface UpdateOptions {
  contract: Contract;
  /** The project directory (paths in the report are relative to it). */
  projectDir: string;
  /** The user-owned handlers directory (absolute). */
  handlersDir: string;
  /** The generated contract module (absolute path of <out>/handlers.ts). */
  contractFile: string;
}

interface Edit {
  pos: number;
  /** Characters removed at pos (only ever a marker line of ours). */
  remove: number;
  text: string;
}


let typescript: typeof Ts | undefined;

/**
 * TypeScript's compiler (its parser only): from beside this package, else from the project it runs in (a
 * project that compiles TypeScript has it). Undefined when neither has it.
 */
async function loadTypeScript(projectDir: string): Promise<typeof Ts | undefined> {
  if (typescript) return typescript;
  const usable = (m: unknown) => {
    const ts = ((m as { default?: typeof Ts }).default ?? m) as typeof Ts;
    return typeof ts.createSourceFile === "function" ? ts : undefined;
  };
  try {
    typescript = usable(await import("typescript"));
  } catch {
    try {
      typescript = usable(createRequire(join(projectDir, "package.json"))("typescript"));
    } catch {
      return undefined;
    }
  }
  return typescript;
}

/** What to do when TypeScript (one with its compiler API) is missing. */
export const TYPESCRIPT_MISSING =
  "handler files not checked against the contract: that needs TypeScript's compiler API (typescript 5 or 6; 7 has none), which is not installed (npm install --save-dev typescript@5)";

/** The files the update reads: TypeScript sources under dir (not declarations, node_modules or dot entries), sorted. */
export function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listTs(full));
    else if (/\.(m|c)?tsx?$/.test(name) && !/\.d\.(m|c)?ts$/.test(name)) out.push(full);
  }
  return out;
}

/** The import specifier of the contract module from a file, e.g. "../tasks/handlers.js". */
export function contractSpecifier(fromFile: string, contractFile: string): string {
  let rel = relative(dirname(fromFile), contractFile).split(sep).join("/").replace(/\.(m|c)?tsx?$/, ".js");
  if (!rel.startsWith(".")) rel = `./${rel}`;
  return rel;
}

/** Plans the updates of every user-owned file under handlersDir; writes nothing. */
export async function planUserFileUpdates(o: UpdateOptions): Promise<UserFilesReport> {
  const report: UserFilesReport = { updates: [], warnings: [] };
  const shownDir = relative(o.projectDir, o.handlersDir).split(sep).join("/") || ".";
  if (!existsSync(o.handlersDir)) {
    // A misspelt folder is the likely cause: name a close one beside it.
    const parent = dirname(o.handlersDir);
    const siblings = existsSync(parent) ? readdirSync(parent, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name) : [];
    const { closest } = await import("./format.js");
    const guess = closest(basename(o.handlersDir), siblings);
    const near = guess === undefined ? "" : `; did you mean ${relative(o.projectDir, join(parent, guess)).split(sep).join("/")}/? (fix "handlers" in the configuration, or --handlers)`;
    report.warnings.push(`${shownDir}/ does not exist: no handler files to update${near}`);
    return report;
  }
  const tools = await planner(o.projectDir);
  if (!tools) return { ...report, unchecked: TYPESCRIPT_MISSING };
  let classes = 0;
  for (const file of listTs(o.handlersDir)) {
    const path = relative(o.projectDir, file).split(sep).join("/");
    const r = planFile(tools, o, file, path, readFileSync(file, "utf8"));
    classes += r.classes;
    if (r.warning !== undefined) report.warnings.push(r.warning);
    if (r.update !== undefined) report.updates.push(r.update);
  }
  if (classes === 0 && o.contract.members.length > 0) {
    report.warnings.push(
      `no class under ${shownDir}/ implements ServerHandlers; the contract of spec ${o.contract.spec} has: ${o.contract.members.map((m) => m.name).join(", ")}`,
    );
  }
  return report;
}

interface Planner {
  ts: typeof Ts;
}

async function planner(projectDir: string): Promise<Planner | undefined> {
  const ts = await loadTypeScript(projectDir);
  return ts && { ts };
}

/** Every node under `node`, depth first in source order, that `is` accepts. */
function descendants<T extends Ts.Node>(ts: typeof Ts, node: Ts.Node, is: (n: Ts.Node) => n is T): T[] {
  const out: T[] = [];
  const visit = (n: Ts.Node): void => {
    if (is(n)) out.push(n);
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(node, visit);
  return out;
}

function parse(ts: typeof Ts, path: string, text: string): Ts.SourceFile {
  const kind = /\.(m|c)?tsx$/.test(path) ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
}

/** The update of one file: stubs, markers and imports, as edits of its text. */
function planFile(
  { ts }: Planner,
  o: Pick<UpdateOptions, "contract" | "contractFile">,
  file: string,
  path: string,
  before: string,
): { classes: number; update?: UserFileUpdate; warning?: string } {
  let classes = 0;
  if (syntaxErrors(ts, path, before) > 0) {
    return { classes, warning: `${path}: does not parse; left as it is (fix it, then run npx mcp-task-gen again)` };
  }
  const sf = parse(ts, path, before);
  const start = (n: Ts.Node) => n.getStart(sf, true);
  const text = (n: Ts.Node) => n.getText(sf);
  const edits: Edit[] = [];
  const notes: string[] = [];
  const isAnchor = (n: Ts.Node) => ts.isStatement(n) || ts.isPropertyDeclaration(n) || ts.isPropertyAssignment(n);
  const imports = new Set<string>();
  const c = o.contract;
  const wanted = new Map(c.members.map((m) => [m.name, m]));

  // Classes that implement ServerHandlers.
  for (const cls of descendants(ts, sf, ts.isClassDeclaration)) {
    const implemented = (cls.heritageClauses ?? []).filter((h) => h.token === ts.SyntaxKind.ImplementsKeyword).flatMap((h) => h.types);
    if (!implemented.some((h) => /(^|\.)ServerHandlers$/.test(text(h.expression)))) continue;
    classes++;
    const className = cls.name?.text ?? "(anonymous class)";
    const present = new Map<string, Ts.ClassElement>();
    for (const m of cls.members) {
      if (ts.isPropertyDeclaration(m) || ts.isMethodDeclaration(m) || ts.isGetAccessorDeclaration(m)) {
        const n = text(m.name);
        if (!present.has(n)) present.set(n, m);
      }
    }
    for (const [name, node] of present) {
      if (wanted.has(name)) {
        markerEdits(before, start(node), name, undefined, edits);
      } else if (KNOWN_MEMBERS.includes(name) || answersCustomOperation(ts, sf, node)) {
        if (markerEdits(before, start(node), name, removedMarker(name, c.spec), edits)) {
          notes.push(`marked ${className}.${name}: no longer part of the contract of spec ${c.spec}`);
        }
      }
    }
    const missing = c.members.filter((m) => !present.has(m.name));
    if (missing.length > 0) {
      const indent = memberIndent(before, sf, cls);
      const stubs = missing.map((m) => m.stub.map((l) => (l === "" ? "" : indent + l)).join("\n"));
      edits.push(closingInsert(before, sf, cls, stubs.join("\n\n")));
      for (const m of missing) {
        m.imports.forEach((i) => imports.add(i));
        notes.push(`added a stub for ${className}.${m.name} (${m.method}), new in the contract of spec ${c.spec}`);
      }
    }
  }

  // defineTool({ ... }) calls.
  for (const call of descendants(ts, sf, ts.isCallExpression)) {
    if (!/(^|\.)defineTool$/.test(text(call.expression))) continue;
    const arg = call.arguments[0];
    if (!arg || !ts.isObjectLiteralExpression(arg)) continue;
    const props = new Map<string, Ts.ObjectLiteralElementLike>();
    for (const p of arg.properties) {
      if (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p) || ts.isMethodDeclaration(p)) props.set(text(p.name), p);
    }
    const toolName = literalText(ts, sf, props.get("name")) ?? "a tool";
    for (const [name, node] of props) {
      if (c.tool?.member === name) markerEdits(before, start(node), name, undefined, edits);
      else if (KNOWN_TOOL_MEMBERS.includes(name)) {
        if (markerEdits(before, start(node), name, removedMarker(name, c.spec, "tool contract"), edits)) {
          notes.push(`marked '${name}' of tool ${toolName}: no longer part of the tool contract of spec ${c.spec} (the compiler reports it)`);
        }
      }
    }
    // A required member the tool lacks: a marker above the statement that holds the call.
    let statement: Ts.Node = call;
    for (let up = call.parent; up && !isAnchor(statement); up = up.parent) {
      if (ts.isArrayLiteralExpression(up)) break;
      statement = up;
    }
    const lacks = c.tool?.required === true && !props.has(c.tool.member);
    if (markerEdits(before, start(statement), "", lacks ? missingToolMemberMarker(c.tool!, c.spec) : undefined, edits, true)) {
      if (lacks) notes.push(`marked tool ${toolName}: spec ${c.spec} asks every tool for '${c.tool!.member}' (the compiler reports it)`);
    }
  }

  // Imports the stubs need, as a new declaration after the last import.
  if (imports.size > 0) {
    const declarations = sf.statements.filter(ts.isImportDeclaration);
    const already = new Set(
      declarations.flatMap((d) => {
        const bindings = d.importClause?.namedBindings;
        return bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => e.name.text) : [];
      }),
    );
    const byName = (a: string, b: string) => a.localeCompare(b);
    const fresh = [...imports].filter((n) => !already.has(n));
    // Values first, then types, each sorted.
    const names = [...fresh.filter((n) => STUB_VALUE_IMPORTS.has(n)).sort(byName), ...fresh.filter((n) => !STUB_VALUE_IMPORTS.has(n)).sort(byName)];
    if (names.length > 0) {
      const spec = contractSpecifier(file, o.contractFile);
      const line = `import { ${names.map((n) => (STUB_VALUE_IMPORTS.has(n) ? n : `type ${n}`)).join(", ")} } from ${JSON.stringify(spec)};\n`;
      const last = declarations.at(-1);
      const pos = last ? lineEnd(before, last.end) : 0;
      // First in the list: at the same position, it goes above a marker.
      edits.unshift({ pos, remove: 0, text: last ? line : `${line}\n` });
    }
  }

  if (edits.length === 0) return { classes };
  const after = applyEdits(before, edits);
  if (syntaxErrors(ts, path, after) > 0) {
    return { classes, warning: `${path}: an update would not parse; left as it is (please report this): ${notes.join("; ")}` };
  }
  return after !== before ? { classes, update: { path, before, after, notes } } : { classes };
}

/**
 * A member that answers a custom operation: its parameters or its result are typed by the contract's
 * CustomOperations map, as the stub of one is (its name is the spec's, so no list knows it).
 */
function answersCustomOperation(ts: typeof Ts, sf: Ts.SourceFile, node: Ts.Node): boolean {
  if (!ts.isMethodDeclaration(node) && !ts.isGetAccessorDeclaration(node)) return false;
  const types = [...node.parameters.map((p) => p.type?.getText(sf) ?? ""), node.type?.getText(sf) ?? ""];
  return types.some((t) => /(^|[^\w.])CustomOperations\s*\[/.test(t));
}

/** The syntax errors of a file's text (what the parser reports; no types are read). */
function syntaxErrors(ts: typeof Ts, path: string, text: string): number {
  const fileName = /\.(m|c)?tsx$/.test(path) ? "file.tsx" : "file.ts";
  return ts.transpileModule(text, { fileName, reportDiagnostics: true, compilerOptions: { noLib: true } }).diagnostics?.length ?? 0;
}

function literalText(ts: typeof Ts, sf: Ts.SourceFile, node: Ts.Node | undefined): string | undefined {
  if (!node || !ts.isPropertyAssignment(node)) return undefined;
  const t = node.initializer.getText(sf);
  return /^["'`]/.test(t) ? t : undefined;
}

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf("\n", pos - 1) + 1;
}

function lineEnd(text: string, pos: number): number {
  const nl = text.indexOf("\n", pos);
  return nl === -1 ? text.length : nl + 1;
}

/**
 * Makes the marker lines directly above `start` say `marker` (or nothing):
 * our marker lines there (for `name`, or any with `anyOfOurs`) are replaced or
 * removed. Returns whether something changes.
 */
function markerEdits(text: string, start: number, name: string, marker: string | undefined, edits: Edit[], anyOfOurs = false): boolean {
  const at = lineStart(text, start);
  const indent = /^[ \t]*/.exec(text.slice(at))![0];
  // Our marker lines directly above (contiguous).
  const ours: { pos: number; len: number; text: string }[] = [];
  let cursor = at;
  while (cursor > 0) {
    const prev = lineStart(text, cursor - 1);
    const line = text.slice(prev, cursor - 1);
    const mine = MARKER_RE.test(line) && (anyOfOurs ? /asks every tool for/.test(line) : line.includes(`'${name}'`));
    if (!mine) break;
    ours.unshift({ pos: prev, len: cursor - prev, text: line.trim() });
    cursor = prev;
  }
  if (marker !== undefined && ours.length === 1 && ours[0].text === marker) return false;
  if (marker === undefined && ours.length === 0) return false;
  for (const o of ours) edits.push({ pos: o.pos, remove: o.len, text: "" });
  if (marker !== undefined) edits.push({ pos: at, remove: 0, text: `${indent}${marker}\n` });
  return true;
}

/** The indentation of the class's members (of the first one, else the class's own plus two spaces). */
function memberIndent(text: string, sf: Ts.SourceFile, cls: Ts.ClassDeclaration): string {
  const first = cls.members[0];
  const from = first ? first.getStart(sf, true) : cls.getStart(sf, true);
  const own = /^[ \t]*/.exec(text.slice(lineStart(text, from)))![0];
  return first ? own : `${own}  `;
}

/** Inserts members before the class's closing brace, after a blank line. */
function closingInsert(text: string, sf: Ts.SourceFile, cls: Ts.ClassDeclaration, body: string): Edit {
  const close = cls.end - 1;
  const at = lineStart(text, close);
  const beforeBrace = text.slice(at, close);
  const members = cls.members;
  if (/^[ \t]*$/.test(beforeBrace) && at > cls.getStart(sf)) {
    // `}` on its own line: insert whole lines above it.
    return { pos: at, remove: 0, text: `${members.length > 0 ? "\n" : ""}${body}\n` };
  }
  return { pos: close, remove: 0, text: `\n${body}\n` };
}

function applyEdits(text: string, edits: Edit[]): string {
  // Later positions first; at one position, removals before insertions (their order kept).
  const ordered = edits.map((e, i) => ({ e, i })).sort((a, b) => b.e.pos - a.e.pos || b.i - a.i);
  let out = text;
  for (const { e } of ordered) out = out.slice(0, e.pos) + e.text + out.slice(e.pos + e.remove);
  return out;
}
