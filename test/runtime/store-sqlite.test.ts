/**
 * What only a durable store has (the shared contract is store-contract.test.ts):
 * SqliteTaskStore reopened on the same file finds its tasks, results, sequence
 * and deadlines; a process killed with SIGKILL loses no acknowledged write;
 * the schema is versioned and migrated by the store, the file locked to one
 * process, the indexes used; the driver is loaded only when a store opens.
 * Each test runs on the driver this Node gives a store by default (node:sqlite on
 * Node 22.13 and later, else better-sqlite3); CI runs the file on Node 22, 24 and 26.
 */
import { spawn } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it, onTestFinished } from "vitest";
import { settleTasks, type TaskRecord } from "../../runtime/store.js";
import { nodeSqliteDriver } from "../../runtime/sqlite-node.js";
import { SQLITE_SCHEMA_VERSION, SqliteTaskStore, type SqliteDriver, type SqliteTaskStoreOptions } from "../../runtime/store-sqlite.js";
import { ROOT, run } from "../helpers/cli.js";
import { largeResult, task } from "./store-contract.js";

// The runtime's own declaration of the driver fits better-sqlite3's (a compile-time check: npm run typecheck).
const fits: typeof Database extends SqliteDriver ? true : never = true;
void fits;
/** The driver a store opens by default on this Node, to read its files behind its back. */
const driver: SqliteDriver = nodeSqliteDriver() ?? ((await import("better-sqlite3")).default as unknown as SqliteDriver);
const Raw = (file: string) => new driver(file);

