/** Statement mutants of ext-tasks. */
import type { Mutant, Unmutable } from "./mutant.js";

export const extMutants: Mutant[] = [];
export const extUnmutable: Unmutable[] = [];
