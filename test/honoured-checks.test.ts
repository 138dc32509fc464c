/**
 * The combinations the format accepts piece by piece and the runtime cannot keep (generator/check/honoured.ts):
 * each is the minimal spec (or a built-in spec) with one edit, refused with its code at the edit; the
 * combinations the runtime does honour stay valid.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyze } from "../generator/pipeline.js";
import { ROOT } from "./helpers/cli.js";

const minimal = readFileSync(join(ROOT, "test/fixtures/minimal.yaml"), "utf8");
const relay = readFileSync(join(ROOT, "test/fixtures/specs/relay.yaml"), "utf8");

/** `text` with each [from, to] replaced once (each must occur). */
function edit(text: string, ...edits: [string, string][]): string {
  for (const [from, to] of edits) {
    expect(text.includes(from), `'${from}' occurs`).toBe(true);
    text = text.replace(from, to);
  }
  return text;
}

/** The findings of a spec as `CODE line:col message`. */
function findings(text: string): string[] {
  return analyze({ file: "it.yaml", text }).diagnostics.map((d) => `${d.code} ${d.location?.line}:${d.location?.col} ${d.message}`);
}

/** The line a text first occurs on (1-based). */
const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

/** minimal with a paused state `held` that working may enter and leave. */
const withHeld = (text: string) =>
  edit(text, ["  working:\n", "  held:\n    role: paused\n  working:\n"], ["    to: [completed, failed, cancelled]", "    to: [completed, failed, cancelled, held]\n  - from: held\n    to: [working, completed, failed, cancelled]"]);

describe("a behaviour that names a state of a role the runtime treats otherwise (MTG045)", () => {
  const refused: [string, string, string][] = [
    ["input.resume: completed", "    resume: working", "    resume: completed"],
    ["input.resume: failed", "    resume: working", "    resume: failed"],
    ["events.cancel: completed", "behaviour:\n", "behaviour:\n  events:\n    cancel: completed\n"],
    ["events.cancel: failed", "behaviour:\n", "behaviour:\n  events:\n    cancel: failed\n"],
    ["events.expiry: completed", "behaviour:\n", "behaviour:\n  events:\n    expiry: completed\n"],
    ["events.exception: completed", "behaviour:\n", "behaviour:\n  events:\n    exception: completed\n"],
    ["events.restart: completed", "behaviour:\n", "behaviour:\n  events:\n    restart: completed\n"],
    ["outcomes.protocolError: completed", "    protocolError: failed", "    protocolError: completed"],
    ["outcomes.unexpected: completed", "    unexpected: failed", "    unexpected: completed"],
    ["outcomes.toolError: cancelled", "    toolError: completed", "    toolError: cancelled"],
  ];
  it.each(refused)("%s is refused where it is written", (what, from, to) => {
    const text = edit(minimal, [from, to]);
    const [key, state] = what.split(": ") as [string, string];
    const f = findings(text);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatch(new RegExp(`^MTG045 ${lineOf(text, `${key.split(".").pop()}: ${state}`)}:\\d+ ${key.replace(".", "\\.")} names '${state}' \\(role \\w+\\), but .*; name a state of role`));
  });

  it("input.status naming a paused state is refused; a running one is kept for side requests only", () => {
    const held = edit(withHeld(minimal), ["    status: working", "    status: held"]);
    expect(findings(held)).toEqual([expect.stringMatching(/^MTG045 \d+:13 input\.status names 'held' \(role paused\)/)]);
    expect(findings(minimal)).toEqual([]);
    const polled = edit(relay, ["    status: waiting", "    status: accepted"]);
    expect(findings(polled)).toEqual([expect.stringMatching(/^MTG045 \d+:13 input\.status names 'accepted' \(role running\), but input via inline-poll is found by the requestor only in a status of role input_required; name a state of role input_required \(waiting\)$/)]);
  });

  it("the states of the roles each behaviour promises are valid", () => {
    expect(findings(withHeld(minimal))).toEqual([]);
    expect(findings(edit(minimal, ["behaviour:\n", "behaviour:\n  events:\n    cancel: cancelled\n    exception: failed\n    restart: cancelled\n"]))).toEqual([]);
    expect(findings(edit(minimal, ["    toolError: completed", "    toolError: failed"]))).toEqual([]);
  });
});

