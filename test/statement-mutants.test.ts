/**
 * The statement mutants (scripts/statement-mutants/): every mutant names a server statement seen at the
 * wire, every such statement has a mutant or a reason it has none; the mutating proxy is transparent
 * (conform holds through the no-op mutant over stdio and Streamable HTTP); and a small fixed sample of
 * mutants, across the revisions, gets the verdict recorded for it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { catalogue, findMutant, noop, permitted, revisionOf, revisions, unmutable } from "../scripts/statement-mutants/catalogue.js";
import { runMutant, type Verdict } from "../scripts/statement-mutants/run.js";
import { ROOT } from "./helpers/cli.js";

interface Statement {
  id: string;
  level: string;
  party: "server" | "client";
  seen: "wire" | "internal";
}

const statements = new Map<string, Statement>(
  revisions.flatMap((r) => (parse(readFileSync(join(ROOT, "spec", "statements", `${r}.yaml`), "utf8")) as { statements: Statement[] }).statements.map((s) => [s.id, s] as const)),
);

/** Verdicts of the full catalogue run (seed 1, conform's default runs), for a fast sample across revisions. */
const SAMPLE: [string, Verdict][] = [
  ["sep-1686-draft/created.notify/no-created-notification", "killed"],
  ["sep-1686-draft/keep-alive.actual-in-get/no-keep-alive", "killed"],
  ["mcp-2025-11-25/ttl.last-updated-at/no-last-updated-at", "killed"],
  ["mcp-2025-11-25/input.transport-server/sse-labelled-json", "killed"],
  ["ext-tasks-2026-07-28/get.working/in-progress", "killed"],
  // A CreateTaskResult without resultType: it survived the first full run, and conform has checked it since.
  ["ext-tasks-2026-07-28/polymorphic.task-result-type/no-result-type", "killed"],
  // Input keys: never struck before conform made work that asks two inputs at once.
  ["ext-tasks-2026-07-28/update.keys-unique/positional-keys", "killed"],
  ["ext-tasks-2026-07-28/update.ignore-unknown-keys/unknown-key-refused", "killed"],
  // Killed since conform reads a task before it answers each of its input requests, and checks status notifications' meta.
  ["sep-1686-draft/input.stay-until-all-answered/working-after-first-answer", "killed"],
  ["mcp-2025-11-25/notifications.no-related-meta/meta-on-status", "killed"],
  // Killed since conform pages a listing of more than a page (once per run), checks createdAt on every task object,
  // asks the result of a deleted task, and tells apart two tasks waiting for input at once.
  ["mcp-2025-11-25/listing.paginate/one-page", "killed"],
  ["mcp-2025-11-25/ttl.created-at/http-date-outside-get", "killed"],
  ["sep-1686-draft/deletion.delete-everything/result-kept", "killed"],
  ["mcp-2025-11-25/assoc.elicitation-same-task/other-waiting-task", "killed"],
  // Killed since conform compares a task's end with the same call made without a task (it survived before).
  ["ext-tasks-2026-07-28/execution.error-is-that-error/generic-error", "killed"],
  ["ext-tasks-2026-07-28/execution.result-is-that-result/summary-result", "killed"],
  ["mcp-2025-11-25/support.undeclared-normal/listing-with-task-meta", "killed"],
  // Killed since conform checks the code tasks/result answers for a task that ended failed or cancelled.
  ["sep-1686-draft/errors.result-not-completed/ended-internal-error", "killed"],
  // Killed since conform looks at every error the server answers, not only those it expects by name.
  ["sep-1686-draft/errors.informative-messages/generic-invalid-messages", "killed"],
  // Session management of Streamable HTTP, a subscription torn down at shutdown (over stdio), and another principal
  // (the demo run with --auth): each killed since conform checks it.
  ["mcp-2025-11-25/result.transport-server/unknown-session-400", "killed"],
  ["ext-tasks-2026-07-28/core.cancelled-on-teardown/silent-teardown", "killed"],
  ["mcp-2025-11-25/security.reject-other-context/result-other-principal", "killed"],
  // Killed since conform's plain calls carry a progress token: their progress comes on their own stream.
  ["mcp-2025-11-25/input.transport-server/broadcast", "killed"],
  // Killed since conform checks the error a plain call of work that ends well as a task is refused with.
  ["ext-tasks-2026-07-28/negotiation.missing-capability-error/method-not-found-code", "killed"],
];
const SEED = 1;
/** How many permitted behaviours run at once. */
const PERMITTED_AT_ONCE = 3;

