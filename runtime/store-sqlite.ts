// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// A durable task store on SQLite, for one server process. The driver is Node's
// own node:sqlite where Node has it (22 and later: nothing to compile or
// install), else the better-sqlite3 package, version 12 (Node 20). A driver is
// loaded only when a store is opened, and typed here by the little of it that
// is used: a project that never opens a SQLite store neither installs nor
// type-checks against better-sqlite3.
//
// Durability: WAL journal with synchronous=FULL by default, so a create or an
// update has reached the disk (the WAL is fsynced at every commit) before its
// promise resolves, and the runtime acknowledges it on the wire only after
// that. synchronous=NORMAL (an option) keeps every committed write through a
// crash of the process, but a power loss or an OS crash may lose the last
// commits before the next checkpoint.
//
// Layout: one row per live task (the nested JSON values as JSON text), one row
// per task remembered as expired, and the schema version in PRAGMA
// user_version, migrated forward by the store itself. Pages of a requestor's
// tasks read the (owner, seq) index, expiry the expires_at index: both cost
// what they return, not what the table holds.
//
// Everything stored is data: records go in as bound parameters and JSON text
// and come out through JSON.parse; no stored text is ever evaluated, and the
// database file's own schema may not run functions (trusted_schema=OFF).

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { withCause } from "./errors.js";
import { nodeSqliteDriver } from "./sqlite-node.js";
import type { SqliteDatabase, SqliteDriver, SqliteStatement } from "./sqlite-driver.js";

export type { SqliteDatabase, SqliteDriver, SqliteStatement };
import { TaskRows } from "./store-rows.js";
import { DeadlineTimer, loadDriverPackage, type TaskLookup, type TaskPatch, type TaskRecord, type TaskStore } from "./store.js";

export interface SqliteTaskStoreOptions {
  /**
   * How long a task whose retention elapsed is remembered as "expired" before it
   * is forgotten entirely. Default 10 minutes. The moment of forgetting is
   * stored with the task, so it survives restarts.
   */
  rememberExpiredMs?: number;
  /**
   * A clock (epoch ms) for tests. Without one, expiry follows a single timer
   * (as the in-memory store's). With one, every lookup reads it and applies the
   * deadlines that have passed.
   */
  now?: () => number;
  /**
   * "full" (default): every commit is fsynced before it resolves: nothing
   * acknowledged is lost, even to a power loss. "normal": nothing acknowledged
   * is lost when the process dies, but a power loss or an OS crash may lose the
   * commits since the last checkpoint; commits are cheaper.
   */
  synchronous?: "full" | "normal";
  /**
   * The driver: "node:sqlite", "better-sqlite3", or a better-sqlite3-shaped constructor (a bundle, a
   * test). Default: node:sqlite where Node has it, else better-sqlite3.
   */
  driver?: SqliteDriver | "node:sqlite" | "better-sqlite3";
}

/** The schema version this store writes (PRAGMA user_version). */
export const SQLITE_SCHEMA_VERSION = 2;

/** Marks a database file as a task store (PRAGMA application_id): "MTGT". */
const APPLICATION_ID = 0x4d544754;

/**
 * The migrations, in order: entry i takes the schema from version i to i + 1.
 * A new version is a new entry at the end; an entry is never edited once released.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tasks (
    -- Creation order. AUTOINCREMENT: a number is never handed out twice, even
    -- after the newest task was deleted, so cursors stay valid across restarts.
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL UNIQUE,
    owner TEXT NOT NULL,
    status TEXT NOT NULL,
    method TEXT NOT NULL,
    request_id TEXT NOT NULL,        -- JSON text: a string or a number
    created_at INTEGER NOT NULL,     -- epoch ms, like every time here
    updated_at INTEGER NOT NULL,
    terminal_at INTEGER,
    keep_alive INTEGER,
    poll_frequency INTEGER NOT NULL,
    expires_at INTEGER,              -- absolute: retention keeps counting across restarts
    pending_inputs INTEGER NOT NULL,
    status_message TEXT,
    error TEXT,                      -- JSON text
    result TEXT,                     -- JSON text
    input_requests TEXT              -- JSON text
  );
  CREATE INDEX tasks_owner_seq ON tasks (owner, seq);
  CREATE INDEX tasks_expires_at ON tasks (expires_at) WHERE expires_at IS NOT NULL;
  CREATE INDEX tasks_status_seq ON tasks (status, seq);
  -- Tasks whose retention elapsed: their ids stay taken until forget_at.
  CREATE TABLE expired (
    task_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    forget_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX expired_forget_at ON expired (forget_at);
  `,
  // The task's own fields (declared by the spec, set by the work), as JSON text.
  `ALTER TABLE tasks ADD COLUMN fields TEXT;`,
];

/** Tasks moved to "expired" (or forgotten) per transaction: a long backlog never holds the event loop long. */
const SWEEP_BATCH = 1000;
/** The package the store loads (a name in a variable: bundlers and type-checkers leave it alone). */
const DRIVER = "better-sqlite3";

