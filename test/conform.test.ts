/**
 * `mcp-task-gen conform`: every spec that validates passes its own conformance against the
 * demo server generated from it (the built-in specs over stdio and Streamable HTTP, every
 * fixture spec over HTTP), a server of another spec fails with a shrunk sequence, and the
 * command's usage errors exit 2. The tester's in-memory schemas give the same verdicts as the
 * generated validators.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { hasErrors } from "../generator/diagnostics.js";
import { analyze } from "../generator/pipeline.js";
import { conform, DEFAULT_OUTCOMES, type ConformReport } from "../generator/conform/run.js";
import { specSchemas } from "../generator/conform/schemas.js";
import { httpChild, root } from "./seed-harness.js";
import { cli } from "./helpers/cli.js";
import { explain, irOf } from "./helpers/conform.js";
import { dump, Rand, SEMANTIC, SEMANTIC_KINDS, type Doc } from "./helpers/spec-mutants.js";

const BUILTIN = ["sep-1686-draft", "mcp-2025-11-25", "ext-tasks-2026-07-28"] as const;
const FIXTURES = readdirSync(join(root, "test/fixtures/specs"))
  .filter((f) => /\.ya?ml$/.test(f))
  .map((f) => join(root, "test/fixtures/specs", f));
const TSX = join(root, "node_modules/.bin/tsx");
const DEMO = join(root, "scripts/demo-server.ts");
const SEED = Number(process.env.FC_SEED ?? 20261204);

/** A demo server of `spec` over HTTP on 127.0.0.1 (the demo takes built-in names and spec files). */
function demoHttp(spec: string) {
  const child = spawn(TSX, [DEMO, spec, "--http", "0"], { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
  return httpChild(child, `demo ${spec}`);
}

describe("conform against the demo of every built-in spec", () => {
  for (const spec of BUILTIN) {
    it(`${spec} over stdio`, async () => {
      const r = await conform({ ir: irOf(spec), target: { stdio: `${TSX} ${DEMO} ${spec}` }, runs: 8, seed: SEED });
      expect(r.ok, explain(r)).toBe(true);
      expect(r.exercised.create ?? 0).toBeGreaterThan(0);
      // Once per run: a listing of more than a page names a next cursor on its first page; the log messages of a
      // task of the demo's slow_compute name it (where the revision puts the related-task meta on notifications and
      // the server's requests).
      if (spec !== "ext-tasks-2026-07-28") {
        expect(r.exercised["once: more than a page"], "once: more than a page").toBe(1);
        expect(r.exercised["once: a task's log messages"], "once: a task's log messages").toBe(1);
        // Two tasks waiting for input at once: the input request that came after the second was made names it.
        expect(r.exercised["once: two tasks waiting for input at once"], "once: two tasks waiting for input at once").toBe(1);
      }
      // Where a task is cancelled by notifications/cancelled, each ended task is read right after one names it.
      if (spec === "sep-1686-draft") expect(r.exercised["cancelled notification after the end"] ?? 0).toBeGreaterThan(0);
      // Where a task stays reachable its whole keepAlive, counted from its end: a short one is the one applied.
      if (spec === "sep-1686-draft") expect(r.exercised["once: the retention applied"], "once: the retention applied").toBe(1);
      // Every error the demo answered was looked at, and a task's result and error are the plain call's.
      for (const what of ["error answered", "plain call: the same result", "plain call: the same error"]) expect(r.exercised[what] ?? 0, what).toBeGreaterThan(0);
      // Where the result method answers only a completed task, the error of one that ended otherwise.
      if (irOf(spec).behaviour.results.mode === "error-until-completed") expect(r.exercised["result of a task that ended not completed"] ?? 0).toBeGreaterThan(0);
      // Where status notifications come on a subscription, the last check shuts the server down with one open.
      const sn = irOf(spec).behaviour.statusNotifications;
      if (sn !== false && sn.delivery === "subscription") expect(r.rules.teardown).toBe(1);
    }, 180_000);

    it(`${spec} over Streamable HTTP, its transport rules included`, async () => {
      const server = demoHttp(spec);
      try {
        const r = await conform({ ir: irOf(spec), target: { url: await server.url }, runs: 40, seed: SEED });
        expect(r.ok, explain(r)).toBe(true);
        expect(r.checks.map((c) => c.rule)).toEqual(expect.arrayContaining(["http-accept", "http-header-limit"]));
        // Sessions and the GET stream on an initialize lifecycle (a session id given, a DELETE that ends it); a task read
        // through a fresh connection on a per-request one.
        if (r.checks.some((c) => c.rule === "http-session")) expect(r.checks.filter((c) => c.rule === "http-session").map((c) => c.message).join("\n")).toMatch(/ended by DELETE was answered HTTP 404/);
        else expect(r.exercised["once: a task read through a fresh connection"]).toBe(1);
        // Given no credentials, the authorization rule says nothing of the server: not exercised, and said why.
        expect(r.rules.authorization).toBe(0);
        expect(r.skipped.join("\n")).toMatch(/authorization: the tester was given no credentials/);
        for (const what of ["create", "get", "cancel", "wait", "unknown id", "wrong params"]) expect(r.exercised[what] ?? 0, what).toBeGreaterThan(0);
        // Tasks are made through every request the spec lets become one that the demo offers (its resource, its prompt).
        const augmentable = irOf(spec).behaviour.creation.requests.server;
        for (const method of ["resources/read", "prompts/get"]) {
          if (augmentable.includes("*") || augmentable.includes(method)) expect(r.exercised[`create via ${method}`] ?? 0, method).toBeGreaterThan(0);
        }
      } finally {
        await server.stop();
      }
    }, 180_000);
  }
});

describe("conform against the demo with two principals (--auth), over Streamable HTTP", () => {
  for (const spec of ["mcp-2025-11-25", "ext-tasks-2026-07-28"] as const) {
    it(`${spec}: credentials checked on every task request, another principal refused`, async () => {
      const child = spawn(TSX, [DEMO, spec, "--http", "0", "--auth", "token-a", "--auth", "token-b"], { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
      const server = httpChild(child, `demo ${spec} --auth`);
      try {
        const r = await conform({
          ir: irOf(spec),
          target: { url: await server.url, headers: { Authorization: "Bearer token-a" }, otherHeaders: { Authorization: "Bearer token-b" } },
          runs: 6,
          seed: SEED,
        });
        expect(r.ok, explain(r)).toBe(true);
        expect(r.exercised["once: task requests without credentials and with an invalid token"]).toBe(1);
        expect(r.rules.authorization).toBeGreaterThan(2);
        expect(r.skipped.filter((x) => x.startsWith("authorization"))).toEqual([]);
      } finally {
        await server.stop();
      }
    }, 120_000);
  }
});

describe("conform against the demo of every fixture spec", () => {
  for (const file of FIXTURES) {
    it(`${file.slice(root.length + 1)}`, async () => {
      const server = demoHttp(file);
      try {
        const r = await conform({ ir: irOf(file), target: { url: await server.url }, runs: 25, seed: SEED });
        expect(r.ok, explain(r)).toBe(true);
        // Where the spec declares an expiry state, tasks given a short retention reach it.
        if (irOf(file).behaviour.events?.expiry !== undefined) expect(r.exercised[`expiry: ${irOf(file).behaviour.events!.expiry}`] ?? 0).toBeGreaterThan(0);
      } finally {
        await server.stop();
      }
    }, 240_000);
  }
});

describe("conform against the demo of valid semantic mutants of the built-in specs", () => {
  // Renamed states, methods and errors, other codes, messages, outcome states, terminal-cancel answers and
  // page sizes (test/helpers/spec-mutants.ts), drawn from a fixed seed; MUTANTS_RUNS draws more.
  const draws = fc.sample(
    fc.record({
      spec: fc.constantFrom(...BUILTIN),
      kinds: fc.array(fc.constantFrom(...SEMANTIC_KINDS), { minLength: 1, maxLength: 3 }),
      choices: fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 8, maxLength: 8 }),
    }),
    { seed: SEED, numRuns: Number(process.env.MUTANTS_RUNS ?? 10) },
  );
  let dir: string;
  beforeAll(() => {
    mkdirSync(join(root, ".tmp"), { recursive: true });
    dir = mkdtempSync(join(root, ".tmp", "conform-mutants-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  draws.forEach((d, i) => {
    it(`mutant ${i} of ${d.spec}`, async () => {
      const doc = parseYaml(readFileSync(join(root, "spec", `${d.spec}.yaml`), "utf8")) as Doc;
      const rand = new Rand(d.choices);
      const what = d.kinds.map((k) => SEMANTIC[k]!(doc, rand)).join("; ");
      const file = join(dir, `mutant-${i}.yaml`);
      writeFileSync(file, dump(doc, false));
      const { ir, diagnostics } = analyze({ file, text: readFileSync(file, "utf8") });
      if (ir === undefined || hasErrors(diagnostics)) {
        // Refused: then with located errors (the spec fuzzer holds the checker to that in general).
        expect(diagnostics.filter((x) => x.severity === "error").every((x) => x.location !== undefined), what).toBe(true);
        return;
      }
      const server = demoHttp(file);
      try {
        const r = await conform({ ir, target: { url: await server.url }, runs: 8, seed: SEED });
        expect(r.ok, `${what}\n${explain(r)}`).toBe(true);
      } finally {
        await server.stop();
      }
    }, 120_000);
  });
});

describe("a server that does not keep its spec", () => {
  let server: ReturnType<typeof demoHttp>;
  beforeAll(() => {
    server = demoHttp("mcp-2025-11-25");
  });
  afterAll(() => server.stop());

  it("the mcp-2025-11-25 demo checked against sep-1686-draft fails with a shrunk sequence", async () => {
    const { long: _long, ...quick } = DEFAULT_OUTCOMES;
    const r = await conform({ ir: irOf("sep-1686-draft"), target: { url: await server.url }, runs: 20, seed: SEED, outcomes: quick });
    expect(r.ok).toBe(false);
    expect(r.failure).toBeDefined();
    // The demo answers a task request of the draft (a _meta entry) with a plain result, no creation notification
    // first: one creation shows it.
    expect(r.failure!.sequence.length, JSON.stringify({ ...r.failure, transcript: r.failure!.transcript.slice(-4) })).toBe(1);
    // Which of its many differences the seed reaches first varies: a task request of the draft's, or a task method's params.
    expect(r.failure!.violation.rule).toMatch(/^(creation|params|unknown-id|types|error-message)$/);
    expect(r.failure!.transcript.length).toBeGreaterThan(0);
  }, 120_000);

  it("the CLI exits 1 and prints the rule, the shortest sequence and the seed", async () => {
    // Without the long outcome: a server that runs the work before answering keeps each such try 10 s.
    const run = await cli(["conform", "--spec", "sep-1686-draft", "--url", await server.url, "--runs", "5", "--seed", "42", "--outcomes", '{"long":null}'], root);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/rule broken: (creation|params|unknown-id|types|error-message)/);
    expect(run.stderr).toMatch(/shortest sequence \(1 commands\): \w+\(/);
    expect(run.stderr).toContain("replay: add --seed 42");
  }, 120_000);

  it("--json gives the same report as data", async () => {
    const run = await cli(["conform", "--spec", "sep-1686-draft", "--url", await server.url, "--runs", "3", "--seed", "42", "--json", "--outcomes", '{"long":null}'], root);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as ConformReport;
    expect(report.ok).toBe(false);
    expect(report.seed).toBe(42);
    expect(report.failure?.sequence.length).toBeGreaterThan(0);
  }, 120_000);
});

const JOBS = join(root, "test/fixtures/specs/jobs.yaml");

/**
 * The report of conform with a changed copy of jobs.yaml (`change` edits the parsed document; the copy must
 * still validate) against the demo of the original jobs.yaml.
 */
async function jobsDemoAgainst(change: (doc: Doc) => void): Promise<ConformReport> {
  const dir = mkdtempSync(join(tmpdir(), "conform-jobs-"));
  try {
    const doc = parseYaml(readFileSync(JOBS, "utf8")) as Doc;
    change(doc);
    const file = join(dir, "jobs-changed.yaml");
    writeFileSync(file, dump(doc, false));
    const server = demoHttp(JOBS);
    try {
      return await conform({ ir: irOf(file), target: { url: await server.url }, runs: 30, seed: SEED });
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("a custom operation that does not answer its declared result type", () => {
  it("the jobs demo checked against a copy of its spec whose jobs/note result needs a field fails on that result", async () => {
    // The demo serves the original, whose jobs/note answers an open object without `noted`.
    const r = await jobsDemoAgainst((doc) => {
      (doc.types as Record<string, unknown>).Noted = { type: "object", fields: { noted: "boolean" } };
      ((doc.methods as Record<string, Record<string, unknown>>)["jobs/note"]!).result = "Noted";
    });
    expect(r.ok).toBe(false);
    expect(r.failure!.violation.rule).toBe("types");
    expect(r.failure!.violation.message).toContain("jobs/note result");
    expect(r.failure!.sequence.at(-1)).toMatch(/^custom\(/);
  }, 120_000);
});

describe("a server whose tasks expire into another state than the spec declares", () => {
  it("the jobs demo checked against a copy of its spec whose expiry event leads to failed fails on expiry", async () => {
    const r = await jobsDemoAgainst((doc) => {
      ((doc.behaviour as Record<string, Record<string, unknown>>).events!).expiry = "failed";
    });
    expect(r.ok, explain(r)).toBe(false);
    expect(r.failure!.violation.rule).toBe("expiry");
    expect(r.failure!.sequence.at(-1)).toBe("expire(long)");
  }, 180_000);
});

describe("conform's usage", () => {
  it("documents itself", async () => {
    const run = await cli(["conform", "--help"], root);
    expect(run.code).toBe(0);
    for (const word of ["--stdio", "--url", "--runs", "--seed", "--json", "--outcomes", "Exit codes"]) expect(run.stdout).toContain(word);
  });

  it.each([
    [["conform"], /exactly one of --stdio/],
    [["conform", "--stdio", "x", "--url", "http://127.0.0.1:1/mcp"], /exactly one of --stdio/],
    [["conform", "--url", "ftp://127.0.0.1/mcp"], /expected http: or https:/],
    [["conform", "--url", "http://127.0.0.1:1/mcp", "--outcomes", "{\"finish\":{}}"], /unknown outcome 'finish'/],
    [["conform", "--url", "http://127.0.0.1:1/mcp", "--outcomes", "missing.json"], /cannot read missing.json/],
    [["conform", "--url", "http://127.0.0.1:1/mcp", "--runs", "0"], /--runs: expected a positive whole number/],
    [["conform", "--spec", "no-such-spec", "--url", "http://127.0.0.1:1/mcp"], /no-such-spec/],
  ])("%j is a usage error", async (args, message) => {
    const run = await cli(args, root);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("a server that is not there could not be tested (exit 3), not a violation nor a crash of the tester", async () => {
    const run = await cli(["conform", "--spec", "mcp-2025-11-25", "--stdio", "exit 3", "--runs", "1"], root);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/COULD NOT TEST \(unreachable\)/);
    expect(run.stderr).not.toMatch(/rule broken/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("the tester's schemas and the generated validators agree", () => {
  for (const spec of BUILTIN) {
    it(spec, async () => {
      const ir = irOf(spec);
      const generated = (await import(pathToFileURL(join(root, "output-samples", spec, "validators.ts")).href)) as Record<string, unknown>;
      const mine = specSchemas(ir);
      const examples = ir.examples.map((e) => e.message);
      const values = fc.oneof(
        fc.constantFrom(...examples),
        fc.constantFrom(...examples).chain((e) => fc.tuple(fc.constant(e), fc.string(), fc.anything()).map(([ex, k, v]) => (typeof ex === "object" && ex !== null ? { ...ex, [k]: v } : ex))),
        fc.anything(),
      );
      const names = ir.types.map((t) => t.name).filter((n) => typeof (generated[`${n}Schema`] as { safeParse?: unknown })?.safeParse === "function");
      expect(names.length).toBeGreaterThan(5);
      fc.assert(
        fc.property(fc.constantFrom(...names), values, (name, value) => {
          const g = (generated[`${name}Schema`] as { safeParse(v: unknown): { success: boolean } }).safeParse(value).success;
          expect(mine.type(name)!.safeParse(value).success, `${name} on ${JSON.stringify(value)}`).toBe(g);
        }),
        { numRuns: 400 },
      );
    });
  }
});
