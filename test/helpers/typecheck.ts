/**
 * Type-checks a project in-process with this repository's TypeScript, as
 * `tsc -p <dir> --noEmit` would, and returns its errors as file:line records.
 * A checker keeps its previous program, so a re-check reuses the parsed files
 * that did not change (the SDK's and zod's declarations above all).
 */
import { relative, sep } from "node:path";
import ts from "typescript";

export interface TsError {
  /** Relative to the project, forward slashes. */
  file: string;
  line: number;
  code: string;
  message: string;
}

export const where = (e: TsError) => `${e.file}:${e.line}`;

/**
 * `check()` reports every error of the project; `check(only)` the semantic
 * errors of the files `only` selects (plus every syntax and option error),
 * which spares checking the bodies of the other files (much faster: use it
 * for user files when the generated ones are known to type-check).
 */
export function checker(dir: string) {
  let old: ts.Program | undefined;
  return function check(only?: (file: string) => boolean): TsError[] {
    const configPath = ts.findConfigFile(dir, ts.sys.fileExists, "tsconfig.json");
    if (!configPath) throw new Error(`no tsconfig.json in ${dir}`);
    const parsed = ts.getParsedCommandLineOfConfigFile(configPath, { noEmit: true }, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    });
    if (!parsed) throw new Error(`cannot read ${configPath}`);
    const program = ts.createProgram({
      rootNames: parsed.fileNames,
      options: parsed.options,
      ...(old ? { oldProgram: old } : {}),
      configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
    });
    old = program;
    const diags = [
      ...program.getConfigFileParsingDiagnostics(),
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...program.getSyntacticDiagnostics(),
      ...(only
        ? program
            .getSourceFiles()
            .filter((f) => !f.isDeclarationFile && only(relative(dir, f.fileName).split(sep).join("/")))
            .flatMap((f) => program.getSemanticDiagnostics(f))
        : program.getSemanticDiagnostics()),
    ];
    return diags
      .filter((d) => d.category === ts.DiagnosticCategory.Error)
      .map((d) => {
        const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
        if (!d.file || d.start === undefined) return { file: "", line: 0, code: `TS${d.code}`, message };
        const { line } = d.file.getLineAndCharacterOfPosition(d.start);
        return { file: relative(dir, d.file.fileName).split(sep).join("/"), line: line + 1, code: `TS${d.code}`, message };
      })
      .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  };
}