describe("fields the runtime fills, declared with a type what it writes does not fit (MTG072)", () => {
  const refused: [string, string, string, RegExp][] = [
    ["an id typed integer", "      taskId: string", "      taskId: integer", /field 'taskId' of the task type is declared integer/],
    ["an id with a pattern UUIDs break", "      taskId: string", '      taskId: { type: string, pattern: "task-[0-9]+" }', /field 'taskId' of the task type allows only pattern task-\[0-9\]\+/],
    ["an id with format date-time", "      taskId: string", "      taskId: { type: string, format: date-time }", /allows only format date-time/],
    ["an id of at most 8 characters", "      taskId: string", "      taskId: { type: string, maxLength: 8 }", /allows only its length limits/],
    ["a retention typed string", "      ttl: integer", "      ttl: string", /field 'ttl' of the task type is declared string, but the runtime writes the retention granted in ms/],
    ["a poll interval typed boolean", "      pollInterval: integer", "      pollInterval: boolean", /field 'pollInterval' .* declared boolean/],
    ["createdAt typed integer", "      pollInterval: integer", "      pollInterval: integer\n      createdAt: integer", /field 'createdAt' .* declared integer, but the runtime writes an ISO 8601 time/],
    ["lastUpdatedAt with format uri", "      pollInterval: integer", "      pollInterval: integer\n      lastUpdatedAt: { type: string, format: uri }", /field 'lastUpdatedAt' .* allows only format uri/],
    ["a status message typed integer", "    failureShape: message", "    failureShape: message\n    statusMessageField: note", /field 'note' .* declared integer, but the runtime writes a status message/],
    ["a failure message typed integer", "    failureShape: message", "    failureShape: message\n    failureField: note", /field 'note' .* declared integer, but the runtime writes a failure's message/],
  ];
  it.each(refused)("%s is refused at the field", (_what, from, to, message) => {
    let text = edit(minimal, [from, to]);
    if (/note/.test(to)) text = edit(text, ["      pollInterval: integer", "      pollInterval: integer\n      note: integer?"]);
    const f = findings(text);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatch(/^MTG072 \d+:7 /);
    expect(f[0]).toMatch(message);
  });

  it("what the runtime writes is accepted in the types that hold it", () => {
    const fitting = edit(
      minimal,
      ["      taskId: string", "      taskId: { type: string, format: uuid, minLength: 36 }"],
      ["      ttl: integer", "      ttl: { type: integer, nullable: true, minimum: 0 }"],
      ["      pollInterval: integer", "      pollInterval: number\n      createdAt: { type: string, format: date-time }\n      lastUpdatedAt: string"],
    );
    expect(findings(fitting)).toEqual([]);
  });

  it("a list result whose page of tasks holds strings is refused", () => {
    const list = edit(
      minimal,
      ["methods: {}", "methods:\n  tasks/list:\n    kind: request\n    from: client\n    result: ListResult"],
      ["      pollInterval: integer", "      pollInterval: integer\n  ListResult:\n    type: object\n    fields:\n      tasks: string[]\n      nextCursor: string?"],
      ["  listing: false", "  listing:\n    method: tasks/list\n    pageSize: 10\n    maxPageSize: 10\n    invalidCursorError: limited"],
    );
    expect(findings(list)).toEqual([expect.stringMatching(/^MTG072 \d+:7 field 'tasks' of the list result 'ListResult' is declared string\[\], .*; declare it 'Task\[\]'$/)]);
    expect(findings(list.replace("tasks: string[]", "tasks: Task[]"))).toEqual([]);
  });
});

describe("a behaviour's default outside its field's bounds (MTG070)", () => {
  it("a retention default above the retention field's maximum, a poll default below its minimum", () => {
    const ttl = edit(minimal, ["      ttl: integer", "      ttl: { type: integer, maximum: 100 }"], ["    default: 0\n    max: 0", "    default: 1000\n    max: 1000"]);
    expect(findings(ttl)).toEqual([`MTG070 ${lineOf(ttl, "default: 1000")}:14 retention.default is 1000, outside the maximum 100 of field 'ttl', so every task would break its own type; choose a default within it, or widen the field`]);
    const poll = edit(minimal, ["      pollInterval: integer", "      pollInterval: { type: integer, minimum: 5000 }"]);
    expect(findings(poll)).toEqual([expect.stringMatching(/^MTG070 \d+:14 polling\.default is 1000, outside the minimum 5000 of field 'pollInterval'/)]);
  });
});

describe("input the binding underneath cannot carry (MTG069)", () => {
  it("input via inline-poll needs results mode inline, under either lifecycle", () => {
    expect(findings(relay)).toEqual([]);
    expect(findings(relay.replace("lifecycle: per-request", "lifecycle: initialize")).filter((f) => f.startsWith("MTG069 "))).toEqual([]);
    const blocking = edit(relay, ["    mode: inline\n", "    mode: block-until-terminal\n    method: relays/status\n"]);
    expect(findings(blocking).filter((f) => f.startsWith("MTG069 "))).toEqual([expect.stringMatching(/^MTG069 \d+:10 input via inline-poll puts the questions in the task, but with results mode block-until-terminal .*; use results mode inline/)]);
  });

  it("input via side-request or result-stream needs a session: refused under lifecycle per-request", () => {
    for (const via of ["side-request", "result-stream"]) {
      const asked = edit(relay, ["    via: inline-poll\n", `    via: ${via}\n`]);
      expect(findings(asked).filter((f) => f.startsWith("MTG069 "))).toEqual([expect.stringMatching(new RegExp(`^MTG069 \\d+:10 input via ${via} needs a session .*; use input via inline-poll`))]);
      expect(findings(asked.replace("lifecycle: per-request", "lifecycle: initialize")).filter((f) => f.startsWith("MTG069 "))).toEqual([]);
    }
  });
});

describe("a capability's value against its declared type (MTG074)", () => {
  const withCap = (value: string, type: string) =>
    edit(
      minimal,
      ["      pollInterval: integer\n", `      pollInterval: integer\n  Caps:\n${type}`],
      ["    server: false\n    client: false", `    server:\n      path: [tasks]\n      value: ${value}\n      type: Caps\n    client: false`],
    );
  it("refuses a missing required field, a field of the wrong kind and an extra key of a strict type; accepts a fitting value", () => {
    const fields = "    type: object\n    fields:\n      list: object\n      cancel: object?\n";
    expect(findings(withCap("{ cancel: {} }", fields))).toEqual([expect.stringMatching(/^MTG074 \d+:14 .*'list' is missing, which its type requires/)]);
    expect(findings(withCap("{ list: 3 }", fields))).toEqual([expect.stringMatching(/^MTG074 \d+:14 .*'list' is not an object/)]);
    expect(findings(withCap("{ list: {}, other: {} }", fields.replace("    type: object\n", "    type: object\n    strict: true\n")))).toEqual([expect.stringMatching(/'other' is not a field of its strict type/)]);
    expect(findings(withCap("{ list: {}, cancel: {} }", fields))).toEqual([]);
  });
});

describe("creation via client-capability and the client capability the runtime looks for", () => {
  it("refuses capabilities.client false (MTG060) and a creation.capability the path does not end with (MTG073)", () => {
    const client = "    client:\n      path: [extensions, com.example/relays]\n      value: {}\n      type: RelayCapability\n      requiredBy: [relays/status, relays/answer, relays/stop]\n      missingError: capabilityMissing\n";
    const none = edit(relay, [client, "    client: false\n"]);
    expect(findings(none)).toEqual([expect.stringMatching(/^MTG060 \d+:13 creation via client-capability .*with capabilities\.client false no request ever becomes a task/)]);
    const other = edit(relay, ["    capability: com.example/relays", "    capability: com.example/relay"]);
    expect(findings(other)).toEqual([expect.stringMatching(/^MTG073 \d+:17 creation\.capability names 'com\.example\/relay', but the runtime looks .*; end the path with/)]);
  });
});

describe("a default nothing applies (MTG070)", () => {
  it("refuses a default on a field the runtime fills, on another type, and on a method's params; keeps the task's own", () => {
    const ttl = edit(minimal, ["      ttl: integer", "      ttl: { type: integer, default: 5 }"]);
    expect(findings(ttl)).toEqual([expect.stringMatching(/^MTG070 \d+:\d+ field 'ttl' has a default, but the runtime fills this field itself and nothing applies this one; remove it/)]);
    const other = edit(minimal, ["      pollInterval: integer\n", "      pollInterval: integer\n  Note:\n    type: object\n    fields:\n      text: { type: string, optional: true, default: hi }\n"]);
    expect(findings(other)).toEqual([expect.stringMatching(/^MTG070 \d+:\d+ field 'text' has a default, but only the task type's own fields start with a default/)]);
    const own = edit(minimal, ["      pollInterval: integer\n", "      pollInterval: integer\n      progress: { type: integer, default: 0 }\n"]);
    expect(findings(own)).toEqual([]);
  });
});

describe("a _meta entry placed where its `on` does not allow it (MTG060)", () => {
  it("refuses a related-task entry that is not declared on results when relatedTask.results lists some", () => {
    const sep = readFileSync(join(ROOT, "spec/sep-1686-draft.yaml"), "utf8");
    expect(findings(sep)).toEqual([]);
    const text = sep.replace(/(  relatedTask:\n    key: [^\n]+\n(?:    [^\n]*\n)*?    on: )\[request, notification, result\]/, "$1[request, notification]");
    expect(text).not.toBe(sep);
    expect(findings(text)).toEqual([expect.stringMatching(/^MTG060 \d+:\d+ missing `result` in meta\.relatedTask\.on: behaviour\.relatedTask puts it on results; add it$/)]);
  });
});

describe("an error's HTTP status where the runtime sends it (MTG073)", () => {
  it("refuses errors.<name>.http under lifecycle initialize; keeps it under per-request", () => {
    const initialize = edit(minimal, ["    message: Limit reached\n", "    message: Limit reached\n    http: 429\n"]);
    expect(findings(initialize)).toEqual([expect.stringMatching(/^MTG073 \d+:11 errors\.limited\.http declares HTTP 429, but under lifecycle initialize the session transport answers every JSON-RPC error with HTTP 200 .*; remove http, or use lifecycle per-request/)]);
    expect(findings(relay)).toEqual([]);
  });
});

describe("a list method's cursor fields the runtime can find (MTG073)", () => {
  const mcp = readFileSync(join(ROOT, "spec/mcp-2025-11-25.yaml"), "utf8");
  const cursor = "      cursor:\n        type: string\n        optional: true\n        description: An opaque token for the current pagination position.\n";
  const next = "      nextCursor:\n        type: string\n        optional: true\n        description: The pagination position after the last returned task; present when more may exist.\n";

  it("MCP's names, or one string field each side declares instead, are kept", () => {
    expect(findings(mcp)).toEqual([]);
    expect(findings(edit(mcp, [cursor, "      after: string?\n      limit: integer?\n"], [next, "      next: string?\n"]))).toEqual([]);
  });

  it("params with several string fields and no 'cursor' are refused at their type, naming them", () => {
    const text = edit(mcp, [cursor, "      after: string?\n      filter: string?\n"]);
    expect(findings(text)).toEqual([
      `MTG073 ${lineOf(text, "after: string?")}:7 the params of tasks/list ('ListTasksRequestParams') declare several string fields (after, filter) and no 'cursor': the runtime reads the cursor from 'cursor', or else the one string field they declare; name the field 'cursor', or keep one string field besides _meta`,
    ]);
  });

  it("a result with no string field besides its tasks, and fields other than 'nextCursor', is refused", () => {
    const text = edit(mcp, [next, "      more: boolean?\n"]);
    expect(findings(text)).toEqual([
      `MTG073 ${lineOf(text, "tasks: Task[]")}:7 the result of tasks/list ('ListTasksResult') declares no string field and no 'nextCursor': the runtime answers the next cursor in 'nextCursor', or else the one string field it declares; name the field 'nextCursor'`,
    ]);
  });
});
