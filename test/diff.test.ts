/**
 * `mcp-task-gen diff`: each kind of change and its classification for clients and
 * servers, on small specs made from test/fixtures/minimal.yaml; the JSON shape;
 * the CLI's exit codes; and the committed migration guides in output-samples/diffs/.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../generator/cli/index.js";
import {
  BEHAVIOUR_RULES,
  DIFF_FORMAT,
  diffFails,
  diffSpecs,
  renderDiffJson,
  renderDiffMarkdown,
  RULES,
  SECTIONS,
  type Change,
  type Diff,
} from "../generator/diff/index.js";
import type { IR } from "../generator/ir.js";
import { analyze } from "../generator/pipeline.js";

const root = join(import.meta.dirname, "..");

// ---------------------------------------------------------------------------
// Small specs: minimal.yaml plus a client-sent request, a server notification,
// a result type, a meta key and a guarded transition.
// ---------------------------------------------------------------------------

type SpecData = Record<string, any>;

function base(): SpecData {
  const s = parseYaml(readFileSync(join(root, "test", "fixtures", "minimal.yaml"), "utf8")) as SpecData;
  s.spec = "diff-base";
  s.types.GetTaskParams = { type: "object", fields: { taskId: "string", cursor: "string?" } };
  s.types.Progress = { type: "object", fields: { taskId: "string", percent: "integer" } };
  s.types.Outcome = { type: "union", variants: ["Task", "string"] };
  s.methods = {
    "tasks/get": { kind: "request", name: "GetTask", operation: "custom", from: "client", params: "GetTaskParams", result: "Task", errors: ["limited"] },
    "notifications/tasks/progress": { kind: "notification", name: "TaskProgress", from: "server", params: "Progress" },
  };
  s.errors.notFound = { code: -32602, message: "Task not found" };
  s.methods["tasks/get"].errors.push("notFound");
  s.meta = { related: { key: "example.com/related-task", type: "string", on: ["result"] } };
  s.states.input_required = { role: "input_required" };
  s.transitions = [
    { from: "working", to: ["input_required", "completed", "failed", "cancelled"] },
    { from: "input_required", to: "working", guard: "noPendingInput" },
    { from: "input_required", to: ["completed", "failed", "cancelled"] },
  ];
  s.guards = { noPendingInput: { field: "pendingInputs", type: "integer", equals: 0 } };
  return s;
}

function lowerSpec(s: SpecData): IR {
  const { diagnostics, ir } = analyze({ file: `${s.spec}.json`, text: JSON.stringify(s) });
  const errors = diagnostics.filter((d) => d.severity === "error");
  expect(errors, JSON.stringify(errors, null, 2)).toEqual([]);
  return ir!;
}

/** base() changed by `edit`. */
function edited(edit: (s: SpecData) => void): SpecData {
  const s = base();
  edit(s);
  return s;
}

/** The diff from base() to base() changed by `edit`. */
const diffAfter = (edit: (s: SpecData) => void): Diff => diffSpecs(lowerSpec(base()), lowerSpec(edited(edit)));

/** The diff from base() changed by `edit` back to base(). */
const diffUndo = (edit: (s: SpecData) => void): Diff => diffSpecs(lowerSpec(edited(edit)), lowerSpec(base()));

/** The one change at `path` (a failure lists the paths that exist). */
function at(d: Diff, path: string): Change {
  const found = d.changes.filter((c) => c.path === path);
  expect(found.length, `changes at ${path}; all paths: ${d.changes.map((c) => c.path).join(", ")}`).toBe(1);
  return found[0];
}

const sides = (c: Change) => ({ rule: c.rule, client: c.client, server: c.server });

// ---------------------------------------------------------------------------

describe("diff: identical specs", () => {
  it("is empty, fails no --fail-on level, and says so", () => {
    const d = diffSpecs(lowerSpec(base()), lowerSpec(base()));
    expect(d.changes).toEqual([]);
    expect(d.summary.changes).toBe(0);
    expect(d.summary.breaking).toEqual({ client: 0, server: 0, any: 0 });
    for (const f of ["breaking", "any", "none"] as const) expect(diffFails(d, f)).toBe(false);
    expect(renderDiffMarkdown(d)).toContain("No differences");
  });

  it("ignores descriptions", () => {
    const d = diffAfter((s) => {
      s.types.GetTaskParams.description = "reworded";
      s.types.GetTaskParams.fields.taskId = { type: "string", description: "now documented" };
    });
    expect(d.changes).toEqual([]);
  });
});

