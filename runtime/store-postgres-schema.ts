// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// The PostgreSQL task store's tables: their migrations, applied forward under an advisory lock (several
// processes may start at once), and the statements the store runs on them, built once per store from the
// schema's name and the store's fixed column list (never from a record's keys or values).

import { TaskRows } from "./store-rows.js";
import { inTransaction, num, type PgPool } from "./store-postgres-pool.js";

/** The schema version this store writes. */
export const POSTGRES_SCHEMA_VERSION = 7;

/** Marks a schema as a task store's (the meta table's `app` column). */
const APPLICATION = "mcp-task-gen task store";

/**
 * The migrations, in order: entry i takes the schema from version i to i + 1,
 * with `$S` standing for the quoted schema name. A new version is a new entry
 * at the end; an entry is never edited once released.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE $S.tasks (
    -- Creation order, from a sequence: a number is never handed out twice.
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id TEXT NOT NULL UNIQUE,   -- strings are JSON text, like every value here
    owner TEXT NOT NULL,
    status TEXT NOT NULL,
    method TEXT NOT NULL,
    request_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,     -- epoch ms, like every time here
    updated_at BIGINT NOT NULL,
    terminal_at BIGINT,
    keep_alive BIGINT,
    poll_frequency BIGINT NOT NULL,
    expires_at BIGINT,              -- absolute: retention keeps counting across restarts
    pending_inputs INTEGER NOT NULL,
    status_message TEXT,
    error TEXT,
    result TEXT,
    input_requests TEXT,
    fields TEXT
  );
  CREATE INDEX tasks_owner_seq ON $S.tasks (owner, seq);
  CREATE INDEX tasks_expires_at ON $S.tasks (expires_at) WHERE expires_at IS NOT NULL;
  CREATE INDEX tasks_status_seq ON $S.tasks (status, seq);
  -- Tasks whose retention elapsed: their ids stay taken until forget_at.
  CREATE TABLE $S.expired (
    task_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    forget_at BIGINT NOT NULL
  );
  CREATE INDEX expired_forget_at ON $S.expired (forget_at);
  -- Messages between processes about a task (publish): kept a while, then swept.
  CREATE TABLE $S.messages (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id TEXT NOT NULL,
    body TEXT NOT NULL,              -- JSON text
    created_at BIGINT NOT NULL
  );
  CREATE INDEX messages_created_at ON $S.messages (created_at);
  `,
  // Which process runs a task's work, and when each process was last seen alive (its lease).
  `
  ALTER TABLE $S.tasks ADD COLUMN runner TEXT;
  CREATE TABLE $S.runners (
    runner TEXT PRIMARY KEY,
    seen_at BIGINT NOT NULL
  );
  `,
  // A requestor's unfinished tasks, counted at each creation under a concurrency limit.
  `
  CREATE INDEX tasks_owner_unfinished ON $S.tasks (owner) WHERE terminal_at IS NULL;
  `,
  // Per-minute rate limits per requestor, counted over every process: one token bucket per key.
  `
  CREATE TABLE $S.rates (
    key TEXT PRIMARY KEY,
    tokens DOUBLE PRECISION NOT NULL,
    at BIGINT NOT NULL
  );
  `,
  // Which start of a process holds a runner name: two live processes never share one.
  `
  ALTER TABLE $S.runners ADD COLUMN instance TEXT;
  `,
  // A task's creation in one round trip: each statement of a volatile function reads what committed before it
  // (READ COMMITTED), so the owner's lock, the count under it, the insert and the look for an expiry committed
  // while the insert waited keep the guarantees of the transaction they replace. The outcome is 'created' (with
  // the row), 'limit' or 'taken'; an insert that finds its id expired meanwhile is removed before it commits.
  `
  CREATE FUNCTION $S.create_task(p_row jsonb, p_lock text, p_max bigint, p_channel text, p_origin text)
  RETURNS TABLE (outcome text, made jsonb) LANGUAGE plpgsql VOLATILE AS $fn$
  DECLARE
    r $S.tasks%ROWTYPE;
  BEGIN
    IF p_max IS NOT NULL THEN
      PERFORM pg_advisory_xact_lock(hashtextextended(p_lock, 0));
      -- Counted up to the limit only: a requestor far over it costs no more than one at it.
      IF (SELECT count(*) FROM (SELECT 1 FROM $S.tasks t WHERE t.owner = p_row->>'owner' AND t.terminal_at IS NULL LIMIT p_max) u) >= p_max THEN
        RETURN QUERY SELECT 'limit'::text, NULL::jsonb;
        RETURN;
      END IF;
    END IF;
    INSERT INTO $S.tasks (task_id, owner, status, method, request_id, created_at, updated_at, terminal_at, keep_alive,
        poll_frequency, expires_at, pending_inputs, status_message, error, result, input_requests, fields, runner)
      SELECT v.task_id, v.owner, v.status, v.method, v.request_id, v.created_at, v.updated_at, v.terminal_at, v.keep_alive,
        v.poll_frequency, v.expires_at, v.pending_inputs, v.status_message, v.error, v.result, v.input_requests, v.fields, v.runner
      FROM jsonb_populate_record(NULL::$S.tasks, p_row) AS v
      WHERE NOT EXISTS (SELECT 1 FROM $S.expired e WHERE e.task_id = v.task_id)
      ON CONFLICT (task_id) DO NOTHING
      RETURNING * INTO r;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'taken'::text, NULL::jsonb;
      RETURN;
    END IF;
    IF EXISTS (SELECT 1 FROM $S.expired e WHERE e.task_id = r.task_id) THEN
      DELETE FROM $S.tasks t WHERE t.seq = r.seq;
      RETURN QUERY SELECT 'taken'::text, NULL::jsonb;
      RETURN;
    END IF;
    PERFORM pg_notify(p_channel, json_build_object('taskId', r.task_id, 'kind', 'created', 'status', r.status,
      'expiresAt', r.expires_at, 'origin', p_origin)::text);
    RETURN QUERY SELECT 'created'::text, to_jsonb(r);
  END
  $fn$;
  `,
  // The requestor's creation rate taken in the creation's own statement (one round trip fewer on a task call);
  // 'rate' where its bucket is empty, and nothing is created. The bucket is the one the rate statement keeps.
  `
  CREATE FUNCTION $S.create_task(p_row jsonb, p_lock text, p_max bigint, p_channel text, p_origin text,
      p_rate_key text, p_rate float8, p_now bigint)
  RETURNS TABLE (outcome text, made jsonb) LANGUAGE plpgsql VOLATILE AS $fn$
  BEGIN
    IF p_rate_key IS NOT NULL THEN
      INSERT INTO $S.rates AS b (key, tokens, at) VALUES (p_rate_key, p_rate - 1, p_now) ON CONFLICT (key) DO UPDATE
        SET tokens = LEAST(p_rate, b.tokens + GREATEST(0, p_now - b.at) * p_rate / 60000.0) - 1, at = GREATEST(b.at, p_now)
        WHERE LEAST(p_rate, b.tokens + GREATEST(0, p_now - b.at) * p_rate / 60000.0) >= 1;
      IF NOT FOUND THEN
        RETURN QUERY SELECT 'rate'::text, NULL::jsonb;
        RETURN;
      END IF;
    END IF;
    RETURN QUERY SELECT * FROM $S.create_task(p_row, p_lock, p_max, p_channel, p_origin);
  END
  $fn$;
  `,
];

/** Tasks moved to "expired" (or forgotten) per statement: a long backlog never holds a connection long. */
export const SWEEP_BATCH = 1000;
/** How long a published message stays readable (ms): its receivers read it as soon as they are told. */
export const MESSAGE_TTL = 600_000;
export const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

