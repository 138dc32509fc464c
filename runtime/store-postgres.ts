// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// A durable task store on PostgreSQL (the pg driver, version 8), shared by
// several server processes. The driver is loaded only when a store is opened,
// and typed here by the little of it that is used: a project that never opens a
// PostgreSQL store neither installs nor type-checks against pg.
//
// Layout: in one schema of the database (default "mcp_tasks"), one row per live
// task, one row per task remembered as expired, and a one-row table holding the
// schema version, migrated forward by the store under an advisory lock (several
// processes may start at once). Pages of a requestor's tasks read the (owner,
// seq) index, expiry the expires_at index: both cost what they return.
//
// Deadlines are absolute (epoch ms). Every process sweeps them, in batches of
// SWEEP_BATCH rows locked with SKIP LOCKED (two processes never take the same
// task), and a task is removed only if its deadline, as the row holds it at
// that moment, has passed: a process whose timer was armed for an old deadline
// never removes a task another process extended (compare and set on the row).
//
// Changes are announced on a LISTEN/NOTIFY channel of the schema (`watch`), so
// a process running a task learns when another cancels it, answers it or moves
// it (see store-events.ts).
//
// Everything stored is data: records go in as bound parameters, strings and
// nested values as JSON text (JSON escapes what PostgreSQL text cannot hold, a
// NUL character, and keeps every string exactly), and come out through
// JSON.parse; nothing stored is ever evaluated, and the store installs no
// function or trigger in the database.

import { randomUUID } from "node:crypto";
import { untilDatabaseBack, withCause } from "./errors.js";
import { stderrLine, type LogEntry } from "./log.js";
import { DEADLINES, guardedPool, inTransaction, json, loadDriver, num, numOrNull, parse, redactUrl, type PgDriver, type PgListenClient, type PgPool } from "./store-postgres-pool.js";
import { MESSAGE_TTL, migrate, postgresStatements, ROWS, SCHEMA_NAME, SWEEP_BATCH, type PostgresStatements } from "./store-postgres-schema.js";
import { databaseOf, DeadlineTimer, type RateTake, type SqlRunner, type TaskChange, type TaskChangeListener, type TaskLookup, type TaskPatch, type TaskRecord, type TaskStore } from "./store.js";

// Where users import them from: the connection's types and helpers, and the schema's version and batch.
export { DEADLINES, postgresUrl, redactUrl, type PgClient, type PgDriver, type PgListenClient, type PgPool, type PgPoolClient, type PgResult } from "./store-postgres-pool.js";
export { POSTGRES_SCHEMA_VERSION, SWEEP_BATCH } from "./store-postgres-schema.js";

export interface PostgresTaskStoreOptions {
  /**
   * The schema holding the store's tables (created if missing). Default
   * "mcp_tasks". Letters, digits and underscores, starting with a letter or an
   * underscore, at most 48 characters. Stores on different schemas of one
   * database are independent.
   */
  schema?: string;
  /**
   * How long a task whose retention elapsed is remembered as "expired" before it
   * is forgotten entirely. Default 10 minutes. The moment of forgetting is
   * stored with the task.
   */
  rememberExpiredMs?: number;
  /**
   * A clock (epoch ms) for tests. Without one, expiry follows a timer (see
   * sweepIntervalMs). With one, every lookup reads it and applies the
   * deadlines that have passed.
   */
  now?: () => number;
  /**
   * The longest time between two sweeps of the deadlines (ms). Default 30 s.
   * A process learns of the deadlines it set itself and, while it watches, of
   * the ones others set; this bounds how late a deadline set by a process that
   * stopped is applied.
   */
  sweepIntervalMs?: number;
  /** Connections in the store's pool (default 10); watching adds one more, for LISTEN. */
  poolSize?: number;
  /** The pg module, for a caller that loads the driver itself (a bundle, a test). */
  driver?: PgDriver;
  /**
   * How long `open` waits for a database that cannot be reached yet (refused, starting up, recovering),
   * retrying with a backoff of up to 5 s, before it gives up (ms). Default 5 minutes.
   */
  startupWaitMs?: number;
  /** Where the store reports its waits for the database (default: a JSON line on stderr). */
  log?: (entry: LogEntry) => void;
}


