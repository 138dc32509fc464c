/**
 * The project's configuration: mcp-task-gen.config.{json,yaml,yml}, or package.json's "mcp-task-gen"
 * section (fastpath.ts finds it). A mistake in it is reported as MTG090 at file:line:col.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findConfig } from "../fastpath.js";
import { DEFAULT_OUT, DEFAULT_SPEC } from "../specs.js";
import type { TargetT } from "./shared.js";

async function configSchemas() {
  const { z } = await import("zod");
  const Target = z.strictObject({
    spec: z.string().min(1).default(DEFAULT_SPEC),
    out: z.string().min(1).default(DEFAULT_OUT),
    /** User-owned handler files kept in step with the generated contract (see generator/project.ts). */
    handlers: z.string().min(1).optional(),
  });
  const Targets = z.strictObject({ targets: z.array(Target).min(1) });
  return { Target, Targets };
}

// fastpath.ts reads the configuration the same way (readConfigPlain) and leaves anything not plainly valid to this.
export async function readConfig(cwd: string): Promise<{ targets: TargetT[]; file: string } | { error: string } | undefined> {
  const found = findConfig(cwd);
  if (found === undefined) return undefined;
  const file = found.file;
  let raw: unknown;
  let text: string | undefined;
  if ("raw" in found) raw = found.raw;
  else {
    try {
      text = readFileSync(found.path, "utf8");
      raw = file.endsWith(".json") ? JSON.parse(text) : (await import("yaml")).parse(text);
    } catch (e) {
      const where = text === undefined ? "1:1" : syntaxErrorAt(text, e as Error);
      // The parser's own words, without the excerpt the YAML parser appends (the location says where).
      const why = (e as Error).message
        .split(/:?\n\n/)[0]!
        .replace(/\s+/g, " ")
        // The location is given in front, once.
        .replace(/ (in JSON )?at position \d+( \(line \d+ column \d+\))?$| at line \d+, column \d+$/, "");
      return { error: `${file}:${where} error MTG090 cannot parse the configuration: ${why}; fix the ${file.endsWith(".json") ? "JSON" : "YAML"} syntax here` };
    }
  }
  // Validate against the form the file means, so the message names the faulty key.
  const { Target, Targets } = await configSchemas();
  const form = raw !== null && typeof raw === "object" && "targets" in raw ? Targets : Target;
  const parsed = form.safeParse(raw ?? {});
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    const unknownKey = i.code === "unrecognized_keys" ? String(i.keys[0]) : undefined;
    let what = i.message.replace(/^Invalid input: /, "");
    if (unknownKey !== undefined) {
      const { closest } = await import("../format.js");
      const guess = closest(unknownKey, ["spec", "out", "handlers", "targets"]);
      what = `unknown key '${unknownKey}'${guess === undefined ? "" : `, did you mean '${guess}'?`}`;
    }
    // Where the configuration's keys are: package.json's section lives under its key (read again only now).
    const base: readonly PropertyKey[] = "raw" in found ? ["mcp-task-gen"] : [];
    if ("raw" in found) {
      try {
        text = readFileSync(join(cwd, "package.json"), "utf8");
      } catch {
        text = undefined;
      }
    }
    const where = text === undefined ? "1:1" : await nodeAt(text, [...base, ...i.path], unknownKey);
    return {
      error: `${file.replace(/#.*$/, "")}:${where} error MTG090 invalid configuration${base.length > 0 ? ` (${file})` : ""} at '${i.path.join(".") || "(root)"}': ${what}; expected { "spec": "<name|path>", "out": "<dir>", "handlers"?: "<dir>" } or { "targets": [ { "spec": ..., "out": ... } ] }`,
    };
  }
  const targets = "targets" in parsed.data ? parsed.data.targets : [parsed.data];
  return { targets, file };
}

/** "line:col" (1-based) of a character offset. */
function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `${before.length}:${before[before.length - 1]!.length + 1}`;
}

/** Where a configuration file stops parsing (else its start). */
function syntaxErrorAt(text: string, e: Error & { linePos?: { line: number; col: number }[] }): string {
  const pos = e.linePos?.[0];
  if (pos !== undefined) return `${pos.line}:${pos.col}`;
  const at = /at position (\d+)/.exec(e.message);
  const bad = at ? Number(at[1]) : firstJsonError(text);
  return bad === undefined ? "1:1" : lineCol(text, bad);
}

/**
 * The offset of the first character that makes `text` no JSON, or undefined when it is JSON (the
 * JSON.parse of Node 20 names no position).
 */
export function firstJsonError(text: string): number | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => (text.startsWith(word, i) ? (i += word.length) : fail());
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "x")) fail();
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      i++;
      ws();
      if (text[i] === close) return void i++;
      for (;;) {
        if (c === "{") {
          ws();
          if (text[i] !== '"') fail();
          string();
          ws();
          if (text[i] !== ":") fail();
          i++;
        }
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === close) return void i++;
        else fail();
      }
    }
    if (c === '"') return string();
    if (c === "t") return void literal("true");
    if (c === "f") return void literal("false");
    if (c === "n") return void literal("null");
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) fail();
    i += m![0].length;
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1;
    value();
    ws();
    return i < text.length ? i : undefined;
  } catch (at) {
    return typeof at === "number" ? Math.min(at, text.length) : undefined;
  }
}

/** Where the value at `path` of a configuration file starts (or its key `key`), else the file's start. */
async function nodeAt(text: string, path: readonly PropertyKey[], key: string | undefined): Promise<string> {
  const { parseDocument, isMap, isScalar } = await import("yaml");
  const doc = parseDocument(text);
  const node = path.length === 0 ? doc.contents : doc.getIn(path as unknown[], true);
  let offset = (node as { range?: [number, number, number] } | null | undefined)?.range?.[0];
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
    offset = (pair?.key as { range?: [number, number, number] } | undefined)?.range?.[0] ?? offset;
  }
  return offset === undefined ? "1:1" : lineCol(text, offset);
}

