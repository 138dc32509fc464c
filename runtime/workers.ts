// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
/**
 * Task work on a pool of workers. A server that has a queue (TaskServerOptions.queue)
 * stores each tool task as usual and enqueues its work instead of running it (in the
 * same transaction, where the queue lives in the store's database); any number of
 * worker processes (TaskRuntime.work), on any machine, take the jobs and run the same
 * tool handlers. Everything a requestor sees travels through the shared task store
 * (status, fields, results, errors, cancellation, inline or streamed input, the work's
 * notifications), so the wire and the states are those of a server running the work itself.
 *
 * A worker that dies (kill -9) stops renewing its runner lease; a live process then
 * hands the job back to the queue, which retries it (the tool's `retry`: attempts and
 * backoff, the queue's own retry policy) or, when no attempt is left, has the task
 * settled to the spec's restart state.
 *
 * `PgBossTaskQueue` is the queue on PostgreSQL (pg-boss, an optional package loaded
 * when the queue opens); `TaskQueue` is what the runtime needs of any queue.
 */
import { isDatabaseUnavailable, untilDatabaseBack } from "./errors.js";
import { stderrLine, type LogEntry } from "./log.js";
import { databaseOf, loadDriverPackage, type SqlRunner, type TaskRecord, type TaskStore } from "./store.js";

/** Whether and how a tool's work is run again when the worker running it is lost (killed, partitioned). Off by default. */
export interface RetryPolicy {
  /** Runs after the first one (0: none). */
  attempts: number;
  /** Seconds before a retry (default 0: at once). */
  delaySeconds?: number;
  /** Doubles the delay at each attempt, with jitter (default false). */
  backoff?: boolean;
}

/** One task's work as a job: plain JSON, everything a worker needs to run the tool with the task's context. */
export interface QueuedWork {
  taskId: string;
  tool: string;
  /** The arguments, validated (and prepared) by the server that made the task. */
  args: unknown;
  requestId: string | number;
  sessionId?: string;
  /** The requestor's auth context without its bearer token (tokens are not written to the queue). */
  authInfo?: { clientId: string; scopes: string[]; expiresAt?: number; extra?: Record<string, unknown> };
  /** The capabilities the requestor declared, where known (what input the work may ask for). */
  capabilities?: Record<string, unknown>;
  /** The progress token of the request that made the task, where it stays valid for the task's life. */
  progressToken?: string | number;
  /** The task request of the original call (TaskContext.taskRequest). */
  taskRequest?: Record<string, unknown>;
}

/** A job taken by a worker. */
export interface TakenJob {
  id: string;
  work: QueuedWork;
}

/** What the runtime needs of a job queue. */
export interface TaskQueue {
  /** Enqueues a task's work; resolves to the job's id once it is stored. */
  enqueue(work: QueuedWork, retry?: RetryPolicy): Promise<string>;
  /** The database the queue lives in (host, port and name), where it is one a task store may share. */
  readonly database?: string | undefined;
  /**
   * Enqueues through `sql`, a transaction on `database` that the task store opened to create the task:
   * the job commits with the task or not at all (TaskStore.createAlong).
   */
  enqueueAlong?(work: QueuedWork, retry: RetryPolicy | undefined, sql: SqlRunner): Promise<string>;
  /**
   * Runs `handler` for each job, up to `concurrency` at once in this process, until `stop`.
   * A job is done when the handler settles (the task's outcome is in the task store, not in the job).
   */
  consume(handler: (job: TakenJob) => Promise<void>, concurrency: number): Promise<void>;
  /**
   * The worker running the job is lost: hands the job back. Resolves true while the job will run again
   * (it had an attempt left, or it was never started), false when it will not (the task is to be settled).
   * A job started less than `minAgeMs` ago is another worker's retry, taken since the loss was seen
   * (several live processes notice the same loss): it is left running (true).
   */
  release(jobId: string, minAgeMs?: number): Promise<boolean>;
  /** Stops taking jobs and waits for the running handlers (up to `graceMs`), then closes the connections. */
  stop(graceMs?: number): Promise<void>;
}

