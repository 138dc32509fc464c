/**
 * The pure core: source text in, diagnostics and virtual files out.
 * load → check → lower (analyze.ts) → emit → lay out → manifest (output.ts). Nothing here touches the disk
 * except reading the generator's own templates.
 */
import { analyze } from "./analyze.js";
import type { SourceFile } from "./load.js";
import { emitAnalysed, type CompileOptions, type CompileResult } from "./output.js";

export { analyze } from "./analyze.js";
export type { VirtualFile } from "./emit/index.js";
export { MANIFEST_FILE, sha256, type Manifest } from "./manifest.js";
export { emit, emitAnalysed, header, type CompileOptions, type CompileResult } from "./output.js";

export async function compile(source: SourceFile, opts: CompileOptions = {}): Promise<CompileResult> {
  return emitAnalysed(analyze(source), opts);
}
