/**
 * Error codes against the core each spec sits on: under a per-request
 * lifecycle (core MCP 2026-07-28) -32000..-32019 is legacy, -32020..-32099
 * belongs to the core, and application codes lie outside -32768..-32000; the
 * built-in extension spec follows that, and the spec check (MTG050) says so for
 * any spec on that lifecycle, while specs on the initialize lifecycle keep
 * JSON-RPC's own ranges.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyze } from "../generator/pipeline.js";
import { ROOT } from "./helpers/cli.js";

const EXT = "spec/ext-tasks-2026-07-28.yaml";
const MINIMAL = "test/fixtures/minimal.yaml";
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** The MTG050 diagnostics of a spec text, as "severity line:col". */
function mtg050(file: string, text: string): string[] {
  return analyze({ file, text })
    .diagnostics.filter((d) => d.code === "MTG050")
    .map((d) => `${d.severity} ${d.location?.line}:${d.location?.col} ${d.message}`);
}

/** The spec text with one error's code replaced. */
function withCode(text: string, error: string, code: number): string {
  const re = new RegExp(`(\\n  ${error}:\\n    code: )-?\\d+`);
  expect(text).toMatch(re);
  return text.replace(re, `$1${code}`);
}

describe("limit error codes on the per-request core", () => {
  const ext = read(EXT);

  it("the extension's rate and concurrency limits use application codes outside the reserved block", () => {
    const { diagnostics, ir } = analyze({ file: EXT, text: ext });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    for (const name of ["rateLimited", "concurrencyLimitReached"]) {
      const code = ir!.errors.find((e) => e.name === name)!.code;
      expect(code < -32768 || code > -32000, `${name}: ${code}`).toBe(true);
    }
    expect(mtg050(EXT, ext)).toEqual([]);
  });

  it("MTG050 warns about the legacy range and undefined core codes on the per-request lifecycle", () => {
    const legacy = mtg050(EXT, withCode(ext, "rateLimited", -32010));
    expect(legacy).toHaveLength(1);
    expect(legacy[0]).toMatch(/^warning \d+:\d+ code -32010 lies in -32000\.\.-32019, which the per-request core .* calls legacy.*outside -32768\.\.-32000$/);
    const reserved = mtg050(EXT, withCode(ext, "concurrencyLimitReached", -32050));
    expect(reserved).toHaveLength(1);
    expect(reserved[0]).toMatch(/^warning \d+:\d+ code -32050 lies in -32020\.\.-32099, which the per-request core .* reserves/);
    // Still an error everywhere: the reserved block outside the server range.
    expect(mtg050(EXT, withCode(ext, "rateLimited", -32500))[0]).toMatch(/^error /);
    // What the core recommends draws no diagnostic.
    expect(mtg050(EXT, withCode(ext, "rateLimited", 429))).toEqual([]);
  });

  it("on the initialize lifecycle the JSON-RPC rule stays: a code outside the ranges is a warning, the server range is fine", () => {
    const minimal = read(MINIMAL);
    expect(minimal).not.toMatch(/lifecycle:/);
    expect(mtg050(MINIMAL, withCode(minimal, "limited", -32010))).toEqual([]);
    expect(mtg050(MINIMAL, withCode(minimal, "limited", -31010))[0]).toMatch(/^warning .*outside the JSON-RPC ranges/);
  });
});
