/**
 * What a runtime does when it starts on a store that holds tasks a stopped
 * process left unfinished (the end-to-end kill -9 runs are restart-sqlite.test.ts):
 * on a durable, unshared store (SQLite) every task not in a terminal state ends
 * in the declared restart state with a message, through the spec's table, before
 * any task is created; ended tasks are untouched; a shared or non-durable store
 * is left alone unless `settleOnStart` says otherwise; where the table forbids
 * the restart state, a declared failure outcome it allows is taken.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RESTART_MESSAGE } from "../runtime/restart.js";
import { TaskRuntime, type AuditEvent, type LogEntry } from "../runtime/server.js";
import { InMemoryTaskStore, type TaskRecord, type TaskStore } from "../runtime/store.js";
import { SqliteTaskStore } from "../runtime/store-sqlite.js";
import type { TaskSpecDescriptor } from "../runtime/descriptor.js";
import { BUILTIN, descriptorOf } from "./runtime/descriptors.js";

const dir = mkdtempSync(join(tmpdir(), "mtg-restart-runtime-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const HOUR = 3_600_000;

/** A task as a stopped process left it. */
function left(taskId: string, status: string, extra: Partial<Omit<TaskRecord, "seq">> = {}): Omit<TaskRecord, "seq"> {
  const created = Date.now() - 5_000;
  return {
    taskId,
    owner: "session:stdio|auth:anonymous",
    status,
    method: "tools/call",
    requestId: taskId,
    createdAt: created,
    updatedAt: created,
    terminalAt: null,
    keepAlive: HOUR,
    pollFrequency: 1000,
    expiresAt: created + HOUR,
    pendingInputs: 0,
    ...extra,
  };
}

/** The tasks a killed server left: one per state of the spec, ended ones with their end. */
async function leftBehind(store: TaskStore, d: TaskSpecDescriptor): Promise<Map<string, TaskRecord>> {
  const out = new Map<string, TaskRecord>();
  for (const status of d.states.all) {
    const terminal = d.machine.isTerminal(status);
    const extra: Partial<Omit<TaskRecord, "seq">> = terminal ? { terminalAt: Date.now() - 1_000, result: { content: [] } } : {};
    if (d.states.roleOf[status] === "input_required") Object.assign(extra, { pendingInputs: 1, inputRequests: { a: { method: "elicitation/create" } } });
    const rec = await store.create(left(`t-${status}`, status, extra));
    out.set(status, rec!);
  }
  return out;
}

function start(d: TaskSpecDescriptor, store: TaskStore, options: { settleOnStart?: boolean } = {}) {
  const audit: AuditEvent[] = [];
  const logs: LogEntry[] = [];
  const runtime = new TaskRuntime(d, { store, audit: (e) => void audit.push(e), log: (e) => void logs.push(e), ...options });
  return { runtime, audit, logs };
}

async function live(store: TaskStore, taskId: string): Promise<TaskRecord> {
  const found = await store.get(taskId);
  if (found?.state !== "live") throw new Error(`${taskId} is gone`);
  return found.record;
}

describe.each(BUILTIN)("%s: starting on a SQLite store a stopped process left", (spec) => {
  it("ends every unfinished task in the restart state with a message, through the table; ended tasks stay as they were", async () => {
    const d = await descriptorOf(spec);
    const file = join(dir, `s${n++}.db`);
    const before = await SqliteTaskStore.open(file);
    const tasks = await leftBehind(before, d);
    await before.close();

    const store = await SqliteTaskStore.open(file);
    const { runtime, audit, logs } = start(d, store);
    await runtime.ready;
    const plan = runtime.plan;
    const to = plan.status.onRestart;
    for (const [status, was] of tasks) {
      const now = await live(store, was.taskId);
      if (d.machine.isTerminal(status)) {
        expect(now, status).toEqual(was);
        continue;
      }
      expect(d.machine.canTransition(status, to, { pendingInputs: 0 }), `${status} → ${to}`).toBe(true);
      expect(now.status, status).toBe(to);
      expect(now.statusMessage).toBe(RESTART_MESSAGE);
      if (plan.isRole(to, "failed")) expect(now.error).toMatchObject({ message: RESTART_MESSAGE });
      expect(now.pendingInputs).toBe(0);
      if (was.inputRequests !== undefined) expect(now.inputRequests).toEqual({});
      expect(now.terminalAt).not.toBeNull();
      expect(now.keepAlive).toBe(HOUR);
      expect(now.expiresAt).toBe(plan.retention.countedFrom === "terminal" ? now.terminalAt! + HOUR : was.expiresAt);
      expect(audit).toContainEqual(expect.objectContaining({ type: "status", taskId: was.taskId, from: status, to, reason: RESTART_MESSAGE }));
    }
    const unfinished = d.states.all.filter((s) => !d.machine.isTerminal(s)).length;
    expect(logs).toContainEqual(expect.objectContaining({ level: "info", count: unfinished }));
    expect(logs.filter((l) => l.level === "error")).toEqual([]);
    await runtime.close();
  });
});

