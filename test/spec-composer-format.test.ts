/**
 * The compositions drawn from the coverage matrix (test/helpers/spec-composer-format.ts), each applied to every
 * base spec the composer starts from: each one acts on some base (it is not a no-op everywhere), and every spec it
 * composes validates or is refused with located errors (the long run and the CI sample then serve the valid ones).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { hasErrors } from "../generator/diagnostics.js";
import { analyze } from "../generator/pipeline.js";
import { BASES } from "../scripts/compose-specs-draws.js";
import { ROOT } from "./helpers/cli.js";
import { FORMAT_COMPOSE } from "./helpers/spec-composer-format.js";
import { dump, Rand, type Doc } from "./helpers/spec-mutants.js";

const file = (base: string) => (base.includes("/") ? join(ROOT, base) : join(ROOT, "spec", `${base}.yaml`));
const texts = new Map(BASES.map((b) => [b, readFileSync(file(b), "utf8")]));
const CHOICES = [
  [0.1, 0.3, 0.5, 0.7, 0.9, 0.2],
  [0.95, 0.6, 0.05, 0.4, 0.8, 0.35],
];

describe("the matrix's compositions, on every base", () => {
  for (const [kind, compose] of Object.entries(FORMAT_COMPOSE)) {
    it(`${kind}: acts on some base, and each spec it makes validates or is refused with located errors`, () => {
      let acted = 0;
      for (const base of BASES)
        for (const choices of CHOICES) {
          const doc = parse(texts.get(base)!) as Doc;
          const what = compose(doc, new Rand(choices));
          if (what.includes("(no-op)")) continue;
          acted++;
          const { diagnostics } = analyze({ file: "composed.yaml", text: dump(doc, false) });
          if (hasErrors(diagnostics)) {
            const unlocated = diagnostics.filter((d) => d.severity === "error" && d.location === undefined);
            expect(unlocated, `${base}: ${what}`).toEqual([]);
          }
        }
      expect(acted, kind).toBeGreaterThan(0);
    });
  }
});
