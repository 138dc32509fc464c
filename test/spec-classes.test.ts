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

  it("the built-in specs keep their status types and guards", () => {
    for (const spec of ["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"]) {
      const r = analyze({ file: `${spec}.yaml`, text: readFileSync(join(ROOT, "spec", `${spec}.yaml`), "utf8") });
      expect(r.diagnostics.filter((d) => d.code === "MTG061"), spec).toEqual([]);
    }
  });
});
