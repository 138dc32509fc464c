/**
 * What only the PostgreSQL store has (the shared contract is store-postgres-contract.test.ts):
 * its schema versioned and migrated by the store (several processes may open it at
 * once), several stores serving one schema, expiry across them (a deadline extended
 * through one store is never applied by another's timer; backlogs in batches, each
 * task expired once), the change events (LISTEN/NOTIFY), indexes, and clear errors.
 * Runs against MCP_TASK_GEN_PG_URL (see store-postgres-db.ts: without it, it fails).
 */
import { createServer, connect as tcpConnect, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { TaskChange } from "../../runtime/store.js";
import { DatabaseUnavailableError } from "../../runtime/errors.js";
import { POSTGRES_SCHEMA_VERSION, PostgresTaskStore, postgresUrl, RunnerInUseError, SWEEP_BATCH, type PostgresTaskStoreOptions } from "../../runtime/store-postgres.js";
import { task } from "./store-contract.js";
import { dropSchemas, freshSchema, pgUrl, query } from "./store-postgres-db.js";

const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));
const opened: PostgresTaskStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

function newSchema(): string {
  const s = freshSchema("pgtest");
  schemas.push(s);
  return s;
}

async function open(schema: string, options: PostgresTaskStoreOptions = {}): Promise<PostgresTaskStore> {
  const s = await PostgresTaskStore.open(pgUrl(), { schema, poolSize: 4, ...options });
  opened.push(s);
  return s;
}