const JOB_MARK = "#job:";

/** The runner a task records while a worker runs it: the worker's runner name and the job. */
export function jobRunner(runner: string, jobId: string): string {
  return `${runner}${JOB_MARK}${jobId}`;
}

/** The process part of a task's runner (whose lease says whether it is alive). */
export function runnerProcess(runner: string): string {
  const i = runner.indexOf(JOB_MARK);
  return i < 0 ? runner : runner.slice(0, i);
}

/** The job part of a task's runner, where a worker runs it. */
export function runnerJob(runner: string): string | undefined {
  const i = runner.indexOf(JOB_MARK);
  return i < 0 ? undefined : runner.slice(i + JOB_MARK.length);
}

/**
 * Hands back to `queue` the jobs of the unfinished tasks whose runner `lost` says is gone. Returns
 * the tasks whose job runs again (they are left as they are); the others are to be settled.
 * `minAgeMs` (TaskQueue.release), per task: how recently a job may have started and still be the lost one.
 */
export async function handBackLostJobs(store: TaskStore, statuses: readonly string[], lost: (rec: TaskRecord) => boolean, queue: TaskQueue, minAgeMs: (rec: TaskRecord) => number = () => 0): Promise<Set<string>> {
  const kept = new Set<string>();
  if (store.listByStatus === undefined) return kept;
  let after = 0;
  for (;;) {
    const page = await store.listByStatus(statuses, after, 500);
    for (const rec of page.records) {
      const job = rec.runner === undefined ? undefined : runnerJob(rec.runner);
      if (job !== undefined && lost(rec) && (await queue.release(job, minAgeMs(rec)))) kept.add(rec.taskId);
    }
    if (!page.hasMore || page.records.length === 0) return kept;
    after = page.records[page.records.length - 1]!.seq;
  }
}

// ---------------------------------------------------------------------------
// Requests to the requestor from work that runs on a worker
// ---------------------------------------------------------------------------

/** A request to the requestor as the SDK sends it. */
type SideRequest = { method: string; params?: Record<string, unknown> };

/**
 * Worker side, where the spec sends input requests on the requestor's session (side requests): the
 * request is handed, through the store, to the server holding that session (`relaySideRequests`),
 * and its answer comes back the same way. Rejects when no server answers within `timeout`.
 */
