import { describe, expect, it } from "vitest";
import { ConcurrencyCounter, RateLimiter } from "../../runtime/limits.js";

describe("RateLimiter", () => {
  it("allows perMinute takes at once, then refills continuously", () => {
    const r = new RateLimiter();
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) expect(r.take("a", 3, t0)).toBe(true);
    expect(r.take("a", 3, t0)).toBe(false);
    expect(r.take("b", 3, t0)).toBe(true); // buckets are per key
    expect(r.take("a", 3, t0 + 10_000)).toBe(false); // half a token
    expect(r.take("a", 3, t0 + 20_000)).toBe(true);
  });

  it("drops full buckets once there are many", () => {
    const r = new RateLimiter();
    for (let i = 0; i <= 10_001; i++) r.take(`k${i}`, 60, 0);
    r.take("late", 60, 120_000);
    expect(r.size).toBe(1);
  });
});

describe("ConcurrencyCounter", () => {
  it("reserves up to the limit, holds per task, releases once", () => {
    const c = new ConcurrencyCounter();
    expect(c.reserve("o", 2)).toBe(true);
    c.hold("t1");
    expect(c.reserve("o", 2)).toBe(true);
    c.hold("t2");
    expect(c.reserve("o", 2)).toBe(false);
    c.releaseTask("t1", "o");
    c.releaseTask("t1", "o");
    expect(c.count("o")).toBe(1);
    expect(c.reserve("o", 2)).toBe(true);
    c.release("o"); // a reservation no task took
    expect(c.count("o")).toBe(1);
  });
});