/** Polls `cond` until it holds (10 s at most). */
async function waitFor(cond: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("postgresUrl: the URL of a store choice (the scaffold's TASK_STORE, the demo's --store)", () => {
  it("takes postgres:<url>, postgresql:<url> and the URL alone; nothing else", () => {
    expect(postgresUrl("postgres:postgres://u:p@h:5432/db")).toBe("postgres://u:p@h:5432/db");
    expect(postgresUrl("postgresql:postgresql://h/db")).toBe("postgresql://h/db");
    expect(postgresUrl("postgres://h/db")).toBe("postgres://h/db");
    expect(postgresUrl("postgresql://h/db")).toBe("postgresql://h/db");
    for (const other of ["memory", "sqlite:tasks.db", "postgres:", "", "pg://h/db"]) expect(postgresUrl(other), other).toBeUndefined();
  });
});

describe("PostgresTaskStore schema", () => {
  it("creates its schema at the current version, and several processes opening a new schema at once agree", async () => {
    const schema = newSchema();
    const stores = await Promise.all([open(schema), open(schema), open(schema), open(schema)]);
    for (const s of stores) expect(await s.schemaVersion()).toBe(POSTGRES_SCHEMA_VERSION);
    const meta = await query(`SELECT id, app, version FROM "${schema}".store_meta`);
    expect(meta.rows).toEqual([{ id: 1, app: "mcp-task-gen task store", version: POSTGRES_SCHEMA_VERSION }]);
    const tables = await query("SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename", [schema]);
    expect(tables.rows.map((r) => r.tablename)).toEqual(["expired", "messages", "rates", "runners", "store_meta", "tasks"]);
  });

  it("keeps the tasks when reopened, continuing the sequence after the newest number ever handed out", async () => {
    const schema = newSchema();
    const a = await open(schema);
    await a.create(task("t1", "alice", { expiresAt: Date.now() + 3_600_000, result: { content: [] } }));
    const last = (await a.create(task("t2", "alice")))!;
    await a.delete("t2");
    await a.close();
    const b = await open(schema);
    expect(await b.get("t1")).toMatchObject({ state: "live", record: { owner: "alice", result: { content: [] } } });
    expect((await b.create(task("t3", "alice")))!.seq).toBeGreaterThan(last.seq);
  });

  it("brings a schema of version 2 to the current version, keeping its tasks", async () => {
    const schema = newSchema();
    const a = await open(schema);
    await a.create(task("old", "alice", { result: { content: [] } }));
    await a.close();
    await query(`DROP INDEX "${schema}".tasks_owner_unfinished`);
    await query(`DROP TABLE "${schema}".rates`);
    await query(`ALTER TABLE "${schema}".runners DROP COLUMN instance`);
    await query(`DROP FUNCTION "${schema}".create_task(jsonb, text, bigint, text, text, text, float8, bigint)`);
    await query(`DROP FUNCTION "${schema}".create_task(jsonb, text, bigint, text, text)`);
    await query(`UPDATE "${schema}".store_meta SET version = 2`);
    const b = await open(schema);
    expect(await b.schemaVersion()).toBe(POSTGRES_SCHEMA_VERSION);
    expect(await b.get("old")).toMatchObject({ state: "live", record: { owner: "alice", result: { content: [] } } });
    const index = await query("SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname = 'tasks_owner_unfinished'", [schema]);
    expect(index.rows).toHaveLength(1);
    expect((await query("SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename = 'rates'", [schema])).rows).toHaveLength(1);
  });

  it("refuses a schema of a newer version, and one that holds other tables, with a clear error", async () => {
    const newer = newSchema();
    await (await open(newer)).close();
    await query(`UPDATE "${newer}".store_meta SET version = 99`);
    await expect(open(newer)).rejects.toThrow(`schema ${newer} holds task store schema version 99, newer than this runtime's ${POSTGRES_SCHEMA_VERSION}`);
    const foreign = newSchema();
    await query(`CREATE SCHEMA "${foreign}"; CREATE TABLE "${foreign}".customers (id int)`);
    await expect(open(foreign)).rejects.toThrow(`schema ${foreign} holds tables but is not a task store`);
    // Nothing was changed in the foreign schema.
    const tables = await query("SELECT tablename FROM pg_tables WHERE schemaname = $1", [foreign]);
    expect(tables.rows.map((r) => r.tablename)).toEqual(["customers"]);
  });

  it("refuses a schema name that is not a plain identifier, and names the database (never the password) when it cannot connect", async () => {
    await expect(PostgresTaskStore.open(pgUrl(), { schema: 'x"; DROP SCHEMA public; --' })).rejects.toThrow("not a schema name for the task store");
    const url = new URL(pgUrl());
    url.password = "secret-password";
    url.port = "1";
    const refused = PostgresTaskStore.open(url.toString(), { schema: newSchema(), startupWaitMs: 0 });
    await expect(refused).rejects.toThrow(/cannot open the PostgreSQL task store at postgres:\/\/mtg:\*\*\*@127\.0\.0\.1:1\//);
    await expect(refused).rejects.not.toThrow(/secret-password/);
    await expect(PostgresTaskStore.open("", {})).rejects.toThrow("PostgresTaskStore.open needs a connection string");
  });

  it("answers pages, lookups and expiry from indexes", async () => {
    const schema = newSchema();
    const s = await open(schema);
    const t0 = Date.now() + 3_600_000;
    await query(
      `INSERT INTO "${schema}".tasks (task_id, owner, status, method, request_id, created_at, updated_at, poll_frequency, expires_at, pending_inputs)
       SELECT to_json('t' || i)::text, to_json('o' || (i % 1000))::text, '"working"', '"tools/call"', '1', 0, 0, 500, $1::bigint + i, 0
       FROM generate_series(1, 20000) AS i`,
      [t0],
    );
    await query(`ANALYZE "${schema}".tasks`);
    const plan = async (sql: string, values: unknown[]) =>
      (await query(`EXPLAIN ${sql}`, values)).rows.map((r) => String(r["QUERY PLAN"])).join("\n");
    const S = `"${schema}"`;
    expect(await plan(`SELECT * FROM ${S}.tasks WHERE owner = $1 AND seq > $2 ORDER BY seq LIMIT $3`, ['"o7"', 100, 11])).toMatch(/Index Scan using tasks_owner_seq/);
    expect(await plan(`SELECT * FROM ${S}.tasks WHERE task_id = $1`, ['"t5"'])).toMatch(/Index Scan using tasks_task_id_key/);
    expect(await plan(`SELECT seq FROM ${S}.tasks WHERE expires_at <= $1 ORDER BY expires_at LIMIT 1000`, [t0 + 10])).toMatch(/Index Scan using tasks_expires_at/);
    expect(await plan(`SELECT min(expires_at) FROM ${S}.tasks WHERE expires_at IS NOT NULL`, [])).toMatch(/Index Only Scan using tasks_expires_at/);
    expect(await plan(`SELECT count(*) AS n FROM ${S}.tasks WHERE owner = $1 AND terminal_at IS NULL`, ['"o7"'])).toMatch(/Index.* on tasks_owner_unfinished|Index.* using tasks_owner_unfinished/);
    expect((await s.list("o7", 0, 5)).records.map((r) => r.taskId)).toEqual(["t7", "t1007", "t2007", "t3007", "t4007"]);
  });
});

describe("PostgresTaskStore shared by several processes", () => {
  it("serves one set of tasks through every store: created through one, updated through another, in one creation order", async () => {
    const schema = newSchema();
    const a = await open(schema);
    const b = await open(schema);
    await a.create(task("x1", "alice"));
    await b.create(task("x2", "alice"));
    expect(await b.create(task("x1", "mallory"))).toBeUndefined();
    expect(await b.update("x1", "working", { status: "completed", result: { ok: true } })).toMatchObject({ status: "completed" });
    expect(await a.update("x1", "working", { status: "failed" })).toBeUndefined();
    expect((await a.list("alice", 0, 10)).records.map((r) => [r.taskId, r.status])).toEqual([
      ["x1", "completed"],
      ["x2", "working"],
    ]);
  });

  it("bounds a requestor's unfinished tasks over every store: of many creations at once through two stores, exactly the limit succeed", async () => {
    const schema = newSchema();
    const a = await open(schema);
    const b = await open(schema);
    const max = 3;
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).createBounded(task(`c${i}`, "alice"), max)),
    );
    const made = outcomes.filter((o) => typeof o === "object");
    expect(made).toHaveLength(max);
    expect(outcomes.filter((o) => o === "limit")).toHaveLength(12 - max);
    expect((await a.list("alice", 0, 20)).records).toHaveLength(max);
    // Another requestor has its own slots; an ended task frees one; a taken id is still a duplicate.
    expect(await b.createBounded(task("d1", "bob"), max)).toMatchObject({ taskId: "d1" });
    expect(await a.createBounded(task("c99", "alice"), max)).toBe("limit");
    const first = made[0] as { taskId: string };
    await b.update(first.taskId, "working", { status: "completed", terminalAt: Date.now() });
    expect(await a.createBounded(task(first.taskId, "alice"), max)).toBeUndefined();
    expect(await a.createBounded(task("c99", "alice"), max)).toMatchObject({ taskId: "c99" });
    expect(await b.createBounded(task("c100", "alice"), max)).toBe("limit");
  });

  it("never hands out the id of a task that expires while the creation waits on it (the id stays taken until forgotten)", async () => {
    const schema = newSchema();
    const a = await open(schema);
    await a.create(task("x", "alice", { expiresAt: Date.now() + 3_600_000 }));
    // Another process's expiry, caught between its statements: the task row is gone, its id is
    // remembered as expired, and neither is committed yet.
    const expiry = new pg.Client({ connectionString: pgUrl() });
    await expiry.connect();
    try {
      await expiry.query("BEGIN");
      await expiry.query(`DELETE FROM "${schema}".tasks WHERE task_id = $1`, ['"x"']);
      await expiry.query(`INSERT INTO "${schema}".expired (task_id, owner, forget_at) VALUES ($1, $2, $3)`, ['"x"', '"alice"', Date.now() + 600_000]);
      // The creation waits on the uncommitted delete, then must still find the id taken.
      const creating = a.create(task("x", "alice"));
      await new Promise((r) => setTimeout(r, 300));
      await expiry.query("COMMIT");
      expect(await creating).toBeUndefined();
    } finally {
      await expiry.end();
    }
    expect(await a.get("x")).toEqual({ state: "expired", owner: "alice", taskId: "x" });
    expect((await query(`SELECT count(*)::int AS n FROM "${schema}".tasks`)).rows[0].n).toBe(0);
  });

  it("never applies through one store's timer a deadline another store extended", async () => {
    const schema = newSchema();
    const a = await open(schema, { rememberExpiredMs: 60_000 });
    const b = await open(schema, { rememberExpiredMs: 60_000 });
    const t0 = Date.now();
    await a.create(task("kept", "alice", { expiresAt: t0 + 200 }));
    // Through the other store: a's timer stays armed for the old deadline.
    await b.update("kept", "working", { expiresAt: t0 + 3_600_000 });
    await b.close();
    // A later task through a: once a's timer expired it, the sweep at the old deadline has run.
    await a.create(task("probe", "alice", { expiresAt: t0 + 400 }));
    await waitFor(async () => (await a.get("probe"))?.state === "expired", "the probe to expire");
    expect(await a.get("kept")).toMatchObject({ state: "live", record: { expiresAt: t0 + 3_600_000 } });
  });

  it("applies a deadline set through another store that stopped (its own periodic sweep)", async () => {
    const schema = newSchema();
    const a = await open(schema, { sweepIntervalMs: 100 });
    const b = await open(schema);
    await b.create(task("orphan", "alice", { expiresAt: Date.now() + 50 }));
    await b.close();
    await waitFor(async () => (await a.get("orphan"))?.state === "expired", "the orphan's deadline to be applied");
  });

  it(`works through a backlog of expired tasks in batches of ${SWEEP_BATCH}, two stores sweeping at once, each task expired exactly once`, async () => {
    const schema = newSchema();
    const n = 2 * SWEEP_BATCH + 500;
    // Inserted behind the stores' backs: neither knows the deadlines until its periodic sweep reads them.
    const at = Date.now() + 300;
    const a = await open(schema, { sweepIntervalMs: 100 });
    const b = await open(schema, { sweepIntervalMs: 100 });
    const events: TaskChange[] = [];
    a.watch((c) => events.push(c));
    await a.ready();
    await query(
      `INSERT INTO "${schema}".tasks (task_id, owner, status, method, request_id, created_at, updated_at, poll_frequency, expires_at, pending_inputs)
       SELECT to_json('b' || i)::text, '"alice"', '"working"', '"tools/call"', '1', 0, 0, 500, $1::bigint + (i % 7), 0
       FROM generate_series(1, $2::int) AS i`,
      [at, n],
    );
    await waitFor(async () => (await a.list("alice", 0, 1)).records.length === 0, "every task to expire");
    const expired = await query(`SELECT count(*)::int AS n, count(DISTINCT task_id)::int AS d FROM "${schema}".expired`);
    expect(expired.rows[0]).toEqual({ n, d: n });
    expect(await b.get(`b${n}`)).toEqual({ state: "expired", owner: "alice", taskId: `b${n}` });
    await waitFor(() => events.filter((e) => e.kind === "expired").length === n, "an expiry event per task");
    expect(new Set(events.filter((e) => e.kind === "expired").map((e) => e.taskId)).size).toBe(n);
  });
});

