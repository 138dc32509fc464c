/**
 * The front half of the compiler: load → check → lower, without the emitters. A command that only reads
 * a spec (validate, diff, conform's model) needs no more, and loads no template engine.
 */
import { check } from "./check/index.js";
import { hasErrors, sortDiagnostics, type Diagnostic } from "./diagnostics.js";
import { lower, type IR } from "./ir.js";
import { load, type SourceFile } from "./load.js";
import { GENERATOR_NAME, GENERATOR_VERSION } from "./version.js";

/** Load, check and lower a spec without emitting. */
export function analyze(source: SourceFile): { diagnostics: Diagnostic[]; ir?: IR } {
  const loaded = load(source);
  if (loaded.diagnostics.length > 0 || hasErrors(loaded.diagnostics)) {
    return { diagnostics: sortDiagnostics(loaded.diagnostics) };
  }
  const checked = check(loaded);
  const diagnostics = sortDiagnostics(checked.diagnostics);
  if (!checked.spec || hasErrors(diagnostics)) return { diagnostics };
  const ir = lower(checked.spec, {
    generator: { name: GENERATOR_NAME, version: GENERATOR_VERSION },
    file: source.file,
    sourceText: source.text,
  });
  return { diagnostics, ir };
}
