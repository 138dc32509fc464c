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
