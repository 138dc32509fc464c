// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// The SQLite built into Node (node:sqlite, Node 22.5 and later), shaped as the
// part of better-sqlite3 that the SQLite task store uses: a project on such a
// Node needs no compiled module, so it installs without a build step and runs
// on whichever Node starts it.

import type { SqliteDatabase, SqliteDriver, SqliteStatement } from "./sqlite-driver.js";

/** The part of node:sqlite's StatementSync used here. */
interface NodeStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The part of node:sqlite's DatabaseSync used here. */
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
}

interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { open?: boolean }) => NodeDatabase;
}

let loaded: NodeSqliteModule | null | undefined;

/**
 * node:sqlite, or undefined on a Node without it (Node 20). Node 22 flags the module experimental
 * with a warning on stderr at its first load: that one warning is left out (the store's use of it is
 * tested on every Node it runs on); any other warning goes out as usual.
 */
export function nodeSqlite(): NodeSqliteModule | undefined {
  if (loaded !== undefined) return loaded ?? undefined;
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof getBuiltin !== "function") {
    loaded = null;
    return undefined;
  }
  const emit = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === "string" ? warning : warning.message;
    const first = rest[0];
    const type = typeof first === "string" ? first : typeof first === "object" && first !== null ? (first as { type?: unknown }).type : typeof warning === "string" ? undefined : warning.name;
    if (type === "ExperimentalWarning" && /\bSQLite\b/.test(text)) return;
    return (emit as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    const mod = getBuiltin.call(process, "node:sqlite") as NodeSqliteModule | undefined;
    loaded = mod && typeof mod.DatabaseSync === "function" ? mod : null;
  } catch {
    loaded = null;
  } finally {
    process.emitWarning = emit;
  }
  return loaded ?? undefined;
}

/** An error of node:sqlite given better-sqlite3's code ("SQLITE_BUSY", ...), which the store reads. */
function withCode(e: unknown): unknown {
  const err = e as { errcode?: unknown; code?: unknown };
  if (typeof err?.errcode === "number" && err.code === "ERR_SQLITE_ERROR") {
    const primary = err.errcode & 0xff;
    const name = PRIMARY_CODES[primary];
    if (name !== undefined) {
      try {
        (err as { code: string }).code = name;
      } catch {
        // a frozen error keeps its code
      }
    }
  }
  return e;
}

/** SQLite's primary result codes that a caller may act on. */
const PRIMARY_CODES: Record<number, string> = { 5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 26: "SQLITE_NOTADB" };

const call = <T>(f: () => T): T => {
  try {
    return f();
  } catch (e) {
    throw withCode(e);
  }
};

const utf8 = new TextDecoder();

/** A row with its byte values read as UTF-8 text (the store keeps no BLOBs: bytes are text it read as such). */
function textRow(row: unknown): unknown {
  if (typeof row !== "object" || row === null) return row;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k] = v instanceof Uint8Array ? utf8.decode(v) : v;
  return out;
}

class Statement implements SqliteStatement {
  constructor(private readonly stmt: NodeStatement) {}
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint } {
    const r = call(() => this.stmt.run(...params));
    return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
  }
  get(...params: unknown[]): unknown {
    return textRow(call(() => this.stmt.get(...params)));
  }
  all(...params: unknown[]): unknown[] {
    return call(() => this.stmt.all(...params)).map(textRow);
  }
}

class Database implements SqliteDatabase {
  private readonly db: NodeDatabase;
  private isOpen = true;
  private depth = 0;

  constructor(mod: NodeSqliteModule, file: string) {
    // No busy timeout (node:sqlite sets none): a file another process holds is refused at once.
    this.db = call(() => new mod.DatabaseSync(file));
  }

  get open(): boolean {
    return this.isOpen;
  }

  prepare(sql: string): SqliteStatement {
    return new Statement(call(() => this.db.prepare(sql)));
  }

  exec(sql: string): void {
    call(() => this.db.exec(sql));
  }

  /** As better-sqlite3's: the rows of `PRAGMA <source>`, or with `simple` the first column of the first. */
  pragma(source: string, options?: { simple?: boolean }): unknown {
    const rows = call(() => this.db.prepare(`PRAGMA ${source}`).all()) as Record<string, unknown>[];
    if (!options?.simple) return rows;
    const first = rows[0];
    return first === undefined ? undefined : Object.values(first)[0];
  }

  /** As better-sqlite3's: BEGIN ... COMMIT around `fn`, rolled back when it throws; nested calls use savepoints. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      const nested = this.depth > 0;
      const name = `t${this.depth}`;
      this.exec(nested ? `SAVEPOINT ${name}` : "BEGIN");
      this.depth++;
      try {
        const result = fn(...args);
        this.depth--;
        this.exec(nested ? `RELEASE ${name}` : "COMMIT");
        return result;
      } catch (e) {
        this.depth--;
        try {
          this.exec(nested ? `ROLLBACK TO ${name}; RELEASE ${name}` : "ROLLBACK");
        } catch {
          // SQLite rolled back already (the error ended the transaction)
        }
        throw e;
      }
    };
  }

  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.db.close();
  }
}

/** Whether this node:sqlite reads text only up to its first NUL (Node 22 does; Node 24 reads it whole). */
function truncatesText(mod: NodeSqliteModule): boolean {
  const db = new mod.DatabaseSync(":memory:");
  try {
    return (db.prepare("SELECT ? AS t").get("a\u0000b") as { t: string }).t !== "a\u0000b";
  } finally {
    db.close();
  }
}

/** The node:sqlite driver with better-sqlite3's constructor shape, or undefined on a Node without node:sqlite. */
export function nodeSqliteDriver(): SqliteDriver | undefined {
  const mod = nodeSqlite();
  if (mod === undefined) return undefined;
  const driver = function NodeSqliteDatabase(file: string) {
    return new Database(mod, file);
  } as unknown as SqliteDriver;
  driver.textAsBlob = truncatesText(mod);
  return driver;
}
