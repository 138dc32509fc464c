/**
 * The worker pool's queue on its own (runtime/workers.ts): the runner names tasks record, and
 * PgBossTaskQueue against a real PostgreSQL (pg-boss 10): jobs reach a consumer with their data,
 * a lost worker's job is handed back to pg-boss's retry when it has attempts left and failed
 * otherwise, and handBackLostJobs tells which tasks run again. Runs against MCP_TASK_GEN_PG_URL.
 * MCP_TASK_GEN_PGBOSS names another pg-boss build to run against (e.g. pg-boss 12 under Node 22).
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { defineTool, TaskRuntime } from "../../runtime/server.js";
import { PostgresTaskStore } from "../../runtime/store-postgres.js";
import type { TaskRecord } from "../../runtime/store.js";
import { descriptorOf, type BuiltinSpec } from "./descriptors.js";
import { handBackLostJobs, jobRunner, PgBossTaskQueue, type PgBossConstructor, runnerJob, runnerProcess, type QueuedWork, type TakenJob, type TaskQueue } from "../../runtime/workers.js";
import { task } from "./store-contract.js";
import { dropSchemas, freshSchema, pgUrl } from "./store-postgres-db.js";

const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));
const queues: PgBossTaskQueue[] = [];
const stores: PostgresTaskStore[] = [];
afterEach(async () => {
  for (const q of queues.splice(0)) await q.stop(100);
  for (const s of stores.splice(0)) await s.close();
});

const driver = process.env.MCP_TASK_GEN_PGBOSS ? ((await import(process.env.MCP_TASK_GEN_PGBOSS)) as { PgBoss: PgBossConstructor }).PgBoss : undefined;

async function openQueue(pollingIntervalSeconds = 0.5): Promise<PgBossTaskQueue> {
  const schema = freshSchema("q");
  schemas.push(schema);
  const q = await PgBossTaskQueue.open(pgUrl(), { schema, pollingIntervalSeconds, ...(driver ? { driver } : {}) });
  queues.push(q);
  return q;
}

/** A PostgreSQL task store on a fresh schema (or on `schema`), closed and dropped after the test. */
async function openStore(prefix: string, schema = freshSchema(prefix)): Promise<PostgresTaskStore> {
  if (!schemas.includes(schema)) schemas.push(schema);
  const store = await PostgresTaskStore.open(pgUrl(), { schema, poolSize: 2 });
  stores.push(store);
  return store;
}

const work = (taskId: string): QueuedWork => ({ taskId, tool: "t", args: { n: 1 }, requestId: 7 });

/** A tool whose work answers "done" at once. */
const doneTool = defineTool({ name: "t", taskSupport: "optional", inputSchema: z.object({}), handler: async () => ({ content: [{ type: "text" as const, text: "done" }] }) });

