/**
 * The TaskStore contract (store-contract.ts), run against every store. A new
 * store is one more line in STORES.
 *
 * SQLite stores live on /dev/shm where there is one (a tmpfs: fsync costs
 * nothing, so the suite tests behaviour in the default configuration without
 * paying the disk's latency thousands of times); durability on a real disk is
 * store-sqlite.test.ts's.
 *
 * The SQLite store runs on each driver this Node can load: node:sqlite (Node 22.13 and later) and
 * better-sqlite3 (built for the Node that installed it: CI's main run, on Node 24); CI runs this file on
 * Node 22, 24 and 26.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { InMemoryTaskStore } from "../../runtime/store.js";
import { nodeSqlite } from "../../runtime/sqlite-node.js";
import { SqliteTaskStore } from "../../runtime/store-sqlite.js";
import { storeContract, type StoreUnderTest } from "./store-contract.js";

const dir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "mtg-store-contract-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** Why better-sqlite3 cannot load here (not installed, or built for another Node), or undefined when it can. */
const betterSqliteMissing = await import("better-sqlite3")
  .then((m) => {
    new m.default(":memory:").close();
    return undefined;
  })
  .catch((e: unknown) => (e instanceof Error ? e.message.split("\n")[0] : String(e)));

const sqlite = (driver: "node:sqlite" | "better-sqlite3"): StoreUnderTest => ({
  name: `sqlite (${driver})`,
  make: async (o) => SqliteTaskStore.open(join(dir, `${files++}.db`), { ...o, driver }),
});

const STORES: StoreUnderTest[] = [
  { name: "memory", make: async (o) => new InMemoryTaskStore(o) },
  ...(nodeSqlite() ? [sqlite("node:sqlite")] : []),
  ...(betterSqliteMissing === undefined ? [sqlite("better-sqlite3")] : []),
];

for (const s of STORES) storeContract(s);

if (!nodeSqlite()) describe.skip(`sqlite (node:sqlite): Node ${process.versions.node} has none`, () => it("runs on Node 22.13 and later", () => {}));
if (betterSqliteMissing !== undefined) describe.skip(`sqlite (better-sqlite3): ${betterSqliteMissing}`, () => it("runs where better-sqlite3 loads", () => {}));
