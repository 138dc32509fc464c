/**
 * conform's `types` check holds task ids to their declared type: a spec whose task id type has a format and a
 * pattern (here `format: uuid`, `pattern: "[0-9a-f-]+"`) passes against its demo, whose ids keep them, and a
 * server whose ids break them (the same demo behind a proxy that hands out every id with a prefix, and takes it
 * off again on the way in, so that the server works on) fails `types`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { conform } from "../generator/conform/run.js";
import { startProxy, type Msg } from "../scripts/mutants/proxy.js";
import { demoUrl } from "./helpers/compose-run.js";
import { explain, irOf } from "./helpers/conform.js";
import { ROOT } from "./helpers/cli.js";

const work = mkdtempSync(join(tmpdir(), "conform-id-pattern-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * test/fixtures/specs/jobs.yaml with its task id typed as a UUID of lower-case hex digits (with `params`, the id
 * param of the task methods too).
 */
function patternedJobs(params = false): string {
  const doc = parse(readFileSync(join(ROOT, "test/fixtures/specs/jobs.yaml"), "utf8")) as { types: Record<string, { fields: Record<string, unknown> }> };
  doc.types.Job!.fields.jobId = { type: "string", format: "uuid", pattern: "[0-9a-f-]+" };
  if (params) doc.types.JobRef!.fields.jobId = { type: "string", format: "uuid", pattern: "[0-9a-f-]+" };
  const file = join(work, params ? "jobs-uuid-params.yaml" : "jobs-uuid.yaml");
  writeFileSync(file, stringify(doc));
  return file;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const rewrite = (m: Msg, f: (s: string) => string): Msg => JSON.parse(f(JSON.stringify(m))) as Msg;

describe("a task id that breaks its declared format and pattern", () => {
  const spec = patternedJobs();

  it("ids that keep them: every rule held, types exercised", async () => {
    const server = await demoUrl(spec);
    try {
      const r = await conform({ ir: irOf(spec), target: { url: server.url }, runs: 4, seed: 11 });
      expect(r.verdict, explain(r)).toBe("held");
      expect(r.rules.types).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  }, 240_000);

  it("the id param typed so too: the unknown ids the tester asks about keep the type, and every rule holds", async () => {
    const typed = patternedJobs(true);
    const server = await demoUrl(typed);
    try {
      const r = await conform({ ir: irOf(typed), target: { url: server.url }, runs: 6, seed: 11 });
      expect(r.verdict, explain(r)).toBe("held");
      expect(r.exercised["unknown id"]).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  }, 240_000);

  it("ids handed out as job_<uuid>: types is broken, on the first task shown", async () => {
    const server = await demoUrl(spec);
    const proxy = await startProxy(server.url, {
      onMessage: (m) => rewrite(m, (s) => s.replace(UUID, (id) => `job_${id}`)),
      onRequest: (m) => rewrite(m, (s) => s.replace(/job_([0-9a-f-]{36})/g, "$1")),
    });
    try {
      const r = await conform({ ir: irOf(spec), target: { url: proxy.url }, runs: 4, seed: 11 });
      expect(r.verdict, explain(r)).toBe("violation");
      expect(r.failure?.violation.rule).toBe("types");
      expect(r.failure?.violation.message).toMatch(/jobId: Invalid string: must match pattern/);
    } finally {
      await proxy.close();
      await server.stop();
    }
  }, 240_000);

  it("ids in upper case (still UUIDs, against the pattern alone): types is broken", async () => {
    const server = await demoUrl(spec);
    const proxy = await startProxy(server.url, {
      onMessage: (m) => rewrite(m, (s) => s.replace(UUID, (id) => id.toUpperCase())),
      onRequest: (m) => rewrite(m, (s) => s.replace(/[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/g, (id) => id.toLowerCase())),
    });
    try {
      const r = await conform({ ir: irOf(spec), target: { url: proxy.url }, runs: 4, seed: 11 });
      expect(r.verdict, explain(r)).toBe("violation");
      expect(r.failure?.violation.rule).toBe("types");
      expect(r.failure?.violation.message).toContain("jobId: Invalid string: must match pattern /^(?:[0-9a-f-]+)$/u");
      expect(r.failure?.violation.message).not.toContain("{12}");
    } finally {
      await proxy.close();
      await server.stop();
    }
  }, 240_000);
});
