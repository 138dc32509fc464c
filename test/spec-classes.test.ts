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
  const path = spec.endsWith(".yaml") ? spec : join("spec", `${spec}.yaml`);
  const doc = parseYaml(readFileSync(join(ROOT, path), "utf8")) as Doc;
  change(doc);
  const file = `${spec.replace(/\.yaml$/, "").replace(/\W+/g, "-")}-changed.yaml`;
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

  it("a transition operation into a completed state (the task would end without a result)", () => {
    const errors = refused("test/fixtures/specs/jobs.yaml", (d) => {
      d.methods["jobs/pause"].to = "done";
      d.transitions.push({ from: "running", to: "done" });
    });
    const e = errors.find((x) => x.code === "MTG067" && /jobs\/pause/.test(x.message));
    expect(e?.message).toMatch(/completed state, without a result/);
    expect(e?.path).toEqual(["methods", "jobs/pause", "to"]);
  });

  it("a transition operation that moves running work back into a queued state (nothing would start it again)", () => {
    const errors = refused("test/fixtures/specs/jobs.yaml", (d) => {
      const queued = Object.keys(d.states).find((s) => d.states[s].role === "queued")!;
      d.methods["jobs/pause"].to = queued;
      d.transitions.push({ from: "running", to: queued });
    });
    const e = errors.find((x) => x.code === "MTG067" && /jobs\/pause/.test(x.message));
    expect(e?.message).toMatch(/a queued state, where the runtime would never start it again.*move it to a paused state/);
    expect(e?.path).toEqual(["methods", "jobs/pause", "to"]);
  });

  it.each(["tools/call", "ping", "initialize", "tools/list", "resources/read"])("a core MCP method declared as a task method: %s", (core) => {
    const errors = refused("mcp-2025-11-25", (d) => void (d.methods[core] = { ...d.methods["tasks/get"], name: "Shadowed" }));
    const e = errors.find((x) => x.code === "MTG069" && x.message.includes(`'${core}' is a core MCP method`));
    expect(e?.path).toEqual(["methods", core]);
  });

  it("a state named after an Object.prototype member (the only one state names can spell: constructor)", () => {
    const errors = refused("mcp-2025-11-25", (d) => {
      d.states.constructor = { role: "failed", terminal: true };
      d.transitions.push({ from: "working", to: "constructor" });
    });
    expect(errors.find((x) => x.code === "MTG031" && x.message.includes("'constructor'"))?.path).toEqual(["states", "constructor"]);
  });

  it.each(["toString", "hasOwnProperty", "valueOf", "isPrototypeOf"])("an error named after an Object.prototype member: %s", (name) => {
    const errors = refused("mcp-2025-11-25", (d) => void (d.errors[name] = { code: -32050, message: "Odd" }));
    expect(errors.find((x) => x.code === "MTG031" && x.message.includes(`'${name}'`))?.path).toEqual(["errors", name]);
  });

  it("more states than the generated types can carry (measured: 300 type-check, 400 fail with TS2590)", () => {
    const errors = refused("mcp-2025-11-25", (d) => {
      for (let i = 0; i < 300; i++) {
        d.states[`s${i}`] = { role: "running" };
        d.transitions.push({ from: "working", to: `s${i}` }, { from: `s${i}`, to: "completed" });
      }
    });
    expect(errors.find((x) => x.code === "MTG011" && /at most 300 are supported/.test(x.message))?.path).toEqual(["states"]);
  });

  it("an acknowledgement type without the field 'task' that the answer carries the task in", () => {
    const errors = refused("mcp-2025-11-25", (d) => {
      d.types.CreateTaskResult.fields = { job: "Task", _meta: "MetaObject?" };
    });
    const e = errors.find((x) => x.code === "MTG061" && /no field 'task'/.test(x.message));
    expect(e?.message).toMatch(/fields: job, _meta/);
    expect(e?.path).toEqual(["behaviour", "creation", "ack", "resultType"]);
  });

  it("a default on a required field of the task request type (a request without it is refused, so it never applies)", () => {
    const errors = refused("test/fixtures/specs/jobs.yaml", (d) => {
      d.types.JobRequest.fields.priority = { type: "enum", values: ["low", "normal", "high"], default: "normal" };
    });
    const e = errors.find((x) => x.code === "MTG070" && /'priority'/.test(x.message));
    expect(e?.message).toMatch(/the default is never applied .*; remove it$/);
    expect(e?.path).toEqual(["types", "JobRequest", "fields", "priority", "default"]);
  });

  it("a field of the task request named like a task field, which a task does not start with: a warning", () => {
    const doc = parseYaml(readFileSync(join(ROOT, "test/fixtures/specs/jobs.yaml"), "utf8")) as Doc;
    doc.types.JobRequest.fields.progress = "number?";
    const { diagnostics } = analyze({ file: "jobs-changed.yaml", text: toYaml(doc, { lineWidth: 0 }) });
    const w = diagnostics.find((x) => x.code === "MTG060" && /'progress' of the task request type/.test(x.message));
    expect(w?.severity).toBe("warning");
    expect(w?.path).toEqual(["types", "JobRequest", "fields", "progress"]);
  });

  it("a tool error that ends in a state only a guarded edge reaches (the failing work never sets what the guard reads)", () => {
    const errors = refused("test/fixtures/specs/reviews.yaml", (d) => void (d.behaviour.outcomes.toolError = "done"));
    const e = errors.find((x) => x.code === "MTG075");
    expect(e?.message).toMatch(
      /^outcomes\.toolError leads to 'done', but the table reaches it only through reviewing → done \(guard isScored, which does not hold with score 0\): .*for ever; name a state the table reaches from the start \(failed\), or guard that transition with what holds from the start, or give score a default that does$/,
    );
    expect(e?.path).toEqual(["behaviour", "outcomes", "toolError"]);
  });

  it("a tool error whose state a guard holding on a task as it starts lets it reach: the work may set the field otherwise, as a completion's", () => {
    const doc = parseYaml(readFileSync(join(ROOT, "test/fixtures/specs/reviews.yaml"), "utf8")) as Doc;
    doc.behaviour.outcomes.toolError = "done";
    doc.guards.isScored = { field: "cleared", equals: true };
    const { diagnostics } = analyze({ file: "reviews-changed.yaml", text: toYaml(doc, { lineWidth: 0 }) });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("a tool error whose state another state of its role reaches without a guard: the runtime moves the task there", () => {
    const doc = parseYaml(readFileSync(join(ROOT, "test/fixtures/specs/reviews.yaml"), "utf8")) as Doc;
    doc.behaviour.outcomes.toolError = "done";
    doc.states.done_with_errors = { role: "completed", terminal: true };
    doc.transitions.push({ from: "reviewing", to: "done_with_errors" });
    const { diagnostics } = analyze({ file: "reviews-changed.yaml", text: toYaml(doc, { lineWidth: 0 }) });
    expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("every failure of the work leading only through a guarded edge, or through none", () => {
    const guarded = refused("test/fixtures/specs/reviews.yaml", (d) => {
      d.transitions[3].to = ["cancelled"];
      d.transitions.push({ from: "reviewing", to: "failed", guard: "hasReviewer" });
    });
    expect(guarded.filter((x) => x.code === "MTG075").map((x) => x.path)).toEqual([
      ["behaviour", "outcomes", "toolError"],
      ["behaviour", "outcomes", "protocolError"],
      ["behaviour", "outcomes", "unexpected"],
    ]);
    const missing = refused("test/fixtures/specs/reviews.yaml", (d) => void (d.transitions[3].to = ["cancelled"]));
    const e = missing.find((x) => x.code === "MTG068" && x.path?.join(".") === "behaviour.outcomes.protocolError");
    expect(e?.message).toMatch(/^outcomes\.protocolError leads to 'failed', but the transition table has no reviewing → failed, .*add it$/);
  });

  it("an exception or an expiry event whose state only a guarded edge reaches", () => {
    const errors = refused("test/fixtures/format-coverage.yaml", (d) => {
      const tr = d.transitions.find((t: Doc) => t.from === "running" && Array.isArray(t.to) && t.to.includes("expired"));
      tr.to = ["cancelled"];
      d.transitions.push({ from: "running", to: ["failed", "expired"], guard: "started" });
    });
    expect(errors.filter((x) => x.code === "MTG075").map((x) => x.path?.join("."))).toEqual(
      expect.arrayContaining(["behaviour.events.exception", "behaviour.events.expiry"]),
    );
    expect(errors.filter((x) => x.code === "MTG075").map((x) => x.path)).not.toContainEqual(["behaviour", "outcomes", "unexpected"]);
    expect(errors.find((x) => x.path?.join(".") === "behaviour.events.expiry")?.message).toMatch(/outlive its retention/);
  });

  it("a resume guard that no count of pending inputs lets hold once every input is answered", () => {
    const errors = refused("mcp-2025-11-25", (d) => void (d.guards.noPendingInput = { field: "pendingInputs", atLeast: 1 }));
    const e = errors.find((x) => x.code === "MTG075");
    expect(e?.message).toMatch(/^input\.resume leads to 'working', but .*input_required → working \(guard noPendingInput\).*wait in 'input_required' for ever; guard it with `\{ field: pendingInputs, equals: 0 \}`/);
    expect(e?.path).toEqual(["behaviour", "input", "resume"]);
  });

  it("the built-in specs keep their status types and guards", () => {
    for (const spec of ["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"]) {
      const r = analyze({ file: `${spec}.yaml`, text: readFileSync(join(ROOT, "spec", `${spec}.yaml`), "utf8") });
      expect(r.diagnostics.filter((d) => d.code === "MTG061"), spec).toEqual([]);
    }
  });
});
