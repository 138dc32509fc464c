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

/** Runs one query on a connection of its own. */
export async function query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}
