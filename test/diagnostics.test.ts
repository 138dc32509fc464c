/**
 * Diagnostics: one fixture per code in test/fixtures/diagnostics/, each the
 * minimal spec (test/fixtures/minimal.yaml) with one mistake. For each we
 * check the exact code, severity and file:line:col (and the text found there,
 * so the caret is on the offending key or value), and that the message says
 * what to do. A user's mistake never produces a stack trace.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { parse as parseYaml } from "yaml";
import { main } from "../generator/cli/index.js";
import { CODES, formatDiagnostic, type Diagnostic } from "../generator/diagnostics.js";
import { MAX_SPEC_BYTES } from "../generator/load.js";
import { analyze, compile } from "../generator/pipeline.js";
import { builtinSpecs, resolveSpec } from "../generator/specs.js";
import { cli, ROOT, STACK_TRACE, tempDirs } from "./helpers/cli.js";

const FIXTURE_DIR = "test/fixtures/diagnostics";
const MINIMAL = "test/fixtures/minimal.yaml";

const read = (file: string) => ({ file, text: readFileSync(join(ROOT, file), "utf8") });
const fixture = (name: string) => read(`${FIXTURE_DIR}/${name}.yaml`);

interface Expected {
  code: keyof typeof CODES;
  severity: "error" | "warning";
  line: number;
  col: number;
  /** The source text that starts at line:col: the offending key or value. */
  at: string;
  /** What the message must say (including what to do about it). */
  message: RegExp;
}

const E = (code: Expected["code"], line: number, col: number, at: string, message: RegExp): Expected => ({
  code,
  severity: "error",
  line,
  col,
  at,
  message,
});
const W = (code: Expected["code"], line: number, col: number, at: string, message: RegExp): Expected => ({
  ...E(code, line, col, at, message),
  severity: "warning",
});