describe("diff: fields, by direction", () => {
  // GetTaskParams is sent by clients (tasks/get is from: client); Task is sent by servers.
  it("a new required field in client-sent params breaks clients, not servers", () => {
    const d = diffAfter((s) => (s.types.GetTaskParams.fields.session = "string"));
    const c = at(d, "types.GetTaskParams.session");
    expect(sides(c)).toEqual({ rule: "field.added.required", client: "breaking", server: "compatible" });
    expect(c.section).toBe("fields");
    expect(c.directions).toEqual(["client-to-server"]);
    expect(c.hint).toMatch(/^Clients must send `session`/);
  });

  it("a new optional field is compatible for both", () => {
    const d = diffAfter((s) => (s.types.Task.fields.note = "string?"));
    expect(sides(at(d, "types.Task.note"))).toEqual({ rule: "field.added.optional", client: "compatible", server: "compatible" });
  });

  it("a removed required field breaks its readers", () => {
    const params = diffAfter((s) => delete s.types.GetTaskParams.fields.taskId);
    expect(sides(at(params, "types.GetTaskParams.taskId"))).toEqual({ rule: "field.removed.required", client: "compatible", server: "breaking" });
    const result = diffAfter((s) => delete s.types.Progress.fields.percent);
    expect(sides(at(result, "types.Progress.percent"))).toEqual({ rule: "field.removed.required", client: "breaking", server: "compatible" });
  });

  it("a removed optional field is compatible", () => {
    const d = diffAfter((s) => delete s.types.GetTaskParams.fields.cursor);
    expect(sides(at(d, "types.GetTaskParams.cursor"))).toEqual({ rule: "field.removed.optional", client: "compatible", server: "compatible" });
  });

  it("optional → required breaks senders; required → optional breaks readers", () => {
    const req = diffAfter((s) => (s.types.GetTaskParams.fields.cursor = "string"));
    expect(sides(at(req, "types.GetTaskParams.cursor.optional"))).toEqual({ rule: "field.required", client: "breaking", server: "compatible" });
    const opt = diffAfter((s) => (s.types.Task.fields.ttl = "integer?"));
    expect(sides(at(opt, "types.Task.ttl.optional"))).toEqual({ rule: "field.optional", client: "breaking", server: "compatible" });
  });

  it("nullable: a value that may become null breaks readers; the reverse breaks senders", () => {
    const nullable = (s: SpecData) => (s.types.Task.fields.ttl = { type: "integer", nullable: true });
    const on = diffAfter(nullable);
    expect(on.changes).toHaveLength(1);
    expect(sides(at(on, "types.Task.ttl.nullable"))).toEqual({ rule: "value.nullable", client: "breaking", server: "compatible" });
    expect(sides(at(diffUndo(nullable), "types.Task.ttl.nullable"))).toEqual({ rule: "value.not-nullable", client: "compatible", server: "breaking" });
  });

  it("widening breaks readers, narrowing breaks senders, an unrelated type breaks both", () => {
    const wide = diffAfter((s) => (s.types.Task.fields.ttl = "number"));
    expect(sides(at(wide, "types.Task.ttl"))).toEqual({ rule: "value.widened", client: "breaking", server: "compatible" });
    const narrow = diffAfter((s) => (s.types.GetTaskParams.fields.taskId = { type: "string", format: "uuid" }));
    expect(sides(at(narrow, "types.GetTaskParams.taskId"))).toEqual({ rule: "value.narrowed", client: "breaking", server: "compatible" });
    const changed = diffAfter((s) => (s.types.Progress.fields.percent = "boolean"));
    expect(sides(at(changed, "types.Progress.percent"))).toEqual({ rule: "value.changed", client: "breaking", server: "breaking" });
    expect(at(changed, "types.Progress.percent")).toMatchObject({ before: "integer", after: "boolean" });
  });

  it("enum values added widen, removed narrow", () => {
    const withEnum = (values: string[]) => lowerSpec(edited((s) => (s.types.Task.fields.kind = { type: "enum", values, optional: true })));
    const more = diffSpecs(withEnum(["a", "b"]), withEnum(["a", "b", "c"]));
    expect(sides(at(more, "types.Task.kind"))).toEqual({ rule: "value.widened", client: "breaking", server: "compatible" });
    const fewer = diffSpecs(withEnum(["a", "b"]), withEnum(["a"]));
    expect(sides(at(fewer, "types.Task.kind"))).toEqual({ rule: "value.narrowed", client: "compatible", server: "breaking" });
    expect(diffSpecs(withEnum(["a", "b"]), withEnum(["b", "a"])).changes).toEqual([]);
  });

  it("a removed field and a similarly named one of a kindred type read as a rename", () => {
    const d = diffAfter((s) => {
      delete s.types.Task.fields.ttl;
      s.types.Task.fields.ttlMs = "integer";
      s.behaviour.retention.field = "ttlMs";
    });
    const c = at(d, "types.Task.ttl");
    expect(sides(c)).toEqual({ rule: "field.renamed", client: "breaking", server: "breaking" });
    expect(c.summary).toContain("renamed to `ttlMs`");
    expect(d.changes.filter((x) => x.section === "fields")).toHaveLength(1);
    expect(at(d, "behaviour.retention.field")).toMatchObject({ before: "ttl", after: "ttlMs" });
    // Not a rename: an unrelated type under a longer name.
    const other = diffAfter((s) => {
      delete s.types.GetTaskParams.fields.cursor;
      s.types.GetTaskParams.fields.cursorCount = "integer?";
    });
    expect(other.changes.map((x) => x.rule).sort()).toEqual(["field.added.optional", "field.removed.optional"]);
  });

  it("fields of a request that either side may send count for both sides", () => {
    const d = diffAfter((s) => {
      s.methods["tasks/get"].from = "either";
      s.types.GetTaskParams.fields.session = "string";
    });
    expect(sides(at(d, "types.GetTaskParams.session"))).toEqual({ rule: "field.added.required", client: "breaking", server: "breaking" });
  });

  it("deprecation, strictness and openness", () => {
    const dep = diffAfter((s) => (s.types.GetTaskParams.fields.cursor = { type: "string", optional: true, deprecated: true }));
    expect(sides(at(dep, "types.GetTaskParams.cursor.deprecated"))).toEqual({ rule: "field.deprecated", client: "compatible", server: "compatible" });
    const strict = diffAfter((s) => (s.types.GetTaskParams.strict = true));
    expect(sides(at(strict, "types.GetTaskParams.strict"))).toEqual({ rule: "object.strict", client: "breaking", server: "compatible" });
    const open = diffAfter((s) => (s.types.Task.open = true));
    expect(sides(at(open, "types.Task.open"))).toEqual({ rule: "object.open", client: "compatible", server: "compatible" });
  });
});

