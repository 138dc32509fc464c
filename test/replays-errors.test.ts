/**
 * Results mode block-until-terminal answers what the original request would have, its JSON-RPC error included:
 * `replaysErrors: false` beside it contradicts the mode, and validate refuses it at replaysErrors.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { analyze } from "../generator/pipeline.js";
import { ROOT } from "./helpers/cli.js";

function withReplay(replaysErrors: boolean) {
  const doc = parse(readFileSync(join(ROOT, "spec/mcp-2025-11-25.yaml"), "utf8")) as { behaviour: { results: { mode: string; replaysErrors: boolean } } };
  expect(doc.behaviour.results.mode).toBe("block-until-terminal");
  doc.behaviour.results.replaysErrors = replaysErrors;
  return analyze({ file: "spec.yaml", text: stringify(doc) }).diagnostics.filter((d) => d.severity === "error");
}

describe("replaysErrors under results mode block-until-terminal", () => {
  it("false: refused with MTG060 at behaviour.results.replaysErrors, saying what to write", () => {
    const errors = withReplay(false);
    expect(errors.map((d) => d.code)).toEqual(["MTG060"]);
    expect(errors[0]!.message).toContain("set replaysErrors: true, or use mode error-until-completed");
    expect(errors[0]!.location).toBeDefined();
  });
  it("true: valid", () => {
    expect(withReplay(true)).toEqual([]);
  });
});
