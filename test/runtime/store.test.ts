/**
 * The runtime's InMemoryTaskStore (runtime/store.ts):
 * pagination per owner against a model under random creations and deletions,
 * compare-and-set updates, and the single expiry structure (expired, then forgotten).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InMemoryTaskStore, type TaskRecord } from "../../runtime/store.js";

const base = (taskId: string, owner: string, expiresAt: number | null = null): Omit<TaskRecord, "seq"> => ({
  taskId,
  owner,
  status: "submitted",
  method: "tools/call",
  requestId: 1,
  createdAt: 0,
  updatedAt: 0,
  terminalAt: null,
  keepAlive: 1000,
  pollFrequency: 1000,
  expiresAt,
  pendingInputs: 0,
});

describe("InMemoryTaskStore", () => {
  it("pages list exactly the owner's live tasks in creation order, whatever was created and deleted", async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("create" as const), owner: fc.constantFrom("a", "b", "c") }),
      fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 1200 }), fc.integer({ min: 1, max: 700 }), async (ops, pageSize) => {
        const store = new InMemoryTaskStore();
        const model: { id: string; owner: string }[] = [];
        let n = 0;
        for (const o of ops) {
          if (o.kind === "create") {
            const id = `t${n++}`;
            expect(await store.create(base(id, o.owner))).toBeDefined();
            model.push({ id, owner: o.owner });
          } else if (model.length) {
            const [gone] = model.splice(o.pick % model.length, 1);
            expect(await store.delete(gone!.id)).toBe(true);
          }
        }
        for (const owner of ["a", "b", "c"]) {
          const got: string[] = [];
          let after = 0;
          for (;;) {
            const page = await store.list(owner, after, pageSize);
            expect(page.records.length).toBeLessThanOrEqual(pageSize);
            got.push(...page.records.map((r) => r.taskId));
            if (!page.hasMore) break;
            expect(page.records.length).toBe(pageSize);
            after = page.records[page.records.length - 1]!.seq;
          }
          expect(got).toEqual(model.filter((m) => m.owner === owner).map((m) => m.id));
        }
        await store.close();
      }),
      { numRuns: 40 },
    );
  });

  it("refuses a reused id, updates only from the expected status, hands out frozen records", async () => {
    const store = new InMemoryTaskStore();
    const rec = await store.create(base("x", "a"));
    expect(await store.create(base("x", "b"))).toBeUndefined();
    expect(Object.isFrozen(rec)).toBe(true);
    expect(() => {
      rec!.status = "failed";
    }).toThrow(TypeError);
    expect((await store.get("x"))).toMatchObject({ state: "live", record: { status: "submitted" } });
    expect(await store.update("x", "working", { status: "completed" })).toBeUndefined();
    expect(await store.update("x", "submitted", { status: "working" })).toMatchObject({ status: "working" });
    await store.close();
  });

  it("expires a task at expiresAt (remembered as expired), then forgets it — one heap, one timer", async () => {
    let now = 0;
    const store = new InMemoryTaskStore({ now: () => now, rememberExpiredMs: 500 });
    await store.create(base("e", "a", 100));
    await store.create(base("keep", "a", null));
    now = 99;
    expect((await store.get("e"))?.state).toBe("live");
    now = 100;
    expect(await store.get("e")).toEqual({ state: "expired", owner: "a", taskId: "e" });
    expect((await store.list("a", 0, 10)).records.map((r) => r.taskId)).toEqual(["keep"]);
    expect(await store.create(base("e", "a"))).toBeUndefined();
    now = 600;
    expect(await store.get("e")).toBeUndefined();
    // A task whose deadline moved is not expired by its stale heap entry.
    await store.create(base("m", "a", 700));
    await store.update("m", "submitted", { expiresAt: 2000 });
    now = 800;
    expect((await store.get("m"))?.state).toBe("live");
    now = 2000;
    expect((await store.get("m"))?.state).toBe("expired");
    await store.close();
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
      fc.asyncProperty(fc.array(op, { maxLength: 200 }), async (ops) => {
        let now = 1000;
        const store = new InMemoryTaskStore({ now: () => now, rememberExpiredMs: REMEMBER });
        // The model: deadline per created id, whether deleted, and when it was seen expired first.
        const model = new Map<string, { expiresAt: number | null; deleted: boolean; expiredAt?: number }>();
        const ids: string[] = [];
        const check = async () => {
          for (const id of ids) {
            const m = model.get(id)!;
            const got = await store.get(id);
            if (m.deleted) expect(got).toBeUndefined();
            else if (m.expiredAt !== undefined || (m.expiresAt !== null && m.expiresAt <= now)) {
              // Past its deadline: never live again; remembered at least REMEMBER ms after it.
              m.expiredAt ??= now;
              expect(got?.state).not.toBe("live");
              if (now < m.expiresAt! + REMEMBER) expect(got).toEqual({ state: "expired", owner: "o", taskId: id });
              if (got === undefined) m.deleted = true; // forgotten stays forgotten
            } else expect(got).toMatchObject({ state: "live", record: { taskId: id, expiresAt: m.expiresAt } });
          }
          const live = (await store.list("o", 0, 1000)).records.map((r) => r.taskId);
          expect(live).toEqual(ids.filter((id) => { const m = model.get(id)!; return !m.deleted && m.expiredAt === undefined; }));
        };
        for (const o of ops) {
          if (o.kind === "create") {
            const id = `t${ids.length}`;
            const expiresAt = o.ttl === null ? null : now + o.ttl;
            expect(await store.create(base(id, "o", expiresAt))).toBeDefined();
            ids.push(id);
            model.set(id, { expiresAt, deleted: false });
          } else if (o.kind === "move" && ids.length) {
            const id = ids[o.pick % ids.length]!;
            const m = model.get(id)!;
            const expiresAt = o.ttl === null ? null : now + o.ttl;
            const updated = await store.update(id, "submitted", { expiresAt });
            if (m.deleted || m.expiredAt !== undefined) expect(updated).toBeUndefined();
            else {
              expect(updated).toMatchObject({ expiresAt });
              m.expiresAt = expiresAt;
            }
          } else if (o.kind === "delete" && ids.length) {
            const id = ids[o.pick % ids.length]!;
            const m = model.get(id)!;
            const wasThere = (await store.get(id)) !== undefined;
            if (m.expiresAt !== null && m.expiresAt <= now) m.expiredAt ??= now;
            expect(await store.delete(id)).toBe(wasThere);
            m.deleted = true;
          } else if (o.kind === "tick") now += o.by;
          await check();
        }
        // Long after every deadline, everything is forgotten and nothing is live but tasks without one.
        now += 10_000;
        for (const id of ids) {
          const m = model.get(id)!;
          const got = await store.get(id);
          if (m.deleted || m.expiresAt !== null) expect(got).toBeUndefined();
          else expect(got?.state).toBe("live");
        }
        await store.close();
      }),
      { numRuns: 150 },
    );
  });

  it("expires each task at its latest deadline however often its deadline moved, its list and get showing its latest record", async () => {
    // Enough tasks and moves that the deadlines' stale entries outnumber the live ones many times over.
    let now = 0;
    const store = new InMemoryTaskStore({ now: () => now, rememberExpiredMs: 1 });
    const N = 300;
    const deadline = new Map<string, number | null>();
    for (let i = 0; i < N; i++) {
      const id = `t${i}`;
      await store.create(base(id, "o", 1000 + i));
      deadline.set(id, 1000 + i);
    }
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < N; i++) {
        const id = `t${i}`;
        // Earlier, later, none, back: every kind of move.
        const at = [500 + ((i * 7 + round * 13) % 400), 2000 + i, null, 1000 + ((i * 31) % 900)][(i + round) % 4]!;
        expect(await store.update(id, "submitted", { expiresAt: at, updatedAt: round + 1 })).toMatchObject({ expiresAt: at, updatedAt: round + 1 });
        deadline.set(id, at);
      }
    }
    for (let i = 0; i < N; i += 5) {
      expect(await store.delete(`t${i}`)).toBe(true);
      deadline.delete(`t${i}`);
    }
    for (const at of [0, 600, 900, 1200, 1500, 1899, 1900, 2150, 2400, 10_000]) {
      now = at;
      const live = [...deadline].filter(([, d]) => d === null || d > now).map(([id]) => id);
      const listed = (await store.list("o", 0, N)).records;
      expect(listed.map((r) => r.taskId)).toEqual(live);
      for (const r of listed) expect(r).toMatchObject({ expiresAt: deadline.get(r.taskId), updatedAt: 4 });
      for (const [id, d] of deadline) expect((await store.get(id))?.state === "live").toBe(d === null || d > now);
    }
    await store.close();
  });

  it("keeps nested values to itself: copied on the way in, frozen and shared on the way out", async () => {
    const store = new InMemoryTaskStore();
    await store.create(base("n", "a"));
    const result = { content: [{ type: "text", text: "hi" }] };
    const updated = await store.update("n", "submitted", { status: "completed", result });
    result.content[0]!.text = "changed by the caller";
    const a = await store.get("n");
    const b = await store.get("n");
    expect(a?.state === "live" && a.record.result).toEqual({ content: [{ type: "text", text: "hi" }] });
    expect(updated?.result).toEqual({ content: [{ type: "text", text: "hi" }] });
    if (a?.state !== "live" || b?.state !== "live") throw new Error("not live");
    // The record it holds, as it is: a read copies nothing, and an update replaced the record it had.
    expect(a.record).toBe(b.record);
    expect(a.record).toBe(updated);
    expect(Object.isFrozen(a.record)).toBe(true);
    expect(Object.isFrozen(a.record.result) && Object.isFrozen((a.record.result!.content as unknown[])[0])).toBe(true);
    expect(() => {
      (a.record.result as { content: unknown }).content = [];
    }).toThrow(TypeError);
    expect(() => {
      a.record.status = "failed";
    }).toThrow(TypeError);
    expect((await store.get("n"))).toMatchObject({ record: { status: "completed" } });
    await store.close();
  });

  it("the real timer removes expired tasks without any lookup", async () => {
    const store = new InMemoryTaskStore({ rememberExpiredMs: 10_000 });
    await store.create(base("soon", "a", Date.now() + 30));
    const deadline = Date.now() + 5000;
    while (store.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(store.size).toBe(0);
    await store.close();
  });
});
