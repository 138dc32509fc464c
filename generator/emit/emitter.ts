/**
 * What an emitter is: a pure function of the IR to virtual files. The emitters
 * (index.ts and the modules it gathers) share these types from here, so that
 * none of them imports another to name them.
 */
import type { IR } from "../ir.js";

export interface VirtualFile {
  path: string;
  contents: string;
}

export interface Emitter {
  name: string;
  emit(ir: IR, env: EmitEnv): VirtualFile[];
}

export interface EmitEnv {
  header: string;
  render(template: string, context: object): string;
}