/** The rows of the tasks table (this store keeps no runner: one process owns the file). */
const ROWS = new TaskRows({ strings: "plain", without: ["runner"] });

/** The tasks table's columns of plain text (the others hold numbers or JSON text, which escapes NUL). */
const TEXT_COLUMNS = new Set(["task_id", "owner", "status", "method", "status_message"]);
/** Every column of the tasks table, at SQLITE_SCHEMA_VERSION. */
const ALL_COLUMNS = ["seq", "task_id", "owner", "status", "method", "request_id", "created_at", "updated_at", "terminal_at", "keep_alive", "poll_frequency", "expires_at", "pending_inputs", "status_message", "error", "result", "input_requests", "fields"];
/** What a query of whole rows selects: `*`, or each column with the plain text ones read as bytes (SqliteDriver.textAsBlob). */
const columnsOf = (driver: SqliteDriver, names?: readonly string[]): string =>
  !driver.textAsBlob ? (names?.join(", ") ?? "*") : (names ?? ALL_COLUMNS).map((c) => (TEXT_COLUMNS.has(c) ? `CAST(${c} AS BLOB) AS ${c}` : c)).join(", ");

/** A row of the tasks table, as better-sqlite3 returns it. */
type Row = Record<string, unknown>;

/** Loads better-sqlite3, or explains how to install it. */
async function loadDriver(): Promise<SqliteDriver> {
  const driver = await loadDriverPackage(
    DRIVER,
    "SqliteTaskStore",
    `Node 22 or later (its built-in node:sqlite) or, on Node ${process.versions.node}, the better-sqlite3 package, version 12`,
    "better-sqlite3@12",
  );
  if (typeof driver !== "function") throw new Error("better-sqlite3 did not load as a constructor");
  return driver as SqliteDriver;
}

/** The driver a store opens its file with, and its name. */
async function chooseDriver(choice: SqliteTaskStoreOptions["driver"]): Promise<{ driver: SqliteDriver; name: string }> {
  if (typeof choice === "function") return { driver: choice, name: "custom" };
  if (choice !== "better-sqlite3") {
    const builtin = nodeSqliteDriver();
    if (builtin !== undefined) return { driver: builtin, name: "node:sqlite" };
    if (choice === "node:sqlite") throw new Error(`SqliteTaskStore: Node ${process.versions.node} has no node:sqlite (Node 22.5 and later have it)`);
  }
  return { driver: await loadDriver(), name: DRIVER };
}

/** Who holds a store's file: written beside it (<file>-holder) while a process has it open. */
interface Holder {
  pid: number;
  command: string;
  since: string;
}

const holderFile = (file: string) => `${file}-holder`;

/** The process named in <file>-holder, when it is still running. */
function readHolder(file: string): Holder | undefined {
  try {
    const h = JSON.parse(readFileSync(holderFile(file), "utf8")) as Partial<Holder>;
    if (typeof h.pid !== "number" || typeof h.command !== "string" || typeof h.since !== "string") return undefined;
    if (h.pid !== process.pid) process.kill(h.pid, 0);
    return h as Holder;
  } catch {
    return undefined;
  }
}

/** The message for a file another process (or store) holds: who holds it and what to do. */
function heldMessage(file: string): string {
  const h = readHolder(file);
  const who =
    h === undefined
      ? "another process holds it"
      : h.pid === process.pid
        ? "another store in this process holds it"
        : `process ${h.pid} holds it (${h.command}, since ${h.since})`;
  const todo =
    h !== undefined && h.pid === process.pid
      ? "close that store first"
      : "stop that process (a stdio server stops when its client disconnects; a desktop client or the Inspector may still run one) or open another file";
  return `${file} is open elsewhere (another process or store): ${who}. One process at a time serves a SQLite task store: ${todo}`;
}