/** Another live process holds the runner name a process was started under. */
export class RunnerInUseError extends Error {
  constructor(runner: string) {
    super(`the runner name ${JSON.stringify(runner)} is in use by another live process: start this one under another name (runnerId), or stop the other first`);
    this.name = "RunnerInUseError";
  }
}

/**
 * The PostgreSQL task store. Open it with `PostgresTaskStore.open(url)`; any
 * number of processes may open stores on the same database and schema at once.
 *
 * Records cross the interface as fresh objects, nested values included.
 */
export class PostgresTaskStore implements TaskStore {
  /** The tasks outlive the process. */
  readonly durable = true;
  /** Several processes serve the same tasks: a starting one cannot tell which unfinished tasks are orphans. */
  readonly shared = true;
  /** Names this store in the change events it causes (TaskChange.origin). */
  readonly origin = randomUUID();
  /** The schema of the tables. */
  readonly schema: string;

  /**
   * Opens a store on the database at `url` (a postgres:// connection string),
   * creates or migrates its schema, applies the deadlines that passed, and arms
   * its timer.
   */
  static async open(url: string, options: PostgresTaskStoreOptions = {}): Promise<PostgresTaskStore> {
    const schema = options.schema ?? "mcp_tasks";
    if (!SCHEMA_NAME.test(schema)) {
      throw new Error(`not a schema name for the task store: ${JSON.stringify(schema)} (letters, digits and underscores, at most 48)`);
    }
    if (typeof url !== "string" || url === "") throw new Error("PostgresTaskStore.open needs a connection string (postgres://user:password@host:port/database)");
    const driver = options.driver ?? (await loadDriver());
    const pool = guardedPool(new driver.Pool({ connectionString: url, max: options.poolSize ?? 10, ...DEADLINES }));
    // An idle connection the server dropped must not crash the process: the pool replaces it.
    pool.on("error", () => undefined);
    const log = options.log ?? ((e: LogEntry) => stderrLine(e));
    try {
      // A database still starting, recovering or refusing connections is waited for, not a reason to stop.
      await untilDatabaseBack(() => migrate(pool, schema), {
        forMs: options.startupWaitMs ?? 300_000,
        onWait: (attempt, delayMs, e) =>
          log({ level: "warn", msg: "the task store's database is unavailable: waiting for it", database: databaseOf(url), attempt, retryInMs: delayMs, error: String((e as { cause?: unknown }).cause ?? e) }),
      });
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw withCause(new Error(`cannot open the PostgreSQL task store at ${redactUrl(url)}: ${e instanceof Error ? e.message : String(e)}`), e);
    }
    const store = new PostgresTaskStore(pool, driver, url, schema, options);
    // The first sweep may meet the database gone again: the timer tries again.
    await store.expireDue(Infinity).catch(() => undefined);
    store.arm();
    return store;
  }

  private readonly pool: PgPool;
  private readonly driver: PgDriver;
  private readonly url: string;
  /** The database the tasks live in (host, port and name). */
  readonly database: string | undefined;
  private readonly rememberExpiredMs: number;
  private readonly sweepIntervalMs: number;
  private readonly now: () => number;
  private readonly lookupsReadClock: boolean;
  private readonly channel: string;
  /** The earliest deadline known (an expiry or a forgetting), or earlier. -Infinity until the first sweep. */
  private nextAt = -Infinity;
  private readonly timer = new DeadlineTimer(() => this.onTimer(), () => this.now());
  private closed = false;
  /** The sweep under way: one at a time per store. */
  private sweeping: Promise<boolean> | undefined;
  private readonly listeners = new Set<TaskChangeListener>();
  /** Changes waiting for an earlier one (a message whose body is being read), and the chain they wait on. */
  private behind = 0;
  private ordered: Promise<void> = Promise.resolve();
  private listener: PgListenClient | undefined;
  private listening: Promise<void> | undefined;
  private reconnect: ReturnType<typeof setTimeout> | undefined;
  private readonly sql: PostgresStatements;