/** The rows of the tasks table (strings as JSON text: TEXT cannot hold U+0000). */
export const ROWS = new TaskRows({ strings: "json" });

/** The schema brought to POSTGRES_SCHEMA_VERSION (refuses a schema it does not know), in one transaction. */
export async function migrate(pool: PgPool, schema: string): Promise<void> {
  const S = `"${schema}"`;
  await inTransaction(pool, async (client) => {
    // Processes starting at once migrate one after the other.
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`mcp-task-gen:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${S}`);
    const meta = await client.query("SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'store_meta'", [schema]);
    let version = 0;
    if (meta.rows.length === 0) {
      const tables = await client.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1", [schema]);
      if (num(tables.rows[0]!.n) > 0) throw new Error(`schema ${schema} holds tables but is not a task store: choose another schema for the tasks`);
      await client.query(`CREATE TABLE ${S}.store_meta (id INTEGER PRIMARY KEY CHECK (id = 1), app TEXT NOT NULL, version INTEGER NOT NULL)`);
      await client.query(`INSERT INTO ${S}.store_meta (id, app, version) VALUES (1, $1, 0)`, [APPLICATION]);
    } else {
      const row = (await client.query(`SELECT app, version FROM ${S}.store_meta WHERE id = 1`)).rows[0];
      if (row === undefined || row.app !== APPLICATION) throw new Error(`schema ${schema} is not a task store: choose another schema for the tasks`);
      version = num(row.version);
    }
    if (version > MIGRATIONS.length) {
      throw new Error(`schema ${schema} holds task store schema version ${version}, newer than this runtime's ${MIGRATIONS.length}: regenerate with a newer mcp-task-gen`);
    }
    for (let v = version; v < MIGRATIONS.length; v++) await client.query(MIGRATIONS[v]!.split("$S").join(S));
    if (version !== MIGRATIONS.length) await client.query(`UPDATE ${S}.store_meta SET version = $1 WHERE id = 1`, [MIGRATIONS.length]);
    return { commit: true, value: undefined };
  });
}