/** The schema version on disk, brought to SQLITE_SCHEMA_VERSION (refuses a file it does not know). */
function migrate(db: SqliteDatabase, file: string): void {
  db.transaction(() => {
    const version = db.pragma("user_version", { simple: true }) as number;
    const appId = db.pragma("application_id", { simple: true }) as number;
    if (appId !== APPLICATION_ID) {
      const tables = (db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number }).n;
      if (appId !== 0 || tables > 0) throw new Error(`${file} is an SQLite database, but not a task store: open a new file for the tasks`);
    }
    if (version > MIGRATIONS.length) {
      throw new Error(`${file} holds task store schema version ${version}, newer than this runtime's ${MIGRATIONS.length}: regenerate with a newer mcp-task-gen`);
    }
    for (let v = version; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]!);
    // Pragmas take no bound parameters; both values are integers of this file.
    if (version !== MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
    if (appId !== APPLICATION_ID) db.pragma(`application_id = ${APPLICATION_ID}`);
  })();
}

/**
 * The SQLite task store. Open it with `SqliteTaskStore.open(file)`; one process
 * at a time may hold a file (the store locks it exclusively and refuses a file
 * another process holds), since the store keeps its expiry timer in memory.
 *
 * Records cross the interface as fresh objects, nested values included.
 */
export class SqliteTaskStore implements TaskStore {
  /** The tasks outlive the process. */
  readonly durable = true;
  /** One process at a time holds the file: every unfinished task on it was a stopped process's. */
  readonly shared = false;

  /**
   * Opens (creating if needed) the task database at `file`, migrates its schema,
   * applies every deadline that passed while no process held it, and arms the
   * expiry timer for the next one.
   */
  static async open(file: string, options: SqliteTaskStoreOptions = {}): Promise<SqliteTaskStore> {
    const { driver: Driver, name } = await chooseDriver(options.driver);
    // No waiting for a lock: no one else may hold this file while a store has it open.
    const db = new Driver(file, { timeout: 0 });
    const inMemory = file === ":memory:" || file === "";
    try {
      db.pragma("trusted_schema = OFF");
      // Exclusive before WAL: the WAL index then lives in this process's memory and the file stays ours.
      db.pragma("locking_mode = EXCLUSIVE");
      let mode: string;
      try {
        mode = db.pragma("journal_mode = WAL", { simple: true }) as string;
      } catch (e) {
        if ((e as { code?: unknown }).code === "SQLITE_BUSY") throw withCause(new Error(heldMessage(file)), e);
        throw e;
      }
      if (mode !== "wal" && !inMemory) throw new Error(`${file}: SQLite refused WAL mode (journal_mode is ${mode})`);
      db.pragma(`synchronous = ${options.synchronous === "normal" ? "NORMAL" : "FULL"}`);
      migrate(db, file);
    } catch (e) {
      db.close();
      throw e;
    }
    const store = new SqliteTaskStore(db, options, name, inMemory ? undefined : file, columnsOf(Driver), columnsOf(Driver, ["task_id", "owner", "expires_at"]));
    store.expireDue(Infinity);
    store.arm();
    return store;
  }

  private readonly db: SqliteDatabase;
  private readonly rememberExpiredMs: number;
  private readonly now: () => number;
  private readonly lookupsReadClock: boolean;
  /**
   * The earliest deadline on disk (an expiry or a forgetting), or earlier: a
   * sweep then finds nothing and recomputes it. -Infinity until the first sweep.
   */
  private nextAt = -Infinity;
  private readonly timer = new DeadlineTimer(() => this.onTimer(), () => this.now());
  private closed = false;
  private readonly updates = new Map<string, SqliteStatement>();
  private readonly sql: {
    create: (r: Omit<TaskRecord, "seq">) => Row | undefined;
    get: SqliteStatement;
    getExpired: SqliteStatement;
    delete: SqliteStatement;
    deleteExpired: SqliteStatement;
    list: SqliteStatement;
    nextExpiry: SqliteStatement;
    nextForget: SqliteStatement;
    expireBatch: (now: number) => number;
    forgetBatch: SqliteStatement;
  };

