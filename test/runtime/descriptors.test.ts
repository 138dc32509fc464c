import { describe, expect, it } from "vitest";
import { BUILTIN, descriptorOf } from "./descriptors.js";
import { makePlan } from "../../runtime/plan.js";

describe("descriptors of the built-in specs", () => {
  for (const spec of BUILTIN) {
    it(`${spec}: builds a plan`, async () => {
      const d = await descriptorOf(spec);
      const plan = makePlan(d);
      expect(plan.status.initial).toBe(d.states.initial);
      expect(plan.gaps).toEqual([]);
      expect(d.machine.isTerminal(plan.status.completed)).toBe(true);
    });
  }
});

describe("the runtime's sources", () => {
  it("state the package version as RUNTIME_VERSION, and each says it is copied verbatim", async () => {
    const { readFileSync, readdirSync } = await import("node:fs");
    const { RUNTIME_VERSION } = await import("../../runtime/descriptor.js");
    const root = new URL("../../", import.meta.url);
    expect(RUNTIME_VERSION).toBe(JSON.parse(readFileSync(new URL("package.json", root), "utf8")).version);
    for (const name of readdirSync(new URL("runtime/", root)).filter((n) => n.endsWith(".ts"))) {
      const text = readFileSync(new URL(`runtime/${name}`, root), "utf8");
      expect(text.split("\n")[0], name).toBe("// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).");
      expect(text, `${name} names no revision`).not.toMatch(/sep-1686|2025-11-25|2026-07-28|ext-tasks/);
    }
  });
});