describe("diff: types", () => {
  it("an added type is compatible, a removed one breaking", () => {
    const added = diffAfter((s) => (s.types.Extra = { type: "object", fields: { a: "string" } }));
    expect(sides(at(added, "types.Extra"))).toEqual({ rule: "type.added", client: "compatible", server: "compatible" });
    const removed = diffAfter((s) => delete s.types.Outcome);
    expect(sides(at(removed, "types.Outcome"))).toEqual({ rule: "type.removed", client: "breaking", server: "breaking" });
    expect(at(removed, "types.Outcome").section).toBe("types");
  });

  it("union variants: a new one breaks readers, a removed one senders", () => {
    const d = diffAfter((s) => {
      s.methods["tasks/get"].result = "Outcome";
      s.types.Outcome.variants = ["Task", "string", "integer"];
    });
    expect(sides(at(d, "types.Outcome<integer>"))).toEqual({ rule: "variant.added", client: "breaking", server: "compatible" });
  });
});

describe("diff: methods", () => {
  it("a removed request breaks the side that calls it", () => {
    const d = diffAfter((s) => delete s.methods["tasks/get"]);
    const c = at(d, "methods.tasks/get");
    expect(sides(c)).toEqual({ rule: "method.removed", client: "breaking", server: "compatible" });
    expect(c.section).toBe("methods");
  });

  it("a new request breaks the side that must handle it", () => {
    const d = diffAfter((s) => (s.methods["tasks/update"] = { kind: "request", operation: "custom", from: "client", params: "GetTaskParams", result: "Task" }));
    expect(sides(at(d, "methods.tasks/update"))).toEqual({ rule: "method.added", client: "compatible", server: "breaking" });
  });

  it("a new notification is compatible; a removed one breaks its receivers", () => {
    const added = diffAfter((s) => (s.methods["notifications/tasks/done"] = { kind: "notification", from: "server", params: "Progress" }));
    expect(sides(at(added, "methods.notifications/tasks/done"))).toEqual({ rule: "notification.added", client: "compatible", server: "compatible" });
    const removed = diffAfter((s) => delete s.methods["notifications/tasks/progress"]);
    expect(sides(at(removed, "methods.notifications/tasks/progress"))).toEqual({ rule: "notification.removed", client: "breaking", server: "compatible" });
  });

  it("a change of sender breaks the side that may no longer send, or must now handle", () => {
    const narrowed = diffUndo((s) => (s.methods["tasks/get"].from = "either"));
    expect(sides(at(narrowed, "methods.tasks/get.from"))).toEqual({ rule: "method.direction", client: "compatible", server: "breaking" });
    // Clients lose the right to send it and must now handle it; servers only gain the right to send it.
    const flipped = diffAfter((s) => (s.methods["tasks/get"].from = "server"));
    expect(sides(at(flipped, "methods.tasks/get.from"))).toEqual({ rule: "method.direction", client: "breaking", server: "compatible" });
    const widened = diffAfter((s) => (s.methods["tasks/get"].from = "either"));
    expect(sides(at(widened, "methods.tasks/get.from"))).toEqual({ rule: "method.direction", client: "breaking", server: "compatible" });
  });

  it("a request whose operation changes breaks both sides", () => {
    const d = diffAfter((s) => (s.methods["tasks/get"].operation = "get"));
    expect(at(d, "methods.tasks/get.operation")).toMatchObject({ rule: "method.operation", before: "custom", after: "get", client: "breaking", server: "breaking" });
  });

  it("a request that becomes a notification breaks both", () => {
    const d = diffAfter((s) => {
      s.methods["tasks/get"] = { kind: "notification", name: "GetTask", from: "client", params: "GetTaskParams" };
    });
    expect(sides(at(d, "methods.tasks/get"))).toEqual({ rule: "method.kind", client: "breaking", server: "breaking" });
  });

  it("errors a method may answer: added and removed are compatible", () => {
    const d = diffAfter((s) => (s.methods["tasks/get"].errors = ["limited"]));
    expect(sides(at(d, "methods.tasks/get.errors.notFound"))).toEqual({ rule: "method.error.removed", client: "compatible", server: "compatible" });
  });

  it("inline params are compared field by field, under Methods", () => {
    const inline = (fields: SpecData) => lowerSpec(edited((s) => (s.methods["tasks/get"].params = { type: "object", fields })));
    const c = at(diffSpecs(inline({ taskId: "string" }), inline({ taskId: "string", force: "boolean" })), "methods.tasks/get.params.force");
    expect(c.section).toBe("methods");
    expect(sides(c)).toEqual({ rule: "field.added.required", client: "breaking", server: "compatible" });
  });
});

