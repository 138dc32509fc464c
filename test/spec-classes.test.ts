/**
 * Specs that combine legal pieces in ways no server could keep: each is refused by the checker with a
 * located diagnostic that says what to do (they validated once, then misbehaved on the wire).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import type { Diagnostic } from "../generator/diagnostics.js";
import { analyze } from "../generator/pipeline.js";
import { ROOT } from "./helpers/cli.js";

type Doc = Record<string, any>;

function refused(spec: string, change: (d: Doc) => void): Diagnostic[] {
  const doc = parseYaml(readFileSync(join(ROOT, "spec", `${spec}.yaml`), "utf8")) as Doc;
  change(doc);
  const file = `${spec}-changed.yaml`;
  const text = toYaml(doc, { lineWidth: 0 });
  const { diagnostics, ir } = analyze({ file, text });
  const errors = diagnostics.filter((d) => d.severity === "error");
  expect(ir === undefined || errors.length > 0).toBe(true);
  for (const e of errors) expect(e.location?.file).toBe(file);
  return errors;
}

describe("specs no server could keep are refused", () => {
  it("a status field whose type is not the status enum (the runtime writes state names into it)", () => {
    const errors = refused("mcp-2025-11-25", (d) => void (d.types.Task.fields.status = "integer"));
    const e = errors.find((x) => x.code === "MTG061" && /status field 'status'/.test(x.message));
    expect(e?.message).toMatch(/must have the status type TaskStatus/);
    expect(e?.path).toEqual(["types", "Task", "fields", "status"]);
  });

  it("a guard over a field the runtime never gives a guard (its transitions could never happen)", () => {
    const errors = refused("mcp-2025-11-25", (d) => void (d.guards.noPendingInput.field = "progress"));
    const e = errors.find((x) => x.code === "MTG061" && /guard 'noPendingInput'/.test(x.message));
    expect(e?.message).toMatch(/reads 'progress'.*pendingInputs/);
    expect(e?.path).toEqual(["guards", "noPendingInput", "field"]);
  });

  it("the built-in specs keep their status types and guards", () => {
    for (const spec of ["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"]) {
      const r = analyze({ file: `${spec}.yaml`, text: readFileSync(join(ROOT, "spec", `${spec}.yaml`), "utf8") });
      expect(r.diagnostics.filter((d) => d.code === "MTG061"), spec).toEqual([]);
    }
  });
});
