/**
 * Where the requestor chooses task ids, the runtime takes any non-empty string the task request's type allows:
 * a task id type narrower than a string (a format, a pattern, a length) would be broken by the ids requestors
 * send, so validate refuses it where the id field is declared, and says to declare it 'string'.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { analyze } from "../generator/pipeline.js";
import { ROOT } from "./helpers/cli.js";

function seedWithId(id: unknown) {
  const doc = parse(readFileSync(join(ROOT, "spec/sep-1686-draft.yaml"), "utf8")) as { types: { Task: { fields: Record<string, unknown> } } };
  doc.types.Task.fields.taskId = id;
  return analyze({ file: "seed.yaml", text: stringify(doc) }).diagnostics.filter((d) => d.severity === "error");
}

describe("a requestor-chosen task id typed narrower than a string", () => {
  for (const id of [{ type: "string", format: "uuid" }, { type: "string", pattern: "[0-9a-f-]+" }, { type: "string", maxLength: 8 }]) {
    it(`${JSON.stringify(id)}: refused with MTG072 at the id field`, () => {
      const errors = seedWithId(id);
      expect(errors.map((d) => d.code)).toEqual(["MTG072"]);
      expect(errors[0]!.message).toMatch(/the ids requestors choose .*declare it 'string'/);
      expect(errors[0]!.location).toBeDefined();
    });
  }
  it("'string': valid", () => {
    expect(seedWithId("string")).toEqual([]);
  });
});