describe("diff: errors and meta keys", () => {
  it("a changed error code breaks both the answering side and the side matching on it", () => {
    const d = diffAfter((s) => (s.errors.notFound.code = -32001));
    const c = at(d, "errors.notFound.code");
    expect(sides(c)).toEqual({ rule: "error.code", client: "breaking", server: "breaking" });
    expect(c).toMatchObject({ before: -32602, after: -32001, directions: ["server-to-client"] });
  });

  it("a changed message is compatible (the code is the contract); added and removed errors too", () => {
    const msg = diffAfter((s) => (s.errors.notFound.message = "No such task"));
    expect(sides(at(msg, "errors.notFound.message"))).toEqual({ rule: "error.message", client: "compatible", server: "compatible" });
    const added = diffAfter((s) => (s.errors.gone = { code: -32603, message: "Internal error" }));
    expect(sides(at(added, "errors.gone"))).toEqual({ rule: "error.added", client: "compatible", server: "compatible" });
  });

  it("meta keys: a new key string breaks both; a removed key its readers; a new entry nobody", () => {
    const key = diffAfter((s) => (s.meta.related.key = "io.example/related-task"));
    expect(sides(at(key, "meta.related.key"))).toEqual({ rule: "meta.key", client: "breaking", server: "breaking" });
    const removed = diffAfter((s) => (s.meta = {}));
    expect(sides(at(removed, "meta.related"))).toEqual({ rule: "meta.removed", client: "breaking", server: "compatible" });
    const added = diffAfter((s) => (s.meta.other = { key: "io.example/other", type: "string", on: ["request"] }));
    expect(sides(at(added, "meta.other"))).toEqual({ rule: "meta.added", client: "compatible", server: "compatible" });
  });
});

