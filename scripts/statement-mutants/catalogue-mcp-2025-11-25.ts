/** Statement mutants of mcp-2025-11-25. */
import type { Mutant, Unmutable } from "./mutant.js";

export const mcp2025Mutants: Mutant[] = [];
export const mcp2025Unmutable: Unmutable[] = [];