describe("PostgresTaskStore change events (LISTEN/NOTIFY)", () => {
  it("announces every change made through any store on the schema, naming the store that made it", async () => {
    const schema = newSchema();
    const a = await open(schema);
    const b = await open(schema);
    const other = await open(newSchema());
    const seen: TaskChange[] = [];
    const stop = a.watch((c) => seen.push(c));
    const elsewhere: TaskChange[] = [];
    other.watch((c) => elsewhere.push(c));
    await a.ready();
    await other.ready();
    const deadline = Date.now() + 3_600_000;
    await b.create(task("e1", "alice", { expiresAt: deadline }));
    await b.update("e1", "working", { status: "input_required", pendingInputs: 1 });
    await a.update("e1", "input_required", { status: "cancelled" });
    await b.delete("e1");
    await waitFor(() => seen.length >= 4, "four change events");
    expect(seen).toEqual([
      { taskId: "e1", kind: "created", status: "working", expiresAt: deadline, origin: b.origin },
      { taskId: "e1", kind: "updated", status: "input_required", expiresAt: deadline, origin: b.origin },
      { taskId: "e1", kind: "updated", status: "cancelled", expiresAt: deadline, origin: a.origin },
      { taskId: "e1", kind: "deleted", expiresAt: deadline, origin: b.origin },
    ]);
    // An update that does not apply (compare and set lost) announces nothing; hostile ids arrive intact.
    await b.update("nope", "working", { status: "failed" });
    const hostile = "'\"; NOTIFY x; --\u0000🙂";
    await b.create(task(hostile, "alice"));
    await waitFor(() => seen.length >= 5, "the fifth event");
    expect(seen[4]).toMatchObject({ taskId: hostile, kind: "created" });
    stop();
    await b.create(task("after-stop", "alice"));
    await b.create(task("sync", "alice"));
    // A listener added later sees the next change; the stopped one saw nothing more.
    const later: TaskChange[] = [];
    a.watch((c) => later.push(c));
    await b.create(task("later", "alice"));
    await waitFor(() => later.some((c) => c.taskId === "later"), "the later event");
    expect(seen).toHaveLength(5);
    // Another schema's store heard nothing of these.
    expect(elsewhere).toEqual([]);
  });

  /** Two stores on a new schema; `got` is what the first hears of the changes made through the second. */
  async function watchedPair() {
    const schema = newSchema();
    const a = await open(schema);
    const b = await open(schema);
    const got: TaskChange[] = [];
    a.watch((c) => got.push(c));
    await a.ready();
    return { b, got };
  }

  it("hands a published message to every watching store, whatever its size (more than a notification's 8000 bytes)", async () => {
    const { b, got } = await watchedPair();
    const message = { inlineAnswers: { "input-1": { action: "accept", content: { text: "x".repeat(50_000), quote: "'\"; --" } } } };
    await b.publish("t1", message);
    await waitFor(() => got.length > 0, "the message");
    expect(got).toEqual([{ taskId: "t1", kind: "message", origin: b.origin, message }]);
  });

  it("hands on changes in the order they were made, a message before the update that followed it (its body is read first)", async () => {
    const { b, got } = await watchedPair();
    await b.create(task("o1", "alice"));
    for (let i = 1; i <= 20; i++) {
      await b.publish("o1", { step: i, pad: "x".repeat(20_000) });
      if (i % 5 === 0) await b.update("o1", "working", { updatedAt: i });
    }
    await b.update("o1", "working", { status: "completed" });
    await waitFor(() => got.some((c) => c.status === "completed"), "the last update");
    expect(got.map((c) => (c.kind === "message" ? `m${String(c.message?.step)}` : `${c.kind}:${String(c.status)}`))).toEqual([
      "created:working",
      ...Array.from({ length: 20 }, (_, k) => [`m${k + 1}`, ...((k + 1) % 5 === 0 ? ["updated:working"] : [])]).flat(),
      "updated:completed",
    ]);
  });

  it("reopens its LISTEN connection when the database drops it, and reports a resync for what may have been missed", async () => {
    const schema = newSchema();
    const a = await open(schema);
    const b = await open(schema);
    const got: TaskChange[] = [];
    a.watch((c) => got.push(c));
    await a.ready();
    const listening = await query("SELECT pid FROM pg_stat_activity WHERE query = $1", [`LISTEN "mcp_tasks_${schema}"`]);
    expect(listening.rows).toHaveLength(1);
    await query("SELECT pg_terminate_backend($1)", [listening.rows[0]!.pid]);
    await waitFor(() => got.some((c) => c.kind === "resync"), "the resync");
    expect(got.find((c) => c.kind === "resync")).toEqual({ taskId: "", kind: "resync", origin: "" });
    await b.create(task("after", "alice"));
    await waitFor(() => got.some((c) => c.taskId === "after"), "a change after the reconnect");
  });
});