describe("diff: states, transitions, guards", () => {
  // minimal.yaml: servers receive task requests (requests.server: ["*"]), so servers run tasks and clients read their status.
  it("a new status breaks the requestor (client), not the receiver (server)", () => {
    const d = diffAfter((s) => {
      s.states.queued = { role: "queued" };
      s.transitions.push({ from: "working", to: "queued" }, { from: "queued", to: "working" });
    });
    const c = at(d, "states.queued");
    expect(sides(c)).toEqual({ rule: "state.added", client: "breaking", server: "compatible" });
    expect(c.summary).toContain("with 2 transitions");
    expect(d.changes.filter((x) => x.section === "transitions")).toEqual([]);
  });

  it("a removed status breaks the receiver; so does a new initial status", () => {
    const d = diffAfter((s) => {
      delete s.states.input_required;
      s.transitions = [{ from: "working", to: ["completed", "failed", "cancelled"] }];
      delete s.guards;
    });
    expect(sides(at(d, "states.input_required"))).toEqual({ rule: "state.removed", client: "compatible", server: "breaking" });
    const initial = diffAfter((s) => {
      s.states.working.initial = false;
      s.states.input_required.initial = true;
      s.transitions.push({ from: "input_required", to: "working" });
    });
    expect(sides(at(initial, "states.initial"))).toMatchObject({ rule: "state.initial", client: "compatible", server: "breaking" });
  });

  it("a status that becomes terminal, or changes role, breaks both", () => {
    const d = diffAfter((s) => {
      s.states.input_required.role = "queued";
    });
    expect(sides(at(d, "states.input_required.role"))).toEqual({ rule: "state.role", client: "breaking", server: "breaking" });
  });

  it("transitions: removed breaks the receiver, added is compatible, a new guard breaks the receiver", () => {
    const removed = diffAfter((s) => (s.transitions[0].to = ["input_required", "completed", "failed"]));
    expect(sides(at(removed, "transitions.working->cancelled"))).toEqual({ rule: "transition.removed", client: "compatible", server: "breaking" });
    const guarded = diffAfter((s) => {
      s.transitions[0] = { from: "working", to: ["input_required", "failed", "cancelled"] };
      s.transitions.push({ from: "working", to: "completed", guard: "noPendingInput" });
    });
    expect(sides(at(guarded, "transitions.working->completed.guard"))).toEqual({ rule: "transition.guard.added", client: "compatible", server: "breaking" });
    const changed = diffAfter((s) => (s.guards.noPendingInput.equals = 1));
    expect(sides(at(changed, "guards.noPendingInput"))).toEqual({ rule: "guard.changed", client: "compatible", server: "breaking" });
  });
});

