/**
 * Keys of input requests surfaced inline (ext-tasks-2026-07-28) across runs of a task's work: a job the
 * queue hands out again (a retry, as pg-boss runs one after a worker was lost) runs the work over, and
 * what it asks gets keys no earlier run of the task used, answered or not. The queue is an in-process
 * one that hands each job to the runtime's worker when asked to; the store is PostgreSQL (the store a
 * worker pool shares, which records the run that holds each task), at MCP_TASK_GEN_PG_URL.
 */
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../runtime/server.js";
import { PostgresTaskStore } from "../../runtime/store-postgres.js";
import type { TakenJob, TaskQueue } from "../../runtime/workers.js";
import { capabilityMeta, fakeExtra, runtimeOf, waitFor } from "./harness.js";
import { dropSchemas, freshSchema, pgUrl } from "./store-postgres-db.js";

const schemas: string[] = [];
afterAll(() => dropSchemas(schemas));

type Json = Record<string, unknown>;

/** A queue that keeps every job and hands one to the consumer when `run` is called (again for a retry). */
function handQueue() {
  const jobs: TakenJob[] = [];
  let consumer: ((job: TakenJob) => Promise<void>) | undefined;
  const queue: TaskQueue = {
    enqueue: async (work) => {
      const id = `job-${jobs.length + 1}`;
      jobs.push({ id, work });
      return id;
    },
    consume: async (handler) => {
      consumer = handler;
    },
    release: async () => true,
    stop: async () => undefined,
  };
  const run = (job: TakenJob) => {
    if (consumer === undefined) throw new Error("no worker consumes the queue");
    void consumer(job).catch(() => undefined);
  };
  return { queue, jobs, run };
}

/** Asks for a name, then for a colour, one after the other; answers with both. */
const twoQuestions = defineTool({
  name: "two_questions",
  taskSupport: "required",
  inputSchema: z.object({}),
  handler: async (_args, ctx) => {
    const ask = async (what: string) => {
      const r = await ctx.elicit({ mode: "form", message: `Your ${what}?`, requestedSchema: { type: "object", properties: { value: { type: "string" } } } });
      return String(r.content?.value);
    };
    const name = await ask("name");
    const colour = await ask("colour");
    return { content: [{ type: "text" as const, text: `${name} likes ${colour}` }] };
  },
});

describe("input keys over runs of a task's work (ext-tasks-2026-07-28, worker queue)", () => {
  // ext-tasks-2026-07-28/update.keys-unique, update.no-key-reuse-after-response, update.no-key-for-two-requests.
  it("a retried run asks again under keys no earlier run used, and the earlier run's requests are gone", async () => {
    const schema = freshSchema("ik");
    schemas.push(schema);
    const store = await PostgresTaskStore.open(pgUrl(), { schema, poolSize: 2 });
    const { queue, jobs, run } = handQueue();
    const rt = await runtimeOf("ext-tasks-2026-07-28", { store, queue });
    rt.addTools([twoQuestions]);
    await rt.work();
    const _meta = await capabilityMeta("ext-tasks-2026-07-28", { elicitation: {} });
    const get = async (taskId: string) => (await rt.handleTaskRequest("tasks/get", { taskId, _meta }, fakeExtra())) as Json;
    // Every key seen in a poll, and the request it stood for.
    const seen = new Map<string, string>();
    const poll = async (taskId: string) => {
      const t = await get(taskId);
      for (const [key, request] of Object.entries((t.inputRequests ?? {}) as Record<string, Json>)) {
        const message = String((request.params as Json).message);
        expect({ key, message }).toEqual({ key, message: seen.get(key) ?? message });
        seen.set(key, message);
      }
      return t;
    };
    /** The one key waiting for an answer once the task asks `message`. */
    const asked = (taskId: string, message: string) =>
      waitFor(async () => {
        const t = await poll(taskId);
        const keys = Object.entries((t.inputRequests ?? {}) as Record<string, Json>).filter(([, r]) => (r.params as Json).message === message);
        return t.status === "input_required" && keys.length === 1 ? keys[0]![0] : undefined;
      }, 10_000);
    const answer = (taskId: string, key: string, value: string) =>
      rt.handleTaskRequest("tasks/update", { taskId, _meta, inputResponses: { [key]: { action: "accept", content: { value } } } }, fakeExtra());
    try {
      const { taskId } = (await rt.callTool({ name: "two_questions", arguments: {}, _meta }, fakeExtra())) as { taskId: string };
      expect(jobs).toHaveLength(1);
      run(jobs[0]!);
      const first = await asked(taskId, "Your name?");
      await answer(taskId, first, "Ada");
      const second = await asked(taskId, "Your colour?");
      expect(second).not.toBe(first);

      // The worker is lost; the queue hands the same job out again, and the work starts over.
      run(jobs[0]!);
      const again = await asked(taskId, "Your name?");
      expect([first, second]).not.toContain(again);
      // What the lost run asked died with it: only this run's request is waiting.
      expect(Object.keys((await poll(taskId)).inputRequests as Json)).toEqual([again]);
      await answer(taskId, again, "Grace");
      const colourAgain = await asked(taskId, "Your colour?");
      expect([first, second, again]).not.toContain(colourAgain);
      await answer(taskId, colourAgain, "green");
      const done = await waitFor(async () => {
        const t = await poll(taskId);
        return t.status === "completed" ? t : undefined;
      }, 10_000);
      expect(done.result).toMatchObject({ content: [{ type: "text", text: "Grace likes green" }] });
      expect(seen.size).toBe(4);
    } finally {
      await rt.close();
      await store.close();
    }
  });
});
