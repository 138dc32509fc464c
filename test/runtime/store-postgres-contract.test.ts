/**
 * The TaskStore contract (store-contract.ts) against PostgresTaskStore, each store
 * on a schema of its own in the test database (MCP_TASK_GEN_PG_URL; see
 * store-postgres-db.ts: without it the suite fails).
 */
import { afterAll } from "vitest";
import { PostgresTaskStore } from "../../runtime/store-postgres.js";
import { storeContract } from "./store-contract.js";
import { dropSchemas, freshSchema, pgUrl } from "./store-postgres-db.js";

const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

storeContract({
  name: "postgres",
  make: async (o) => {
    const schema = freshSchema("contract");
    schemas.push(schema);
    return PostgresTaskStore.open(pgUrl(), { ...o, schema, poolSize: 4 });
  },
});
