/**
 * The PostgreSQL database the tests use: MCP_TASK_GEN_PG_URL (scripts/pg-test-cluster.sh
 * starts a throwaway cluster and prints it; .ci/run does so). Without it, or when the
 * database cannot be reached, the tests fail: they never skip.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export function pgUrl(): string {
  const url = process.env.MCP_TASK_GEN_PG_URL;
  if (!url) {
    throw new Error(
      "MCP_TASK_GEN_PG_URL is not set: start a test cluster with `eval \"$(scripts/pg-test-cluster.sh start)\"` (what .ci/run does), then run the tests",
    );
  }
  return url;
}

/** A fresh schema name: each test works in its own, so runs and tests never meet. */
export function freshSchema(prefix = "t"): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** Drops the schemas the tests made. */
export async function dropSchemas(schemas: readonly string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database on the test cluster, for a test file whose processes use the default schemas (a
 * scaffold's servers and workers share one job queue per database: two test files on one database would
 * run each other's jobs); its URL, and what drops it.
 */
export async function freshDatabase(prefix = "db"): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = freshSchema(prefix);
  await query(`CREATE DATABASE "${name}"`);
  const url = new URL(pgUrl());
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => undefined) };
}

/** Runs one query on a connection of its own (to the test database, or to `url`). */
export async function query(text: string, values?: unknown[], url = pgUrl()): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}