export function sideRequestThroughStore(store: TaskStore, taskId: string, timeout: number): (request: SideRequest, schema: { parse(v: unknown): unknown }, options?: { signal?: AbortSignal; timeout?: number }) => Promise<unknown> {
  return (request, schema, options = {}) => {
    if (typeof store.watch !== "function" || typeof store.publish !== "function") return Promise.reject(new Error("the task store cannot carry messages between processes"));
    const publish = store.publish.bind(store);
    const key = `${taskId}:${Math.random().toString(36).slice(2)}:${Date.now()}`;
    return new Promise<unknown>((resolve, reject) => {
      const done = (settle: () => void) => {
        unwatch();
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        settle();
      };
      const unwatch = store.watch!((change) => {
        const a = change.message?.sideAnswer as { key?: unknown; ok?: unknown; value?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined;
        if (change.kind !== "message" || change.taskId !== taskId || a?.key !== key) return;
        if (a.ok === true) {
          done(() => {
            try {
              resolve(schema.parse(a.value));
            } catch (e) {
              reject(e);
            }
          });
          return;
        }
        const e = a.error ?? {};
        done(() => reject(Object.assign(new Error(typeof e.message === "string" ? e.message : "The input request failed"), { code: typeof e.code === "number" ? e.code : -32603, data: e.data })));
      });
      const onAbort = () => done(() => reject(options.signal!.reason ?? new Error("aborted")));
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const timer = setTimeout(() => done(() => reject(Object.assign(new Error("No server holding the requestor's session answered the input request"), { code: -32001 }))), options.timeout ?? timeout);
      timer.unref?.();
      publish(taskId, { sideRequest: { key, request } }).catch((e: unknown) => done(() => reject(e)));
    });
  };
}

/**
 * Server side: while the task's work runs on a worker, sends the requests it asks of the requestor on
 * this session (`send`) and hands the answers back through the store. Returns the function that stops.
 */
export function relaySideRequests(store: TaskStore, taskId: string, send: (request: SideRequest) => Promise<unknown>): () => void {
  if (typeof store.watch !== "function" || typeof store.publish !== "function") return () => undefined;
  const publish = store.publish.bind(store);
  return store.watch((change) => {
    const m = change.message?.sideRequest as { key?: unknown; request?: SideRequest } | undefined;
    if (change.kind !== "message" || change.taskId !== taskId || typeof m?.key !== "string" || typeof m.request?.method !== "string") return;
    const key = m.key;
    send(m.request).then(
      (value) => publish(taskId, { sideAnswer: { key, ok: true, value } }),
      (error: unknown) => {
        const e = error as { code?: unknown; message?: unknown; data?: unknown };
        return publish(taskId, { sideAnswer: { key, ok: false, error: { code: typeof e.code === "number" ? e.code : -32603, message: String(e.message ?? error), data: e.data } } });
      },
    ).catch(() => undefined);
  });
}

// ---------------------------------------------------------------------------
// pg-boss
// ---------------------------------------------------------------------------

/** The part of a pg-boss instance (versions 10 to 12) the queue calls. */
export interface PgBossLike {
  on(event: "error", listener: (error: unknown) => void): unknown;
  start(): Promise<unknown>;
  stop(options?: { graceful?: boolean; wait?: boolean; timeout?: number; close?: boolean }): Promise<void>;
  createQueue(name: string, options?: Record<string, unknown>): Promise<void>;
  getQueue?(name: string): Promise<unknown>;
  send(name: string, data: object, options?: Record<string, unknown>): Promise<string | null>;
  fetch(name: string, options: { batchSize: number }): Promise<{ id: string; data: unknown }[] | null>;
  complete(name: string, ids: string | string[], data?: object): Promise<unknown>;
  fail(name: string, id: string | string[], data?: object): Promise<unknown>;
  getJobById(name: string, id: string): Promise<{ state: string; startedOn?: Date | null } | null>;
  getDb(): { executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> };
}

/** The pg-boss module's default export. */
export type PgBossConstructor = new (options: Record<string, unknown>) => PgBossLike;

/** A pg LISTEN connection, as the queue uses it to wake its workers as soon as a job is sent. */
interface ListenClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  on(event: "notification", listener: (msg: { channel: string }) => void): unknown;
  on(event: "error" | "end", listener: (error?: unknown) => void): unknown;
  end(): Promise<void>;
}

export interface PgBossTaskQueueOptions {
  /** The queue's name (default "mcp_tasks"): servers and workers of one service use the same. */
  name?: string;
  /** The PostgreSQL schema pg-boss keeps its tables in (default "pgboss"). */
  schema?: string;
  /** How long a job may run at most (s) before pg-boss fails it (default 23 h, pg-boss's bound is under a day). */
  expireInSeconds?: number;
  /** How often an idle worker looks for jobs when no notification woke it (s, at least 0.5; default 2). */
  pollingIntervalSeconds?: number;
  /** The pg-boss constructor, if you load it yourself (e.g. in a bundle). */
  driver?: PgBossConstructor;
  /** Receives pg-boss's background errors (default: ignored, pg-boss retries by itself). */
  onError?: (error: unknown) => void;
  /**
   * How long `open` waits for a database that cannot be reached yet (refused, starting up, recovering),
   * retrying with a backoff of up to 5 s, before it gives up (ms). Default 5 minutes.
   */
  startupWaitMs?: number;
  /** Where the queue reports its waits for the database (default: a JSON line on stderr). */
  log?: (entry: LogEntry) => void;
}