  private constructor(pool: PgPool, driver: PgDriver, url: string, schema: string, options: PostgresTaskStoreOptions) {
    this.pool = pool;
    this.driver = driver;
    this.url = url;
    this.schema = schema;
    this.database = databaseOf(url);
    this.rememberExpiredMs = options.rememberExpiredMs ?? 600_000;
    this.sweepIntervalMs = Math.max(10, options.sweepIntervalMs ?? 30_000);
    this.now = options.now ?? Date.now;
    this.lookupsReadClock = options.now !== undefined;
    this.channel = `mcp_tasks_${schema}`;
    this.sql = postgresStatements(schema, this.channel, this.origin);
  }

  /** The schema version of the store's tables. */
  async schemaVersion(): Promise<number> {
    const r = await this.pool.query(`SELECT version FROM "${this.schema}".store_meta WHERE id = 1`);
    return num(r.rows[0]!.version);
  }

  async create(record: Omit<TaskRecord, "seq">): Promise<TaskRecord | undefined> {
    const made = await this.insert(record, undefined);
    return typeof made === "object" ? made : undefined;
  }

  /** The creation rate is taken in the create's own statement (createBounded and createAlong take `rate`). */
  readonly createTakesRate = true;

  async createBounded(record: Omit<TaskRecord, "seq">, max: number, rate?: RateTake): Promise<TaskRecord | undefined | "limit" | "rate"> {
    return this.insert(record, Number.isFinite(max) ? max : undefined, undefined, rate);
  }

  async createAlong(record: Omit<TaskRecord, "seq">, max: number, alongside: (rec: TaskRecord, sql: SqlRunner) => Promise<void>, rate?: RateTake): Promise<TaskRecord | undefined | "limit" | "rate"> {
    return this.insert(record, Number.isFinite(max) ? max : undefined, alongside, rate);
  }


  /**
   * Inserts a new task: none while its id is taken (live, or expired and not yet forgotten), and, with `max`,
   * none while the owner has `max` unfinished tasks. One statement (the schema's `create_task`) where nothing
   * goes along; with `alongside`, that statement and what goes along in one transaction.
   */
  private async insert(record: Omit<TaskRecord, "seq">, max: number | undefined, alongside?: (rec: TaskRecord, sql: SqlRunner) => Promise<void>, rate?: RateTake): Promise<TaskRecord | undefined | "limit" | "rate"> {
    const values = ROWS.insertValues(record);
    const row: Record<string, unknown> = {};
    ROWS.insertColumns.forEach((column, i) => (row[column] = values[i]));
    // The owner's creations, in every process, one at a time while the count is taken.
    const taken = rate !== undefined && Number.isFinite(rate.perMinute) ? rate : undefined;
    const args = [JSON.stringify(row), `${this.schema}:${json(record.owner)}`, max ?? null, taken?.key ?? null, taken?.perMinute ?? null, this.now()];
    const create = async (q: SqlRunner): Promise<TaskRecord | undefined | "limit" | "rate"> => {
      const answer = (await q.query(this.sql.create, args)).rows[0] as { outcome: string; made: Record<string, unknown> | null } | undefined;
      if (answer?.outcome === "limit" || answer?.outcome === "rate") return answer.outcome;
      return answer?.outcome === "created" && answer.made !== null ? ROWS.toRecord(answer.made) : undefined;
    };
    let made: TaskRecord | undefined | "limit" | "rate";
    if (alongside === undefined) made = await create(this.pool);
    else {
      made = await inTransaction(this.pool, async (client): Promise<{ commit: boolean; value: TaskRecord | undefined | "limit" | "rate" }> => {
        const value = await create(client);
        if (typeof value !== "object") return { commit: false, value };
        // A failure here undoes the task too.
        await alongside(value, client);
        return { commit: true, value };
      });
    }
    if (typeof made === "object" && made.expiresAt !== null) this.deadline(made.expiresAt);
    return made;
  }

  async get(taskId: string): Promise<TaskLookup> {
    if (this.lookupsReadClock) await this.expireDue(Infinity);
    const id = json(taskId);
    const row = (await this.pool.query(this.sql.get, [id])).rows[0];
    if (row) return { state: "live", record: ROWS.toRecord(row) };
    const gone = (await this.pool.query(this.sql.getExpired, [id])).rows[0];
    if (gone) return { state: "expired", owner: parse<string>(gone.owner), taskId };
    return undefined;
  }