/** The statements of a store on `schema`, announcing their changes on `channel` as made by `origin`. */
export type PostgresStatements = Record<"create" | "get" | "unfinished" | "getExpired" | "delete" | "deleteExpired" | "list" | "byStatus" | "expire" | "forget" | "next" | "publish" | "message" | "prune" | "heartbeat" | "live" | "rate" | "runner" | "takeRunner", string>;

export function postgresStatements(schema: string, channel: string, origin: string): PostgresStatements {
  const S = `"${schema}"`;
  // Every change announces itself: taskId, status (absent once gone), deadline and who made it.
  const notify = (row: string, kind: string, status: string) =>
    `pg_notify('${channel}', json_build_object('taskId', ${row}.task_id, 'kind', '${kind}', 'status', ${status}, 'expiresAt', ${row}.expires_at, 'origin', $ORIGIN::text)::text)`;
  const withNotify = (sql: string) => sql.split("$ORIGIN").join(`'${origin}'`);
  return {
    create: `SELECT * FROM ${S}.create_task($1::jsonb, $2, $3, '${channel}', '${origin}', $4, $5::float8, $6)`,
    get: `SELECT * FROM ${S}.tasks WHERE task_id = $1`,
    unfinished: `SELECT count(*) AS n FROM ${S}.tasks WHERE owner = $1 AND terminal_at IS NULL`,
    getExpired: `SELECT owner FROM ${S}.expired WHERE task_id = $1`,
    delete: withNotify(
      `WITH del AS (DELETE FROM ${S}.tasks WHERE task_id = $1 RETURNING task_id, expires_at)
       SELECT ${notify("del", "deleted", "NULL")} AS notified FROM del`,
    ),
    deleteExpired: `DELETE FROM ${S}.expired WHERE task_id = $1`,
    list: `SELECT * FROM ${S}.tasks WHERE owner = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    byStatus: `SELECT * FROM ${S}.tasks WHERE status = ANY($1::text[]) AND seq > $2 ORDER BY seq LIMIT $3`,
    // The rows are locked (SKIP LOCKED: another process sweeping takes others), then deleted only
    // where the deadline they hold now has passed: an extension committed meanwhile keeps its task.
    expire: withNotify(
      `WITH due AS (
         SELECT seq FROM ${S}.tasks WHERE expires_at <= $1 ORDER BY expires_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED),
       gone AS (
         DELETE FROM ${S}.tasks t USING due WHERE t.seq = due.seq AND t.expires_at <= $1 RETURNING t.task_id, t.owner, t.expires_at),
       kept AS (
         INSERT INTO ${S}.expired (task_id, owner, forget_at) SELECT task_id, owner, expires_at + $2 FROM gone
         ON CONFLICT (task_id) DO UPDATE SET owner = EXCLUDED.owner, forget_at = EXCLUDED.forget_at
         RETURNING task_id)
       SELECT (SELECT count(*) FROM due)::int AS taken, ${notify("gone", "expired", "NULL")} AS notified FROM gone`,
    ),
    forget: `WITH due AS (SELECT task_id FROM ${S}.expired WHERE forget_at <= $1 LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)
       DELETE FROM ${S}.expired e USING due WHERE e.task_id = due.task_id AND e.forget_at <= $1`,
    publish: withNotify(
      `WITH m AS (INSERT INTO ${S}.messages (task_id, body, created_at) VALUES ($1, $2, $3) RETURNING id, task_id, NULL::bigint AS expires_at)
       SELECT pg_notify('${channel}', json_build_object('taskId', m.task_id, 'kind', 'message', 'status', NULL, 'expiresAt', NULL,
         'message', m.id, 'origin', $ORIGIN::text)::text) AS notified FROM m`,
    ),
    message: `SELECT body FROM ${S}.messages WHERE id = $1`,
    heartbeat: `INSERT INTO ${S}.runners (runner, seen_at, instance) VALUES ($1, $2, $3) ON CONFLICT (runner) DO UPDATE
      SET seen_at = GREATEST(${S}.runners.seen_at, EXCLUDED.seen_at), instance = COALESCE(EXCLUDED.instance, ${S}.runners.instance)`,
    // A database up for less than the lease ($2 s) has not given every live runner the time to renew since
    // it came back: every runner counts as alive until then.
    live: `SELECT runner FROM ${S}.runners WHERE seen_at >= $1 OR pg_postmaster_start_time() > now() - make_interval(secs => $2::float8)`,
    runner: `SELECT seen_at, instance, (extract(epoch FROM now() - pg_postmaster_start_time()) * 1000)::float8 AS up_ms FROM ${S}.runners WHERE runner = $1`,
    takeRunner: `INSERT INTO ${S}.runners (runner, seen_at, instance) VALUES ($1, $2, $3) ON CONFLICT (runner) DO UPDATE
      SET seen_at = GREATEST(${S}.runners.seen_at, EXCLUDED.seen_at), instance = EXCLUDED.instance
      WHERE ${S}.runners.seen_at = $4 AND ${S}.runners.instance IS NOT DISTINCT FROM $5 RETURNING runner`,
    // One statement: refilled by the time elapsed, then one taken only if one is there (no row: empty).
    rate: `INSERT INTO ${S}.rates AS r (key, tokens, at) VALUES ($1, $2::float8 - 1, $3) ON CONFLICT (key) DO UPDATE
      SET tokens = LEAST($2::float8, r.tokens + GREATEST(0, $3 - r.at) * $2::float8 / 60000.0) - 1, at = GREATEST(r.at, $3)
      WHERE LEAST($2::float8, r.tokens + GREATEST(0, $3 - r.at) * $2::float8 / 60000.0) >= 1 RETURNING tokens`,
    prune: `DELETE FROM ${S}.messages WHERE id IN (SELECT id FROM ${S}.messages WHERE created_at <= $1 LIMIT ${SWEEP_BATCH})`,
    next: `SELECT (SELECT min(expires_at) FROM ${S}.tasks WHERE expires_at IS NOT NULL) AS e, (SELECT min(forget_at) FROM ${S}.expired) AS f`,
  };
}