/** Valid as a pg-boss queue name and a LISTEN channel. */
const NAME = /^[A-Za-z0-9_]{1,40}$/;

/**
 * The job queue on PostgreSQL: pg-boss, on the database the tasks live in (or any other). Each process
 * takes jobs with pg-boss's fetch, as many at a time as it has room for, and completes them in batches:
 * under load that is well under one query per job, where a fetch loop per job slot would spend two.
 */
export class PgBossTaskQueue implements TaskQueue {
  private handler: ((job: TakenJob) => Promise<void>) | undefined;
  /** How many jobs this process runs at once, and how many it runs now. */
  private capacity = 0;
  private readonly running = new Set<Promise<void>>();
  private listener: ListenClient | undefined;
  private poller: ReturnType<typeof setInterval> | undefined;
  /** A fetch is under way; `again`: look once more when it returns (room was made meanwhile). */
  private fetching = false;
  private again = false;
  /** Jobs whose work ended, completed together at the next turn of the event loop. */
  private done: string[] = [];
  private readonly flushing = new Set<Promise<unknown>>();
  private stopped = false;
  /** Aborted once the queue stops: outcomes still waiting for the database are given up. */
  private readonly halt = new AbortController();
  private relisten: ReturnType<typeof setTimeout> | undefined;
  /** Where the queue lives (host, port and database name). */
  readonly database: string | undefined;

  private constructor(
    private readonly boss: PgBossLike,
    private readonly url: string,
    readonly name: string,
    private readonly channel: string,
    private readonly options: PgBossTaskQueueOptions,
  ) {
    this.database = databaseOf(url);
  }

  /** Connects, creates pg-boss's schema and the queue where missing. Needs the pg-boss package (version 10 or later). */
  static async open(url: string, options: PgBossTaskQueueOptions = {}): Promise<PgBossTaskQueue> {
    const name = options.name ?? "mcp_tasks";
    const schema = options.schema ?? "pgboss";
    if (!NAME.test(name)) throw new Error(`PgBossTaskQueue: the queue name must be 1 to 40 letters, digits or underscores, not ${JSON.stringify(name)}`);
    if (!NAME.test(schema)) throw new Error(`PgBossTaskQueue: the schema must be 1 to 40 letters, digits or underscores, not ${JSON.stringify(schema)}`);
    // pg-boss 10 exports the class as its default export, 11 and later as PgBoss.
    const loaded = options.driver ?? (await loadDriverPackage("pg-boss", "PgBossTaskQueue", "the pg-boss package, version 10 or later", "pg-boss@10"));
    const Boss = (typeof loaded === "function" ? loaded : (loaded as { PgBoss?: unknown }).PgBoss) as PgBossConstructor | undefined;
    if (typeof Boss !== "function") throw new Error("PgBossTaskQueue: the pg-boss package loaded has no PgBoss class (versions 10 to 12 are supported)");
    const log = options.log ?? ((e: LogEntry) => stderrLine(e));
    // A database still starting, recovering or refusing connections is waited for, not a reason to stop.
    return untilDatabaseBack(
      async () => {
        // Processes starting together on a new database race to create pg-boss's schema and the queue: the
        // loser of a deadlock or a duplicate creation starts again, and finds them made.
        for (let attempt = 1; ; attempt++) {
          // Bounded waits: a reply that never comes (the database gone without closing the socket) fails.
          const boss = new Boss({ connectionString: url, schema, application_name: "mcp-task-gen worker queue", connectionTimeoutMillis: 10_000, query_timeout: 30_000, keepAlive: true });
          boss.on("error", (e) => options.onError?.(e));
          try {
            await boss.start();
            if (!(boss.getQueue && (await boss.getQueue(name)))) await boss.createQueue(name);
            return new PgBossTaskQueue(boss, url, name, `${schema}_${name}_sent`.slice(0, 63), options);
          } catch (e) {
            await boss.stop({ graceful: false, close: true }).catch(() => undefined);
            const code = (e as { code?: unknown }).code;
            if (attempt >= 5 || (code !== "40P01" && code !== "23505" && code !== "42P07" && code !== "42710")) throw e;
            await new Promise((r) => setTimeout(r, 50 * attempt + Math.random() * 100));
          }
        }
      },
      {
        forMs: options.startupWaitMs ?? 300_000,
        onWait: (attempt, delayMs, e) =>
          log({ level: "warn", msg: "the job queue's database is unavailable: waiting for it", database: databaseOf(url), attempt, retryInMs: delayMs, error: String(e) }),
      },
    );
  }

