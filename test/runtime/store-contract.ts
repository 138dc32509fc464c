/**
 * The TaskStore contract: one suite that every store passes (memory, SQLite,
 * and any later one: its test file adds one line to STORES). What the runtime
 * relies on: create (a taken id refused), get, compare-and-set update, pages
 * per owner in creation order, retention and expiry (expired, remembered, then
 * forgotten) under an injected clock and under the store's own timer, owner
 * isolation, concurrent updates, large results, delete, and finding the tasks
 * in given statuses (settling them after a restart).
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { settleTasks, type TaskRecord, type TaskStore } from "../../runtime/store.js";

/** A caller changing a record it was handed: allowed (a copy) or refused (frozen: a TypeError), never anything else. */
function change(f: () => unknown): void {
  try {
    f();
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
}

export interface StoreOptions {
  /** An injected clock (epoch ms). */
  now?: () => number;
  rememberExpiredMs?: number;
}

export interface StoreUnderTest {
  name: string;
  /** A new, empty store. */
  make(options?: StoreOptions): Promise<TaskStore>;
}

export const task = (taskId: string, owner = "a", extra: Partial<Omit<TaskRecord, "seq">> = {}): Omit<TaskRecord, "seq"> => ({
  taskId,
  owner,
  status: "working",
  method: "tools/call",
  requestId: 1,
  createdAt: 1_000,
  updatedAt: 1_000,
  terminalAt: null,
  keepAlive: 60_000,
  pollFrequency: 500,
  expiresAt: null,
  pendingInputs: 0,
  ...extra,
});

/** Every page of `owner`'s tasks, checking the page contract on the way. */
export async function allPages(store: TaskStore, owner: string, pageSize: number): Promise<TaskRecord[]> {
  const got: TaskRecord[] = [];
  let after = 0;
  for (;;) {
    const page = await store.list(owner, after, pageSize);
    expect(page.records.length).toBeLessThanOrEqual(pageSize);
    got.push(...page.records);
    if (!page.hasMore) return got;
    expect(page.records.length).toBe(pageSize);
    after = page.records[page.records.length - 1]!.seq;
  }
}

/** A JSON value of about `bytes` bytes: many small objects, as a large tool result is. */
export function largeResult(bytes: number): Record<string, unknown> {
  const line = { type: "text", text: "x".repeat(200), annotations: { priority: 0.5, audience: ["user"] } };
  const n = Math.ceil(bytes / JSON.stringify(line).length);
  return { content: Array.from({ length: n }, (_, i) => ({ ...line, text: `${i}:${line.text}` })), isError: false };
}

export function storeContract(s: StoreUnderTest): void {
  describe(`TaskStore contract: ${s.name}`, () => {
    const opened: TaskStore[] = [];
    const make = async (options?: StoreOptions) => {
      const store = await s.make(options);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    it("creates a task with a store-assigned seq and hands back every field as given", async () => {
      const store = await make();
      const full = task("t1", "a", {
        requestId: "req-7",
        statusMessage: "starting",
        keepAlive: null,
        error: { code: -32603, message: "boom", data: { why: ["x", 1, null, true] } },
        result: { content: [{ type: "text", text: "hi ✓ \u0000 \ud83d\ude00" }], structuredContent: { n: 1.5, neg: -2, big: 2 ** 52 } },
        inputRequests: { q1: { method: "elicitation/create", params: { message: "ok?" } } },
      });
      const created = await store.create(full);
      expect(created).toEqual({ ...full, seq: created!.seq });
      expect(created!.seq).toBeGreaterThan(0);
      expect(await store.get("t1")).toEqual({ state: "live", record: created });
      const bare = await store.create(task("t2"));
      expect(bare).toEqual({ ...task("t2"), seq: bare!.seq });
      expect(bare!.seq).toBeGreaterThan(created!.seq);
      for (const key of ["statusMessage", "error", "result", "inputRequests"]) expect(bare).not.toHaveProperty(key);
      expect(await store.get("nope")).toBeUndefined();
    });

    it("refuses an id already taken, by any owner, and keeps the first task", async () => {
      const store = await make();
      expect(await store.create(task("dup", "a"))).toBeDefined();
      expect(await store.create(task("dup", "a"))).toBeUndefined();
      expect(await store.create(task("dup", "b", { status: "completed" }))).toBeUndefined();
      expect(await store.get("dup")).toMatchObject({ state: "live", record: { owner: "a", status: "working" } });
      expect((await store.list("b", 0, 10)).records).toEqual([]);
    });

    it("hands out records no caller can change what is stored through: a copy, or frozen", async () => {
      const store = await make();
      const created = (await store.create(task("c", "a", { result: { content: [] } })))!;
      change(() => (created.status = "failed"));
      const read = (await store.get("c")) as { state: "live"; record: TaskRecord };
      change(() => (read.record.status = "cancelled"));
      change(() => (read.record.result!.content = [1]));
      expect(await store.get("c")).toMatchObject({ state: "live", record: { status: "working", result: { content: [] } } });
    });

    it("updates only from the expected status (compare and set), applying just the patch's fields", async () => {
      const store = await make();
      await store.create(task("u", "a", { statusMessage: "m0", expiresAt: 5_000 }));
      expect(await store.update("u", "input_required", { status: "completed" })).toBeUndefined();
      expect(await store.update("missing", "working", { status: "completed" })).toBeUndefined();
      const same = await store.update("u", "working", { updatedAt: 2_000, pendingInputs: 2 });
      expect(same).toMatchObject({ status: "working", updatedAt: 2_000, pendingInputs: 2, statusMessage: "m0", expiresAt: 5_000 });
      const done = await store.update("u", "working", {
        status: "completed",
        terminalAt: 3_000,
        expiresAt: null,
        pendingInputs: 0,
        result: { content: [{ type: "text", text: "done" }] },
        inputRequests: {},
      });
      expect(done).toMatchObject({ status: "completed", terminalAt: 3_000, expiresAt: null, statusMessage: "m0", createdAt: 1_000, method: "tools/call" });
      expect(done!.result).toEqual({ content: [{ type: "text", text: "done" }] });
      expect(await store.get("u")).toEqual({ state: "live", record: done });
      // The status moved on: the old expected status no longer matches.
      expect(await store.update("u", "working", { status: "failed" })).toBeUndefined();
      // A nested value is replaced whole.
      const again = await store.update("u", "completed", { result: { other: true } });
      expect(again!.result).toEqual({ other: true });
    });

    it("keeps every value as data: hostile ids, owners, statuses and keys are stored and read back as they are", async () => {
      const store = await make();
      const hostile = ["'; DROP TABLE tasks; --", "\" OR 1=1 --", "x\u0000y", "__proto__", "constructor", "${process.exit(1)}", "🙂".repeat(50)];
      for (const [i, h] of hostile.entries()) {
        const result = JSON.parse(`{"__proto__": {"polluted": ${i}}, "constructor": {"prototype": {"x": 1}}, ${JSON.stringify(h)}: ${JSON.stringify(h)}}`) as Record<string, unknown>;
        const created = await store.create(task(h, h, { status: h, method: h, requestId: h, statusMessage: h, result }));
        expect(created).toBeDefined();
        const got = await store.get(h);
        expect(got?.state).toBe("live");
        const rec = (got as { record: TaskRecord }).record;
        expect([rec.taskId, rec.owner, rec.status, rec.method, rec.requestId, rec.statusMessage]).toEqual([h, h, h, h, h, h]);
        expect(Object.prototype.hasOwnProperty.call(rec.result, "__proto__")).toBe(true);
        expect(Object.getPrototypeOf(rec.result)).toBe(Object.prototype);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect((await store.list(h, 0, 10)).records.map((r) => r.taskId)).toEqual([h]);
        expect(await store.update(h, h, { status: "completed" })).toMatchObject({ status: "completed" });
      }
      expect((await store.list("a", 0, 100)).records).toEqual([]);
    });

    it("pages exactly an owner's live tasks in creation order, whatever was created and deleted", async () => {
      const op = fc.oneof(
        { weight: 3, arbitrary: fc.record({ kind: fc.constant("create" as const), owner: fc.constantFrom("a", "b", "c") }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }) },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 30, maxLength: 300 }), fc.integer({ min: 1, max: 40 }), async (ops, pageSize) => {
          const store = await make();
          const model: { id: string; owner: string }[] = [];
          let n = 0;
          for (const o of ops) {
            if (o.kind === "create") {
              // Ids in no lexical order: creation order is the only order a list may follow.
              const id = `t${(n++ * 7919) % 10007}`;
              expect(await store.create(task(id, o.owner))).toBeDefined();
              model.push({ id, owner: o.owner });
            } else if (model.length) {
              const [gone] = model.splice(o.pick % model.length, 1);
              expect(await store.delete(gone!.id)).toBe(true);
            }
          }
          for (const owner of ["a", "b", "c", "nobody"]) {
            const got = (await allPages(store, owner, pageSize)).map((r) => r.taskId);
            expect(got).toEqual(model.filter((m) => m.owner === owner).map((m) => m.id));
          }
          await store.close();
        }),
        { numRuns: 15 },
      );
    });

    it("pages with hasMore exactly when more follow, and a cursor past the end is an empty last page", async () => {
      const store = await make();
      const seqs: number[] = [];
      for (let i = 0; i < 7; i++) seqs.push((await store.create(task(`p${i}`, "a")))!.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      const p1 = await store.list("a", 0, 3);
      expect([p1.records.map((r) => r.taskId), p1.hasMore]).toEqual([["p0", "p1", "p2"], true]);
      const p2 = await store.list("a", p1.records[2]!.seq, 3);
      expect([p2.records.map((r) => r.taskId), p2.hasMore]).toEqual([["p3", "p4", "p5"], true]);
      const p3 = await store.list("a", p2.records[2]!.seq, 3);
      expect([p3.records.map((r) => r.taskId), p3.hasMore]).toEqual([["p6"], false]);
      expect(await store.list("a", 0, 7)).toMatchObject({ hasMore: false });
      expect(await store.list("a", seqs[6]!, 3)).toEqual({ records: [], hasMore: false });
      // A cursor whose task was deleted still continues after it.
      await store.delete("p3");
      expect((await store.list("a", seqs[3]!, 10)).records.map((r) => r.taskId)).toEqual(["p4", "p5", "p6"]);
    });

    it("isolates owners: lists show only the owner's tasks, and every lookup names the owner so the runtime can refuse others", async () => {
      const now = 10_000;
      const store = await make({ now: () => now, rememberExpiredMs: 1_000 });
      await store.create(task("a1", "session:1"));
      await store.create(task("b1", "session:2"));
      await store.create(task("a2", "session:1", { expiresAt: 10_000 }));
      expect((await store.list("session:1", 0, 10)).records.map((r) => r.taskId)).toEqual(["a1"]);
      expect((await store.list("session:2", 0, 10)).records.map((r) => r.taskId)).toEqual(["b1"]);
      expect((await store.list("session:", 0, 10)).records).toEqual([]);
      expect(await store.get("b1")).toMatchObject({ state: "live", record: { owner: "session:2" } });
      expect(await store.get("a2")).toEqual({ state: "expired", owner: "session:1", taskId: "a2" });
    });

    it("expires a task at expiresAt (remembered as expired, its id still taken), then forgets it", async () => {
      let now = 0;
      const store = await make({ now: () => now, rememberExpiredMs: 500 });
      await store.create(task("e", "a", { expiresAt: 100 }));
      await store.create(task("keep", "a"));
      now = 99;
      expect((await store.get("e"))?.state).toBe("live");
      now = 100;
      expect(await store.get("e")).toEqual({ state: "expired", owner: "a", taskId: "e" });
      expect((await store.list("a", 0, 10)).records.map((r) => r.taskId)).toEqual(["keep"]);
      expect(await store.update("e", "working", { status: "completed" })).toBeUndefined();
      expect(await store.create(task("e", "b"))).toBeUndefined();
      now = 599;
      expect((await store.get("e"))?.state).toBe("expired");
      now = 600;
      expect(await store.get("e")).toBeUndefined();
      // A moved deadline counts, not the first one.
      await store.create(task("m", "a", { expiresAt: 700 }));
      await store.update("m", "working", { expiresAt: 2_000 });
      now = 800;
      expect((await store.get("m"))?.state).toBe("live");
      await store.update("m", "working", { expiresAt: 900 });
      expect((await store.get("m"))?.state).toBe("live");
      now = 900;
      expect((await store.get("m"))?.state).toBe("expired");
      // Retention removed: never expires.
      await store.create(task("n", "a", { expiresAt: 1_000 }));
      await store.update("n", "working", { expiresAt: null });
      now = 1e12;
      expect((await store.get("n"))?.state).toBe("live");
      expect((await store.list("a", 0, 10)).records.map((r) => r.taskId)).toEqual(["keep", "n"]);
    });

    it("expires many tasks due at once, in one step", async () => {
      let now = 0;
      const store = await make({ now: () => now, rememberExpiredMs: 1_000 });
      const N = 2_500;
      for (let i = 0; i < N; i++) await store.create(task(`x${i}`, i % 2 ? "a" : "b", { expiresAt: 10 + (i % 7) }));
      await store.create(task("stays", "a", { expiresAt: 100 }));
      now = 50;
      expect((await store.list("a", 0, 10)).records.map((r) => r.taskId)).toEqual(["stays"]);
      expect((await store.list("b", 0, 10)).records).toEqual([]);
      expect(await store.get(`x${N - 1}`)).toEqual({ state: "expired", owner: "a", taskId: `x${N - 1}` });
      now = 10_000;
      for (const id of ["x0", `x${N - 1}`, "stays"]) expect(await store.get(id)).toBeUndefined();
    });

    it("expiry and forgetting agree with a model under random creates, deadline moves, deletes and clock steps", async () => {
      const REMEMBER = 50;
      const op = fc.oneof(
        fc.record({ kind: fc.constant("create" as const), ttl: fc.option(fc.integer({ min: 0, max: 120 }), { nil: null }) }),
        fc.record({ kind: fc.constant("move" as const), pick: fc.nat(), ttl: fc.option(fc.integer({ min: -20, max: 120 }), { nil: null }) }),
        fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
        fc.record({ kind: fc.constant("tick" as const), by: fc.integer({ min: 0, max: 60 }) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 80 }), async (ops) => {
          let now = 1000;
          const store = await make({ now: () => now, rememberExpiredMs: REMEMBER });
          const model = new Map<string, { expiresAt: number | null; deleted: boolean; expiredAt?: number }>();
          const ids: string[] = [];
          const check = async () => {
            for (const id of ids) {
              const m = model.get(id)!;
              const got = await store.get(id);
              if (m.deleted) expect(got).toBeUndefined();
              else if (m.expiredAt !== undefined || (m.expiresAt !== null && m.expiresAt <= now)) {
                m.expiredAt ??= now;
                expect(got?.state).not.toBe("live");
                if (now < m.expiresAt! + REMEMBER) expect(got).toEqual({ state: "expired", owner: "o", taskId: id });
                if (got === undefined) m.deleted = true;
              } else expect(got).toMatchObject({ state: "live", record: { taskId: id, expiresAt: m.expiresAt } });
            }
            const live = (await store.list("o", 0, 1000)).records.map((r) => r.taskId);
            expect(live).toEqual(ids.filter((id) => !model.get(id)!.deleted && model.get(id)!.expiredAt === undefined));
          };
          for (const o of ops) {
            if (o.kind === "create") {
              const id = `t${ids.length}`;
              const expiresAt = o.ttl === null ? null : now + o.ttl;
              expect(await store.create(task(id, "o", { expiresAt }))).toBeDefined();
              ids.push(id);
              model.set(id, { expiresAt, deleted: false });
            } else if (o.kind === "move" && ids.length) {
              const id = ids[o.pick % ids.length]!;
              const m = model.get(id)!;
              const expiresAt = o.ttl === null ? null : now + o.ttl;
              const updated = await store.update(id, "working", { expiresAt });
              if (m.deleted || m.expiredAt !== undefined) expect(updated).toBeUndefined();
              else {
                expect(updated).toMatchObject({ expiresAt });
                m.expiresAt = expiresAt;
              }
            } else if (o.kind === "delete" && ids.length) {
              const id = ids[o.pick % ids.length]!;
              const m = model.get(id)!;
              const wasThere = (await store.get(id)) !== undefined;
              expect(await store.delete(id)).toBe(wasThere);
              m.deleted = true;
            } else if (o.kind === "tick") now += o.by;
            await check();
          }
          await store.close();
        }),
        { numRuns: 25 },
      );
    });

    it("expires on its own timer, without an injected clock", async () => {
      // Wide enough that the first lookup lands before the deadline on a loaded machine (a PostgreSQL round
      // trip can take tens of ms there); the waits below allow for a late timer, the bounds stay exact.
      const SOON = 500;
      const REMEMBER = 300;
      const store = await make({ rememberExpiredMs: REMEMBER });
      const t0 = Date.now();
      await store.create(task("soon", "a", { expiresAt: t0 + SOON }));
      await store.create(task("later", "a", { expiresAt: t0 + 60_000 }));
      const first = (await store.get("soon"))?.state;
      // Answered entirely before the deadline: live (no store expires early). Later, either state is right.
      if (Date.now() < t0 + SOON) expect(first).toBe("live");
      else expect(["live", "expired"]).toContain(first);
      await waitFor("'soon' expired", async () => (await store.get("soon"))?.state === "expired");
      expect(Date.now()).toBeGreaterThanOrEqual(t0 + SOON);
      expect((await store.list("a", 0, 10)).records.map((r) => r.taskId)).toEqual(["later"]);
      await waitFor("'soon' forgotten", async () => (await store.get("soon")) === undefined);
      expect(Date.now()).toBeGreaterThanOrEqual(t0 + SOON + REMEMBER);
      // A deadline moved earlier re-arms the timer.
      await store.update("later", "working", { expiresAt: Date.now() + 30 });
      await waitFor("'later' expired", async () => (await store.get("later"))?.state === "expired");
    });

    it("lets exactly one of many concurrent compare-and-set updates win, at every step", async () => {
      const store = await make();
      await store.create(task("race", "a", { status: "s0" }));
      const STEPS = 5;
      const WRITERS = 40;
      for (let step = 0; step < STEPS; step++) {
        const results = await Promise.all(
          Array.from({ length: WRITERS }, (_, w) => store.update("race", `s${step}`, { status: `s${step + 1}`, statusMessage: `writer ${w}` })),
        );
        const winners = results.filter((r) => r !== undefined);
        expect(winners).toHaveLength(1);
        expect(await store.get("race")).toMatchObject({ state: "live", record: { status: `s${step + 1}`, statusMessage: winners[0]!.statusMessage } });
      }
      // Interleaved: the steps racing each other, every writer of every step at once; the chain still advances one step per win.
      await store.create(task("chain", "a", { status: "s0" }));
      const all = await Promise.all(
        Array.from({ length: WRITERS * STEPS }, (_, i) => store.update("chain", `s${i % STEPS}`, { status: `s${(i % STEPS) + 1}` })),
      );
      const won = all.filter((r) => r !== undefined).map((r) => r!.status);
      expect(new Set(won).size).toBe(won.length);
      expect(won.length).toBeGreaterThanOrEqual(1);
    });

    it("stores and returns large results (5 MB of JSON) intact, through get, list and update", async () => {
      const store = await make();
      const big = largeResult(5 * 1024 * 1024);
      expect(JSON.stringify(big).length).toBeGreaterThan(5 * 1024 * 1024);
      await store.create(task("big", "a"));
      const updated = await store.update("big", "working", { status: "completed", result: big });
      expect(updated!.result).toEqual(big);
      expect(await store.get("big")).toMatchObject({ state: "live", record: { result: big } });
      expect((await store.list("a", 0, 10)).records[0]!.result).toEqual(big);
      const created = await store.create(task("big2", "a", { status: "completed", result: big, error: { code: -32603, message: "m".repeat(1 << 20) } }));
      expect(created!.error!.message).toHaveLength(1 << 20);
      expect(await store.get("big2")).toMatchObject({ state: "live", record: { result: big } });
    });

    it("deletes a task and its result; a deleted id is free again", async () => {
      let now = 0;
      const store = await make({ now: () => now, rememberExpiredMs: 1_000 });
      await store.create(task("d", "a", { result: { content: [] } }));
      await store.create(task("other", "a"));
      expect(await store.delete("d")).toBe(true);
      expect(await store.get("d")).toBeUndefined();
      expect(await store.delete("d")).toBe(false);
      expect(await store.delete("never")).toBe(false);
      expect(await store.update("d", "working", { status: "completed" })).toBeUndefined();
      expect((await store.list("a", 0, 10)).records.map((r) => r.taskId)).toEqual(["other"]);
      // Deleting a task remembered as expired forgets it.
      await store.create(task("x", "a", { expiresAt: 5 }));
      now = 10;
      expect((await store.get("x"))?.state).toBe("expired");
      expect(await store.delete("x")).toBe(true);
      expect(await store.get("x")).toBeUndefined();
      // Created again: a new task, after the others in creation order.
      const again = await store.create(task("d", "b"));
      expect(again).toMatchObject({ owner: "b" });
      expect(again).not.toHaveProperty("result");
    });

    it("lists the tasks in given statuses across owners, in creation order, and settles them by compare and set", async () => {
      const store = await make();
      expect(store.listByStatus).toBeTypeOf("function");
      const statuses = ["working", "input_required", "completed", "working", "cancelled", "input_required", "working"];
      for (const [i, status] of statuses.entries()) await store.create(task(`r${i}`, i % 2 ? "a" : "b", { status }));
      const open = ["working", "input_required"];
      const want = statuses.flatMap((st, i) => (open.includes(st) ? [`r${i}`] : []));
      const pages: string[] = [];
      let after = 0;
      for (;;) {
        const page = await store.listByStatus!(open, after, 2);
        pages.push(...page.records.map((r) => r.taskId));
        if (!page.hasMore) break;
        after = page.records[page.records.length - 1]!.seq;
      }
      expect(pages).toEqual(want);
      expect(await store.listByStatus!([], 0, 10)).toEqual({ records: [], hasMore: false });

      const settled = await settleTasks(
        store,
        open,
        (r) => (r.taskId === "r6" ? undefined : { status: "failed", statusMessage: "The server restarted while the task was running", terminalAt: 5_000 }),
        2,
      );
      expect(settled.map((r) => r.taskId)).toEqual(want.filter((id) => id !== "r6"));
      expect(await store.get("r0")).toMatchObject({ state: "live", record: { status: "failed", terminalAt: 5_000 } });
      expect(await store.get("r2")).toMatchObject({ state: "live", record: { status: "completed" } });
      expect((await store.listByStatus!(open, 0, 10)).records.map((r) => r.taskId)).toEqual(["r6"]);
    });

    it("closes more than once", async () => {
      const store = await make();
      await store.close();
      await store.close();
    });
  });
}

/** Polls `cond` until it holds (5 s at most). */
/**
 * Polls until `cond` holds. The limit is far above the few ms a timer is late when the machine is idle: under
 * load (other test files, a shared PostgreSQL) a timer and a query can each take seconds, which is no failure.
 */
async function waitFor(what: string, cond: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 30_000;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
