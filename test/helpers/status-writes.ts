/**
 * Where the runtime's sources write a task's status: read with the TypeScript checker, so that a write is
 * found by the type it writes, whatever its spelling. A write is
 * - an object literal with a `status` member (own or shorthand) whose type, as the literal is used, is a
 *   task's (TaskRecord or TaskPatch: a type with both `status` and `pendingInputs`), or
 * - an assignment to `.status` of a value of such a type.
 * `overrides` replaces the text of a file (a planted write, to show the check bites).
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export interface StatusWrite {
  file: string;
  line: number;
  text: string;
  /** The value written is another record's status, copied (`x.status`): what a store does when it persists. */
  copy: boolean;
}

const copied = (value: ts.Expression | undefined) => value !== undefined && ts.isPropertyAccessExpression(value) && value.name.text === "status";

function isTaskType(t: ts.Type | undefined): boolean {
  if (t === undefined) return false;
  const parts = t.isUnion() ? t.types : [t];
  return parts.some((p) => p.getProperty("status") !== undefined && p.getProperty("pendingInputs") !== undefined);
}

export function statusWrites(dir: string, overrides: ReadonlyMap<string, string> = new Map()): StatusWrite[] {
  const files = readdirSync(dir)
    .filter((n) => n.endsWith(".ts") && !n.endsWith(".d.ts"))
    .map((n) => join(dir, n));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => overrides.get(f) ?? read(f);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (f, lang, onError, fresh) => {
    const text = overrides.get(f);
    return text === undefined ? getSourceFile(f, lang, onError, fresh) : ts.createSourceFile(f, text, lang);
  };
  const program = ts.createProgram(files, options, host);
  const checker = program.getTypeChecker();
  const found: StatusWrite[] = [];
  for (const file of files) {
    const sf = program.getSourceFile(file);
    if (sf === undefined) continue;
    const report = (node: ts.Node, value: ts.Expression | undefined) => {
      const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
      found.push({ file: relative(dir, file), line: line + 1, text: node.getText(sf).split("\n")[0]!.slice(0, 160), copy: copied(value) });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isObjectLiteralExpression(node)) {
        const member = node.properties.find(
          (p) => (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === "status",
        );
        if (member !== undefined && (isTaskType(checker.getContextualType(node)) || isTaskType(checker.getTypeAtLocation(node)))) {
          // A literal that only reads a record's fields into another shape is not a write: its type decides.
          const contextual = checker.getContextualType(node);
          if (contextual === undefined || isTaskType(contextual)) report(member, ts.isPropertyAssignment(member) ? member.initializer : undefined);
        }
      }
      if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && node.left.name.text === "status") {
        if (isTaskType(checker.getTypeAtLocation(node.left.expression))) report(node, node.right);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}