/** Fixture name (without .yaml) → the one diagnostic it must produce. */
const EXPECTED: Record<string, Expected> = {
  "MTG002-yaml-syntax": E("MTG002", 4, 9, "Minimal: tasks", /^Nested mappings are not allowed in compact mappings; fix the YAML\/JSON syntax here$/),
  "MTG002-undefined-alias": E("MTG002", 12, 12, "*int", /^undefined YAML alias '\*int': define the anchor '&int' before this use$/),
  "MTG002-recursive-alias": E("MTG002", 9, 12, "*tree", /^YAML alias '\*tree' is inside the node it names, .*write the content out instead$/),
  "MTG003-not-a-mapping": E("MTG003", 2, 1, "- spec: minimal", /^the document is a list; a spec must be a mapping with keys such as spec, protocol/),
  "MTG004-too-deep": E("MTG004", 36, 119, "[[[[", /^the document nests mappings and lists more than 64 levels deep; .*flatten it/),
  "MTG010-unknown-key": E("MTG010", 9, 5, "fieldz", /^unknown key 'fieldz', did you mean 'fields'\?$/),
  "MTG011-wrong-type": E("MTG011", 61, 14, "soon", /^expected a number, got the string 'soon'$/),
  "MTG011-unknown-enum-value": E("MTG011", 16, 11, "runing", /^the string 'runing' is not allowed here, did you mean 'running'\? \(expected one of queued, running,/),
  "MTG011-invalid-name": E("MTG011", 7, 3, "task_owner", /^invalid name 'task_owner': type names are PascalCase identifiers, e\.g\. 'Task'; rename it$/),
  "MTG012-missing-key": E("MTG012", 3, 1, "protocol", /^missing required key 'revision'; add it here$/),
  "MTG020-undefined-type": E("MTG020", 16, 14, "Ownr", /^undefined type 'Ownr', did you mean 'Owner'\?; declare it under `types`$/),
  "MTG021-undefined-state": E("MTG021", 29, 10, "complete,", /^undefined state 'complete', did you mean 'completed'\?; declare it under `states`$/),
  "MTG022-undefined-method": E("MTG022", 77, 19, "tasks/delete", /^undefined method 'tasks\/delete'; declare it under `methods`$/),
  "MTG022-unknown-request": W("MTG022", 46, 16, "tools/cal]", /^'tools\/cal' is not a known MCP request, did you mean 'tools\/call'\?$/),
  "MTG023-undefined-error": E("MTG023", 97, 21, "limted", /^undefined error 'limted', did you mean 'limited'\?; declare it under `errors`$/),
  "MTG024-undefined-meta": E("MTG024", 39, 11, "task", /^undefined meta 'task'; declare it under `meta`$/),
  "MTG025-undefined-guard": E("MTG025", 30, 12, "allDone", /^undefined guard 'allDone'; declare it under `guards`$/),
  "MTG026-unknown-shorthand": E("MTG026", 12, 12, "integr", /^'integr' is neither a primitive \(.*\) nor a declared type, did you mean 'integer'\?$/),
  "MTG030-duplicate-name": E("MTG030", 21, 3, "completed:", /^duplicate key 'completed': each name may be declared once in a mapping; remove or rename one$/),
  "MTG030-status-type-declared": E("MTG030", 7, 3, "TaskStatus", /^type 'TaskStatus' is generated from `states`; remove it from `types` or set statusType to another name$/),
  "MTG031-proto-key": E("MTG031", 15, 7, "__proto__:", /^'__proto__' cannot be a key: in JavaScript it names an object's prototype, not a property; rename it$/),
  "MTG032-generated-name": E("MTG032", 7, 3, "BEHAVIOUR:", /^type 'BEHAVIOUR' is already declared by the generated protocol\.ts; rename it$/),
  "MTG040-no-initial-state": E("MTG040", 14, 1, "states:", /^no initial state; mark exactly one state with `initial: true`$/),
  "MTG041-two-initial-states": E("MTG041", 20, 5, "initial: true", /^more than one initial state \('queued' and 'working'\); keep `initial: true` on one$/),
  "MTG042-transition-from-terminal": E("MTG042", 30, 11, "completed", /^state 'completed' is terminal, so no transition may leave it; remove it from `from` or make it non-terminal$/),
  "MTG043-unreachable-state": E("MTG043", 18, 3, "paused:", /^state 'paused' cannot be reached from the initial state 'working'; add a transition into it or remove it$/),
  "MTG044-no-way-to-end": E("MTG044", 18, 3, "stuck:", /^non-terminal state 'stuck' can never reach a terminal state; add a transition to one$/),
  "MTG045-resume-completed": E("MTG045", 81, 13, "completed", /^input\.resume names 'completed' \(role completed\), but .*; name a state of role running \(working\)$/),
  "MTG046-terminal-role-mismatch": E("MTG046", 21, 3, "failed:", /^state 'failed' is terminal but its role 'queued' is not an ending; use completed, failed, cancelled or unknown$/),
  "MTG047-duplicate-transition": W("MTG047", 30, 5, "from: working", /^transition working → completed is already declared in transition 1; remove the repetition$/),
  "MTG050-reserved-code": E("MTG050", 33, 11, "-32500", /^code -32500 lies in JSON-RPC's reserved block .*; choose another code$/),
  "MTG050-nonstandard-code": W("MTG050", 33, 11, "429", /^code 429 is outside the JSON-RPC ranges .*; prefer a server code \(-32099\.\.-32000\)$/),
  "MTG051-unfilled-placeholder": E("MTG051", 34, 23, "{limit}", /^placeholder \{limit\} has no value: declare 'limit' under this error's `context`$/),
  "MTG052-unused-context": W("MTG052", 36, 7, "limit:", /^context value 'limit' is never used in the message; use \{limit\} in the message or remove it$/),
  "MTG060-incomplete-behaviour": E("MTG060", 37, 3, "creation:", /^missing `paramType`: creation via param needs the type of that field$/),
  "MTG061-no-such-field": E("MTG061", 53, 12, "ttll", /^the task type 'Task' has no field 'ttll', did you mean 'ttl'\?$/),
  "MTG061-related-task-id": E("MTG061", 42, 11, "RelatedRun", /^the related-task meta 'related' names its task in a field 'taskId', which its type has not; give the type a 'taskId: string' field$/),
  "MTG062-union-without-discriminator": E("MTG062", 20, 22, "Pending", /^variant 2 needs a required field 'kind' of literal or enum type to be told apart$/),
  "MTG062-union-misses-a-state": E("MTG062", 22, 5, "type: union", /^this union has a variant for each state it covers by 'status', but none for 'withdrawn' \(role cancelled, as 'cancelled' has\): a task in it would not fit; add a variant for it$/),
  "MTG063-endless-recursion": E("MTG063", 7, 3, "Chain:", /^type 'Chain' requires itself \(Chain → Chain\); make a field on the cycle optional or nullable, or use an array$/),
  "MTG064-unused-method": W("MTG064", 31, 3, "notifications/tasks/poke:", /^method 'notifications\/tasks\/poke' is declared but no behaviour uses it; reference it under `behaviour` or remove it$/),
  "MTG067-no-operation": E("MTG067", 31, 3, "tasks/pause:", /^request 'tasks\/pause' declares no operation and no behaviour names it, so no server could answer it; .*add `operation: custom` under it \(nothing in its name or shape says more/),
  "MTG068-event-without-transition": E("MTG068", 45, 13, "expired", /^events\.expiry leads to 'expired', but the transition table has no paused → expired; .*add it$/),
  "MTG069-sdk-task-shape": E("MTG069", 39, 12, "task", /^a task request carried in `params\.task` of tools\/call is checked by the SDK 1\.32 Server underneath .* lacks createdAt, lastUpdatedAt\./),
  "MTG070-bad-default": E("MTG070", 16, 18, "half", /^the default of field 'progress' must be an integer, not "half"$/),
  "MTG073-related-on-inline-result": E("MTG073", 99, 21, "true", /^relatedTask\.onInlineResult: true asks for the related-task key on a result inlined into the task, .*; set it to false/),
  "MTG072-id-integer": E("MTG072", 10, 7, "taskId", /^field 'taskId' of the task type is declared integer, but the runtime writes the ids it makes \(random UUIDs.*; declare it 'string'/),
  "MTG074-capability-value": E("MTG074", 93, 14, "{ cancel: {} }", /^the server capability's value does not fit its declared type: 'list' is missing, which its type requires; .*change it \(or the type\)/),
  "MTG075-tool-error-guarded": E("MTG075", 78, 16, "completed", /^outcomes\.toolError leads to 'completed', but the table reaches it only through working → completed \(guard isScored, which does not hold with score 0\): .*for ever; name a state the table reaches from the start \(failed\), or guard that transition .*give score a default that does$/),
  "MTG065-self-defined-type": E("MTG065", 7, 3, "Loop:", /^type 'Loop' is defined by itself \(Loop → Loop\) with no object, list or record in between; wrap the inner reference/),
  "MTG066-type-too-deep": E("MTG066", 7, 9, "string[][]", /^this type nests 41 levels of lists, records, unions and objects; generated code type-checks at most 32, so name an inner part/),
  "MTG071-example-undefined-method": E("MTG071", 103, 13, "tasks/get", /^example 'get' names undefined method 'tasks\/get'; declare it under `methods` or fix the name$/),
  "MTG080-invalid-regex": E("MTG080", 14, 18, '"[a-z"', /^invalid regular expression \(.*Unterminated character class\); fix the pattern/),
  "MTG081-http-header": E("MTG081", 95, 13, '"Mcp Task Id"', /^'Mcp Task Id' is not an HTTP header name: use letters, digits and .*, e\.g\. Mcp-Task-Id$/),
  "MTG082-meta-key": E("MTG082", 38, 10, '"modelcontextprotocol.io/task id"', /^'modelcontextprotocol\.io\/task id' is not a `_meta` key MCP allows: .*, e\.g\. io\.modelcontextprotocol\/related-task$/),
  "MTG030-duplicate-meta-key": E("MTG030", 41, 10, "com.example/owner", /^meta 'team' has the key 'com\.example\/owner' of meta 'owner': one `_meta` entry cannot carry both; give each its own key$/),
  "MTG051-literal-braces": E("MTG051", 34, 34, "{}", /^placeholder \{\} is no name the context could fill; for literal braces write \{\{ and \}\}/),
  "MTG053-not-found-as-method-not-found": E("MTG053", 36, 11, "-32601", /^error 'noSuchTask' uses -32601 \(Method not found\) but the spec answers it for notFoundError .*; choose a code of your own/),
  "MTG053-parse-error-code": E("MTG053", 33, 11, "-32700", /^error 'limited' uses -32700, JSON-RPC's parse error.*; choose a code of your own/),
  "MTG061-list-field-renamed": E("MTG061", 17, 7, "builds", /^the list result 'ListResult' holds its tasks in 'builds', but the runtime answers tasks\/list with them in 'tasks'.*; rename the field to 'tasks'$/),
  "MTG061-unfilled-result-field": E("MTG061", 19, 7, "total", /^field 'total' of 'ListResult' is required, but the runtime answers tasks\/list with .* which never fills it; make it optional/),
  "MTG082-progress-token": E("MTG082", 37, 10, "progressToken", /^'progressToken' is MCP's own `_meta` key .*; give it a key of its own with a prefix, e\.g\. com\.example\/progressToken$/),
  "MTG083-dotted-path": E("MTG083", 50, 14, '"execution/taskSupport"', /^'execution\/taskSupport' is not a dotted path of identifiers: .*, e\.g\. execution\.taskSupport$/),
};

/** Codes that no spec file can produce: they are about reading the file or the config. */
const NOT_FROM_A_SPEC = ["MTG001", "MTG090"];

const fixtureNames = readdirSync(join(ROOT, FIXTURE_DIR))
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => f.slice(0, -".yaml".length))
  .sort();

// Each CLI run is a cold node process that loads prettier; leave room on a loaded machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const dirs = tempDirs("mcp-task-gen-diag-");
afterAll(() => dirs.cleanup());

/** Run the CLI in-process (same code as bin/, much faster than a child process). */
async function mainIn(cwd: string, argv: string[]) {
  let stdout = "";
  let stderr = "";
  const io = { out: (s: string) => void (stdout += s + "\n"), err: (s: string) => void (stderr += s + "\n"), cwd, color: false };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

function textAt(file: string, line: number, col: number): string {
  return readFileSync(join(ROOT, file), "utf8").split("\n")[line - 1].slice(col - 1);
}

describe("the minimal spec", () => {
  it("is valid with 0 errors and 0 warnings, and compiles", async () => {
    const r = await compile(read(MINIMAL));
    expect(r.diagnostics).toEqual([]);
    expect(r.files?.length).toBeGreaterThan(0);
  });

  it("every fixture is the minimal spec with a small edit (so each shows one mistake)", () => {
    const base = readFileSync(join(ROOT, MINIMAL), "utf8").split("\n").slice(2);
    for (const name of fixtureNames) {
      if (name.startsWith("MTG003")) continue; // not a mapping at all
      const lines = new Set(fixture(name).text.split("\n"));
      const missing = base.filter((l) => !lines.has(l));
      expect(missing.length, `${name} drops ${missing.join(" | ")}`).toBeLessThanOrEqual(3);
    }
  });
});

describe("fixtures cover every diagnostic code", () => {
  it("has a fixture for every code a spec can produce, and no code without a fixture", () => {
    const covered = new Set(fixtureNames.map((n) => n.slice(0, 6)));
    for (const code of Object.keys(CODES)) {
      if (NOT_FROM_A_SPEC.includes(code)) continue;
      expect(covered.has(code), `no fixture for ${code} (${CODES[code as keyof typeof CODES]})`).toBe(true);
    }
  });

  it("has an expectation for every fixture file, and a file for every expectation", () => {
    expect(fixtureNames).toEqual(Object.keys(EXPECTED).sort());
  });

  it("names each fixture after the code it produces", () => {
    for (const [name, e] of Object.entries(EXPECTED)) expect(name.startsWith(`${e.code}-`)).toBe(true);
  });
});

describe.each(Object.entries(EXPECTED))("%s", (name, e) => {
  const file = `${FIXTURE_DIR}/${name}.yaml`;

  it(`reports exactly ${e.code} (${e.severity}) at ${e.line}:${e.col}, saying what to do`, () => {
    const { diagnostics } = analyze(fixture(name));
    expect(diagnostics.map((d) => `${d.code} ${d.severity} ${d.location?.line}:${d.location?.col}`)).toEqual([
      `${e.code} ${e.severity} ${e.line}:${e.col}`,
    ]);
    const [d] = diagnostics;
    expect(d.message).toMatch(e.message);
    expect(d.location?.file).toBe(file);
    // The caret is on the offending key or value.
    expect(textAt(file, e.line, e.col).startsWith(e.at), `text at ${e.line}:${e.col} is '${textAt(file, e.line, e.col)}'`).toBe(true);
    expect(d.location?.lineText).toBe(readFileSync(join(ROOT, file), "utf8").split("\n")[e.line - 1]);
  });

  it("formats as file:line:col severity code message, with an excerpt and a caret", () => {
    const [d] = analyze(fixture(name)).diagnostics;
    const lines = formatDiagnostic(d).split("\n");
    expect(lines[0]).toBe(`${file}:${e.line}:${e.col} ${e.severity} ${e.code} ${d.message}`);
    expect(lines[1]).toBe(`  ${e.line} | ${d.location!.lineText}`);
    expect(lines[2]).toMatch(new RegExp(`^  ${" ".repeat(String(e.line).length)} \\| ${" ".repeat(e.col - 1)}\\^+$`));
  });

  it(e.severity === "error" ? "stops compilation (no files)" : "is a warning: the files are still generated", async () => {
    const r = await compile(fixture(name));
    if (e.severity === "error") expect(r.files).toBeUndefined();
    else expect(r.files?.length).toBeGreaterThan(0);
  });

  it(`the CLI's validate reports it on stderr without a stack trace (exit ${e.severity === "error" ? 1 : 0})`, async () => {
    const r = await mainIn(ROOT, ["validate", file]);
    expect(r.code).toBe(e.severity === "error" ? 1 : 0);
    expect(r.stderr).toContain(`${file}:${e.line}:${e.col} ${e.severity} ${e.code} `);
    expect(r.stderr).not.toMatch(STACK_TRACE);
    expect(r.stdout).toContain(e.severity === "error" ? "invalid (1 error, 0 warnings)" : "valid (0 errors, 1 warning)");
  });
});

describe("more mistakes, and no crashes", () => {
  const src = (text: string, file = "inline.yaml") => ({ file, text });
  const minimal = readFileSync(join(ROOT, MINIMAL), "utf8");
  const codes = (ds: Diagnostic[]) => ds.map((d) => `${d.code} ${d.location?.line}:${d.location?.col}`);

  it("an empty file is not a mapping (MTG003 at 1:1)", () => {
    const { diagnostics } = analyze(src(""));
    expect(codes(diagnostics)).toEqual(["MTG003 1:1"]);
    expect(diagnostics[0].message).toMatch(/^the document is empty; a spec must be a mapping/);
  });

  it("a misspelt top-level key reports the unknown key only, not also the missing one", () => {
    const { diagnostics } = analyze(src(minimal.replace(/^behaviour:/m, "behavior:")));
    expect(codes(diagnostics)).toEqual([`MTG010 ${minimal.split("\n").indexOf("behaviour:") + 1}:1`]);
    expect(diagnostics[0].message).toBe("unknown key 'behavior', did you mean 'behaviour'?");
  });

  it("JSON is accepted and located too", () => {
    const data = parseYaml(minimal) as { types: { Task: Record<string, unknown> } };
    data.types.Task.fieldz = data.types.Task.fields;
    delete data.types.Task.fields;
    const text = JSON.stringify(data, null, 2);
    const { diagnostics } = analyze(src(text, "spec.json"));
    const line = text.split("\n").findIndex((l) => l.includes('"fieldz"')) + 1;
    expect(codes(diagnostics)).toEqual([`MTG010 ${line}:7`]);
    expect(diagnostics[0].message).toContain("did you mean 'fields'?");
    expect(analyze(src(JSON.stringify(parseYaml(minimal)), "spec.json")).diagnostics).toEqual([]);
  });

  it("a JSON syntax error is MTG002", () => {
    const { diagnostics } = analyze(src('{"spec": "x",\n "protocol": {"name": "a" "revision": "1"}\n}\n', "spec.json"));
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics.every((d) => d.code === "MTG002" && d.location?.line === 2)).toBe(true);
  });

  it("a per-request spec may run tools/call, resources/read and prompts/get as tasks, nothing else (MTG069)", () => {
    const relay = readFileSync(join(ROOT, "test/fixtures/specs/relay.yaml"), "utf8");
    expect(analyze(src(relay)).diagnostics).toEqual([]);
    const served = relay.replace("server: [tools/call, resources/read]", "server: [tools/call, resources/read, prompts/get]");
    expect(analyze(src(served)).diagnostics).toEqual([]);
    const unserved = relay.replace("server: [tools/call, resources/read]", "server: [tools/call, completion/complete]");
    expect(codes(analyze(src(unserved)).diagnostics)).toEqual(["MTG069 220:28"]);
  });

  it("a spec whose task request is carried in params.task names every status as the SDK's client reads them (MTG069)", () => {
    const mcp = readFileSync(join(ROOT, "spec/mcp-2025-11-25.yaml"), "utf8");
    expect(analyze(src(mcp)).diagnostics).toEqual([]);
    // A terminal state of its own, which a failure reaches long after the task was made.
    const stale = mcp
      .replace(/^states:\n/m, "states:\n  stale:\n    role: failed\n    terminal: true\n    description: The work's input went stale.\n")
      .replace("to: [input_required, completed, failed, cancelled]", "to: [input_required, completed, failed, cancelled, stale]");
    const d = analyze(src(stale)).diagnostics.filter((x) => x.code === "MTG069");
    expect(d.map((x) => x.message)).toEqual([expect.stringContaining("every status (here stale) must be one of working, input_required, completed, failed, cancelled")]);
    expect(d[0]!.location?.line).toBe(stale.split("\n").findIndex((l) => /^\s+param: task$/.test(l)) + 1);
  });

  it("promises the runtime does not carry out are refused where they are written (MTG073)", () => {
    const mcp = readFileSync(join(ROOT, "spec/mcp-2025-11-25.yaml"), "utf8");
    const at = (text: string, needle: string) => `MTG073 ${text.split("\n").findIndex((l) => l.includes(needle)) + 1}`;
    const mtg073 = (text: string) => codes(analyze(src(text)).diagnostics).filter((c) => c.startsWith("MTG073 ")).map((c) => c.replace(/:\d+$/, ""));
    // Task subscriptions under the initialize lifecycle: no subscribe request is served there.
    const subscribed = mcp.replace("    delivery: push\n", "    delivery: subscription\n    subscribeMethod: tasks/subscribe\n    subscribeField: taskIds\n");
    expect(mtg073(subscribed)).toEqual([at(subscribed, "delivery: subscription")]);
    // A cancel method that answers with the task and acknowledges an ended one: carried (the ended task is the answer).
    expect(mtg073(mcp.replace("    terminal: error\n", "    terminal: ack\n"))).toEqual([]);
    // An error's data as a string: the runtime fills object data only.
    const stringData = mcp.replace('    message: "Failed to retrieve task: Task not found"\n', '    message: "Failed to retrieve task: Task not found"\n    data: string\n');
    expect(mtg073(stringData)).toEqual([at(stringData, "data: string")]);
    const listData = mcp.replace('    message: "Failed to retrieve task: Task not found"\n', '    message: "Failed to retrieve task: Task not found"\n    data: string[]\n');
    expect(mtg073(listData)).toEqual([at(listData, "data: string[]")]);
    const objectData = mcp.replace('    message: "Failed to retrieve task: Task not found"\n', '    message: "Failed to retrieve task: Task not found"\n    data: { type: object, fields: { taskId: string } }\n');
    expect(mtg073(objectData)).toEqual([]);
  });

  it("a status notification sent as the plain task where its type requires what the status holds is refused (MTG072)", () => {
    const ext = readFileSync(join(ROOT, "spec/ext-tasks-2026-07-28.yaml"), "utf8");
    const plain = ext.replace("    delivery: subscription\n", "    delivery: push\n").replace("    payload: detailed-task\n", "    payload: task\n");
    const d = analyze(src(plain)).diagnostics.filter((x) => x.code === "MTG072");
    expect(d.map((x) => x.message)).toEqual([expect.stringContaining("notifications/tasks's params type requires inputRequests, result, error; set payload: detailed-task")]);
    expect(d[0]!.location?.line).toBe(plain.split("\n").findIndex((l) => l === "    payload: task") + 1);
    // Detailed, as the type asks: no such refusal.
    expect(analyze(src(ext.replace("    delivery: subscription\n", "    delivery: push\n"))).diagnostics.filter((x) => x.code === "MTG072")).toEqual([]);
  });

  it("one syntax error, not its cascade: a missing ] is one MTG002 that counts what follows", () => {
    const { diagnostics } = analyze(src("spec: x\nstates: [a, b\nfoo:\n  open: true\nbar: [1\n"));
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "MTG002", location: { line: 3, col: 1 } });
    expect(diagnostics[0]!.message).toMatch(/\(\d+ more syntax errors? after it, which may follow from this one\)$/);
  });

  it("several documents in one file are MTG002", () => {
    expect(codes(analyze(src("a: 1\n---\nb: 2\n")).diagnostics)).toEqual(["MTG002 2:1"]);
  });

  it("tabs used for indentation are MTG002", () => {
    expect(codes(analyze(src("spec: x\n\tprotocol: 1\n")).diagnostics)).toEqual(["MTG002 2:1"]);
  });

  it("an alias bomb is MTG002, not a crash", () => {
    const bomb = [
      "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
      `c: [${Array(50).fill("*b").join(", ")}]`,
      "",
    ].join("\n");
    const { diagnostics } = analyze(src(bomb));
    expect(diagnostics.map((d) => d.code)).toEqual(["MTG002"]);
    expect(diagnostics[0].message).toMatch(/aliases expand to too many nodes/);
  });

  it("nesting deeper than the parser's stack is MTG004, not a stack overflow", () => {
    for (const n of [1_000, 20_000]) {
      const { diagnostics } = analyze(src(`${minimal}x: ${"[".repeat(n)}${"]".repeat(n)}\n`));
      expect(diagnostics.map((d) => d.code)).toEqual(["MTG004"]);
      expect(diagnostics[0].location?.line).toBeGreaterThan(1);
    }
  });

  it("a spec above the size limit is refused at 1:1 before it is parsed (MTG001)", () => {
    const text = `${minimal}description: "${"x".repeat(MAX_SPEC_BYTES)}"\n`;
    const t0 = Date.now();
    const { diagnostics } = analyze(src(text));
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(codes(diagnostics)).toEqual(["MTG001 1:1"]);
    expect(diagnostics[0].message).toMatch(/^the spec is 1\.0 MB, above the limit of 1\.0 MB; /);
  });

  it("a 5 MB spec file is refused from its size, before it is read, in well under a second (MTG001)", async () => {
    const dir = dirs.make();
    // Valid YAML whose parse alone takes seconds: refused without reading it.
    writeFileSync(join(dir, "huge.yaml"), `${minimal}description: "${"x".repeat(5 * 1024 * 1024)}"\n`);
    const r0 = resolveSpec("huge.yaml", dir);
    expect(r0.ok).toBe(false);
    expect((r0 as { diagnostic?: Diagnostic }).diagnostic?.code).toBe("MTG001");
    for (const argv of [["validate", "huge.yaml"], ["generate", "--spec", "huge.yaml", "--out", "out"]]) {
      const t0 = performance.now();
      const r = await mainIn(dir, argv);
      expect(performance.now() - t0).toBeLessThan(1_000);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^huge\.yaml:1:1 error MTG001 the spec is 5\.0 MB, above the limit of 1\.0 MB; .*remove what is not part of it/);
    }
    expect(readdirSync(dir)).toEqual(["huge.yaml"]);
  });

  it("40,000 unknown keys are one short diagnostic: the first few keys and a count", () => {
    const keys = Array.from({ length: 40_000 }, (_, i) => `zz${i}: 1`).join("\n");
    const { diagnostics } = analyze(src(`${minimal}${keys}\n`));
    expect(diagnostics.map((d) => d.code)).toEqual(["MTG010"]);
    expect(diagnostics[0].message).toMatch(/^unknown keys 'zz0', 'zz1', 'zz2', 'zz3', 'zz4' and 39995 more \(allowed here: \$schema, spec, /);
    expect(diagnostics[0].message.length).toBeLessThan(300);
  });

  it("thousands of diagnostics print the first 50 and a count; validate --json keeps them all", async () => {
    const dir = dirs.make();
    const types = Array.from({ length: 2_000 }, (_, i) => `  T${i}:\n    fields:\n      a: string\n`).join("");
    writeFileSync(join(dir, "many.yaml"), minimal.replace(/^types:\n/m, `types:\n${types}`));
    const r = await mainIn(dir, ["validate", "many.yaml"]);
    expect(r.code).toBe(1);
    expect(r.stderr.match(/ error MTG012 /g)).toHaveLength(50);
    expect(r.stderr).toContain("mcp-task-gen: 1950 more diagnostics not shown; fix these first, or run validate --json for all of them");
    expect(r.stdout).toContain("invalid (2000 errors, 0 warnings)");
    const json = await mainIn(dir, ["validate", "many.yaml", "--json"]);
    expect((JSON.parse(json.stdout) as { diagnostics: Diagnostic[] }).diagnostics).toHaveLength(2000);
  });

  it("duplicate keys are found in one pass: a mapping of 20,000 keys (just under the size limit) validates in linear time", () => {
    const time = (n: number) => {
      const guards = Array.from({ length: n }, (_, i) => `  g${i}:\n    field: count\n    atLeast: ${i}`).join("\n");
      const t0 = performance.now();
      const { diagnostics } = analyze(src(`${minimal}guards:\n${guards}\n  g7:\n    field: count\n`));
      expect(diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
        "MTG030 duplicate key 'g7': each name may be declared once in a mapping; remove or rename one",
      ]);
      return performance.now() - t0;
    };
    time(1_000); // warm up
    const small = time(2_000);
    const large = time(20_000);
    // Linear: 10x the keys takes about 10x the time (quadratic would be 100x).
    expect(large / small, `${Math.round(small)} ms → ${Math.round(large)} ms`).toBeLessThan(30);
  });

  it("a spec written for 0.1 (requests without operation) is refused with MTG067 saying which operation to add to each", () => {
    /** A spec with every request's operation (and a transition's `to`) taken out, as 0.1 wrote them. */
    const as01 = (file: string) => {
      const doc = parseYaml(readFileSync(join(ROOT, file), "utf8")) as { methods: Record<string, { operation?: string; to?: string }> };
      for (const m of Object.values(doc.methods)) {
        delete m.operation;
        delete m.to;
      }
      return doc;
    };
    const mtg067 = (doc: unknown) =>
      Object.fromEntries(
        analyze(src(JSON.stringify(doc), "old.json"))
          .diagnostics.filter((d) => d.code === "MTG067" && d.severity === "error")
          .map((d) => [/^request '([^']+)'/.exec(d.message)![1], d.message]),
      );
    const jobs = mtg067(as01("test/fixtures/specs/jobs.yaml"));
    expect(Object.keys(jobs).sort()).toEqual(["jobs/note", "jobs/pause", "jobs/resume", "jobs/status"]);
    for (const message of Object.values(jobs)) expect(message).toContain("specs written for mcp-task-gen 0.1 declare no operations");
    expect(jobs["jobs/pause"]).toContain("add `operation: transition` and `to: paused` under it (it names a task and its name matches the state 'paused'");
    expect(jobs["jobs/note"]).toContain("add `operation: custom` under it");
    // Two requests answer the task: neither is guessed to be the get; each names the other and what decides.
    expect(jobs["jobs/status"]).toContain("add `operation:` under it (it names a task by 'jobId' and answers the Job, as 'jobs/resume' does: `operation: get` for the one that only reads the task");
    expect(jobs["jobs/resume"]).toContain("as 'jobs/status' does");
    // A built-in spec as 0.1 wrote it: the suggestion, applied, makes it valid again.
    const old = as01("spec/mcp-2025-11-25.yaml");
    const told = mtg067(old);
    expect(Object.keys(told)).toEqual(["tasks/get"]);
    expect(told["tasks/get"]).toContain("add `operation: get` under it");
    old.methods["tasks/get"]!.operation = "get";
    expect(analyze(src(JSON.stringify(old), "old.json")).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("a misspelt state does not also report the states it left unreachable", () => {
    const { diagnostics } = analyze(fixture("MTG021-undefined-state"));
    expect(diagnostics.map((d) => d.code)).toEqual(["MTG021"]);
  });

  it("a task type that is a union among its own variants is MTG065, not a stack overflow", () => {
    const text = minimal.replace("  Task:\n    type: object\n", "  Task:\n    type: union\n    variants: [Task, TaskObject]\n  TaskObject:\n    type: object\n");
    expect(text).not.toBe(minimal);
    const { diagnostics } = analyze(src(text));
    const line = text.split("\n").indexOf("  Task:") + 1;
    expect(codes(diagnostics)).toContain(`MTG065 ${line}:3`);
    expect(diagnostics.find((d) => d.code === "MTG065")!.message).toMatch(/^type 'Task' is defined by itself \(Task → Task\)/);
  });

  it("an invalid name in a map of declarations points at the name", () => {
    const text = minimal.replace("methods: {}", "methods:\n  Tasks/Get:\n    kind: request\n    from: client");
    const { diagnostics } = analyze(src(text));
    const line = text.split("\n").indexOf("  Tasks/Get:") + 1;
    expect(codes(diagnostics)).toEqual([`MTG011 ${line}:3`]);
    expect(diagnostics[0].message).toMatch(/^invalid name 'Tasks\/Get': method names look like 'tasks\/get'/);
  });
});

describe("one-line mutations of the minimal spec", () => {
  it("never throw, and every diagnostic they produce is located", () => {
    const lines = readFileSync(join(ROOT, MINIMAL), "utf8").split("\n");
    const variants: [string, string][] = [];
    lines.forEach((line, i) => {
      if (!line.trim() || line.trimStart().startsWith("#")) return;
      variants.push([`delete line ${i + 1}`, lines.filter((_, j) => j !== i).join("\n")]);
      const m = /^(\s*(?:- )?[^:#]+:\s+)\S.*$/.exec(line);
      for (const v of m ? ["null", "[]", "{}", "0", "-1", "x", "true", "Task", "completed", '"{x}"'] : []) {
        variants.push([`line ${i + 1} = ${v}`, lines.map((l, j) => (j === i ? m![1] + v : l)).join("\n")]);
      }
    });
    expect(variants.length).toBeGreaterThan(300);
    for (const [what, text] of variants) {
      let diagnostics: Diagnostic[] = [];
      expect(() => (diagnostics = analyze({ file: "m.yaml", text }).diagnostics), what).not.toThrow();
      for (const d of diagnostics) {
        expect(d.code in CODES, `${what}: ${d.code}`).toBe(true);
        expect(d.location?.file, `${what}: ${d.code} ${d.message}`).toBe("m.yaml");
        expect(d.location!.line >= 1 && d.location!.col >= 1, `${what}: ${d.code} ${d.message}`).toBe(true);
      }
    }
  });
});

describe("every built-in spec", () => {
  it.each(builtinSpecs())("%s validates with 0 errors and 0 warnings", (name) => {
    const r = resolveSpec(name, ROOT);
    if (!r.ok) throw new Error(r.message);
    expect(analyze(r.source).diagnostics.map((d) => formatDiagnostic(d))).toEqual([]);
  });

  it.each(builtinSpecs())("%s passes `validate --warn-as-error`", async (name) => {
    const r = await mainIn(ROOT, ["validate", name, "--warn-as-error"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});

describe("warnings and --warn-as-error", () => {
  const warn = `${FIXTURE_DIR}/MTG047-duplicate-transition.yaml`;

  it("validate: a warning alone exits 0; with --warn-as-error it exits 1", async () => {
    const plain = await mainIn(ROOT, ["validate", warn]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toMatch(/:30:5 warning MTG047 /);
    const strict = await mainIn(ROOT, ["validate", warn, "--warn-as-error"]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/:30:5 warning MTG047 /);
    expect(strict.stdout).toContain("invalid (0 errors, 1 warning)");
  });

  it("validate --json lists the diagnostics and the verdict", async () => {
    const r = await mainIn(ROOT, ["validate", warn, "--json", "--warn-as-error"]);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout) as { ok: boolean; diagnostics: Diagnostic[] };
    expect(j.ok).toBe(false);
    expect(j.diagnostics.map((d) => [d.code, d.severity, d.location?.line, d.location?.col])).toEqual([["MTG047", "warning", 30, 5]]);
  });

  it("generate writes despite a warning, and writes nothing with --warn-as-error", async () => {
    const dir = dirs.make();
    const strict = await mainIn(dir, ["generate", "--spec", join(ROOT, warn), "--out", "strict", "--warn-as-error"]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/warning MTG047 /);
    expect(strict.stderr).toMatch(/0 errors, 1 warning; nothing written/);
    expect(readdirSync(dir)).toEqual([]);
    const plain = await mainIn(dir, ["generate", "--spec", join(ROOT, warn), "--out", "plain"]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toMatch(/warning MTG047 /);
    expect(readdirSync(join(dir, "plain"))).toContain("mcp-task-gen.manifest.json");
  });
});

describe("MTG001: a spec file that cannot be read", () => {
  it("resolveSpec reports a missing path and a directory as MTG001", () => {
    const dir = dirs.make();
    mkdirSync(join(dir, "specs"));
    for (const [arg, why] of [
      ["nope.yaml", /no such file; check the path/],
      ["./sub/nope", /no such file/],
      ["specs", /it is a directory; name a spec file/],
    ] as const) {
      const r = resolveSpec(arg, dir);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.diagnostic?.code).toBe("MTG001");
      expect(r.diagnostic?.severity).toBe("error");
      expect(r.diagnostic?.message).toMatch(why);
    }
  });

  it("a bare name that is neither built in nor a file is a usage error, not MTG001", () => {
    const r = resolveSpec("no-such-spec", dirs.make());
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.diagnostic).toBeUndefined();
      expect(r.message).toContain("sep-1686-draft");
    }
  });

  it("the CLI prints file:1:1 error MTG001 and exits 1 (validate, generate, check)", async () => {
    const dir = dirs.make();
    mkdirSync(join(dir, "specs"));
    for (const argv of [
      ["validate", "missing.yaml"],
      ["validate", "specs"],
      ["generate", "--spec", "missing.yaml", "--out", "out"],
      ["check", "--spec", "specs/missing.json", "--out", "out"],
    ]) {
      const r = await mainIn(dir, argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr).toMatch(/^(missing\.yaml|specs|specs\/missing\.json):1:1 error MTG001 cannot read the spec file: /);
      expect(r.stderr).not.toMatch(STACK_TRACE);
    }
    expect(readdirSync(dir)).toEqual(["specs"]);
    const json = await mainIn(dir, ["validate", "missing.yaml", "--json"]);
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as { diagnostics: Diagnostic[] }).diagnostics[0].code).toBe("MTG001");
  });
});

describe("MTG090: an invalid configuration file", () => {
  it.each([
    ["mcp-task-gen.config.json", '{"spec": 5}', "1:10", /invalid configuration at 'spec': expected string/],
    ["mcp-task-gen.config.json", '{\n  "spec": "x",\n  "outt": "y"\n}', "3:3", /invalid configuration at '\(root\)': unknown key 'outt', did you mean 'out'\?/],
    ["mcp-task-gen.config.json", '{\n  "spec": "x",\n  "out": src/tasks\n}', "3:10", /cannot parse the configuration: Unexpected token/],
    ["mcp-task-gen.config.json", '{\n  "spec": "x",\n}', "3:1", /cannot parse the configuration: Expected double-quoted property name; fix the JSON syntax here$/m],
    ["mcp-task-gen.config.json", "{", "1:2", /cannot parse the configuration/],
    ["mcp-task-gen.config.yaml", "targets: []\n", "1:10", /invalid configuration at 'targets'/],
    ["mcp-task-gen.config.yaml", "targets:\n  - spec: x\n    out: 7\n", "3:10", /invalid configuration at 'targets.0.out'/],
    ["mcp-task-gen.config.yaml", "spec: [\n", "2:1", /cannot parse the configuration: .*; fix the YAML syntax here$/m],
    ["package.json", '{\n  "name": "x",\n  "mcp-task-gen": {\n    "outt": "a"\n  }\n}\n', "4:5", /\(package\.json#mcp-task-gen\) at '\(root\)': unknown key 'outt', did you mean 'out'\?/],
  ])("%s containing %j: at %s", async (name, text, where, why) => {
    const dir = dirs.make();
    writeFileSync(join(dir, name), text);
    const r = await mainIn(dir, []);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^${name.replace(/\./g, "\\.")}:${where} error MTG090 `));
    expect(r.stderr).toMatch(why);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([name]);
  });
});

describe("the real command never prints a stack trace for a user's mistake", () => {
  const cases: [string, string[], number, RegExp][] = [
    ["a YAML syntax error", ["validate", `${FIXTURE_DIR}/MTG002-yaml-syntax.yaml`], 1, /MTG002-yaml-syntax\.yaml:4:9 error MTG002 /],
    ["a recursive alias", ["generate", "--spec", `${FIXTURE_DIR}/MTG002-recursive-alias.yaml`, "--out", "x", "--dry-run"], 1, /:9:12 error MTG002 /],
    ["an unknown key", ["check", "--spec", `${FIXTURE_DIR}/MTG010-unknown-key.yaml`, "--out", "x"], 1, /:9:5 error MTG010 unknown key 'fieldz', did you mean 'fields'\?/],
    ["a missing file", ["validate", "test/fixtures/nope.yaml"], 1, /^test\/fixtures\/nope\.yaml:1:1 error MTG001 /],
    ["a warning as error", ["validate", `${FIXTURE_DIR}/MTG064-unused-method.yaml`, "--warn-as-error"], 1, /:31:3 warning MTG064 /],
    ["an unknown spec name", ["validate", "sep-1686"], 2, /unknown spec 'sep-1686': not a built-in spec \(.*sep-1686-draft.*\)/],
  ];
  it.each(cases)("%s", async (_what, argv, code, stderr) => {
    const r = await cli(argv, ROOT);
    expect(r.stderr).toMatch(stderr);
    expect(r.stderr).not.toMatch(STACK_TRACE);
    expect(r.code).toBe(code);
  });
});
