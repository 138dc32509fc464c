/** The draws of composed specs (scripts/compose-specs.ts, test/spec-composer.test.ts): a base spec, compositions, choices. */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import type { Draw } from "../test/helpers/compose-run.js";
import { ALL_KINDS } from "../test/helpers/spec-composer.js";

export const BASES = [
  "sep-1686-draft",
  "mcp-2025-11-25",
  "ext-tasks-2026-07-28",
  ...readdirSync(join(fileURLToPath(new URL("..", import.meta.url)), "test/fixtures/specs"))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => `test/fixtures/specs/${f}`),
];

/** `n` draws of seed `s`, their compositions taken from `kinds` (every kind unless told). */
export function draws(n: number, s: number, kinds: readonly string[] = ALL_KINDS): Draw[] {
  return fc.sample(
    fc.record({
      base: fc.constantFrom(...BASES),
      kinds: fc.array(fc.constantFrom(...kinds), { minLength: 2, maxLength: 5 }),
      choices: fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 12, maxLength: 12 }),
    }),
    { seed: s, numRuns: n },
  );
}