  async update(taskId: string, expected: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    return this.compareAndSet(taskId, expected, patch, false);
  }

  async claim(taskId: string, expected: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    return this.compareAndSet(taskId, expected, patch, true);
  }

  private async compareAndSet(taskId: string, expected: string, patch: TaskPatch, unheld: boolean): Promise<TaskRecord | undefined> {
    const { columns, values } = ROWS.patch(patch);
    // The SQL is built from the store's fixed column list, never from the patch's keys or values.
    const set = columns.length === 0 ? "status = status" : columns.map((col, i) => `${col} = $${i + 3}`).join(", ");
    const S = `"${this.schema}"`;
    const sql = `WITH upd AS (UPDATE ${S}.tasks SET ${set} WHERE task_id = $1 AND status = $2${unheld ? " AND runner IS NULL" : ""} RETURNING *)
      SELECT upd.*, pg_notify('${this.channel}', json_build_object('taskId', upd.task_id, 'kind', 'updated', 'status', upd.status,
        'expiresAt', upd.expires_at, 'origin', '${this.origin}'::text)::text) AS notified FROM upd`;
    const row = (await this.pool.query(sql, [json(taskId), json(expected), ...values])).rows[0];
    if (row === undefined) return undefined;
    const rec = ROWS.toRecord(row);
    if (rec.expiresAt !== null && patch.expiresAt !== undefined) this.deadline(rec.expiresAt);
    return rec;
  }

  async delete(taskId: string): Promise<boolean> {
    const id = json(taskId);
    if (((await this.pool.query(this.sql.delete, [id])).rowCount ?? 0) > 0) return true;
    return ((await this.pool.query(this.sql.deleteExpired, [id])).rowCount ?? 0) > 0;
  }

  async list(owner: string, afterSeq: number, limit: number): Promise<{ records: TaskRecord[]; hasMore: boolean }> {
    if (this.lookupsReadClock) await this.expireDue(Infinity);
    const rows = (await this.pool.query(this.sql.list, [json(owner), afterSeq, limit + 1])).rows;
    const hasMore = rows.length > limit;
    if (hasMore) rows.length = limit;
    return { records: rows.map((row) => ROWS.toRecord(row)), hasMore };
  }

  /** Up to `limit` live tasks of any owner whose status is one of `statuses`, created after `afterSeq`, in creation order. */
  async listByStatus(statuses: readonly string[], afterSeq: number, limit: number): Promise<{ records: TaskRecord[]; hasMore: boolean }> {
    if (statuses.length === 0) return { records: [], hasMore: false };
    if (this.lookupsReadClock) await this.expireDue(Infinity);
    const rows = (await this.pool.query(this.sql.byStatus, [statuses.map((s) => json(s)), afterSeq, limit + 1])).rows;
    const hasMore = rows.length > limit;
    if (hasMore) rows.length = limit;
    return { records: rows.map((row) => ROWS.toRecord(row)), hasMore };
  }

  /** Takes one request from the budget `key` of `perMinute` requests, shared by every process on the schema. */
  async takeRate(key: string, perMinute: number): Promise<boolean> {
    if (perMinute < 1) return false;
    return ((await this.pool.query(this.sql.rate, [key, perMinute, this.now()])).rowCount ?? 0) > 0;
  }

  /** Records that `runner` (started as `instance`, where given) is alive now (its lease, read by `liveRunners`). */
  async heartbeat(runner: string, instance?: string): Promise<void> {
    await this.pool.query(this.sql.heartbeat, [json(runner), this.now(), instance ?? null]);
  }

  /**
   * The runners seen alive at or after `since`; every runner while the database has been up for less
   * than the time since `since` (a restart of the database left no one the time to renew).
   */
  async liveRunners(since: number): Promise<Set<string>> {
    const rows = (await this.pool.query(this.sql.live, [since, Math.max(0, this.now() - since) / 1000])).rows as { runner: string }[];
    return new Set(rows.map((r) => parse<string>(r.runner)));
  }

