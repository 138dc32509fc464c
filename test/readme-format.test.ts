/**
 * The generated README is printed by the generator itself (tidyMarkdown in
 * generator/formatter.ts), not by prettier: on every built-in spec it is the
 * very text prettier's markdown printer makes of the rendered README, and with
 * hostile strings in the places the README shows spec text it reads the same
 * as prettier's (prettier makes the same text of both), keeps every table's
 * columns, and printing it again changes nothing.
 */
import { format } from "prettier";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { tidyMarkdown } from "../generator/formatter.js";
import { compile } from "../generator/pipeline.js";
import { builtinSpecs, resolveSpec } from "../generator/specs.js";
import { ROOT } from "./helpers/cli.js";

const prettierMarkdown = (text: string) => format(text, { parser: "markdown", printWidth: 110, endOfLine: "lf", proseWrap: "preserve" });

async function rawReadme(source: { file: string; text: string }): Promise<string | undefined> {
  const r = await compile(source, { emitters: ["readme"], format: false });
  return r.files?.find((f) => f.path === "README.md")?.contents;
}

/** Cells per table row, escaped pipes aside. */
const columns = (md: string) =>
  md
    .split("\n")
    .filter((l) => l.startsWith("|"))
    .map((l) => l.replace(/\\./g, "").split("|").length);

const HOSTILE = [
  "a | b",
  "``double`` and `single` and `",
  "trailing \\",
  "漢字 and 🎉 are wide",
  "*em* _u_ **b** [link](http://x) <b>",
  "```",
  "\n# not a heading",
  "\u2028x\u0000",
];

describe("the README, printed without prettier", () => {
  for (const spec of builtinSpecs()) {
    it(`${spec}: the same text as prettier's markdown printer`, async () => {
      const r = resolveSpec(spec, ROOT);
      if (!r.ok) throw new Error(r.message);
      const raw = await rawReadme(r.source);
      expect(raw).toBeDefined();
      const tidy = tidyMarkdown(raw!);
      expect(tidy).toBe(await prettierMarkdown(raw!));
      const { files } = await compile(r.source, { emitters: ["readme"] });
      expect(files!.find((f) => f.path === "README.md")!.contents).toBe(tidy);
    });
  }

  it("spec text with Markdown syntax in it: read as prettier reads it, columns kept, stable", async () => {
    const r = resolveSpec("mcp-2025-11-25", ROOT);
    if (!r.ok) throw new Error(r.message);
    const doc = parseYaml(r.source.text);
    const slots: ((d: any, s: string) => void)[] = [
      (d, s) => (d.description = s),
      (d, s) => (d.states[Object.keys(d.states)[0]].description = s),
      (d, s) => (d.errors[Object.keys(d.errors)[0]].message = s),
      (d, s) => (d.protocol.source = s),
    ];
    let checked = 0;
    for (const set of slots) {
      for (const h of HOSTILE) {
        const d = structuredClone(doc);
        set(d, `pre ${h} post`);
        const raw = await rawReadme({ file: "mutant.json", text: JSON.stringify(d) });
        if (raw === undefined) continue;
        const tidy = tidyMarkdown(raw);
        const label = JSON.stringify(h);
        expect(await prettierMarkdown(tidy), label).toBe(await prettierMarkdown(raw));
        expect(columns(tidy), label).toEqual(columns(raw));
        expect(tidyMarkdown(tidy), label).toBe(tidy);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(HOSTILE.length * 2);
  });

  it("prints JSON blocks with short arrays on one line and long ones one item a line", () => {
    const long = Array.from({ length: 12 }, (_, i) => `item-number-${i}`);
    const md = "```json\n" + JSON.stringify({ a: ["x", "y"], b: long, c: {}, d: [], e: [{ f: 1 }] }, null, 2) + "\n```\n";
    const out = tidyMarkdown(md);
    expect(out).toContain('  "a": ["x", "y"],\n');
    expect(out).toContain('  "b": [\n    "item-number-0",\n');
    expect(out).toContain('  "c": {},\n  "d": [],\n  "e": [\n    {\n      "f": 1\n    }\n  ]\n');
    expect(JSON.parse(out.split("\n").slice(1, -2).join("\n"))).toEqual(JSON.parse(md.split("\n").slice(1, -2).join("\n")));
  });
});
