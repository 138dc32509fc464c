/**
 * The repository README's code blocks, as the tests that run them read them: a section is found by its
 * heading, and its blocks are taken as written.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./cli.js";

/** The text of the README's section under `heading` (a `## ` line), up to the next `## ` heading. */
export function readmeSection(heading: string): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "${heading}"`);
  const end = readme.indexOf("\n## ", start + heading.length + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The ```<lang> blocks of a README section, each without its fences. */
export function readmeBlocks(heading: string, lang: string): string[] {
  return [...readmeSection(heading).matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);
}

/**
 * The commands of a section's ```sh blocks, one argv per command: comments dropped, a line of
 * `a && b` split into its commands (none of them quotes a space).
 */
export function readmeCommands(heading: string): string[][] {
  return readmeBlocks(heading, "sh")
    .flatMap((block) => block.split("\n"))
    .map((line) => line.replace(/(^|\s)#.*$/, "").trim())
    .filter((line) => line !== "")
    .flatMap((line) => line.split(" && "))
    .map((command) => command.trim().split(/\s+/));
}