describe("which stores a starting runtime settles", () => {
  /** A store several processes share (as a database server would be): real in-memory storage, declared shared. */
  class SharedStore extends InMemoryTaskStore {
    readonly durable = true;
    readonly shared = true;
  }
  class DurableStore extends InMemoryTaskStore {
    readonly durable = true;
  }

  it("leaves a shared store's unfinished tasks alone (another process may be running them) unless settleOnStart is set", async () => {
    const d = await descriptorOf("mcp-2025-11-25");
    const store = new SharedStore();
    await store.create(left("w", "working"));
    const first = start(d, store);
    await first.runtime.ready;
    expect((await live(store, "w")).status).toBe("working");
    const told = start(d, store, { settleOnStart: true });
    await told.runtime.ready;
    expect((await live(store, "w")).status).toBe("failed");
    await store.close();
  });

  it("leaves a store that does not outlive the process alone, and settles a durable one that is not shared", async () => {
    const d = await descriptorOf("mcp-2025-11-25");
    const memory = new InMemoryTaskStore();
    await memory.create(left("w", "working"));
    await start(d, memory).runtime.ready;
    expect((await live(memory, "w")).status).toBe("working");
    const durable = new DurableStore();
    await durable.create(left("w", "working"));
    const r = start(d, durable, { settleOnStart: undefined });
    await r.runtime.ready;
    expect((await live(durable, "w")).status).toBe("failed");
    // settleOnStart: false turns it off on any store.
    const off = new DurableStore();
    await off.create(left("w", "working"));
    await start(d, off, { settleOnStart: false }).runtime.ready;
    expect((await live(off, "w")).status).toBe("working");
  });
});

describe("a transition table that forbids the restart state", () => {
  /** The descriptor with a table that refuses moves to the given states (the rest as declared). */
  function refusing(d: TaskSpecDescriptor, refused: readonly string[]): TaskSpecDescriptor {
    const m = d.machine;
    return {
      ...d,
      machine: {
        ...m,
        canTransition: (from, to, ctx) => !refused.includes(to) && m.canTransition(from, to, ctx),
        assertTransition: (from, to, ctx) => {
          if (refused.includes(to)) throw new Error(`${from} → ${to} refused`);
          m.assertTransition(from, to, ctx);
        },
        isTerminal: (s) => m.isTerminal(s),
      },
    };
  }

  it("takes a declared failure outcome the table allows (here cancelled)", async () => {
    const d = refusing(await descriptorOf("mcp-2025-11-25"), ["failed"]);
    const store = new (class extends InMemoryTaskStore {
      readonly durable = true;
    })();
    await store.create(left("w", "working"));
    const { runtime, logs } = start(d, store);
    await runtime.ready;
    const now = await live(store, "w");
    expect(now.status).toBe("cancelled");
    expect(now.statusMessage).toBe(RESTART_MESSAGE);
    expect(now.error).toBeUndefined();
    expect(logs.filter((l) => l.level === "error")).toEqual([]);
  });

  it("with no terminal state reachable, still ends the task in the restart state and logs why", async () => {
    const d = refusing(await descriptorOf("mcp-2025-11-25"), ["failed", "cancelled", "completed"]);
    const store = new (class extends InMemoryTaskStore {
      readonly durable = true;
    })();
    await store.create(left("w", "working"));
    const { runtime, logs } = start(d, store);
    await runtime.ready;
    expect((await live(store, "w")).status).toBe("failed");
    expect(logs).toContainEqual(expect.objectContaining({ level: "error", taskId: "w", from: "working", to: "failed" }));
  });
});