  async enqueue(work: QueuedWork, retry?: RetryPolicy): Promise<string> {
    return this.send(work, retry, this.boss.getDb());
  }

  async enqueueAlong(work: QueuedWork, retry: RetryPolicy | undefined, sql: SqlRunner): Promise<string> {
    return this.send(work, retry, { executeSql: (text, values) => sql.query(text, values) });
  }

  /** Sends the job through `db` (pg-boss's connection, or a transaction of the task store), then wakes the workers. */
  private async send(work: QueuedWork, retry: RetryPolicy | undefined, db: { executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> }): Promise<string> {
    const id = await this.boss.send(this.name, work as unknown as object, {
      retryLimit: Math.max(0, Math.floor(retry?.attempts ?? 0)),
      retryDelay: Math.max(0, Math.floor(retry?.delaySeconds ?? 0)),
      retryBackoff: retry?.backoff === true,
      expireInSeconds: this.options.expireInSeconds ?? 82_800,
      db,
    });
    if (id === null) throw new Error("the queue refused the job");
    // Wakes idle workers at once rather than at their next poll (in a transaction: once it commits).
    await db.executeSql("SELECT pg_notify($1, '')", [this.channel]);
    return id;
  }

  async consume(handler: (job: TakenJob) => Promise<void>, concurrency: number): Promise<void> {
    if (this.stopped) throw new Error("the queue is stopped");
    if (this.handler !== undefined && this.handler !== handler) throw new Error("the queue already runs another handler in this process");
    this.handler = handler;
    if (this.poller === undefined) {
      const pg = (await loadDriverPackage("pg", "PgBossTaskQueue", "the pg package, version 8", "pg@8")) as { Client: new (o: { connectionString: string; connectionTimeoutMillis?: number; keepAlive?: boolean }) => ListenClient };
      const every = Math.max(0.5, this.options.pollingIntervalSeconds ?? 2) * 1000;
      this.poller = setInterval(() => this.pull(), every);
      // Polling alone finds the jobs while the LISTEN connection is down (the database away).
      await this.listen(pg.Client).catch(() => this.listenLater(pg.Client));
    }
    this.capacity += Math.max(1, Math.floor(concurrency));
    this.pull();
  }

