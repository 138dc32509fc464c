/**
 * Keeps user-owned handler files in step with the generated handler contract
 * (generator/emit/contract.ts), safely: ts-morph finds where things are, and
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
import type * as TsMorph from "ts-morph";
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
  /** Set when the files could not be read against the contract at all (ts-morph is missing). */
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


let tsMorph: typeof TsMorph | undefined;

/** The ts-morph range this generator is written against (an optional peer dependency, like the scaffold's). */
export const TS_MORPH_RANGE = "^28.0.0";

/**
 * ts-morph, an optional peer dependency (it brings its own TypeScript, most of an install's size): from
 * beside this package, else from the project it runs in. Undefined when neither has it.
 */
async function loadTsMorph(projectDir: string): Promise<typeof TsMorph | undefined> {
  if (tsMorph) return tsMorph;
  try {
    tsMorph = await import("ts-morph");
  } catch {
    try {
      const path = createRequire(join(projectDir, "package.json")).resolve("ts-morph");
      tsMorph = (await import(pathToFileURL(path).href)) as typeof TsMorph;
    } catch {
      return undefined;
    }
  }
  return tsMorph;
}

/** What to do when ts-morph is missing. */
export const TS_MORPH_MISSING = `handler files not checked against the contract: that needs ts-morph, which is not installed (npm install --save-dev ts-morph@${TS_MORPH_RANGE})`;

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
  if (!tools) return { ...report, unchecked: TS_MORPH_MISSING };
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
  project: TsMorph.Project;
  SyntaxKind: typeof TsMorph.SyntaxKind;
  Node: typeof TsMorph.Node;
}

async function planner(projectDir: string): Promise<Planner | undefined> {
  const m = await loadTsMorph(projectDir);
  if (!m) return undefined;
  const { Project, SyntaxKind, Node } = m;
  return { project: new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: false, noLib: true } }), SyntaxKind, Node };
}

