/** list-specs: the built-in specs, the default marked. */
import { builtinSpecs, DEFAULT_SPEC } from "../specs.js";
import type { Io } from "./shared.js";

export function listSpecsCmd(io: Io): number {
  for (const s of builtinSpecs()) io.out(`${s}${s === DEFAULT_SPEC ? " (default)" : ""}`);
  return 0;
}