/** A TCP relay on 127.0.0.1 to the test database, started late or cut at will: the database as the store sees it. */
async function relay(port = 0): Promise<{ port: number; cut(): void; close(): Promise<void> }> {
  const target = new URL(pgUrl());
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe("PostgresTaskStore when its database goes away", () => {
  it("waits at open for a database that refuses connections at first, and logs the waits", async () => {
    // A port nothing listens on yet: refused until the relay starts there.
    const probe = await relay();
    const port = probe.port;
    await probe.close();
    const url = new URL(pgUrl());
    url.port = String(port);
    const waits: Record<string, unknown>[] = [];
    const opening = PostgresTaskStore.open(url.toString(), { schema: newSchema(), poolSize: 2, log: (e) => waits.push(e) });
    await new Promise((r) => setTimeout(r, 900));
    const late = await relay(port);
    try {
      const s = await opening;
      opened.push(s);
      expect(await s.schemaVersion()).toBe(POSTGRES_SCHEMA_VERSION);
      expect(waits.length).toBeGreaterThan(0);
      expect(waits[0]).toMatchObject({ level: "warn", msg: "the task store's database is unavailable: waiting for it", attempt: 1 });
      expect(JSON.stringify(waits)).not.toContain(new URL(pgUrl()).password);
    } finally {
      await opened.pop()?.close();
      await late.close();
    }
  });

  it("fails a call, never the process, when its connection is lost mid-transaction or idle, and serves again once the database is back", async () => {
    const link = await relay();
    const url = new URL(pgUrl());
    url.port = String(link.port);
    const s = await PostgresTaskStore.open(url.toString(), { schema: newSchema(), poolSize: 2 });
    try {
      await s.create(task("before", "alice"));
      // Cut while a transaction holds its connection (checked out of the pool).
      const creating = s.createAlong(task("during", "alice"), 10, async () => {
        link.cut();
        await new Promise((r) => setTimeout(r, 50));
      });
      const failed = await creating.then(() => undefined, (e: unknown) => e);
      expect(failed).toBeInstanceOf(DatabaseUnavailableError);
      expect(failed).toMatchObject({ code: -32002, message: "The task store is unavailable for a moment: retry shortly", data: { retryable: true } });
      // Idle connections cut too: the next calls fail or reconnect, none crashes the process.
      link.cut();
      await s.get("before").catch(() => undefined);
      expect(await s.get("before")).toMatchObject({ state: "live" });
      expect(await s.get("during")).toBeUndefined();
    } finally {
      await s.close();
      await link.close();
    }
  });
});

describe("runner names", () => {
  it("a name is taken from no live process: a second start waits two renewal periods, then refuses while the first renews, and takes it once the first stopped", async () => {
    const schema = newSchema();
    const a = await open(schema);
    const b = await open(schema);
    await a.takeRunner("solo", "first", 100);
    const renew = setInterval(() => void a.heartbeat("solo", "first"), 100);
    try {
      const t0 = Date.now();
      await expect(b.takeRunner("solo", "second", 100)).rejects.toBeInstanceOf(RunnerInUseError);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    } finally {
      clearInterval(renew);
    }
    await b.takeRunner("solo", "second", 100);
    const row = await query(`SELECT instance FROM "${schema}".runners WHERE runner = $1`, [JSON.stringify("solo")]);
    expect(row.rows[0].instance).toBe("second");
    // The same start taking its name again goes through at once.
    const t1 = Date.now();
    await b.takeRunner("solo", "second", 100);
    expect(Date.now() - t1).toBeLessThan(300);
  });
});
