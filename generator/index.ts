/**
 * mcp-task-gen's programmatic API: the pure core (no disk writes).
 */
export { analyze, compile, emit, header, MANIFEST_FILE, type CompileOptions, type CompileResult, type Manifest, type VirtualFile } from "./pipeline.js";
export { formatInProcess, type Formatter } from "./formatter.js";
export { CODES, formatDiagnostic, hasErrors, type Code, type Diagnostic, type Location, type Severity } from "./diagnostics.js";
export { SpecSchema, specJsonSchema, type Spec, type TypeExpr } from "./format.js";
export { lower, type IR, type IRType } from "./ir.js";
export { load, type SourceFile } from "./load.js";
export { builtinSpecs, DEFAULT_SPEC, resolveSpec } from "./specs.js";
export { EMITTERS, type Emitter } from "./emit/index.js";
export { GENERATOR_VERSION } from "./version.js";
export { contractOf, type Contract } from "./emit/contract.js";
export { scaffold, type InitOptions, type Scaffold, type ScaffoldFile } from "./init.js";
export { planUserFileUpdates, type UserFileUpdate, type UserFilesReport } from "./update-user-files.js";