describe("diff: behaviour, compared as data", () => {
  it("a changed mode has a readable path and breaks both", () => {
    const d = diffAfter((s) => {
      s.behaviour.results = { mode: "block-until-terminal", method: "tasks/get", replaysErrors: true };
      delete s.methods["tasks/get"].operation;
    });
    const c = at(d, "behaviour.results.mode");
    expect(c).toMatchObject({ before: "inline", after: "block-until-terminal", client: "breaking", server: "breaking", priority: 2 });
    expect(c.summary).toBe("`behaviour.results.mode`: inline → block-until-terminal");
    // Properties that appear or vanish with the mode are its details.
    expect(at(d, "behaviour.results.method").rule).toBe("behaviour.detail");
    expect(at(d, "behaviour.results.resultField").hint).toContain("behaviour.results.mode");
  });

  it("defaults and limits are tuning, compatible for both", () => {
    const d = diffAfter((s) => {
      s.behaviour.polling.default = 5000;
      s.behaviour.limits.pollPerMinute = 60;
    });
    expect(sides(at(d, "behaviour.polling.default"))).toEqual({ rule: "behaviour.tuning", client: "compatible", server: "compatible" });
    expect(sides(at(d, "behaviour.limits.pollPerMinute"))).toEqual({ rule: "behaviour.tuning", client: "compatible", server: "compatible" });
  });

  it("a feature that appears is breaking for the receiver; one that disappears for the requestor", () => {
    const listing = { method: "tasks/get", pageSize: 10, maxPageSize: 100, invalidCursorError: "limited" };
    const list = (s: SpecData) => {
      s.behaviour.listing = listing;
      delete s.methods["tasks/get"].operation;
    };
    const added = diffAfter(list);
    expect(sides(at(added, "behaviour.listing"))).toEqual({ rule: "behaviour.added", client: "compatible", server: "breaking" });
    const removed = diffUndo(list);
    expect(sides(at(removed, "behaviour.listing"))).toEqual({ rule: "behaviour.removed", client: "breaking", server: "compatible" });
  });

  it("booleans change; they are not added or removed", () => {
    const d = diffAfter((s) => (s.behaviour.results.replaysErrors = true));
    expect(at(d, "behaviour.results.replaysErrors")).toMatchObject({ rule: "behaviour.changed", before: false, after: true });
  });

  it("narrowing the requests that may become tasks breaks requestors, once", () => {
    const d = diffAfter((s) => (s.behaviour.creation.requests.server = ["tools/call"]));
    const c = at(d, "behaviour.creation.requests.server");
    expect(sides(c)).toEqual({ rule: "behaviour.requests.removed", client: "breaking", server: "compatible" });
    expect(c.summary).toContain("any request → `tools/call`");
  });

  it("receiver-only obligations break the receiver alone", () => {
    const d = diffAfter((s) => (s.behaviour.sessionBinding = "auth"));
    expect(sides(at(d, "behaviour.sessionBinding"))).toEqual({ rule: "behaviour.receiver", client: "compatible", server: "breaking" });
  });
});

describe("diff: the rule table and the JSON shape", () => {
  it("every rule is documented, and every behaviour path maps to a rule", () => {
    for (const [id, r] of Object.entries(RULES)) {
      expect(r.what.length, id).toBeGreaterThan(10);
      expect(r.priority, id).toBeGreaterThanOrEqual(1);
      expect(r.priority, id).toBeLessThanOrEqual(9);
    }
    for (const r of BEHAVIOUR_RULES) expect(Object.keys(RULES)).toContain(r.rule);
  });

  it("has the documented, stable shape", () => {
    const d = diffAfter((s) => {
      delete s.methods["notifications/tasks/progress"];
      s.types.Task.fields.note = "string?";
      s.behaviour.results.replaysErrors = true;
    });
    const j = JSON.parse(renderDiffJson(d));
    expect(Object.keys(j)).toEqual(["format", "old", "new", "summary", "changes"]);
    expect(j.format).toBe(DIFF_FORMAT);
    expect(Object.keys(j.old)).toEqual(["name", "protocol", "revision"]);
    expect(Object.keys(j.summary)).toEqual(["changes", "breaking", "sections"]);
    expect(Object.keys(j.summary.sections)).toEqual([...SECTIONS]);
    expect(j.summary.changes).toBe(j.changes.length);
    for (const c of j.changes) {
      expect(Object.keys(c).filter((k) => k !== "before" && k !== "after")).toEqual([
        "section", "rule", "path", "subject", "summary", "client", "server", "directions", "priority", "hint",
      ]);
      expect(SECTIONS).toContain(c.section);
      expect(Object.keys(RULES)).toContain(c.rule);
      expect(["breaking", "compatible"]).toContain(c.client);
      expect(["breaking", "compatible"]).toContain(c.server);
      expect(c.hint).toMatch(/\S/);
    }
    // Sorted by section.
    const order = j.changes.map((c: Change) => SECTIONS.indexOf(c.section));
    expect(order).toEqual([...order].sort((a: number, b: number) => a - b));
  });

  it("Markdown: a summary with counts per section and side, breaking changes first", () => {
    const d = diffAfter((s) => {
      s.types.Task.fields.note = "string?";
      delete s.methods["tasks/get"];
    });
    const md = renderDiffMarkdown(d);
    expect(md).toContain("| Section | Changes | Breaking for clients | Breaking for servers | Compatible for both |");
    expect(md).toMatch(/\| \*\*Total\*\* \| \*\*\d+\*\* \|/);
    const top = md.indexOf("## Most important breaking changes");
    expect(top).toBeGreaterThan(md.indexOf("## Summary"));
    expect(md.slice(top)).toMatch(/^## Most important breaking changes\n\n1\. Request `tasks\/get` removed/);
  });
});

// ---------------------------------------------------------------------------
// The CLI
// ---------------------------------------------------------------------------

async function cli(args: string[], cwd = root): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(args, { out: (s) => (out += s + "\n"), err: (s) => (err += s + "\n"), cwd, color: false });
  return { code, out, err };
}