  /** The LISTEN connection that wakes this process's workers as soon as a job is sent; remade when lost. */
  private async listen(Client: new (o: { connectionString: string; connectionTimeoutMillis?: number; keepAlive?: boolean }) => ListenClient): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 10_000, keepAlive: true });
    const lost = (e?: unknown) => {
      if (e !== undefined && !isDatabaseUnavailable(e)) this.options.onError?.(e);
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      this.listenLater(Client);
    };
    client.on("error", lost);
    client.on("end", () => lost());
    // A job was sent: look now rather than at the next poll.
    client.on("notification", () => this.pull());
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch (e) {
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => undefined);
      throw e;
    }
    if (this.stopped) await client.end().catch(() => undefined);
    // Jobs sent while it was down.
    else this.pull();
  }

  private listenLater(Client: new (o: { connectionString: string; connectionTimeoutMillis?: number; keepAlive?: boolean }) => ListenClient): void {
    if (this.stopped || this.relisten !== undefined) return;
    this.relisten = setTimeout(() => {
      this.relisten = undefined;
      this.listen(Client).catch(() => this.listenLater(Client));
    }, 1000);
    this.relisten.unref?.();
  }

  /** Fetches as many jobs as this process has room for, one fetch at a time. */
  private pull(): void {
    if (this.stopped || this.handler === undefined) return;
    const room = this.capacity - this.running.size;
    if (room <= 0) return;
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.fetching = true;
    this.again = false;
    // A fetch that never answers (a connection that stopped answering) must not stop this process taking jobs.
    let settled = false;
    const stuck = setTimeout(() => {
      if (settled) return;
      settled = true;
      this.fetching = false;
      this.pull();
    }, 40_000);
    stuck.unref?.();
    this.boss
      .fetch(this.name, { batchSize: room })
      .then(
        (jobs) => {
          for (const job of jobs ?? []) this.start(job);
          // A full batch: more may be waiting.
          if ((jobs?.length ?? 0) >= room) this.again = true;
        },
        (e: unknown) => this.options.onError?.(e),
      )
      .finally(() => {
        clearTimeout(stuck);
        if (settled) return;
        settled = true;
        this.fetching = false;
        if (this.again) this.pull();
      });
  }

  private start(job: { id: string; data: unknown }): void {
    const handler = this.handler!;
    const p: Promise<void> = Promise.resolve()
      .then(() => handler({ id: job.id, work: job.data as QueuedWork }))
      .then(
        () => this.completeSoon(job.id),
        // pg-boss's retry policy decides whether the job runs again.
        (e: unknown) => this.track(() => this.boss.fail(this.name, job.id, { message: String((e as { message?: unknown })?.message ?? e) })),
      )
      .finally(() => {
        this.running.delete(p);
        // Room was made: the next job starts at once rather than at the next poll.
        this.pull();
      });
    this.running.add(p);
  }

  /** The outcome is in the task store already: the job's completion can wait for the jobs ending with it. */
  private completeSoon(id: string): void {
    this.done.push(id);
    if (this.done.length === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const ids = this.done.splice(0);
    if (ids.length > 0) this.track(() => this.boss.complete(this.name, ids));
  }

  /** A job's outcome written to the queue; while the database is away, again once it is back. */
  private track(write: () => Promise<unknown>): void {
    const q: Promise<unknown> = untilDatabaseBack(write, { signal: this.halt.signal })
      .catch((e: unknown) => this.options.onError?.(e))
      .finally(() => this.flushing.delete(q));
    this.flushing.add(q);
  }

  async release(jobId: string, minAgeMs = 0): Promise<boolean> {
    const job = await this.boss.getJobById(this.name, jobId);
    if (job === null) return false;
    if (job.state === "created" || job.state === "retry") return true;
    if (job.state !== "active") return false;
    if (minAgeMs > 0 && job.startedOn) {
      // Read against the database's clock, which set startedOn.
      const now = (await this.boss.getDb().executeSql("SELECT (extract(epoch FROM now()) * 1000)::float8 AS now", [])).rows[0] as { now: number };
      if (Number(now.now) - new Date(job.startedOn).getTime() < minAgeMs) return true;
    }
    // pg-boss's own retry: back to "retry" (after the delay) while attempts are left, else "failed".
    await this.boss.fail(this.name, jobId, { message: "the worker running the job was lost" });
    const after = await this.boss.getJobById(this.name, jobId);
    // "active" again: a worker took the retry already.
    return after !== null && (after.state === "retry" || after.state === "created" || after.state === "active");
  }

  async stop(graceMs = 10_000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // No new jobs from here on.
    clearInterval(this.poller);
    if (this.relisten) clearTimeout(this.relisten);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    // Handlers still running after the grace period are left to end with the process.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, graceMs))));
    await Promise.race([Promise.allSettled([...this.running]), grace]);
    clearTimeout(timer);
    this.flush();
    // Outcomes still waiting for the database get the rest of the grace period.
    const left = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(1000, graceMs))));
    await Promise.race([Promise.allSettled([...this.flushing]), left]);
    clearTimeout(timer);
    this.halt.abort();
    await Promise.allSettled([...this.flushing]);
    await this.boss.stop({ graceful: false, wait: true, close: true });
  }
}