  /**
   * Takes the name `runner` for the process start `instance`, which renews its lease every `renewMs`.
   * A name another start holds is taken only once that start stopped renewing: the call waits two
   * renewal periods past its last renewal (and past the database's own start, which may have kept it
   * from renewing), and throws (RunnerInUseError) if it renewed meanwhile.
   */
  async takeRunner(runner: string, instance: string, renewMs: number): Promise<void> {
    const name = json(runner);
    const quiet = 2 * renewMs + 250;
    for (let attempt = 0; attempt < 16; attempt++) {
      const row = (await this.pool.query(this.sql.runner, [name])).rows[0] as { seen_at: unknown; instance: string | null; up_ms: unknown } | undefined;
      if (row === undefined || row.instance === instance) {
        await this.heartbeat(runner, instance);
        return;
      }
      const seen = num(row.seen_at);
      const wait = Math.max(seen + quiet - this.now(), quiet - num(row.up_ms));
      if (wait > 0) {
        await new Promise((r) => setTimeout(r, wait));
        const again = (await this.pool.query(this.sql.runner, [name])).rows[0] as { seen_at: unknown; instance: string | null } | undefined;
        if (again !== undefined && again.instance !== instance && num(again.seen_at) > seen) throw new RunnerInUseError(runner);
      }
      // Taken only if no one renewed or took it since it was read.
      if (((await this.pool.query(this.sql.takeRunner, [name, this.now(), instance, row.seen_at, row.instance])).rowCount ?? 0) > 0) return;
    }
    throw new RunnerInUseError(runner);
  }

  /** Hands a message about a task to every store watching this schema (a change of kind "message"). */
  async publish(taskId: string, message: Record<string, unknown>): Promise<void> {
    await this.pool.query(this.sql.publish, [json(taskId), JSON.stringify(message), Date.now()]);
  }

