/**
 * The TaskStore contract (store-contract.ts), run against every store. A new
 * store is one more line in STORES.
 *
 * SQLite stores live on /dev/shm where there is one (a tmpfs: fsync costs
 * nothing, so the suite tests behaviour in the default configuration without
 * paying the disk's latency thousands of times); durability on a real disk is
 * store-sqlite.test.ts's.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { InMemoryTaskStore } from "../../runtime/store.js";
import { SqliteTaskStore } from "../../runtime/store-sqlite.js";
import { storeContract, type StoreUnderTest } from "./store-contract.js";

const dir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "mtg-store-contract-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const STORES: StoreUnderTest[] = [
  { name: "memory", make: async (o) => new InMemoryTaskStore(o) },
  { name: "sqlite", make: async (o) => SqliteTaskStore.open(join(dir, `${files++}.db`), o) },
];

for (const s of STORES) storeContract(s);
