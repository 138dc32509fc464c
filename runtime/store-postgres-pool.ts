// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// The connection to PostgreSQL as the task store uses it: the little of the pg driver it calls, loaded
// only when a store is opened; bounded waits (a database that went away without closing the socket is
// not waited for forever); errors of a lost database turned into DatabaseUnavailableError; transactions.

import { DatabaseUnavailableError, isDatabaseUnavailable } from "./errors.js";
import { loadDriverPackage } from "./store.js";

/** A query result, as the store reads it. */
export interface PgResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/** The part of a pg client (pooled or not) the store uses. */
export interface PgClient {
  query(text: string, values?: unknown[]): Promise<PgResult>;
}

/** A pooled client: released after use (an error destroys it). */
export interface PgPoolClient extends PgClient {
  release(err?: Error | boolean): void;
  on?(event: "error", listener: (err: Error) => void): unknown;
  removeListener?(event: "error", listener: (err: Error) => void): unknown;
}

/** The part of a pg Pool the store uses. */
export interface PgPool extends PgClient {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: "error", listener: (err: Error) => void): unknown;
}

/** The part of a pg Client (a dedicated connection, for LISTEN) the store uses. */
export interface PgListenClient extends PgClient {
  connect(): Promise<void>;
  end(): Promise<void>;
  on(event: "notification", listener: (msg: { channel: string; payload?: string }) => void): unknown;
  on(event: "error" | "end", listener: (err?: Error) => void): unknown;
}

/** The pg module (its default export), as the store calls it. */
export interface PgDriver {
  Pool: new (config: Record<string, unknown>) => PgPool;
  Client: new (config: Record<string, unknown>) => PgListenClient;
}

/**
 * Bounds on the driver's waits (ms): a connection that cannot be made or a reply that never comes (a
 * database that went away without closing the socket) fails, and the pool replaces the connection.
 */
export const DEADLINES = { connectionTimeoutMillis: 10_000, query_timeout: 30_000, keepAlive: true } as const;
/** The package the store loads (a name in a variable: bundlers and type-checkers leave it alone). */
const DRIVER = "pg";

/** BIGINT comes back as a string (pg keeps 64 bits exact); epoch ms and sequence numbers fit a double. */
export function num(v: unknown): number {
  return typeof v === "number" ? v : Number(v);
}

export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}

export function parse<T>(v: unknown): T {
  return JSON.parse(v as string) as T;
}

/** JSON text of a stored value (undefined stays absent: SQL NULL). */
export function json(v: unknown): string | null {
  return v === undefined ? null : JSON.stringify(v);
}

/** Loads pg, or explains how to install it. */
export async function loadDriver(): Promise<PgDriver> {
  const driver = (await loadDriverPackage(DRIVER, "PostgresTaskStore", "the pg package, version 8", "pg@8")) as Partial<PgDriver>;
  if (typeof driver.Pool !== "function" || typeof driver.Client !== "function") throw new Error("pg did not load as expected (no Pool or Client)");
  return driver as PgDriver;
}

/**
 * The connection URL of a task store choice `postgres:<url>`, or of the URL alone (postgres://... or
 * postgresql://...); undefined for any other choice (memory, sqlite:<file>, ...).
 */
export function postgresUrl(choice: string): string | undefined {
  if (/^postgres(ql)?:\/\//.test(choice)) return choice;
  return /^postgres(ql)?:./.test(choice) ? choice.slice(choice.indexOf(":") + 1) : undefined;
}

/** The connection string without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable connection string)";
  }
}

/** The driver's error, or the store's own error saying the database is away (no host, port or server text). */
function lost(e: unknown): never {
  throw isDatabaseUnavailable(e) && !(e instanceof DatabaseUnavailableError) ? new DatabaseUnavailableError(e) : e;
}

/**
 * The pool as the store uses it: errors of a lost database come out as DatabaseUnavailableError, and a
 * connection checked out of the pool listens for its own errors while it is out (the pool listens only
 * to idle ones): a database that goes away mid-transaction fails that transaction, never the process.
 */
export function guardedPool(pool: PgPool): PgPool {
  const connect = async (): Promise<PgPoolClient> => {
    // A connection handed over after its deadline goes back, destroyed.
    const client = await within(pool.connect(), DEADLINES.connectionTimeoutMillis + 5_000, (late) => late.release(true)).catch(lost);
    const onError = () => undefined;
    client.on?.("error", onError);
    return {
      query: (text, values) => within(client.query(text, values), DEADLINES.query_timeout + 5_000).catch(lost),
      release: (err) => {
        // A failed connection is destroyed, and may still emit: it keeps its listener.
        if (err === undefined || err === false) client.removeListener?.("error", onError);
        client.release(err);
      },
    };
  };
  return {
    // One statement on a connection of its own, released (destroyed after a failure, so a connection
    // that stopped answering never holds a place in the pool).
    query: async (text, values) => {
      const client = await connect();
      let failed: Error | undefined;
      try {
        return await client.query(text, values);
      } catch (e) {
        failed = e instanceof Error ? e : new Error(String(e));
        throw e;
      } finally {
        client.release(failed);
      }
    },
    connect,
    end: () => pool.end(),
    on: (event, listener) => pool.on(event, listener),
  };
}

/**
 * `p`, or a DatabaseUnavailableError once `ms` passed without its answer (the driver's own deadlines did
 * not fire: a connection that stopped answering is not waited for forever). `late` gets an answer that
 * came after the deadline.
 */
function within<T>(p: Promise<T>, ms: number, late?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let over = false;
    const timer = setTimeout(() => {
      over = true;
      reject(new DatabaseUnavailableError(new Error("the database did not answer in time")));
    }, ms);
    p.then(
      (v) => {
        if (over) late?.(v);
        else {
          clearTimeout(timer);
          resolve(v);
        }
      },
      (e: unknown) => {
        if (over) return;
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * Runs `work` in a transaction on a connection of the pool, committed or rolled back as it says; an
 * error rolls it back and destroys the connection (it may be in any state).
 */
export async function inTransaction<T>(pool: PgPool, work: (client: PgClient) => Promise<{ commit: boolean; value: T }>): Promise<T> {
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    await client.query("BEGIN");
    const { commit, value } = await work(client);
    await client.query(commit ? "COMMIT" : "ROLLBACK");
    return value;
  } catch (e) {
    failed = e instanceof Error ? e : new Error(String(e));
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    client.release(failed);
  }
}