  /**
   * Calls `listener` on every change of a task made through any store on this
   * schema (this one included: TaskChange.origin tells). Notifications missed
   * while the LISTEN connection was down are reported as one change of kind
   * "resync". Returns the function that stops the calls.
   */
  watch(listener: TaskChangeListener): () => void {
    this.listeners.add(listener);
    if (this.listening === undefined && !this.closed) void this.startListening(false);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves once the LISTEN connection is up (changes made after that are announced to watchers). */
  async ready(): Promise<void> {
    if (this.listening === undefined && !this.closed) void this.startListening(false);
    await this.listening;
    if (this.listener === undefined && !this.closed) throw new Error("the task store's LISTEN connection is not up (it is being retried)");
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.timer.clear();
    if (this.reconnect) clearTimeout(this.reconnect);
    this.reconnect = undefined;
    await this.sweeping?.catch(() => undefined);
    await this.listening?.catch(() => undefined);
    const l = this.listener;
    this.listener = undefined;
    this.listeners.clear();
    if (l) await l.end().catch(() => undefined);
    await this.pool.end();
  }

  /** Opens the LISTEN connection (again after a loss); a failed attempt is retried. */
  private startListening(again: boolean): Promise<void> {
    const p = this.listen(again).then(
      () => undefined,
      () => this.retryListening(),
    );
    this.listening = p;
    return p;
  }

  private retryListening(): void {
    if (this.closed || this.reconnect !== undefined) return;
    this.reconnect = setTimeout(() => {
      this.reconnect = undefined;
      void this.startListening(true);
    }, 500);
    this.reconnect.unref?.();
  }

  /** One LISTEN connection; once it is back after a loss, "resync" says what may have been missed. */
  private async listen(again: boolean): Promise<void> {
    const client = new this.driver.Client({ connectionString: this.url, connectionTimeoutMillis: DEADLINES.connectionTimeoutMillis, keepAlive: true });
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      this.retryListening();
    };
    client.on("error", () => lost());
    client.on("end", () => lost());
    client.on("notification", (msg) => this.onNotification(msg.channel, msg.payload));
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch (e) {
      if (this.listener === client) {
        this.listener = undefined;
        client.end().catch(() => undefined);
      }
      throw e;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    if (again) this.emit({ taskId: "", kind: "resync", origin: "" });
  }

  private onNotification(channel: string, payload: string | undefined): void {
    if (channel !== this.channel || payload === undefined) return;
    let change: TaskChange;
    try {
      const p = JSON.parse(payload) as { taskId: string; kind: TaskChange["kind"]; status: string | null; expiresAt: number | string | null; origin: string; message?: unknown };
      change = { taskId: parse<string>(p.taskId), kind: p.kind, origin: p.origin, expiresAt: numOrNull(p.expiresAt) };
      if (p.status !== null) change.status = parse<string>(p.status);
      if (p.kind === "message") {
        // The body is read from its table: a notification's payload is limited to 8000 bytes.
        const id = num(p.message);
        delete change.expiresAt;
        const body = this.pool.query(this.sql.message, [id]).then(
          (r) => r.rows[0]?.body as unknown,
          () => undefined,
        );
        this.inOrder(body.then((b) => (typeof b === "string" ? { ...change, message: JSON.parse(b) as Record<string, unknown> } : undefined)));
        return;
      }
    } catch {
      return; // not one of the store's own messages
    }
    if (change.expiresAt !== null && change.expiresAt !== undefined && change.origin !== this.origin) this.deadline(change.expiresAt);
    if (this.behind === 0) this.emit(change);
    else this.inOrder(Promise.resolve(change));
  }

  /**
   * Emits a change once the ones announced before it are out: a message's body is read before it is
   * emitted, and what came after it (e.g. the task ending after its work's last progress) waits for it.
   */
  private inOrder(change: Promise<TaskChange | undefined>): void {
    this.behind++;
    this.ordered = this.ordered
      .then(() => change)
      .then(
        (c) => {
          if (c !== undefined) this.emit(c);
        },
        () => undefined,
      )
      .finally(() => this.behind--);
  }

  private emit(change: TaskChange): void {
    for (const l of [...this.listeners]) {
      try {
        l(change);
      } catch {
        // A listener that throws must not stop the others.
      }
    }
  }

  /** Notes a new deadline and moves the timer earlier if it is. */
  private deadline(at: number): void {
    if (at < this.nextAt) {
      this.nextAt = at;
      this.arm();
    }
  }

  /** Applies the deadlines that have passed, at most `batches` rounds of SWEEP_BATCH; true when all are applied. */
  private expireDue(batches: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(true);
    // One sweep at a time: a lookup arriving meanwhile waits for it, then looks for more.
    const run = async (): Promise<boolean> => {
      if (this.sweeping) await this.sweeping.catch(() => undefined);
      if (this.closed) return true;
      const now = this.now();
      if (now < this.nextAt) return true;
      for (let i = 0; i < batches; i++) {
        const moved = await this.pool.query(this.sql.expire, [now, this.rememberExpiredMs]);
        const taken = moved.rows.length === 0 ? 0 : num(moved.rows[0]!.taken);
        const forgotten = (await this.pool.query(this.sql.forget, [now])).rowCount ?? 0;
        if (i === 0) await this.pool.query(this.sql.prune, [Date.now() - MESSAGE_TTL]);
        if (taken < SWEEP_BATCH && forgotten < SWEEP_BATCH) {
          const next = (await this.pool.query(this.sql.next)).rows[0]!;
          this.nextAt = Math.min(numOrNull(next.e) ?? Infinity, numOrNull(next.f) ?? Infinity);
          return true;
        }
      }
      return false;
    };
    const p = run();
    this.sweeping = p;
    void p.finally(() => {
      if (this.sweeping === p) this.sweeping = undefined;
    }).catch(() => undefined);
    return p;
  }

  /** (Re)arms the single timer: the earliest deadline known, or the sweep interval, whichever comes first. */
  private arm(): void {
    if (this.closed) return;
    this.timer.armAt(Math.min(this.nextAt, this.now() + this.sweepIntervalMs));
  }

  private onTimer(): void {
    if (this.closed) return;
    // Deadlines other processes set are found by the sweep itself (it reads the earliest from the table).
    if (this.nextAt > this.now()) this.nextAt = -Infinity;
    this.expireDue(1).then(
      (done) => {
        if (this.closed) return;
        if (!done) {
          this.timer.armAt(-Infinity);
          return;
        }
        this.arm();
      },
      () => {
        // The database is unreachable for now: try again in a while (the sweep reads the deadlines afresh).
        if (this.closed) return;
        this.nextAt = -Infinity;
        this.timer.armAt(this.now() + Math.min(this.sweepIntervalMs, 1000));
      },
    );
  }
}
