/**
 * The generated README is printed by the generator itself (tidyMarkdown in
 * generator/formatter.ts), not by prettier: on every built-in spec it is the
 * very text prettier's markdown printer makes of the rendered README, and with
 * hostile strings in the places the README shows spec text it reads the same
 * as prettier's (prettier makes the same text of both), keeps every table's
 * columns, and printing it again changes nothing.
 *
 * The repository's own README.md and docs/*.md: the README a newcomer reads first is short and opens with
 * the commands and the two quick starts; every relative link reaches a file (and a heading) that exists.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
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

/** The documents of the repository: README.md and docs/*.md, as paths from the root. */
const DOCUMENTS = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** Lines outside fenced code blocks, with their 1-based numbers. */
function prose(md: string): [number, string][] {
  let fence = false;
  const out: [number, string][] = [];
  md.split("\n").forEach((line, i) => {
    if (line.trimStart().startsWith("```")) fence = !fence;
    else if (!fence) out.push([i + 1, line]);
  });
  return out;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");

function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, line] of prose(md)) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const s = slug(m[1]!);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n === 0 ? s : `${s}-${n}`);
  }
  return out;
}

describe("the repository's README.md and docs/*.md", () => {
  it("the README is short: at most 320 lines", () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(320);
  });

  it("the README opens with what it is, the install and test commands, then the two quick starts and the contents", () => {
    const readme = read("README.md");
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme);
    expect(firstBlock, "a sh block").not.toBeNull();
    expect(readme.indexOf(firstBlock![0])).toBeLessThan(readme.indexOf("\n## "));
    const commands = firstBlock![1]!.split("\n").map((l) => l.replace(/\s+#.*$/, "").trim());
    expect(commands).toContain("npm ci && npm run build && npx mcp-task-gen");
    expect(commands).toContain("npm ci && npm test");
    // The test command is the one CI runs.
    const ci = read(".ci/run");
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^npm test\b/m);
    const sections = prose(readme).flatMap(([, l]) => (/^## /.test(l) ? [l] : []));
    expect(sections.slice(0, 3)).toEqual(["## Quick start: a new server", "## Quick start: tasks for an existing server", "## Contents"]);
  });

  it("the README's contents list every file of docs/", () => {
    const readme = read("README.md");
    for (const doc of DOCUMENTS.filter((d) => d.startsWith("docs/"))) expect(readme, doc).toContain(`](${doc})`);
  });

  for (const file of DOCUMENTS) {
    it(`${file}: fences closed, one title, no heading level skipped, tables keep their columns, under 600 lines`, () => {
      const md = read(file);
      expect(md.split("\n").filter((l) => l.trimStart().startsWith("```")).length % 2).toBe(0);
      expect(md.split("\n").length).toBeLessThanOrEqual(600);
      const levels = prose(md).flatMap(([, l]) => (/^#{1,6} /.test(l) ? [/^#+/.exec(l)![0].length] : []));
      expect(levels[0]).toBe(1);
      expect(levels.filter((l) => l === 1)).toHaveLength(1);
      for (let i = 1; i < levels.length; i++) expect(levels[i]! - levels[i - 1]!, `heading ${i} of ${file}`).toBeLessThanOrEqual(1);
      // Each table: every row has the header's number of cells.
      const lines = prose(md);
      for (let i = 0; i < lines.length; i++) {
        if (!lines[i]![1].startsWith("|") || (i > 0 && lines[i - 1]![1].startsWith("|"))) continue;
        const header = columns(lines[i]![1]);
        for (let j = i; j < lines.length && lines[j]![1].startsWith("|"); j++) {
          expect(columns(lines[j]![1]), `${file}:${lines[j]![0]}`).toEqual(header);
        }
      }
    });
  }

  it("every relative link of README.md and docs/*.md reaches a file that exists, and a heading that exists in it", () => {
    const broken: string[] = [];
    for (const file of DOCUMENTS) {
      for (const [n, line] of prose(read(file))) {
        for (const m of line.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
          const target = m[1]!;
          if (/^[a-z]+:/i.test(target)) continue;
          const [path, anchor] = target.split("#") as [string, string | undefined];
          const to = path === "" ? file : normalize(join(dirname(file), path));
          if (!existsSync(join(ROOT, to))) broken.push(`${file}:${n} ${target}: no such file`);
          else if (anchor !== undefined && to.endsWith(".md") && !anchors(read(to)).has(anchor)) broken.push(`${file}:${n} ${target}: no such heading`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