/** Runs at most n of the functions given it at a time, the others waiting their turn. */
function semaphore(n: number): <T>(f: () => Promise<T>) => Promise<T> {
  let free = n;
  const queue: (() => void)[] = [];
  return async (f) => {
    if (free > 0) free--;
    else await new Promise<void>((r) => queue.push(r));
    try {
      return await f();
    } finally {
      const next = queue.shift();
      if (next) next();
      else free++;
    }
  };
}

describe("statement mutant catalogue", () => {
  const all = revisions.flatMap((r) => catalogue[r]);

  it("names each mutant <statement-id>/<bug>, once, after a server statement seen at the wire", () => {
    expect(new Set(all.map((m) => m.name)).size).toBe(all.length);
    for (const m of all) {
      expect(m.name.startsWith(`${m.statement}/`), m.name).toBe(true);
      expect(m.name.slice(m.statement.length + 1), m.name).toMatch(/^[a-z0-9-]+$/);
      const s = statements.get(m.statement);
      expect(s, `${m.name}: no statement ${m.statement}`).toBeDefined();
      expect(s!.seen, m.name).toBe("wire");
      expect(s!.party, m.name).toBe("server");
      expect(m.description.length, m.name).toBeGreaterThan(10);
      expect(revisionOf(m), m.name).toBeDefined();
    }
  });

  it("has for each server statement seen at the wire a mutant or the reason a proxy cannot break it", () => {
    for (const r of revisions) {
      const wire = [...statements.values()].filter((s) => s.id.startsWith(`${r}/`) && s.seen === "wire" && s.party === "server");
      const covered = new Set([...catalogue[r].map((m) => m.statement), ...unmutable[r].map((u) => u.statement)]);
      expect(wire.filter((s) => !covered.has(s.id)).map((s) => s.id)).toEqual([]);
      for (const u of unmutable[r]) {
        expect(statements.get(u.statement)?.seen, u.statement).toBe("wire");
        expect(catalogue[r].some((m) => m.statement === u.statement), `${u.statement} is both mutated and said unmutable`).toBe(false);
        expect(u.reason.length).toBeGreaterThan(20);
      }
    }
  });

  it("names each permitted behaviour <statement-id>/<behaviour>, after a MAY server statement seen at the wire", () => {
    const names = revisions.flatMap((r) => permitted[r].map((m) => m.name));
    expect(new Set([...names, ...all.map((m) => m.name)]).size).toBe(names.length + all.length);
    for (const r of revisions) {
      for (const m of permitted[r]) {
        expect(m.name.startsWith(`${r}/`) && m.name.startsWith(`${m.statement}/`), m.name).toBe(true);
        const s = statements.get(m.statement);
        expect(s?.level, m.name).toBe("MAY");
        expect(s?.seen, m.name).toBe("wire");
        expect(s?.party, m.name).toBe("server");
        expect(findMutant(m.name), m.name).toBe(m);
      }
    }
  });

  it("finds the sample's mutants", () => {
    for (const [name] of SAMPLE) expect(findMutant(name), name).toBeDefined();
  });
});

describe("statement mutants through conform", () => {
  for (const transport of ["stdio", "http"] as const) {
    it(`the proxy is transparent over ${transport}: conform holds through the no-op mutant`, { timeout: 120_000 }, async () => {
      const r = await runMutant(noop, "ext-tasks-2026-07-28", transport, { seed: SEED, timeoutMs: 100_000 });
      expect(r.violations).toEqual([]);
      expect(r.exit).toBe(0);
      expect(r.hits).toBe(0);
    });
  }

  // A server using a permission of a MAY statement: conform holds, and the behaviour did happen. The runs mostly
  // wait on the server's timers, so PERMITTED_AT_ONCE of them go on together (the timeout leaves room for the queue).
  const slots = semaphore(PERMITTED_AT_ONCE);
  for (const m of revisions.flatMap((r) => permitted[r])) {
    it.concurrent(`${m.name} (permitted) is no violation`, { timeout: 600_000 }, async () => {
      const r = await slots(() => runMutant(m, revisionOf(m)!, (m.transports ?? ["stdio"])[0]!, { seed: SEED, timeoutMs: 150_000 }));
      expect(r.violations).toEqual([]);
      expect(r.verdict).toBe("survived");
      expect(r.hits).toBeGreaterThan(0);
    });
  }

  for (const [name, verdict] of SAMPLE) {
    it(`${name} is ${verdict}`, { timeout: 120_000 }, async () => {
      const m = findMutant(name)!;
      const transport = (m.transports ?? ["stdio"])[0]!;
      const r = await runMutant(m, revisionOf(m)!, transport, { seed: SEED, timeoutMs: 100_000 });
      expect(r.verdict, r.violations.join("; ")).toBe(verdict);
      expect(r.hits).toBeGreaterThan(0);
    });
  }
});