describe("diff: the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "mtg-diff-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, s: SpecData) => {
    writeFileSync(join(dir, name), JSON.stringify(s, null, 2));
    return join(dir, name);
  };
  const old = write("old.json", base());
  const compatible = write("compatible.json", edited((s) => (s.types.Task.fields.note = "string?")));
  const breaking = write("breaking.json", edited((s) => delete s.methods["tasks/get"]));
  const invalid = write("invalid.json", edited((s) => (s.states.working.initial = false)));

  it("identical specs: exit 0 at every --fail-on", async () => {
    for (const f of ["breaking", "any", "none"]) expect((await cli(["diff", old, old, "--fail-on", f])).code).toBe(0);
    expect((await cli(["diff", "sep-1686-draft", "sep-1686-draft"])).code).toBe(0);
  });

  it("--fail-on breaking (the default), any, none", async () => {
    expect((await cli(["diff", old, compatible])).code).toBe(0);
    expect((await cli(["diff", old, compatible, "--fail-on", "breaking"])).code).toBe(0);
    expect((await cli(["diff", old, compatible, "--fail-on", "any"])).code).toBe(1);
    expect((await cli(["diff", old, compatible, "--fail-on", "none"])).code).toBe(0);
    expect((await cli(["diff", old, breaking])).code).toBe(1);
    expect((await cli(["diff", old, breaking, "--fail-on", "any"])).code).toBe(1);
    expect((await cli(["diff", old, breaking, "--fail-on", "none"])).code).toBe(0);
  });

  it("prints Markdown, or JSON with --json", async () => {
    const md = await cli(["diff", old, breaking]);
    expect(md.out).toMatch(/^# Upgrading from `diff-base` to `diff-base`/);
    const json = await cli(["diff", old, breaking, "--json"]);
    expect(JSON.parse(json.out).summary.breaking).toEqual({ client: 1, server: 0, any: 1 });
  });

  it("a spec with errors prints its diagnostics and exits 1; usage errors exit 2", async () => {
    const bad = await cli(["diff", old, invalid]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("MTG040");
    expect(bad.out).toBe("");
    expect((await cli(["diff", old, "no-such-builtin"])).code).toBe(2);
    expect((await cli(["diff", old])).code).toBe(2);
    expect((await cli(["diff", old, old, "--fail-on", "sometimes"])).code).toBe(2);
  });
});

// ---------------------------------------------------------------------------
// The committed migration guides
// ---------------------------------------------------------------------------

const PAIRS = [
  ["sep-1686-draft", "mcp-2025-11-25"],
  ["mcp-2025-11-25", "ext-tasks-2026-07-28"],
] as const;

describe("output-samples/diffs", () => {
  const dir = join(root, "output-samples", "diffs");

  it("holds exactly the guides between consecutive built-in revisions", () => {
    expect(readdirSync(dir).sort()).toEqual(PAIRS.flatMap(([a, b]) => [`${a}__${b}.json`, `${a}__${b}.md`]).sort());
  });

  for (const [from, to] of PAIRS) {
    it(`${from} → ${to} is fresh (run \`npm run samples\` or \`node scripts/update-diff-samples.mjs\` if this fails)`, async () => {
      const md = await cli(["diff", from, to, "--fail-on", "none"]);
      const json = await cli(["diff", from, to, "--fail-on", "none", "--json"]);
      expect(md.code).toBe(0);
      expect(readFileSync(join(dir, `${from}__${to}.md`), "utf8")).toBe(md.out);
      expect(readFileSync(join(dir, `${from}__${to}.json`), "utf8")).toBe(json.out);
    });

    it(`${from} → ${to} is breaking for both sides, and exits 1 by default`, async () => {
      const r = await cli(["diff", from, to, "--json"]);
      expect(r.code).toBe(1);
      const d = JSON.parse(r.out) as Diff;
      expect(d.summary.breaking.client).toBeGreaterThan(0);
      expect(d.summary.breaking.server).toBeGreaterThan(0);
    });
  }
});
