/** The shape of the document: zod's issues for it, as diagnostics located in the spec. */
import type { z } from "zod";
import type { Code } from "../diagnostics.js";
import { closest } from "../format.js";
import type { Path } from "./context.js";

export type ZIssue = z.core.$ZodIssue & { errors?: ZIssue[][]; note?: string; options?: unknown[]; discriminator?: string };

interface Flat {
  code: Code;
  message: string;
  path: Path;
  key: boolean;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const seg of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg as string];
  }
  return v;
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return `the string '${v}'`;
  return `${typeof v} ${String(v)}`;
}

export function flattenIssues(issues: ZIssue[], data: unknown, base: Path = []): Flat[] {
  const out: Flat[] = [];
  for (const issue of issues) {
    const path = [...base, ...(issue.path as Path)];
    const value = valueAt(data, path);
    if (issue.code === "unrecognized_keys") {
      const keys = (issue as { keys: string[] }).keys;
      out.push({ code: "MTG010", message: issue.message, path: [...path, keys[0]], key: true });
      continue;
    }
    if (issue.code === "invalid_key") {
      // A name in a map of declarations (types, states, methods, errors, ...) that is not a valid name.
      const inner = ((issue as { issues?: { message: string }[] }).issues ?? []).map((i) => i.message.replace(/^Invalid input: /, ""));
      out.push({
        code: "MTG011",
        message: `invalid name '${String(path[path.length - 1])}': ${inner.join("; ") || "not allowed here"}; rename it`,
        path,
        key: true,
      });
      continue;
    }
    if (value === undefined && path.length > 0) {
      const key = path[path.length - 1];
      out.push({
        code: "MTG012",
        message: `missing required key '${String(key)}'; add it here`,
        path: path.slice(0, -1),
        key: true,
      });
      continue;
    }
    if (issue.code === "invalid_union") {
      if (issue.note === "No matching discriminator" && issue.options) {
        const opts = issue.options.map(String);
        const got = value;
        const guess = typeof got === "string" ? closest(got, opts) : undefined;
        out.push({
          code: "MTG011",
          message:
            got === undefined
              ? `missing required key '${issue.discriminator}' (one of ${opts.join(", ")})`
              : `unknown ${issue.discriminator} ${describeValue(got)}${guess ? `, did you mean '${guess}'?` : ""} (expected one of ${opts.join(", ")})`,
          path,
          key: false,
        });
        continue;
      }
      const branches = issue.errors ?? [];
      // Keep the branches whose complaint is not "wrong type at the root":
      // those are the ones the author meant.
      const meant = branches.filter(
        (b) => !b.some((i) => i.code === "invalid_type" && (i.path as Path).length === 0),
      );
      if (meant.length >= 1) {
        out.push(...flattenIssues(meant[0], data, path));
        continue;
      }
      const expected = branches
        .map((b) => b.find((i) => i.code === "invalid_type") as { expected?: string } | undefined)
        .map((i) => i?.expected)
        .filter((x): x is string => !!x);
      out.push({
        code: "MTG011",
        message: `expected ${[...new Set(expected.map(expectedText))].join(" or ") || "another value"}, got ${describeValue(value)}`,
        path,
        key: false,
      });
      continue;
    }
    if (issue.code === "invalid_type") {
      out.push({
        code: "MTG011",
        message: `expected ${expectedText((issue as { expected: string }).expected)}, got ${describeValue(value)}`,
        path,
        key: false,
      });
      continue;
    }
    if (issue.code === "invalid_value") {
      const values = (issue as { values: unknown[] }).values.map(String);
      const guess = typeof value === "string" ? closest(value, values) : undefined;
      out.push({
        code: "MTG011",
        message: `${describeValue(value)} is not allowed here${guess ? `, did you mean '${guess}'?` : ""} (expected one of ${values.join(", ")})`,
        path,
        key: false,
      });
      continue;
    }
    if (issue.code === "invalid_format") {
      out.push({ code: "MTG011", message: `${describeValue(value)} is not valid here: ${issue.message}`, path, key: false });
      continue;
    }
    out.push({ code: "MTG011", message: `${issue.message.replace(/^Invalid input: /, "")}`, path, key: false });
  }
  if (base.length > 0) return out;
  // A key reported as unknown with a "did you mean 'k'" makes "missing key 'k'" at the same place redundant.
  const suggested = new Set(
    out
      .filter((f) => f.code === "MTG010")
      .flatMap((f) => [...f.message.matchAll(/did you mean '([^']+)'/g)].map((m) => JSON.stringify([...f.path.slice(0, -1), m[1]]))),
  );
  return out.filter((f) => !(f.code === "MTG012" && suggested.has(JSON.stringify([...f.path, missingKey(f.message)]))));
}

function missingKey(message: string): string | undefined {
  return /^missing required key '([^']+)'/.exec(message)?.[1];
}

const EXPECTED: Record<string, string> = {
  int: "an integer",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  record: "a mapping",
  null: "null",
};

function expectedText(expected: string): string {
  return EXPECTED[expected] ?? expected;
}
