// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
// What the SQLite store needs of a driver: the part of better-sqlite3 it uses, which node:sqlite is
// adapted to (sqlite-node.ts). Its own file, so that the store and the adapter both import it and neither
// imports the other for it.

/** The part of a better-sqlite3 prepared statement the store uses. */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The part of a better-sqlite3 database the store uses. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): unknown;
  readonly open: boolean;
}

/**
 * The better-sqlite3 constructor (its default export), as the store calls it. `textAsBlob`: the driver
 * reads a text value only up to its first NUL character (node:sqlite before Node 24), so the store reads
 * its plain text columns as bytes, which the driver hands back as the whole string.
 */
export type SqliteDriver = (new (filename: string, options?: { timeout?: number }) => SqliteDatabase) & { textAsBlob?: boolean };