/** The update of one file: stubs, markers and imports, as edits of its text. */
function planFile(
  { project, SyntaxKind, Node }: Planner,
  o: Pick<UpdateOptions, "contract" | "contractFile">,
  file: string,
  path: string,
  before: string,
): { classes: number; update?: UserFileUpdate; warning?: string } {
  let classes = 0;
  const sf = project.createSourceFile(`/p/${path}`, before, { overwrite: true });
  if (syntaxErrors(project, sf) > 0) {
    return { classes, warning: `${path}: does not parse; left as it is (fix it, then run npx mcp-task-gen again)` };
  }
  const edits: Edit[] = [];
  const notes: string[] = [];
  const isAnchor = (n: TsMorph.Node) => Node.isStatement(n) || Node.isPropertyDeclaration(n) || Node.isPropertyAssignment(n);
  const imports = new Set<string>();
  const c = o.contract;
  const wanted = new Map(c.members.map((m) => [m.name, m]));

  // Classes that implement ServerHandlers.
  for (const cls of sf.getDescendantsOfKind(SyntaxKind.ClassDeclaration)) {
    const implementsIt = cls.getImplements().some((h) => /(^|\.)ServerHandlers$/.test(h.getExpression().getText()));
    if (!implementsIt) continue;
    classes++;
    const className = cls.getName() ?? "(anonymous class)";
    const present = new Map<string, TsMorph.Node>();
    for (const m of cls.getMembers()) {
      if (Node.isPropertyDeclaration(m) || Node.isMethodDeclaration(m) || Node.isGetAccessorDeclaration(m)) {
        const n = m.getName();
        if (!present.has(n)) present.set(n, m);
      }
    }
    for (const [name, node] of present) {
      if (wanted.has(name)) {
        markerEdits(before, node.getStart(true), name, undefined, edits);
      } else if (KNOWN_MEMBERS.includes(name) || answersCustomOperation(node)) {
        if (markerEdits(before, node.getStart(true), name, removedMarker(name, c.spec), edits)) {
          notes.push(`marked ${className}.${name}: no longer part of the contract of spec ${c.spec}`);
        }
      }
    }
    const missing = c.members.filter((m) => !present.has(m.name));
    if (missing.length > 0) {
      const indent = memberIndent(before, cls);
      const stubs = missing.map((m) => m.stub.map((l) => (l === "" ? "" : indent + l)).join("\n"));
      edits.push(closingInsert(before, cls, stubs.join("\n\n")));
      for (const m of missing) {
        m.imports.forEach((i) => imports.add(i));
        notes.push(`added a stub for ${className}.${m.name} (${m.method}), new in the contract of spec ${c.spec}`);
      }
    }
  }

  // defineTool({ ... }) calls.
  for (const call of sf.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    if (!/(^|\.)defineTool$/.test(call.getExpression().getText())) continue;
    const arg = call.getArguments()[0];
    if (!arg || !Node.isObjectLiteralExpression(arg)) continue;
    const props = new Map<string, TsMorph.Node>();
    for (const p of arg.getProperties()) {
      if (Node.isPropertyAssignment(p) || Node.isShorthandPropertyAssignment(p) || Node.isMethodDeclaration(p)) props.set(p.getName(), p);
    }
    const toolName = literalText(props.get("name")) ?? "a tool";
    for (const [name, node] of props) {
      if (c.tool?.member === name) markerEdits(before, node.getStart(true), name, undefined, edits);
      else if (KNOWN_TOOL_MEMBERS.includes(name)) {
        if (markerEdits(before, node.getStart(true), name, removedMarker(name, c.spec, "tool contract"), edits)) {
          notes.push(`marked '${name}' of tool ${toolName}: no longer part of the tool contract of spec ${c.spec} (the compiler reports it)`);
        }
      }
    }
    // A required member the tool lacks: a marker above the statement that holds the call.
    let statement: TsMorph.Node = call;
    for (let up = call.getParent(); up && !isAnchor(statement); up = up.getParent()) {
      if (Node.isArrayLiteralExpression(up)) break;
      statement = up;
    }
    const lacks = c.tool?.required === true && !props.has(c.tool.member);
    if (markerEdits(before, statement.getStart(true), "", lacks ? missingToolMemberMarker(c.tool!, c.spec) : undefined, edits, true)) {
      if (lacks) notes.push(`marked tool ${toolName}: spec ${c.spec} asks every tool for '${c.tool!.member}' (the compiler reports it)`);
    }
  }

  // Imports the stubs need, as a new declaration after the last import.
  if (imports.size > 0) {
    const already = new Set(
      sf.getImportDeclarations().flatMap((d) => d.getNamedImports().map((n) => (n.getAliasNode() ?? n.getNameNode()).getText())),
    );
    const byName = (a: string, b: string) => a.localeCompare(b);
    const fresh = [...imports].filter((n) => !already.has(n));
    // Values first, then types, each sorted.
    const names = [...fresh.filter((n) => STUB_VALUE_IMPORTS.has(n)).sort(byName), ...fresh.filter((n) => !STUB_VALUE_IMPORTS.has(n)).sort(byName)];
    if (names.length > 0) {
      const spec = contractSpecifier(file, o.contractFile);
      const line = `import { ${names.map((n) => (STUB_VALUE_IMPORTS.has(n) ? n : `type ${n}`)).join(", ")} } from ${JSON.stringify(spec)};\n`;
      const last = sf.getImportDeclarations().at(-1);
      const pos = last ? lineEnd(before, last.getEnd()) : 0;
      // First in the list: at the same position, it goes above a marker.
      edits.unshift({ pos, remove: 0, text: last ? line : `${line}\n` });
    }
  }

  if (edits.length === 0) return { classes };
  const after = applyEdits(before, edits);
  const check = project.createSourceFile(`/p/${path}.check.ts`, after, { overwrite: true });
  if (syntaxErrors(project, check) > 0) {
    return { classes, warning: `${path}: an update would not parse; left as it is (please report this): ${notes.join("; ")}` };
  }
  return after !== before ? { classes, update: { path, before, after, notes } } : { classes };
}

/**
 * A member that answers a custom operation: its parameters or its result are typed by the contract's
 * CustomOperations map, as the stub of one is (its name is the spec's, so no list knows it).
 */
function answersCustomOperation(node: TsMorph.Node): boolean {
  const m = node as TsMorph.MethodDeclaration;
  if (typeof m.getParameters !== "function") return false;
  const types = [...m.getParameters().map((p) => p.getTypeNode()?.getText() ?? ""), m.getReturnTypeNode()?.getText() ?? ""];
  return types.some((t) => /(^|[^\w.])CustomOperations\s*\[/.test(t));
}

function syntaxErrors(project: TsMorph.Project, sf: TsMorph.SourceFile): number {
  return project.getProgram().compilerObject.getSyntacticDiagnostics(sf.compilerNode as never).length;
}

function literalText(node: TsMorph.Node | undefined): string | undefined {
  if (!node) return undefined;
  const init = (node as TsMorph.PropertyAssignment).getInitializer?.();
  const t = init?.getText();
  return t && /^["'`]/.test(t) ? t : undefined;
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
function memberIndent(text: string, cls: TsMorph.ClassDeclaration): string {
  const first = cls.getMembers()[0];
  const from = first ? first.getStart(true) : cls.getStart(true);
  const own = /^[ \t]*/.exec(text.slice(lineStart(text, from)))![0];
  return first ? own : `${own}  `;
}

/** Inserts members before the class's closing brace, after a blank line. */
function closingInsert(text: string, cls: TsMorph.ClassDeclaration, body: string): Edit {
  const close = cls.getEnd() - 1;
  const at = lineStart(text, close);
  const beforeBrace = text.slice(at, close);
  const members = cls.getMembers();
  if (/^[ \t]*$/.test(beforeBrace) && at > cls.getStart()) {
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
