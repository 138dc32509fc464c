/**
 * The protocol's normative statements (spec/statements/*.yaml) and conform's rules are kept complete together:
 * every rule names the statements it checks (or says what of the spec it checks instead), every named statement
 * exists, and every statement has a check, a reason it cannot be seen from outside, or the gap that is left. The
 * totals in docs/conform.md are the ones the files give.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { RULE_CATALOGUE } from "../generator/conform/rules/index.js";
import { ROOT } from "./helpers/cli.js";

const REVISIONS = ["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"] as const;

interface Statement {
  id: string;
  level: string;
  party: "server" | "client";
  quote: string;
  source: { page: string; section: string };
  seen: "wire" | "internal";
  why?: string;
  gap?: string;
}

const files = REVISIONS.map((revision) => {
  const doc = parse(readFileSync(join(ROOT, "spec", "statements", `${revision}.yaml`), "utf8")) as { revision: string; sources: Record<string, unknown>; statements: Statement[] };
  return { revision, doc };
});
const all = files.flatMap((f) => f.doc.statements);
const byId = new Map(all.map((s) => [s.id, s]));
const named = new Map<string, string[]>();
for (const rule of RULE_CATALOGUE) for (const id of rule.statements) named.set(id, [...(named.get(id) ?? []), rule.name]);

/** Per revision, the server statements: all, those seen on the wire, checked whole, checked in part. */
export function totals(revision: string): { server: number; wire: number; checked: number; partly: number; unchecked: number } {
  const server = all.filter((s) => s.id.startsWith(`${revision}/`) && s.party === "server");
  const wire = server.filter((s) => s.seen === "wire");
  const checked = wire.filter((s) => named.has(s.id) && s.gap === undefined).length;
  const partly = wire.filter((s) => named.has(s.id) && s.gap !== undefined).length;
  return { server: server.length, wire: wire.length, checked, partly, unchecked: wire.length - checked - partly };
}

describe("the protocol's normative statements", () => {
  it("each file matches the statements schema", () => {
    const ajv = new Ajv2020.default({ allErrors: true, strict: false });
    const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, "spec", "statements", "statements.schema.json"), "utf8")));
    for (const { revision, doc } of files) {
      const ok = validate(doc);
      expect(ok ? [] : validate.errors, revision).toEqual([]);
      expect(doc.revision).toBe(revision);
    }
  });

  it("ids are unique, start with their revision, and name a source the file lists", () => {
    expect(byId.size).toBe(all.length);
    for (const { revision, doc } of files) {
      for (const s of doc.statements) {
        expect(s.id.startsWith(`${revision}/`), s.id).toBe(true);
        expect(Object.keys(doc.sources), s.id).toContain(s.source.page);
      }
    }
  });

  it("every rule names statements that exist, or says what of the spec it checks instead", () => {
    for (const rule of RULE_CATALOGUE) {
      for (const id of rule.statements) expect(byId.has(id), `${rule.name} names ${id}`).toBe(true);
      if (rule.statements.length === 0) expect(rule.basis, `${rule.name} checks no statement and gives no basis`).toBeTruthy();
    }
  });

  it("every statement has a check, a reason it cannot be seen from outside, or the gap that is left", () => {
    for (const s of all) {
      const rules = named.get(s.id);
      if (s.seen === "internal") {
        expect(s.why, s.id).toBeTruthy();
        expect(rules, `${s.id} cannot be seen from outside, yet ${rules?.join(", ")} claims to check it`).toBeUndefined();
        continue;
      }
      if (rules === undefined) {
        expect(s.gap, `${s.id}: no rule checks it and no gap says what a check would need`).toBeTruthy();
        expect(s.gap!.startsWith("partly:"), `${s.id}: no rule checks it, so it is not checked in part`).toBe(false);
      } else if (s.gap !== undefined) {
        expect(s.gap.startsWith("partly:"), `${s.id} is checked by ${rules.join(", ")}; its gap must say what part is left ("partly: ...")`).toBe(true);
      }
    }
  });

  it("docs/conform.md gives the totals per revision that the files give", () => {
    const doc = readFileSync(join(ROOT, "docs", "conform.md"), "utf8");
    for (const revision of REVISIONS) {
      const t = totals(revision);
      const row = `| ${revision} | ${t.server} | ${t.wire} | ${t.checked} | ${t.partly} | ${t.unchecked} |`;
      expect(doc, `docs/conform.md row for ${revision}`).toContain(row);
    }
  });
});
