/**
 * The generated InMemoryTaskStore (output-samples/sep-1686-draft/store.ts):
 * pagination per owner against a model under random creations and deletions,
 * compare-and-set updates, and the single expiry structure (expired, then forgotten).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InMemoryTaskStore, type TaskRecord } from "../output-samples/sep-1686-draft/store.js";

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

  it("refuses a reused id, updates only from the expected status, hands out copies", async () => {
    const store = new InMemoryTaskStore();
    const rec = await store.create(base("x", "a"));
    expect(await store.create(base("x", "b"))).toBeUndefined();
    rec!.status = "failed";
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

  it("the real timer removes expired tasks without any lookup", async () => {
    const store = new InMemoryTaskStore({ rememberExpiredMs: 10_000 });
    await store.create(base("soon", "a", Date.now() + 30));
    const deadline = Date.now() + 5000;
    while (store.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(store.size).toBe(0);
    await store.close();
  });
});
