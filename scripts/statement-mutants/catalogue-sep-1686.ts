/** Statement mutants of sep-1686. */
import type { Mutant, Unmutable } from "./mutant.js";

export const sepMutants: Mutant[] = [];
export const sepUnmutable: Unmutable[] = [];