  /** The driver in use: "node:sqlite", "better-sqlite3" or "custom". */
  readonly driver: string;
  /** The file's holder note, removed at close (undefined for an in-memory database). */
  private readonly holder: string | undefined;

  /** What a query of whole rows selects (columnsOf). */
  private readonly all: string;

  private constructor(db: SqliteDatabase, options: SqliteTaskStoreOptions, driver: string, file: string | undefined, all: string, due: string) {
    this.db = db;
    this.all = all;
    this.driver = driver;
    this.holder = file === undefined ? undefined : holderFile(file);
    if (this.holder !== undefined) {
      // Best effort: a second process then says who holds the file; the lock itself is SQLite's.
      const note: Holder = { pid: process.pid, command: [process.argv0, ...process.argv.slice(1)].join(" "), since: new Date().toISOString() };
      try {
        writeFileSync(this.holder, JSON.stringify(note) + "\n");
      } catch {
        this.holder = undefined;
      }
    }
    this.rememberExpiredMs = options.rememberExpiredMs ?? 600_000;
    this.now = options.now ?? Date.now;
    this.lookupsReadClock = options.now !== undefined;
    const isExpired = db.prepare("SELECT 1 FROM expired WHERE task_id = ?");
    const insert = db.prepare(
      `INSERT INTO tasks (${ROWS.insertColumns.join(", ")})
       VALUES (${ROWS.insertColumns.map(() => "?").join(", ")})
       ON CONFLICT (task_id) DO NOTHING
       RETURNING ${all}`,
    );
    const takeDue = db.prepare(
      `DELETE FROM tasks WHERE seq IN (SELECT seq FROM tasks WHERE expires_at <= ? ORDER BY expires_at LIMIT ${SWEEP_BATCH})
       RETURNING ${due}`,
    );
    const remember = db.prepare("INSERT OR REPLACE INTO expired (task_id, owner, forget_at) VALUES (?, ?, ?)");
    this.sql = {
      create: db.transaction((r: Omit<TaskRecord, "seq">) => {
        if (isExpired.get(r.taskId) !== undefined) return undefined;
        return insert.get(...ROWS.insertValues(r)) as Row | undefined;
      }),
      get: db.prepare(`SELECT ${all} FROM tasks WHERE task_id = ?`),
      getExpired: db.prepare(`SELECT ${all === "*" ? "owner" : "CAST(owner AS BLOB) AS owner"} FROM expired WHERE task_id = ?`),
      delete: db.prepare("DELETE FROM tasks WHERE task_id = ?"),
      deleteExpired: db.prepare("DELETE FROM expired WHERE task_id = ?"),
      list: db.prepare(`SELECT ${all} FROM tasks WHERE owner = ? AND seq > ? ORDER BY seq LIMIT ?`),
      nextExpiry: db.prepare("SELECT min(expires_at) AS at FROM tasks WHERE expires_at IS NOT NULL"),
      nextForget: db.prepare("SELECT min(forget_at) AS at FROM expired"),
      expireBatch: db.transaction((now: number) => {
        const due = takeDue.all(now) as { task_id: string; owner: string; expires_at: number }[];
        for (const d of due) remember.run(d.task_id, d.owner, d.expires_at + this.rememberExpiredMs);
        return due.length;
      }),
      forgetBatch: db.prepare(`DELETE FROM expired WHERE task_id IN (SELECT task_id FROM expired WHERE forget_at <= ? LIMIT ${SWEEP_BATCH})`),
    };
  }

  /** The schema version of the open database. */
  get schemaVersion(): number {
    return this.db.pragma("user_version", { simple: true }) as number;
  }

  /** How commits reach the disk: the journal mode ("wal") and the synchronous level ("full" or "normal"). */
  get durability(): { journalMode: string; synchronous: string } {
    const level = this.db.pragma("synchronous", { simple: true }) as number;
    const names = ["off", "normal", "full", "extra"];
    return { journalMode: this.db.pragma("journal_mode", { simple: true }) as string, synchronous: names[level] ?? String(level) };
  }

  async create(record: Omit<TaskRecord, "seq">): Promise<TaskRecord | undefined> {
    const row = this.sql.create(record);
    if (row === undefined) return undefined;
    const created = ROWS.toRecord(row);
    if (created.expiresAt !== null) this.deadline(created.expiresAt);
    return created;
  }

