/**
 * Where the demo's tasks live (--store: memory, SQLite or PostgreSQL) and, with --queue, the job queue
 * (pg-boss) its tool work goes through; exits 1 where either cannot be opened.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { DemoOptions, StoreChoice } from "./args.js";
import { log, type PostgresStoreModule, type SqliteStoreModule, type StoreModule, type WorkersModule } from "./common.js";

export type DemoStore =
  | InstanceType<StoreModule["InMemoryTaskStore"]>
  | Awaited<ReturnType<SqliteStoreModule["SqliteTaskStore"]["open"]>>
  | Awaited<ReturnType<PostgresStoreModule["PostgresTaskStore"]["open"]>>;
export type DemoQueue = Awaited<ReturnType<WorkersModule["PgBossTaskQueue"]["open"]>>;
/** How the runtime binds a task to its requestor. */
export type OwnerOf = (extra: { authInfo?: { clientId: string; extra?: Record<string, unknown> } }) => string;

/**
 * Opens the chosen store (and the queue where asked), with the generated store module for memory.
 * On PostgreSQL, several processes serve these tasks and a session lives in one of them: the store comes
 * with `ownerOf`, which binds a task to the auth context alone.
 */
export async function openStore(
  storeMod: StoreModule,
  choice: StoreChoice,
  useQueue: boolean,
  options: DemoOptions,
): Promise<{ store: DemoStore; queue?: DemoQueue; ownerOf?: OwnerOf }> {
  const { rememberExpiredMs, storeSchema, queueName, queueSchema, pgBossModule, startupWaitMs } = options;
  const storeOptions = rememberExpiredMs === undefined ? {} : { rememberExpiredMs };
  let store: DemoStore;
  let ownerOf: OwnerOf | undefined;
  if (choice.kind === "postgres") {
    const postgres = (await import("@mcp-task-gen/runtime/store-postgres")) as PostgresStoreModule;
    try {
      store = await postgres.PostgresTaskStore.open(choice.url, {
        ...storeOptions,
        ...(storeSchema === undefined ? {} : { schema: storeSchema }),
        ...(startupWaitMs === undefined ? {} : { startupWaitMs }),
      });
    } catch (e) {
      process.stderr.write(`demo-server: cannot open the task store: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    }
    log("task store", { store: "postgres", url: postgres.redactUrl(choice.url), schema: store.schema });
    ownerOf = (extra) => (extra.authInfo ? `auth:${extra.authInfo.clientId}:${typeof extra.authInfo.extra?.sub === "string" ? extra.authInfo.extra.sub : ""}` : "auth:anonymous");
  } else if (choice.kind === "sqlite") {
    const sqlite = (await import("@mcp-task-gen/runtime/store-sqlite")) as SqliteStoreModule;
    try {
      store = await sqlite.SqliteTaskStore.open(choice.file, storeOptions);
    } catch (e) {
      process.stderr.write(`demo-server: cannot open the task store: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    }
    log("task store", { store: "sqlite", file: choice.file, ...store.durability });
  } else store = new storeMod.InMemoryTaskStore(storeOptions);
  let queue: DemoQueue | undefined;
  if (useQueue && choice.kind === "postgres") {
    const workers = (await import("@mcp-task-gen/runtime/workers")) as WorkersModule;
    try {
      // Another pg-boss than the one installed here (the tests run pg-boss 12 on Node 22 this way).
      const driver = pgBossModule === undefined ? undefined : ((await import(pathToFileURL(resolve(pgBossModule)).href)) as { PgBoss: unknown }).PgBoss;
      queue = await workers.PgBossTaskQueue.open(choice.url, {
        ...(driver === undefined ? {} : { driver: driver as never }),
        ...(queueName === undefined ? {} : { name: queueName }),
        ...(queueSchema === undefined ? {} : { schema: queueSchema }),
        pollingIntervalSeconds: 1,
        ...(startupWaitMs === undefined ? {} : { startupWaitMs }),
        onError: (e) => log("queue error", { error: String(e) }),
      });
    } catch (e) {
      process.stderr.write(`demo-server: cannot open the job queue: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    }
  }
  return { store, ...(queue === undefined ? {} : { queue }), ...(ownerOf === undefined ? {} : { ownerOf }) };
}
