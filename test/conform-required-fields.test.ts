/**
 * conform checks that a task request missing a required field of its declared type is refused: the spec's
 * creation type here requires an enum `priority` (conform fills it from its type on every other creation). The
 * demo of that spec refuses the request with -32602 and makes no task; a server that accepts the request anyway
 * (the demo of the same protocol where `priority` is optional) breaks `creation`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { requiredCreationFields } from "../generator/conform/commands/missing-field.js";
import { specModel } from "../generator/conform/model.js";
import { conform } from "../generator/conform/run.js";
import { ROOT } from "./helpers/cli.js";
import { explain, irOf } from "./helpers/conform.js";

const work = mkdtempSync(join(tmpdir(), "conform-required-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** test/fixtures/specs/jobs.yaml with its task request's `priority` required (`optional` as given). */
function jobsSpec(optional: boolean): string {
  const doc = parse(readFileSync(join(ROOT, "test/fixtures/specs/jobs.yaml"), "utf8")) as { types: Record<string, { fields: Record<string, { optional?: boolean }> }> };
  doc.types.JobRequest!.fields.priority!.optional = optional;
  const file = join(work, `jobs-${optional ? "optional" : "required"}.yaml`);
  writeFileSync(file, stringify(doc));
  return file;
}

const demo = (file: string) => `${join(ROOT, "node_modules/.bin/tsx")} ${join(ROOT, "scripts/demo-server.ts")} ${file}`;

describe("a task request missing a required field of its declared type", () => {
  const required = jobsSpec(false);
  const optional = jobsSpec(true);

  it("names the required fields of the creation type", () => {
    expect(requiredCreationFields(specModel(irOf(required)))).toEqual(["priority"]);
    expect(requiredCreationFields(specModel(irOf(optional)))).toEqual([]);
    // The seed draft's requestor-chosen task id is a required field of its task request.
    expect(requiredCreationFields(specModel(irOf("sep-1686-draft")))).toContain("taskId");
  });

  it("the demo of the spec refuses it with -32602 and makes no task: every rule held, the check exercised", async () => {
    const r = await conform({ ir: irOf(required), target: { stdio: demo(required) }, runs: 6, seed: 7 });
    expect(r.verdict, explain(r)).toBe("held");
    expect(r.exercised["missing creation field"]).toBeGreaterThan(0);
  }, 240_000);

  it("a server that accepts it (priority optional there) breaks creation", async () => {
    const r = await conform({ ir: irOf(required), target: { stdio: demo(optional) }, runs: 6, seed: 7 });
    expect(r.verdict, explain(r)).toBe("violation");
    expect(r.failure?.violation.rule).toBe("creation");
    expect(r.failure?.violation.message).toMatch(/without its required field priority (made task|was served)/);
  }, 240_000);
});