/** A runtime serving `doneTool` on an SDK server, with an SDK client linked to it in this process. */
async function linkedServer(spec: BuiltinSpec, options: ConstructorParameters<typeof TaskRuntime>[1]) {
  const runtime = new TaskRuntime(await descriptorOf(spec), { audit: false, log: () => undefined, ...options });
  const mcp = new Server({ name: "s", version: "0" }, { capabilities: {} });
  runtime.install(mcp);
  runtime.registerTools(mcp, [doneTool]);
  const client = new Client({ name: "c", version: "0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([mcp.connect(a), client.connect(b)]);
  await runtime.ready;
  return { runtime, client };
}

/** Takes jobs into a list; each stays running until `finish` (like a worker killed mid-job, never finishing). */
function collector() {
  const taken: TakenJob[] = [];
  let finish!: () => void;
  const never = new Promise<void>((r) => (finish = r));
  const handler = (job: TakenJob) => {
    taken.push(job);
    return never;
  };
  return { taken, handler, finish: () => finish() };
}

async function until<T>(check: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("runner names", () => {
  it("a worker's runner carries its process and its job, and each is read back", () => {
    const r = jobRunner("w1", "0b3c");
    expect(runnerProcess(r)).toBe("w1");
    expect(runnerJob(r)).toBe("0b3c");
    expect(runnerProcess("server-7")).toBe("server-7");
    expect(runnerJob("server-7")).toBeUndefined();
  });
});

describe("a runtime with a queue", () => {
  it("refuses a store the workers cannot share, with a message that says which store it needs", async () => {
    const q = await openQueue();
    const d = await descriptorOf("mcp-2025-11-25");
    expect(() => new TaskRuntime(d, { queue: q, audit: false })).toThrow(/queue needs a task store that servers and workers share \(PostgresTaskStore\)/);
  });

  it("refuses to run work without a queue", async () => {
    const rt = new TaskRuntime(await descriptorOf("mcp-2025-11-25"), { audit: false });
    await expect(rt.work()).rejects.toThrow(/TaskRuntime.work needs a queue/);
    await rt.close();
  });
});

describe("rate limits over every process (PostgresTaskStore.takeRate)", () => {
  it("two stores on one schema draw on one budget per key, refilled over the minute", async () => {
    const a = await openStore("rl");
    const b = await openStore("rl", a.schema);
    const taken = [await a.takeRate("create|o", 3), await b.takeRate("create|o", 3), await a.takeRate("create|o", 3), await b.takeRate("create|o", 3)];
    expect(taken).toEqual([true, true, true, false]);
    // Another key has its own budget.
    expect(await b.takeRate("create|p", 3)).toBe(true);
    // 60 per minute: one more each second.
    expect(await a.takeRate("poll|o", 1)).toBe(true);
    expect(await b.takeRate("poll|o", 1)).toBe(false);
  });

  it("a create takes its rate in its own statement, from the same budget: an empty bucket creates nothing", async () => {
    const a = await openStore("rc");
    const b = await openStore("rc", a.schema);
    const rate = { key: "create|o", perMinute: 2 };
    expect(a.createTakesRate).toBe(true);
    expect(await a.createBounded(task("r1", "o"), Infinity, rate)).toMatchObject({ taskId: "r1" });
    expect(await b.createBounded(task("r2", "o"), 5, rate)).toMatchObject({ taskId: "r2" });
    expect(await a.createBounded(task("r3", "o"), Infinity, rate)).toBe("rate");
    expect(await a.get("r3")).toBeUndefined();
    expect(await b.takeRate("create|o", 2)).toBe(false);
    // The concurrency count is read after the rate: at the limit, the token is spent and "limit" answered.
    expect(await a.createBounded(task("p1", "p"), 1, { key: "create|p", perMinute: 60 })).toMatchObject({ taskId: "p1" });
    expect(await a.createBounded(task("p2", "p"), 1, { key: "create|p", perMinute: 60 })).toBe("limit");
    // Without a rate, nothing is taken.
    expect(await a.createBounded(task("r4", "o"), Infinity)).toMatchObject({ taskId: "r4" });
  });

  it("two servers on one schema answer the declared error past the shared creation rate, and make no task for it", async () => {
    const a = await openStore("rs");
    const b = await openStore("rs", a.schema);
    // One requestor, as an authenticated one would be, calling through both servers.
    const options = { limits: { createPerMinute: 3 }, ownerOf: () => "auth:alice" };
    const one = await linkedServer("mcp-2025-11-25", { store: a, ...options });
    const two = await linkedServer("mcp-2025-11-25", { store: b, ...options });
    const Ack = z.looseObject({ task: z.looseObject({ taskId: z.string() }) });
    const call = (c: Client) => c.request({ method: "tools/call", params: { name: "t", arguments: {}, task: {} } }, Ack);
    const answers = await Promise.allSettled([call(one.client), call(two.client), call(one.client), call(two.client)]);
    expect(answers.filter((r) => r.status === "fulfilled")).toHaveLength(3);
    const denied = answers.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(denied.reason).toMatchObject({ code: -32010, message: expect.stringContaining("Rate limit exceeded: task creation") });
    const all = await a.listByStatus((await descriptorOf("mcp-2025-11-25")).states.all, 0, 100);
    expect(all.records).toHaveLength(3);
    for (const s of [one, two]) {
      await s.client.close();
      await s.runtime.close();
    }
  });
});

describe("PgBossTaskQueue", () => {
  it("refuses a queue name or schema that is not a plain identifier, with a clear message", async () => {
    await expect(PgBossTaskQueue.open(pgUrl(), { name: 'x"; DROP' })).rejects.toThrow(/queue name must be 1 to 40 letters, digits or underscores/);
    await expect(PgBossTaskQueue.open(pgUrl(), { schema: "a-b" })).rejects.toThrow(/schema must be 1 to 40 letters, digits or underscores/);
  });

  it("hands an enqueued job to a consumer with its data, at once rather than at the next poll", async () => {
    // Polls every 10 s: only the notification sent with the job can wake a loop in time.
    const q = await openQueue(10);
    const c = collector();
    await q.consume(c.handler, 2);
    // Let the idle loops go to sleep first: the job must wake one.
    await new Promise((r) => setTimeout(r, 300));
    const sent = Date.now();
    const id = await q.enqueue(work("task-1"));
    const job = await until(() => c.taken[0], "the job");
    expect(Date.now() - sent).toBeLessThan(400);
    expect(job).toEqual({ id, work: work("task-1") });
    c.finish();
  });

  it("a loop that ends a job takes the next one at once, not after its polling interval", async () => {
    const q = await openQueue(10);
    const taken: string[] = [];
    await q.consume(async (job) => void taken.push(job.work.taskId), 1);
    await new Promise((r) => setTimeout(r, 300));
    const sent = Date.now();
    for (const id of ["j1", "j2", "j3", "j4"]) await q.enqueue(work(id));
    await until(() => (taken.length === 4 ? true : undefined), "the four jobs", 5_000);
    expect(Date.now() - sent).toBeLessThan(2_000);
  });

  it("a lost job without retries is failed; with an attempt left it runs again, and a job not started yet stays", async () => {
    const q = await openQueue();
    const c = collector();
    // Each taken job holds its loop (as a killed worker's would): room for the retry.
    await q.consume(c.handler, 4);
    const once = await q.enqueue(work("once"));
    const twice = await q.enqueue(work("twice"), { attempts: 1 });
    await until(() => (c.taken.length >= 2 ? true : undefined), "both jobs");
    // Several live processes notice the same loss: a job started since (a retry another worker took) is left running.
    expect(await q.release(once, 60_000)).toBe(true);
    expect(await q.release(once)).toBe(false);
    expect(await q.release(twice)).toBe(true);
    // pg-boss's retry hands it to a consumer again, under the same id.
    await until(() => (c.taken.filter((j) => j.id === twice).length === 2 ? true : undefined), "the retry");
    expect(c.taken.filter((j) => j.id === once)).toHaveLength(1);
    // Its last attempt lost too: no attempt left.
    expect(await q.release(twice)).toBe(false);
    expect(await q.release("00000000-0000-0000-0000-000000000000")).toBe(false);
    c.finish();
  });

  it("handBackLostJobs keeps the tasks whose job runs again, and leaves live runners' tasks alone", async () => {
    const q = await openQueue();
    const store = await openStore("qs");
    const c = collector();
    await q.consume(c.handler, 3);
    const retried = await q.enqueue(work("r"), { attempts: 2 });
    const settled = await q.enqueue(work("s"));
    const alive = await q.enqueue(work("a"));
    await until(() => (c.taken.length >= 3 ? true : undefined), "the jobs");
    await store.create(task("r", "o", { status: "working", runner: jobRunner("dead", retried) }));
    await store.create(task("s", "o", { status: "working", runner: jobRunner("dead", settled) }));
    await store.create(task("a", "o", { status: "working", runner: jobRunner("live", alive) }));
    const kept = await handBackLostJobs(store, ["working"], (rec) => runnerProcess(rec.runner!) === "dead", q);
    expect([...kept]).toEqual(["r"]);
    c.finish();
  });

  it("a job just started is another worker's retry and left running, unless the age bound for its task says it is the lost one", async () => {
    const q = await openQueue();
    const store = await openStore("qa");
    const c = collector();
    await q.consume(c.handler, 2);
    const mine = await q.enqueue(work("mine"));
    const theirs = await q.enqueue(work("theirs"));
    await until(() => (c.taken.length >= 2 ? true : undefined), "the jobs");
    // Both started a moment ago; "me" is the process restarting under its own name, "gone" another process.
    await store.create(task("mine", "o", { status: "working", runner: jobRunner("me", mine) }));
    await store.create(task("theirs", "o", { status: "working", runner: jobRunner("gone", theirs) }));
    const minAge = (rec: TaskRecord) => (runnerProcess(rec.runner!) === "me" ? 0 : 60_000);
    const kept = await handBackLostJobs(store, ["working"], () => true, q, minAge);
    // Its own earlier job, without retries, is failed (the task is to be settled); the other is left running.
    expect([...kept]).toEqual(["theirs"]);
    c.finish();
  });
});

describe("what a queued task costs the worker", () => {
  // Where a state holds work (sep-1686-draft's submitted is queued), ended work reads the task once to see it is
  // free. Status notifications cost the worker nothing: the server that made the task sends them from the changes.
  for (const [spec, expected] of [
    ["mcp-2025-11-25", { claim: 1, update: 1 }],
    ["sep-1686-draft", { claim: 1, get: 1, update: 1 }],
  ] as const) {
    it(`${spec}: a worker takes the task in one write and ends it in one more, with no other read than the spec needs`, async () => {
      const serverStore = await openStore("qc");
      const workerStore = await openStore("qc", serverStore.schema);
      const queue = await openQueue();
      const d = await descriptorOf(spec);
      // The worker's store, counting the calls about a task (the lease's own calls are not about one).
      const calls: Record<string, number> = {};
      const counted = new Set(["get", "update", "claim", "publish", "create", "delete"]);
      const counting = new Proxy(workerStore, {
        get(target, key, receiver) {
          const v = Reflect.get(target, key, receiver) as unknown;
          if (typeof v !== "function") return v;
          return (...args: unknown[]) => {
            if (counted.has(String(key))) calls[String(key)] = (calls[String(key)] ?? 0) + 1;
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const { runtime: server, client } = await linkedServer(spec, { store: serverStore, queue });
      const worker = new TaskRuntime(d, { store: counting, queue, audit: false, log: () => undefined });
      worker.addTools([doneTool]);
      try {
        await worker.ready;
        await worker.work({ concurrency: 1 });
        const generated = (await import(`../../output-samples/${spec}/client.ts`)) as typeof import("../../output-samples/mcp-2025-11-25/client.js");
        const tasks = new generated.TaskClient(client, { defaultPollFrequency: 20 });
        // Through a task, acknowledged the way the spec says, then its result.
        expect((await tasks.callTool({ name: "t", arguments: {} })).content).toEqual([{ type: "text", text: "done" }]);
        await until(() => (calls.update === 1 ? true : undefined), "the task's end");
        expect(calls).toEqual(expected);
      } finally {
        await client.close();
        await worker.close();
        await server.close();
      }
    });
  }
});

describe("a task and its job are written together", () => {
  /** A server with a limit of one unfinished task per requestor; `call` makes a task of `doneTool`. */
  async function serverWith(queue: TaskQueue, store: PostgresTaskStore) {
    const { runtime, client } = await linkedServer("mcp-2025-11-25", { store, queue, limits: { maxConcurrentPerRequestor: 1 } });
    const call = () => client.request({ method: "tools/call", params: { name: "t", arguments: {}, task: { ttl: 60_000 } } }, z.looseObject({}));
    return { runtime, client, call };
  }
  /** The live tasks in the store, in any state. */
  const tasksIn = async (store: PostgresTaskStore) => (await store.listByStatus((await descriptorOf("mcp-2025-11-25")).states.all, 0, 100)).records.length;

  it("where the queue lives in the store's database, the job is sent in the task's own transaction", async () => {
    const store = await openStore("ja");
    const queue = await openQueue();
    expect(queue.database).toBe(store.database);
    let along = 0;
    const spy = Object.assign(Object.create(queue) as PgBossTaskQueue, {
      enqueueAlong: (...a: Parameters<PgBossTaskQueue["enqueueAlong"]>) => (along++, queue.enqueueAlong(...a)),
      enqueue: () => Promise.reject(new Error("not this way")),
    });
    const s = await serverWith(spy, store);
    try {
      const ack = await s.call();
      expect(along).toBe(1);
      const c = collector();
      await queue.consume(c.handler, 1);
      const job = await until(() => c.taken[0], "the job");
      expect(job.work.taskId).toBe((ack.task as { taskId: string }).taskId);
      c.finish();
    } finally {
      await s.client.close();
    }
  });

  it("a job that cannot be written undoes its task: none is left working that no worker will run, and the requestor's slot is free", async () => {
    const store = await openStore("jb");
    const queue = await openQueue();
    let fail = true;
    const flaky = Object.assign(Object.create(queue) as PgBossTaskQueue, {
      enqueueAlong: (...a: Parameters<PgBossTaskQueue["enqueueAlong"]>) => (fail ? Promise.reject(new Error("the queue is down")) : queue.enqueueAlong(...a)),
    });
    const s = await serverWith(flaky, store);
    try {
      await expect(s.call()).rejects.toMatchObject({ code: -32603 });
      expect(await tasksIn(store)).toBe(0);
      // The limit is 1 concurrent task: the failed creation did not keep the slot.
      fail = false;
      const ack = await s.call();
      expect(ack.task).toMatchObject({ status: "working" });
      expect(await tasksIn(store)).toBeGreaterThan(0);
    } finally {
      await s.client.close();
    }
  });
});
