// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Work run on a pool of workers and on a shared store: jobs enqueued and claimed, the leases of the
 * processes that run them, and the tasks a stopped process left settled.
 */
import { type Result, type ServerNotification, type ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { activeTask, cancelledError, internalError, type ServerExtra } from "./task-context.js";
import { TaskProtocolError } from "./errors.js";
import { freshTask, transition } from "./machine.js";
import { type SqlRunner, type TaskRecord } from "./store.js";
import { withRelated } from "./wire.js";
import { settleUnfinished } from "./restart.js";
import {
  handBackLostJobs,
  jobRunner,
  relaySideRequests,
  runnerJob,
  runnerProcess,
  sideRequestThroughStore,
  type QueuedWork,
  type TakenJob,
} from "./workers.js";
import { anyResult, type RunOptions } from "./server-api.js";
import { RuntimeExecution } from "./server-execution.js";

export abstract class RuntimeQueue<S extends string = string, W = Record<string, unknown>> extends RuntimeExecution<S, W> {
  /**
   * On a shared store with leases: this process renews its own and ends the unfinished tasks of
   * processes whose lease ran out (they were killed or lost), as a restart would.
   */
  protected startLease(leaseMs: number): Promise<void> {
    const store = this.store;
    if (store.shared !== true || store.heartbeat === undefined || store.liveRunners === undefined) return Promise.resolve();
    const heartbeat = store.heartbeat.bind(store);
    const liveRunners = store.liveRunners.bind(store);
    const runner = this.runner;
    this.leaseMs = leaseMs;
    const machine = this.descriptor.machine;
    const unfinished = this.descriptor.states.all.filter((s) => !machine.isTerminal(s));
    let first = true;
    // Until this process has renewed without a miss for a whole lease, a peer's stale lease may be the
    // database's absence (which kept every process from renewing), not the peer's: no one is declared lost.
    let unsureUntil = 0;
    const tick = async () => {
      try {
        await heartbeat(runner, this.instance);
      } catch (e) {
        unsureUntil = Date.now() + leaseMs + Math.floor(leaseMs / 3);
        throw e;
      }
      const live = await liveRunners(Date.now() - leaseMs);
      // On the first round, tasks recorded under this name are a previous start's: nothing runs them now.
      const earlier = first;
      first = false;
      const sure = Date.now() >= unsureUntil;
      const lost = (rec: TaskRecord) => {
        if (rec.runner === undefined || this.active.has(rec.taskId)) return false;
        const process = runnerProcess(rec.runner);
        return process === runner ? earlier : sure && !live.has(process);
      };
      // With a queue, a lost worker's job runs again where its tool allows a retry; the others are settled.
      // A job another process lost that started within the last renewal period is a retry taken since (by a
      // live worker): left alone. A job under this process's own name is its previous start's, however recent.
      const minAge = (rec: TaskRecord) => (runnerProcess(rec.runner!) === runner ? 0 : Math.floor(leaseMs / 3));
      const kept = this.options.queue ? await handBackLostJobs(store, unfinished, lost, this.options.queue, minAge) : new Set<string>();
      await settleUnfinished(this.host, (rec) => lost(rec) && !kept.has(rec.taskId));
    };
    const run = () =>
      tick().catch((e: unknown) => this.log({ level: "warn", msg: "could not renew the lease or settle stopped processes' tasks", error: String(e) }));
    const renewMs = Math.max(50, Math.floor(leaseMs / 3));
    const start = () => {
      if (this.closing.signal.aborted) return Promise.resolve();
      this.leaseTimer = setInterval(() => void run(), renewMs);
      this.leaseTimer.unref?.();
      return run();
    };
    // A name given by the operator is taken from no live process: two processes never share one.
    if (this.options.runnerId === undefined || store.takeRunner === undefined) return start();
    const takeRunner = store.takeRunner.bind(store);
    return this.lasting(() => takeRunner(runner, this.instance, renewMs), "taking the runner name").then(start, (e: unknown) => {
      this.log({ level: "error", msg: "not started: the runner name is in use", runner, error: String(e) });
      throw e;
    });
  }

  /** The job of a task whose work runs on a worker: plain JSON, what the worker needs to run the tool. */
  protected queuedWork(taskId: string, params: unknown, extra: ServerExtra, options: RunOptions, taskRequest: Record<string, unknown>): QueuedWork {
    const auth = extra.authInfo;
    const capabilities = this.requestorCapabilities(params, extra, options.peer);
    const progressToken = this.lastingProgressToken(params, extra);
    const work: QueuedWork = {
      taskId,
      tool: options.queued!.tool,
      args: options.queued!.args(),
      requestId: extra.requestId,
      ...(extra.sessionId === undefined ? {} : { sessionId: extra.sessionId }),
      ...(auth === undefined
        ? {}
        : { authInfo: { clientId: auth.clientId, scopes: auth.scopes, ...(auth.expiresAt === undefined ? {} : { expiresAt: auth.expiresAt }), ...(auth.extra === undefined ? {} : { extra: auth.extra }) } }),
      ...(capabilities === undefined ? {} : { capabilities }),
      ...(progressToken === undefined ? {} : { progressToken }),
      taskRequest,
    };
    return JSON.parse(JSON.stringify(work)) as QueuedWork;
  }

  /** Where the task's job can be written in the transaction that creates the task: what writes it there. */
  protected enqueueAlong(params: unknown, extra: ServerExtra, options: RunOptions, taskRequest: Record<string, unknown>): ((rec: TaskRecord, sql: SqlRunner) => Promise<void>) | undefined {
    const queue = this.options.queue;
    const queued = options.queued;
    if (queued === undefined || queue?.enqueueAlong === undefined || this.store.createAlong === undefined) return undefined;
    if (queue.database === undefined || queue.database !== this.store.database) return undefined;
    return async (rec, sql) => {
      await queue.enqueueAlong!(this.queuedWork(rec.taskId, params, extra, options, taskRequest), queued.retry, sql);
    };
  }

  /**
   * A task whose work runs on a worker: its job is enqueued (`enqueued`: it was, with the task) and the request
   * answered as a local run would answer it (with the task, or, where the request stays open until the result,
   * with what the worker stored).
   */
  protected async enqueue(taskId: string, record: TaskRecord, params: unknown, extra: ServerExtra, options: RunOptions, taskRequest: Record<string, unknown>, enqueued: boolean): Promise<Result> {
    const plan = this.plan;
    const queue = this.options.queue!;
    // This process runs nothing: the store counts the task against its requestor's limit (createBounded).
    this.concurrency.releaseTask(taskId, record.owner);
    if (!enqueued) {
      try {
        await queue.enqueue(this.queuedWork(taskId, params, extra, options, taskRequest), options.queued!.retry);
      } catch (e) {
        // Never queued: no work will ever run behind the task.
        this.log({ level: "error", msg: "could not enqueue a task's work", taskId, error: String(e) });
        const internal = internalError(plan);
        await this.step(taskId, { type: "throw" }, { patch: plan.task.statusMessageOnFailure ? { error: { code: internal.code, message: internal.message }, statusMessage: internal.message } : { error: { code: internal.code, message: internal.message } } });
        throw internal;
      }
    }
    // The task as created: a worker may have taken it meanwhile, which the requestor learns by polling.
    // What its work sends the requestor comes here through the store (the worker holds no session).
    if (plan.creation.ackMode !== "notification") {
      this.relays.set(taskId, this.notifier(extra, options.peer));
      return this.acknowledgement(record);
    }
    const key = plan.related.key;
    await extra
      .sendNotification({ method: plan.creation.ackNotification ?? "", params: { _meta: key === undefined ? {} : { [key]: { taskId } } } } as unknown as ServerNotification)
      .catch((e: unknown) => this.log({ level: "warn", msg: "could not send the task creation notification", taskId, error: String(e) }));
    const onAbort = () => void this.cancel(taskId, "The request was cancelled").catch(() => undefined);
    extra.signal.addEventListener("abort", onAbort, { once: true });
    // While the request is open, the work's requests and notifications to the requestor go out on it.
    const stopRelay = relaySideRequests(this.store, taskId, (request) => extra.sendRequest(request as ServerRequest, anyResult as never, { timeout: this.inputTimeout }));
    this.relays.set(taskId, (n) => extra.sendNotification(n as unknown as ServerNotification));
    try {
      const ended = await this.untilEnded(taskId);
      if (ended === undefined) throw new TaskProtocolError("expired", -32603, "The task is gone (deleted or expired)");
      if (plan.isRole(ended.status, "cancelled")) throw cancelledError();
      if (ended.result !== undefined && ended.error === undefined) return withRelated(plan, ended.result as Result, taskId);
      const error = ended.error ?? { code: -32603, message: ended.statusMessage ?? "The task failed" };
      throw new TaskProtocolError("requestFailed", error.code, error.message, error.data);
    } finally {
      stopRelay();
      this.relays.delete(taskId);
      extra.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Resolves with the task once it is terminal (whichever process ended it), or undefined once it is gone. */
  protected async untilEnded(taskId: string): Promise<TaskRecord | undefined> {
    for (;;) {
      let wake!: () => void;
      const changed = new Promise<void>((resolve) => (wake = resolve));
      const stop = this.watch(taskId, wake);
      try {
        const found = await this.store.get(taskId);
        if (found?.state !== "live") return undefined;
        if (this.isTerminal(found.record.status)) return found.record;
        await changed;
      } finally {
        stop();
      }
    }
  }

  /**
   * Runs, in this process, the work of the tool tasks that servers enqueued on `TaskServerOptions.queue`:
   * each job runs its tool's handler (the tools added here, by name) with the task's context, and the
   * task ends in the store as a local run would end it. Resolves once the workers are taking jobs.
   */
  async work(options: { concurrency?: number } = {}): Promise<void> {
    const queue = this.options.queue;
    if (queue === undefined) throw new Error("TaskRuntime.work needs a queue (TaskServerOptions.queue)");
    if (this.store.shared !== true) throw new Error("TaskRuntime.work needs a store every server and worker shares (PostgreSQL)");
    await this.ready;
    await queue.consume((job) => this.runJob(job), options.concurrency ?? 1);
  }

  /** One job: claims its task, then runs the tool's work as `run` would have. */
  protected async runJob(job: TakenJob): Promise<void> {
    const w = job.work;
    const taskId = w.taskId;
    const plan = this.plan;
    const runner = jobRunner(this.runner, job.id);
    const controller = new AbortController();
    const tool = this.tools.get(w.tool);
    // Registered before the claim: a cancel made through another process once the claim is written stops the work.
    // Notifications (progress, status) go through the store to the server that holds the requestor's session.
    const publish = (n: { method: string; params?: Record<string, unknown> }): Promise<void> => {
      // This runtime made the task too: it holds the session itself.
      const here = this.relays.get(taskId);
      if (here !== undefined) return here(n);
      return typeof this.store.publish === "function" ? this.store.publish(taskId, { notification: JSON.parse(JSON.stringify(n)) as Record<string, unknown> }) : Promise.resolve();
    };
    const active = activeTask({ controller, owner: "", notify: publish, requestorCapabilities: w.capabilities, progressToken: w.progressToken, statusElsewhere: true });
    this.active.set(taskId, active);
    const cleanup = () => {
      if (active.expiry) clearTimeout(active.expiry);
      active.ended = true;
      if (this.active.get(taskId) === active) this.active.delete(taskId);
    };
    let claimed: { rec: TaskRecord; running: boolean } | undefined;
    try {
      claimed = tool === undefined ? undefined : await this.lasting(() => this.claimFresh(taskId, runner), "a job's claim", taskId);
      claimed ??= await this.lasting(() => this.claimTaken(taskId, runner), "a job's claim", taskId);
    } catch (e) {
      cleanup();
      throw e;
    }
    if (claimed === undefined || active.cancelled) {
      cleanup();
      return;
    }
    const rec = claimed.rec;
    active.owner = rec.owner;
    if (tool === undefined) {
      cleanup();
      this.log({ level: "error", msg: "a queued task names a tool this worker does not have", taskId, tool: w.tool });
      const internal = internalError(plan);
      const error = { code: internal.code, message: `This worker has no tool named ${w.tool}` };
      await this.lasting(() => this.step(taskId, { type: "throw" }, { patch: plan.task.statusMessageOnFailure ? { error, statusMessage: error.message } : { error }, known: rec }), "a task's end", taskId);
      return;
    }
    const noConnection = () => new TaskProtocolError("noConnection", -32603, "The task's work runs on a worker, which holds no connection to the requestor");
    const extra = {
      signal: controller.signal,
      requestId: w.requestId,
      ...(w.sessionId === undefined ? {} : { sessionId: w.sessionId }),
      ...(w.authInfo === undefined ? {} : { authInfo: { token: "", ...w.authInfo } }),
      sendNotification: publish,
      // Where the request that made the task stays open until its result, the server holding it relays.
      sendRequest: plan.creation.ackMode === "notification" ? sideRequestThroughStore(this.store, taskId, this.inputTimeout) : () => Promise.reject(noConnection()),
    } as unknown as ServerExtra;
    if (plan.retention.countedFrom !== "terminal" && rec.keepAlive !== null) this.armExpiry(taskId, active, rec.createdAt + rec.keepAlive);
    await this.execute(taskId, active, rec.method, extra, (ctx) => tool.handler(w.args, ctx), cleanup, w.taskRequest, { known: rec, running: claimed.running }).catch((e: unknown) => {
      // The work's own failure is stored already (a protocol error); anything else left the task as it was.
      if (!(e instanceof TaskProtocolError) && !active.cancelled) this.log({ level: "error", msg: "a job ended without its task's outcome stored", taskId, error: String(e) });
    });
  }

  /**
   * The claim of a task no worker has started, in one write: from the initial state straight to running
   * (where the transition needs no more than a fresh task), with this worker's job as its runner.
   */
  protected async claimFresh(taskId: string, runner: string): Promise<{ rec: TaskRecord; running: boolean } | undefined> {
    if (typeof this.store.claim !== "function") return undefined;
    const initial = this.machine.initial;
    const now = Date.now();
    // A fresh task as every fresh task stands: in the initial state, nothing asked.
    const d = transition(this.machine, freshTask(this.machine, now), { type: "start" }, { now });
    const rec = await this.store.claim(taskId, initial, d.kind === "move" ? { ...d.patch, runner } : { runner, updatedAt: now });
    if (rec === undefined) return undefined;
    if (d.kind === "move") this.moved(initial as S, rec, d.notices);
    return { rec, running: d.kind !== "refused" };
  }

  /**
   * The claim of a task in any other state: a retry of a lost worker's job, or a task a transition moved
   * before a worker took it. Undefined when it ended, or when the worker running it is in fact alive.
   */
  protected async claimTaken(taskId: string, runner: string): Promise<{ rec: TaskRecord; running: boolean } | undefined> {
    for (let attempt = 0; attempt < 16; attempt++) {
      const found = await this.store.get(taskId);
      // Ended before a worker took it (cancelled, expired, deleted): nothing to run.
      if (found?.state !== "live" || this.isTerminal(found.record.status)) return undefined;
      const held = found.record;
      const process = held.runner === undefined ? undefined : runnerProcess(held.runner);
      // Handed back while its worker was in fact alive (a lease renewed late): that worker goes on.
      if (process !== undefined && process !== this.runner && held.runner !== undefined && runnerJob(held.runner) !== undefined) {
        const live = await this.store.liveRunners?.(Date.now() - this.leaseMs);
        if (live?.has(process)) return undefined;
      }
      const rec = await this.store.update(taskId, held.status, { runner });
      if (rec !== undefined) return { rec, running: false };
    }
    return undefined;
  }
}