// On the real disk, not a tmpfs: these tests are about what reaches it.
const dir = mkdtempSync(join(tmpdir(), "mtg-store-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshFile = () => join(dir, `t${n++}.db`);

const opened: SqliteTaskStore[] = [];
const open = async (file: string, options?: SqliteTaskStoreOptions) => {
  const s = await SqliteTaskStore.open(file, options);
  opened.push(s);
  return s;
};
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

describe("SqliteTaskStore across restarts", () => {
  it("finds every task, result and remembered expiry again, continues the sequence, and keeps counting retention", async () => {
    const file = freshFile();
    let now = 1_000;
    const clock = { now: () => now, rememberExpiredMs: 10_000 };
    const a = await open(file, clock);
    const big = largeResult(1024 * 1024);
    await a.create(task("t1", "alice", { expiresAt: 50_000 }));
    await a.update("t1", "working", { status: "completed", terminalAt: 1_500, result: big, statusMessage: "done" });
    await a.create(task("t2", "alice", { status: "failed", error: { code: -32603, message: "boom", data: { n: 1 } }, requestId: "r-2" }));
    await a.create(task("t3", "bob", { expiresAt: 2_000 }));
    await a.create(task("t4", "alice", { expiresAt: 20_000 }));
    const newest = (await a.create(task("t5", "alice")))!;
    await a.delete("t5");
    now = 2_000; // t3 expires: remembered until 12 000
    expect((await a.get("t3"))?.state).toBe("expired");
    const before = await a.list("alice", 0, 10);
    await a.close();

    now = 3_000;
    const b = await open(file, clock);
    expect(b.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
    expect(await b.list("alice", 0, 10)).toEqual(before);
    expect(await b.get("t1")).toMatchObject({ state: "live", record: { status: "completed", result: big, statusMessage: "done", expiresAt: 50_000 } });
    expect(await b.get("t2")).toMatchObject({ state: "live", record: { requestId: "r-2", error: { code: -32603, message: "boom", data: { n: 1 } } } });
    expect(await b.get("t3")).toEqual({ state: "expired", owner: "bob", taskId: "t3" });
    expect(await b.create(task("t3", "mallory"))).toBeUndefined();
    // The sequence goes on after the newest number ever handed out, even one whose task was deleted.
    const next = (await b.create(task("t6", "alice")))!;
    expect(next.seq).toBeGreaterThan(newest.seq);
    // Deadlines are absolute: they pass at the same moments after the restart.
    now = 19_999;
    expect((await b.get("t4"))?.state).toBe("live");
    now = 20_000;
    expect((await b.get("t4"))?.state).toBe("expired");
    expect(await b.get("t3")).toBeUndefined(); // forgotten at 12 000
    await b.close();
  });

  it("applies on opening the deadlines that passed while no process held the file, and arms its timer for the rest", async () => {
    const file = freshFile();
    const a = await open(file, { rememberExpiredMs: 60_000 });
    const t0 = Date.now();
    await a.create(task("gone", "a", { expiresAt: t0 + 20 }));
    await a.create(task("next", "a", { expiresAt: t0 + 400 }));
    await a.create(task("kept", "a", { expiresAt: t0 + 3_600_000 }));
    await a.close();
    await new Promise((r) => setTimeout(r, 60));
    const b = await open(file, { rememberExpiredMs: 60_000 });
    // No clock injected: only the sweep on opening can have expired it.
    expect(await b.get("gone")).toEqual({ state: "expired", owner: "a", taskId: "gone" });
    expect((await b.get("next"))?.state).toBe("live");
    const until = Date.now() + 5_000;
    while ((await b.get("next"))?.state === "live" && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(await b.get("next")).toEqual({ state: "expired", owner: "a", taskId: "next" });
    expect(Date.now()).toBeGreaterThanOrEqual(t0 + 400);
    expect((await b.list("a", 0, 10)).records.map((r) => r.taskId)).toEqual(["kept"]);
  });

  it("works through a backlog of expired tasks on its timer, a batch per turn of the event loop", async () => {
    // On a tmpfs where there is one: what is tested here is the timer, not the disk.
    const shm = existsSync("/dev/shm") ? mkdtempSync("/dev/shm/mtg-sqlite-") : undefined;
    onTestFinished(() => (shm === undefined ? undefined : rmSync(shm, { recursive: true, force: true })));
    const file = join(shm ?? dir, "backlog.db");
    const s = await open(file, { synchronous: "normal" });
    const at = Date.now() + 300;
    for (let i = 0; i < 3_500; i++) await s.create(task(`b${i}`, "a", { expiresAt: at + (i % 5) }));
    const until = Date.now() + 10_000;
    while ((await s.list("a", 0, 1)).records.length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect((await s.list("a", 0, 1)).records).toEqual([]);
    expect(await s.get("b3499")).toEqual({ state: "expired", owner: "a", taskId: "b3499" });
  });
});

describe("SqliteTaskStore killed with SIGKILL", () => {
  it("keeps every acknowledged write, and settles the tasks that were running", async () => {
    const file = freshFile();
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "test", "runtime", "sqlite-child.ts"), file], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const created = new Map<string, number>();
    const completed = new Set<string>();
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    let buffered = "";
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the child wrote too little: ${created.size} tasks; stderr: ${stderr}`)), 60_000);
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        buffered += d;
        const lines = buffered.split("\n");
        buffered = lines.pop()!;
        for (const line of lines) {
          const [what, id, seq] = line.split(" ");
          if (what === "created") created.set(id!, Number(seq));
          else if (what === "completed") completed.add(id!);
        }
        // Killed in the middle of its writes, not between two.
        if (created.size >= 400) {
          clearTimeout(timer);
          child.kill("SIGKILL");
          resolve();
        }
      });
      child.on("exit", () => reject(new Error(`the child stopped by itself: ${stderr}`)));
    });
    expect(await exited).toBe("SIGKILL");
    // Lines the child printed before it died, read after the kill, are acknowledgements too.
    for (const line of buffered.split("\n")) {
      const [what, id, seq] = line.split(" ");
      if (what === "created" && seq) created.set(id!, Number(seq));
      else if (what === "completed") completed.add(id!);
    }

    const s = await open(file);
    for (const [id, seq] of created) {
      const got = await s.get(id);
      expect(got, `${id} was acknowledged`).toMatchObject({ state: "live", record: { taskId: id, seq } });
    }
    for (const id of completed) {
      expect(await s.get(id), `${id} was acknowledged completed`).toMatchObject({
        state: "live",
        record: { status: "completed", result: { content: [{ type: "text", text: `result of ${id}` }] } },
      });
    }
    // Every owner's pages hold its acknowledged tasks in creation order.
    const listed: TaskRecord[] = [];
    for (const owner of ["owner-0", "owner-1", "owner-2"]) {
      const page = await s.list(owner, 0, 10_000);
      expect(page.records.map((r) => r.seq)).toEqual([...page.records.map((r) => r.seq)].sort((x, y) => x - y));
      listed.push(...page.records);
    }
    for (const id of created.keys()) expect(listed.some((r) => r.taskId === id)).toBe(true);

    // The tasks whose work died with the process: none stays working.
    const settled = await settleTasks(s, ["working"], () => ({
      status: "failed",
      statusMessage: "The server stopped while the task was running",
      terminalAt: Date.now(),
      error: { code: -32603, message: "The server stopped while the task was running" },
    }));
    expect(settled.length).toBeGreaterThan(0);
    expect(settled.every((r) => Number(r.taskId.slice(1)) % 2 === 1 || !completed.has(r.taskId))).toBe(true);
    expect((await s.listByStatus(["working"], 0, 10)).records).toEqual([]);
    // The sequence goes on after the killed process's.
    const maxSeq = Math.max(...listed.map((r) => r.seq));
    expect((await s.create(task("after-restart", "owner-0")))!.seq).toBeGreaterThan(maxSeq);
  }, 90_000);
});

describe("SqliteTaskStore's file", () => {
  it("is one process's: a second store on the same file is refused until the first closes", async () => {
    const file = freshFile();
    const a = await open(file);
    await expect(SqliteTaskStore.open(file)).rejects.toThrow(/is open elsewhere \(another process or store\)/);
    await a.close();
    const b = await open(file);
    expect(await b.list("a", 0, 1)).toEqual({ records: [], hasMore: false });
  });

  it("tells a second process which process holds the file and what to do, and forgets the holder when it closes", async () => {
    const file = freshFile();
    const holder = spawn(process.execPath, ["--import", "tsx", "-e", `const { SqliteTaskStore } = await import(${JSON.stringify(join(ROOT, "runtime", "store-sqlite.ts"))}); await SqliteTaskStore.open(${JSON.stringify(file)}); console.log("open"); setInterval(() => {}, 1000);`], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    onTestFinished(() => void holder.kill("SIGKILL"));
    await new Promise<void>((resolve, reject) => {
      holder.stdout.setEncoding("utf8").on("data", (d: string) => d.includes("open") && resolve());
      holder.on("exit", (code) => reject(new Error(`the holder exited (${code})`)));
    });
    const refused = await SqliteTaskStore.open(file).then(
      () => "opened",
      (e: Error) => e.message,
    );
    expect(refused).toContain(`${file} is open elsewhere (another process or store): process ${holder.pid} holds it (`);
    expect(refused).toMatch(/since \d{4}-\d\d-\d\dT.*stop that process \(a stdio server stops when its client disconnects/);
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    // A holder that died without closing leaves a note naming a process that no longer runs: it is not named.
    const s = await open(file);
    await s.close();
    expect(existsSync(`${file}-holder`)).toBe(false);
  });

  it("is marked and versioned: WAL journal, application id, user_version; foreign and newer files are refused", async () => {
    const file = freshFile();
    const store = await open(file);
    // The default: the WAL fsynced at every commit.
    expect(store.durability).toEqual({ journalMode: "wal", synchronous: "full" });
    await store.close();
    const db = Raw(file);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("user_version", { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    expect(db.pragma("application_id", { simple: true })).toBe(0x4d544754);
    db.close();

    const foreign = freshFile();
    const f = Raw(foreign);
    f.exec("CREATE TABLE notes (body TEXT)");
    f.close();
    await expect(SqliteTaskStore.open(foreign)).rejects.toThrow(/an SQLite database, but not a task store/);

    const newer = freshFile();
    await (await open(newer)).close();
    const w = Raw(newer);
    w.pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    w.close();
    await expect(SqliteTaskStore.open(newer)).rejects.toThrow(new RegExp(`schema version ${SQLITE_SCHEMA_VERSION + 1}, newer than this runtime's ${SQLITE_SCHEMA_VERSION}`));

    // An empty file (version 0) is migrated from the start.
    const empty = freshFile();
    writeFileSync(empty, "");
    const e = await open(empty);
    expect(e.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
    expect(await e.create(task("x"))).toMatchObject({ seq: 1 });
  });

  it("answers pages, expiry and settling from indexes: no scan of the table, no sort", async () => {
    const file = freshFile();
    const s = await open(file);
    for (let i = 0; i < 50; i++) await s.create(task(`q${i}`, `o${i % 5}`, { expiresAt: i % 2 ? null : 1e13 + i }));
    await s.close();
    const db = Raw(file);
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join("; ");
    const page = plan("SELECT * FROM tasks WHERE owner = 'o1' AND seq > 10 ORDER BY seq LIMIT 11");
    expect(page).toMatch(/USING INDEX tasks_owner_seq \(owner=\? AND (seq|rowid)>\?\)/);
    expect(page).not.toMatch(/TEMP B-TREE|SCAN/);
    const due = plan("SELECT seq FROM tasks WHERE expires_at <= 5 ORDER BY expires_at LIMIT 1000");
    expect(due).toMatch(/USING (COVERING )?INDEX tasks_expires_at \(expires_at<\?\)/);
    expect(due).not.toMatch(/TEMP B-TREE|SCAN/);
    expect(plan("SELECT min(expires_at) AS at FROM tasks WHERE expires_at IS NOT NULL")).toMatch(/INDEX tasks_expires_at/);
    expect(plan("SELECT task_id FROM expired WHERE forget_at <= 5 LIMIT 1000")).toMatch(/INDEX expired_forget_at/);
    expect(plan("SELECT * FROM tasks WHERE task_id = 'x'")).toMatch(/INDEX sqlite_autoindex_tasks_1 \(task_id=\?\)/);
    expect(plan("SELECT * FROM tasks WHERE status IN ('working', 'input_required') AND seq > 0 ORDER BY seq LIMIT 11")).toMatch(/INDEX tasks_status_seq/);
    db.close();
  });

  it("needs no package on a Node with node:sqlite (and prints no warning), else better-sqlite3 only when a store is opened, and says how to install it when it is missing", async () => {
    // A project without the driver: the runtime package (its build) alone in node_modules.
    const project = mkdtempSync(join(tmpdir(), "mtg-no-driver-"));
    try {
      const installed = join(project, "node_modules", "@mcp-task-gen", "runtime");
      mkdirSync(installed, { recursive: true });
      copyFileSync(join(ROOT, "runtime", "package.json"), join(installed, "package.json"));
      cpSync(join(ROOT, "runtime", "dist"), join(installed, "dist"), { recursive: true });
      writeFileSync(join(project, "package.json"), JSON.stringify({ type: "module" }));
      writeFileSync(
        join(project, "main.ts"),
        [
          'import { SqliteTaskStore } from "@mcp-task-gen/runtime/store-sqlite";',
          'import { InMemoryTaskStore } from "@mcp-task-gen/runtime/store";',
          "await new InMemoryTaskStore().close();",
          'process.stdout.write("imported\\n");',
          'await SqliteTaskStore.open("tasks.db").then(',
          '  (s) => process.stdout.write(`opened with ${s.driver}\\n`),',
          '  (e: Error) => process.stdout.write(e.message + "\\n"),',
          ");",
        ].join("\n"),
      );
      const tsx = createRequire(join(ROOT, "package.json")).resolve("tsx");
      const r = await run(process.execPath, ["--import", tsx, "main.ts"], { cwd: project });
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe(
        nodeSqliteDriver()
          ? "imported\nopened with node:sqlite\n"
          : `imported\nSqliteTaskStore needs Node 22.13 or later (its built-in node:sqlite) or, on Node ${process.versions.node}, the better-sqlite3 package, version 12: npm install better-sqlite3@12\n`,
      );
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it("takes the driver from the caller, and keeps durable writes with synchronous=NORMAL too", async () => {
    const file = freshFile();
    const s = await open(file, { driver, synchronous: "normal" });
    expect(s.durability).toEqual({ journalMode: "wal", synchronous: "normal" });
    await s.create(task("n1"));
    await s.close();
    expect(await (await open(file, { driver })).get("n1")).toMatchObject({ state: "live" });
  });
});