  async get(taskId: string): Promise<TaskLookup> {
    if (this.lookupsReadClock) this.expireDue(Infinity);
    const row = this.sql.get.get(taskId) as Row | undefined;
    if (row) return { state: "live", record: ROWS.toRecord(row) };
    const gone = this.sql.getExpired.get(taskId) as { owner: string } | undefined;
    if (gone) return { state: "expired", owner: gone.owner, taskId };
    return undefined;
  }

  async update(taskId: string, expected: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    const { columns, values } = ROWS.patch(patch);
    const key = columns.join(",");
    let stmt = this.updates.get(key);
    if (!stmt) {
      // The SQL is built from the store's fixed column list, never from the patch's keys or values.
      const set = columns.length === 0 ? "status = status" : columns.map((col) => `${col} = ?`).join(", ");
      stmt = this.db.prepare(`UPDATE tasks SET ${set} WHERE task_id = ? AND status = ? RETURNING ${this.all}`);
      this.updates.set(key, stmt);
    }
    const row = stmt.get(...values, taskId, expected) as Row | undefined;
    if (row === undefined) return undefined;
    const record = ROWS.toRecord(row);
    if (record.expiresAt !== null && patch.expiresAt !== undefined) this.deadline(record.expiresAt);
    return record;
  }

  async delete(taskId: string): Promise<boolean> {
    if (this.sql.delete.run(taskId).changes > 0) return true;
    return this.sql.deleteExpired.run(taskId).changes > 0;
  }

  async list(owner: string, afterSeq: number, limit: number): Promise<{ records: TaskRecord[]; hasMore: boolean }> {
    if (this.lookupsReadClock) this.expireDue(Infinity);
    const rows = this.sql.list.all(owner, afterSeq, limit + 1) as Row[];
    const hasMore = rows.length > limit;
    if (hasMore) rows.length = limit;
    return { records: rows.map((row) => ROWS.toRecord(row)), hasMore };
  }

  /**
   * Up to `limit` live tasks of any owner whose status is one of `statuses`,
   * created after `afterSeq`, in creation order: after a restart, the tasks
   * that were running when the process stopped.
   */
  async listByStatus(statuses: readonly string[], afterSeq: number, limit: number): Promise<{ records: TaskRecord[]; hasMore: boolean }> {
    if (statuses.length === 0) return { records: [], hasMore: false };
    const marks = statuses.map(() => "?").join(", ");
    const rows = this.db.prepare(`SELECT ${this.all} FROM tasks WHERE status IN (${marks}) AND seq > ? ORDER BY seq LIMIT ?`).all(...statuses, afterSeq, limit + 1) as Row[];
    const hasMore = rows.length > limit;
    if (hasMore) rows.length = limit;
    return { records: rows.map((row) => ROWS.toRecord(row)), hasMore };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.timer.clear();
    if (this.db.open) this.db.close();
    if (this.holder !== undefined) rmSync(this.holder, { force: true });
  }

  /** Notes a new deadline and moves the timer earlier if it is. */
  private deadline(at: number): void {
    if (at < this.nextAt) {
      this.nextAt = at;
      this.arm();
    }
  }

  /**
   * Applies the deadlines that have passed, at most `batches` transactions of
   * SWEEP_BATCH tasks each; returns true when all are applied.
   */
  private expireDue(batches: number): boolean {
    if (this.closed) return true;
    const now = this.now();
    if (now < this.nextAt) return true;
    for (let i = 0; i < batches; i++) {
      const moved = this.sql.expireBatch(now);
      const forgotten = this.sql.forgetBatch.run(now).changes;
      if (moved < SWEEP_BATCH && forgotten < SWEEP_BATCH) {
        const e = (this.sql.nextExpiry.get() as { at: number | null }).at;
        const f = (this.sql.nextForget.get() as { at: number | null }).at;
        this.nextAt = Math.min(e ?? Infinity, f ?? Infinity);
        return true;
      }
    }
    return false;
  }

  /** (Re)arms the single timer for the earliest deadline. */
  private arm(): void {
    if (this.closed || this.nextAt === Infinity) return;
    this.timer.armAt(this.nextAt);
  }

  private onTimer(): void {
    if (this.closed) return;
    // One batch per turn of the event loop: a long backlog of expired tasks never stalls requests.
    if (!this.expireDue(1)) {
      this.timer.armAt(-Infinity);
      return;
    }
    this.arm();
  }
}
