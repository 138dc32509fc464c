/**
 * Declared properties of the spec format: `protocol.lifecycle` (the core
 * protocol underneath: initialize or per-request) and `capabilities.<side>.requiredBy` /
 * `.missingError` (methods a peer may call only with the capability declared), their checks,
 * and what the templates emit from them (never from a spec's name).
 */
import { describe, expect, it } from "vitest";
import { analyze, compile } from "../generator/pipeline.js";
import { resolveSpec } from "../generator/specs.js";

const root = new URL("..", import.meta.url).pathname;

function source(spec: string, edit: (text: string) => string = (t) => t) {
  const r = resolveSpec(spec, root);
  if (!r.ok) throw new Error(r.message);
  return { file: r.source.file, text: edit(r.source.text) };
}

const compiled = new Map<string, ReturnType<typeof compile>>();
/** The output of a built-in spec, compiled once per file. */
const output = (spec: string) => {
  if (!compiled.has(spec)) compiled.set(spec, compile(source(spec)));
  return compiled.get(spec)!;
};

const replaceOnce = (text: string, from: string, to: string) => {
  if (text.split(from).length !== 2) throw new Error(`expected exactly one '${from}'`);
  return text.replace(from, to);
};

describe("protocol.lifecycle and capabilities.client.requiredBy", () => {
  it("every built-in spec declares its lifecycle; only per-request emits the stateless binding", async () => {
    const lifecycles: Record<string, string | undefined> = {};
    for (const spec of ["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"]) {
      const { ir } = analyze(source(spec));
      lifecycles[spec] = ir!.spec.protocol.lifecycle;
      const { files } = await output(spec);
      const names = files!.map((f) => f.path);
      const perRequest = ir!.spec.protocol.lifecycle === "per-request";
      expect(names.includes("stateless-server.ts"), spec).toBe(perRequest);
      expect(names.includes("stateless-client.ts"), spec).toBe(perRequest);
    }
    expect(lifecycles).toEqual({ "sep-1686-draft": "initialize", "mcp-2025-11-25": "initialize", "ext-tasks-2026-07-28": "per-request" });
  });

  it("the binding follows the declared property, not the spec's name: a renamed copy gets the same files", async () => {
    const renamed = await compile(source("ext-tasks-2026-07-28", (t) => replaceOnce(t, "spec: ext-tasks-2026-07-28", "spec: my-tasks")));
    expect(renamed.diagnostics).toEqual([]);
    expect(renamed.files!.map((f) => f.path)).toContain("stateless-server.ts");
    // Its errors' HTTP statuses are sent, and its task subscriptions served, only on the per-request lifecycle:
    // under initialize they are refused.
    const withStatuses = analyze(source("ext-tasks-2026-07-28", (t) => replaceOnce(t, "  lifecycle: per-request", "  lifecycle: initialize")));
    const refused = withStatuses.diagnostics.filter((d) => d.code === "MTG073").map((d) => d.path?.join("."));
    expect(refused.filter((p) => /^errors\.\w+\.http$/.test(p ?? "")).length).toBe(3);
    expect(refused.filter((p) => !/^errors\.\w+\.http$/.test(p ?? ""))).toEqual(["behaviour.statusNotifications.delivery"]);
    const initialize = await compile(
      source("ext-tasks-2026-07-28", (t) =>
        replaceOnce(replaceOnce(t, "  lifecycle: per-request", "  lifecycle: initialize"), "    delivery: subscription\n", "    delivery: push\n").replace(/^ {4}http: \d+\n/gm, ""),
      ),
    );
    // Only the application codes are flagged (the two limits and storeUnavailable): core 2026-07-28 puts them
    // outside -32768..-32000, the older core inside.
    expect(initialize.diagnostics.map((d) => [d.code, d.severity, d.path?.[1]])).toEqual([
      ["MTG050", "warning", expect.any(String)],
      ["MTG050", "warning", expect.any(String)],
      ["MTG050", "warning", "storeUnavailable"],
    ]);
    expect(initialize.files!.map((f) => f.path)).not.toContain("stateless-server.ts");
  });

  it("per-request without a protocolVersion is an error", () => {
    const { diagnostics } = analyze(source("ext-tasks-2026-07-28", (t) => replaceOnce(t, '  protocolVersion: "2026-07-28"\n', "")));
    expect(diagnostics).toEqual([expect.objectContaining({ code: "MTG060", severity: "error", message: expect.stringContaining("protocolVersion") })]);
  });

  it("requiredBy names declared methods, missingError a declared error", () => {
    const { diagnostics } = analyze(
      source("ext-tasks-2026-07-28", (t) =>
        replaceOnce(
          replaceOnce(t, "requiredBy: [tasks/get, tasks/update, tasks/cancel]", "requiredBy: [tasks/get, tasks/updat]"),
          "missingError: missingRequiredClientCapability",
          "missingError: missingCapability",
        ),
      ),
    );
    expect(diagnostics.map((d) => [d.code, d.severity, d.path?.join(".")])).toEqual(
      expect.arrayContaining([
        ["MTG022", "error", "behaviour.capabilities.client.requiredBy.1"],
        ["MTG023", "error", "behaviour.capabilities.client.missingError"],
      ]),
    );
  });

  it("the gate answers the declared error with data naming the capability", async () => {
    const { files } = await output("ext-tasks-2026-07-28");
    // The runtime reads both from the descriptor: the gated methods, and the error whose data names the capability.
    const protocol = files!.find((f) => f.path === "protocol.ts")!.contents;
    expect(protocol).toContain('requiredBy: ["tasks/get", "tasks/update", "tasks/cancel"]');
    const descriptor = files!.find((f) => f.path === "descriptor.ts")!.contents;
    expect(descriptor).toMatch(/missingRequiredClientCapability: \{[^{}]*context: \{\},[^{}]*dataField: "requiredCapabilities"/);
  });
});
