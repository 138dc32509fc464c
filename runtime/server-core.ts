// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * The runtime's shared part: what every other part reads (the descriptor, the plan, the store, the
 * tasks running here, limits, audit and log) and the primitives they share: a task's status changes
 * only through `step`, which applies the table interpreter's decision (machine.ts), and what follows a
 * move (waiters woken, the requestor told, limits released).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { type Result, type ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { Behaviour } from "./behaviour.js";
import {
  cancelledError,
  notFoundError,
  progressTokenOf,
  requestor,
  type ActiveTask,
  type ServerExtra,
  type Step,
  type TaskHost,
  type TaskPeer,
} from "./task-context.js";
import { checkRuntimeVersion, type TaskSpecDescriptor, type TransitionContext } from "./descriptor.js";
import { invalidParams, TaskProtocolError, unavailableError, untilDatabaseBack } from "./errors.js";
import { describeIssues, failInputs } from "./input.js";
import { ConcurrencyCounter, RateLimiter, type TaskLimits } from "./limits.js";
import { stderrLine, type AuditEvent, type LogEntry } from "./log.js";
import { isObject, makePlan, type RuntimePlan } from "./plan.js";
import { machineOf, transition, type Decision, type Notice, type TaskEvent, type TaskMachine } from "./machine.js";
import {
  InMemoryTaskStore,
  type RateTake,
  type SqlRunner,
  type StoredError,
  type TaskLookup,
  type TaskPatch,
  type TaskRecord,
  type TaskStore,
} from "./store.js";
import {
  declaresClientCapability,
  scopedTaskId,
  TASK_SCOPE_MARK,
  toDetailedTask,
  toWireTask,
  withRelated,
  withResultType,
} from "./wire.js";
import { followStoreChanges } from "./store-events.js";
import { type TaskCapabilityDecl, type TaskServerOptions, type CustomOperation, type RequestWork, type TaskTool } from "./server-api.js";

export abstract class RuntimeCore<S extends string = string, W = Record<string, unknown>> {
  readonly descriptor: TaskSpecDescriptor<S>;
  /** The strategies derived from the descriptor. */
  readonly plan: RuntimePlan<S>;
  readonly store: TaskStore;
  readonly limits: TaskLimits;
  /** The HMAC key of list cursors. */
  readonly cursorSecret: Uint8Array | string;
  /** Which side this runtime receives tasks for. */
  readonly side: "server" | "client";
  protected readonly options: TaskServerOptions<S>;
  protected readonly active = new Map<string, ActiveTask>();
  protected readonly concurrency = new ConcurrencyCounter();
  protected readonly rates = new RateLimiter();
  protected readonly tools = new Map<string, TaskTool>();
  protected readonly works = new Map<string, RequestWork>();
  /** The handlers of the spec's custom operations. */
  protected readonly operations = new Map<string, CustomOperation<S>>();
  protected readonly auditSink: ((event: AuditEvent<S>) => void) | undefined;
  protected readonly logSink: (entry: LogEntry) => void;
  /** Wakes the waiters of a task (result streams) on every change. */
  protected readonly watchers = new Map<string, Set<() => void>>();
  /** The session's peer by session id, to reach a requestor after its request was answered. */
  protected readonly peers = new Map<string, TaskPeer>();
  /** The task each task-making request made, by requestor, session, method and request id (see replayKey). */
  protected readonly byRequest = new Map<string, string>();
  /**
   * The task each task-making request made, by connection and request id, where the spec cancels a task with
   * notifications/cancelled naming that request and the acknowledgement answers it (see cancelRequest).
   */
  protected readonly byCancellableRequest = new Map<string, string>();
  /**
   * Where the work of a task this process made runs on a worker: how to reach its requestor with the
   * notifications the work sends (progress, status), until the task ends.
   */
  protected readonly relays = new Map<string, ActiveTask["notify"]>();
  /** The answers that acknowledge a task (as opposed to a request's own result). */
  protected readonly acks = new WeakSet<object>();
  protected readonly inputTimeout: number;
  /** The view of this runtime its strategies work through. */
  protected readonly host: TaskHost<S>;

  /** Resolves once the runtime serves (tasks a stopped process left are settled first): see TaskRuntime. */
  abstract readonly ready: Promise<void>;
  /** This process's name in a shared store's leases (the runner of the tasks it creates). */
  readonly runner: string;
  protected leaseTimer: ReturnType<typeof setInterval> | undefined;
  protected leaseMs = 0;
  /** This start of the process: a runner name is held by one start at a time. */
  protected readonly instance = randomUUID();
  /** Aborted on close: writes waiting for the store's database give up. */
  protected readonly closing = new AbortController();
  /** Whether the spec has a state that holds a task's work (paused, queued): ended work then waits it out. */
  protected readonly holds: boolean;
  /** The table interpreter's view of the spec: every status change is its decision. */
  protected readonly machine: TaskMachine;

  constructor(descriptor: TaskSpecDescriptor<S>, options: TaskServerOptions<S> = {}) {
    checkRuntimeVersion(descriptor);
    this.descriptor = descriptor;
    this.holds = Object.values(descriptor.states.roleOf).some((role) => role === "paused" || role === "queued");
    this.runner = options.runnerId ?? randomUUID();
    this.plan = makePlan(descriptor);
    this.machine = machineOf(this.plan);
    this.side = options.side ?? "server";
    this.options = options;
    for (const [method, handler] of Object.entries(options.operations ?? {})) this.operations.set(method, handler);
    this.store = options.store ?? new InMemoryTaskStore();
    // Workers elsewhere could never see the tasks whose work they are handed.
    if (options.queue !== undefined && this.store.shared !== true) {
      throw new Error("TaskServerOptions.queue needs a task store that servers and workers share (PostgresTaskStore); this store is not shared");
    }
    const l = descriptor.behaviour.limits;
    this.limits = {
      maxConcurrentPerRequestor: l.maxConcurrentPerRequestor,
      createPerMinute: l.createPerMinute,
      pollPerMinute: l.pollPerMinute,
      resultPerMinute: l.resultPerMinute ?? l.pollPerMinute,
      listPerMinute: l.listPerMinute,
      ...options.limits,
    };
    this.cursorSecret = options.cursorSecret ?? randomBytes(32);
    this.auditSink = options.audit === false ? undefined : (options.audit ?? ((e) => stderrLine({ audit: e })));
    this.logSink = options.log ?? ((e) => stderrLine(e));
    this.inputTimeout = options.inputTimeout ?? 3_600_000;
    this.host = {
      plan: this.plan,
      store: this.store,
      inputTimeout: this.inputTimeout,
      step: (taskId, event, o) => this.step(taskId, event, o),
      active: (taskId) => this.active.get(taskId),
      wake: (taskId) => this.wake(taskId),
      watch: (taskId, fn) => this.watch(taskId, fn),
      lookup: (taskId, owner, extra, method) => this.lookup(taskId, owner, extra, method),
      cancel: (taskId, reason) => this.cancel(taskId, reason),
      audit: (e) => this.audit(e),
      log: (e) => this.log(e),
    };
    // Changes other processes make to a shared store reach the work and the waiters here (closing the store stops them).
    const release = (taskId: string, owner: string) => this.concurrency.releaseTask(taskId, owner);
    followStoreChanges({
      plan: this.plan,
      store: this.store,
      running: this.active,
      wake: (id) => this.wake(id),
      pushStatus: (r) => this.pushStatus(r),
      release,
      log: (e) => this.log(e),
      relay: (id, n) => void this.relays.get(id)?.(n).catch((e: unknown) => this.log({ level: "warn", msg: "could not relay a worker's notification to the requestor", taskId: id, error: String(e) })),
      relaysStatus: (id) => this.plan.statusPush !== undefined && this.relays.has(id),
      ended: (id) => this.relays.delete(id),
    });
  }

  /** The spec's declared behaviour this runtime follows. */
  get behaviour(): Behaviour {
    return this.descriptor.behaviour;
  }

  /** Declared behaviours this runtime answers with -32603 {@link NOT_SUPPORTED} (none should remain). */
  get unsupportedBehaviours(): readonly string[] {
    return this.plan.gaps;
  }

  // -------------------------------------------------------------------------
  // The task on the wire (for bindings)
  // -------------------------------------------------------------------------

  /** The task as the requestor sees it. */
  toWireTask(rec: TaskRecord): W {
    return toWireTask<W>(this.plan, rec);
  }

  /** The task with what its status carries inlined (result, error, pending input requests). */
  toDetailedTask(rec: TaskRecord): W {
    return toDetailedTask<W>(this.plan, rec);
  }

  /** Marks a result as the request's own answer where the spec declares a result type. */
  withResultType<R>(result: R): R {
    return withResultType(this.plan, result);
  }

  /** Adds the related-task meta to a result where the spec declares one. */
  withRelated<R extends object>(result: R, taskId: string): R {
    return withRelated(this.plan, result, taskId);
  }

  /** Whether a request declares the client capability in its own `_meta`. */
  declaresClientCapability(params: unknown): boolean {
    return declaresClientCapability(this.plan, params);
  }

  /** The retention granted for a requested one (capped by maxKeepAlive); null = unlimited. */
  grant(requested: number | null | undefined): number | null {
    const r = this.plan.retention;
    const max = this.options.maxKeepAlive === undefined ? r.max : this.options.maxKeepAlive;
    const dflt = this.options.defaultKeepAlive === undefined ? r.default : this.options.defaultKeepAlive;
    let want = requested === undefined ? dflt : requested;
    // Where null does not mean unlimited, asking for null asks for the most there is.
    if (want === null && !r.nullMeansUnlimited) want = max;
    if (want === null) return max;
    return max === null ? Math.floor(want) : Math.min(Math.floor(want), max);
  }

  /** The spec's declaration of this side's tasks capability. */
  get capabilityDecl(): TaskCapabilityDecl {
    return this.descriptor.behaviour.capabilities[this.side];
  }

  /** The tasks capability value this runtime declares. */
  get capabilityValue(): unknown {
    const decl = this.capabilityDecl;
    return this.options.taskCapability ?? (decl === false ? undefined : decl.value);
  }

  /**
   * The capabilities the requestor of a request declared: on the request itself where capabilities
   * travel with every request (per-request lifecycle), else those its session declared at
   * initialization (an SDK Server peer knows them); undefined where they cannot be known.
   */
  protected requestorCapabilities(params: unknown, extra: ServerExtra, peer: TaskPeer | undefined): Record<string, unknown> | undefined {
    const key = this.plan.creation.capabilityMetaKey;
    if (this.plan.perRequest && key !== undefined) {
      const meta = isObject(params) && isObject(params._meta) ? params._meta : isObject(extra._meta) ? extra._meta : undefined;
      const declared = meta?.[key];
      return isObject(declared) ? declared : {};
    }
    const via = peer ?? (extra.sessionId === undefined ? undefined : this.peers.get(extra.sessionId));
    const read = (via as { getClientCapabilities?: () => unknown } | undefined)?.getClientCapabilities;
    if (typeof read !== "function") return undefined;
    const declared = read.call(via);
    return isObject(declared) ? declared : undefined;
  }

  /** How to reach the requestor of a request later, after that request was answered. */
  protected notifier(extra: ServerExtra, peer: TaskPeer | undefined): ActiveTask["notify"] {
    const via = peer ?? (extra.sessionId === undefined ? undefined : this.peers.get(extra.sessionId));
    if (via) return (n) => via.notification(n);
    return (n) => extra.sendNotification(n as unknown as ServerNotification);
  }

  protected watch(taskId: string, fn: () => void): () => void {
    let set = this.watchers.get(taskId);
    if (!set) this.watchers.set(taskId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.watchers.get(taskId) === set) this.watchers.delete(taskId);
    };
  }

  protected wake(taskId: string): void {
    const set = this.watchers.get(taskId);
    if (set) for (const fn of set) fn();
  }

  /** Sends the task's new state to its requestor, where the spec pushes status notifications. */
  protected pushStatus(rec: TaskRecord): void {
    const push = this.plan.statusPush;
    if (push === undefined) return;
    const active = this.active.get(rec.taskId);
    // Work on a worker: the runtime that made the task sends it (this one, where it runs its own worker).
    const notify = active === undefined || active.statusElsewhere === true ? this.relays.get(rec.taskId) : active.notify;
    if (notify === undefined) return;
    const params = toWireTask<Record<string, unknown>>(this.plan, rec);
    void notify({ method: push.method, params }).catch((e: unknown) =>
      this.log({ level: "warn", msg: "could not send a task status notification", taskId: rec.taskId, error: String(e) }),
    );
  }

  /**
   * The session of a connection that has none of its own (stdio: one client per process). On a store of
   * its own (SQLite locks its file), the same after a restart, so the tasks outlive it; on a store that
   * several processes share, this process's own, so no other process's stdio client sees its tasks.
   */
  protected connectionWithoutSession(): string {
    return this.store.shared ? `stdio:${this.runner}` : "stdio";
  }

  /** The requestor key: the session and/or the auth context the task is bound to. */
  ownerOf(extra: ServerExtra): string {
    if (this.options.ownerOf) return this.options.ownerOf(extra);
    const parts: string[] = [];
    if (this.plan.binding.session) parts.push(`session:${extra.sessionId ?? this.connectionWithoutSession()}`);
    if (this.plan.binding.auth) {
      const auth = extra.authInfo;
      const subject = auth && isObject(auth.extra) && typeof auth.extra.sub === "string" ? auth.extra.sub : "";
      parts.push(auth ? `auth:${auth.clientId}:${subject}` : "auth:anonymous");
    }
    return parts.length ? parts.join("|") : "*";
  }

  /** The progress token a task's work may use: where it outlives the answer, or where the request stays open until the result. */
  protected lastingProgressToken(params: unknown, extra: ServerExtra): string | number | undefined {
    const plan = this.plan;
    return plan.behaviour.creation.progressTokenLifetime === "task" || plan.creation.ackMode === "notification" ? progressTokenOf(params, extra) : undefined;
  }

  /** The answer that acknowledges a task in the request's own answer ({ task }, or the flat task with its result type). */
  protected acknowledgement(rec: TaskRecord): Result {
    const plan = this.plan;
    const task = toWireTask<Record<string, unknown>>(plan, rec);
    const rt = plan.behaviour.resultType;
    const ack = plan.creation.ackMode === "result" ? { task } : rt === false ? { ...task } : { [rt.field]: rt.task, ...task };
    this.acks.add(ack);
    return ack as unknown as Result;
  }

  protected isTerminal(status: string): boolean {
    return this.descriptor.machine.isTerminal(status as S);
  }

  /**
   * Applies what `event` does to a task, as the table interpreter decides it (see machine.ts): the move is
   * written compare-and-set on the status it was decided from, decided again if the task changed meanwhile.
   * `patch` is written with the move, or alone where the task stays; a refusal is logged unless `quiet`.
   */
  protected async step(
    taskId: string,
    event: TaskEvent,
    o: { patch?: TaskPatch; ctx?: TransitionContext; quiet?: boolean; known?: TaskRecord; failure?: StoredError } = {},
  ): Promise<Step> {
    let decision: Decision | undefined;
    for (let attempt = 0; attempt < 16; attempt++) {
      // `known`: the task as this process just read or wrote it, tried first (the write compares its status).
      const first = attempt === 0 && o.known !== undefined;
      const found: TaskLookup = first ? { state: "live", record: o.known! } : await this.store.get(taskId);
      if (found?.state !== "live") return { decision };
      const rec = found.record;
      decision = transition(this.machine, rec, event, { ...(o.ctx === undefined ? {} : { ctx: o.ctx }), ...(o.patch === undefined ? {} : { patch: o.patch }), ...(o.failure === undefined ? {} : { failure: o.failure }) });
      if (decision.kind === "refused") {
        if (first) continue; // `known` may be stale: decide on the task as stored
        if (!o.quiet && !this.machine.isTerminal(rec.status)) {
          this.log({ level: "error", msg: "illegal task transition refused", taskId, from: decision.from, to: decision.tried.join("|"), guard: decision.guard });
        }
        return { decision, current: rec };
      }
      if (decision.kind === "stay") {
        if (o.patch === undefined) return { decision, rec, current: rec };
        const updated = await this.store.update(taskId, rec.status, { ...o.patch, updatedAt: Date.now() });
        if (updated !== undefined) return { decision, rec: this.wrote(updated), current: updated };
        continue; // the status changed meanwhile: decide again
      }
      const updated = await this.store.update(taskId, decision.from, decision.patch);
      if (!updated) continue; // the status changed meanwhile: decide again
      if (decision.forced) this.log({ level: "error", msg: "the transition table allows no such move; applied the declared state", taskId, from: decision.from, to: decision.to });
      this.wrote(updated);
      this.moved(decision.from as S, updated, decision.notices);
      return { decision, rec: updated, current: updated };
    }
    return { decision };
  }

  /** Keeps what this process wrote of a task whose work runs here, for its acknowledgement. */
  protected wrote(rec: TaskRecord): TaskRecord {
    const running = this.active.get(rec.taskId);
    if (running !== undefined) running.latest = rec;
    return rec;
  }

  /** What follows a task's move from `from` to the status `rec` now has, as the interpreter listed it: limits, audit, waiters, the requestor. */
  protected moved(from: S, rec: TaskRecord, notices: readonly Notice[]): void {
    const to = rec.status as S;
    const taskId = rec.taskId;
    if (notices.includes("ended")) {
      this.concurrency.releaseTask(taskId, rec.owner);
      const running = this.active.get(taskId);
      if (running) running.ended = true;
      this.relays.delete(taskId);
    }
    this.audit({ type: "status", taskId, owner: rec.owner, method: rec.method, from, to });
    this.wake(taskId);
    if (notices.includes("status")) this.pushStatus(rec);
  }

  /** A task a requestor's operation ended: its work stops, and what the work returns is not written. */
  protected stopEnded(rec: TaskRecord): void {
    const active = this.isTerminal(rec.status) ? this.active.get(rec.taskId) : undefined;
    if (active === undefined) return;
    active.cancelled = true;
    active.controller.abort(new Error(`The task ended in '${rec.status}'`));
    failInputs(active, cancelledError());
  }

  /**
   * A write the task's outcome depends on (its claim, its start, its end): while the store's database
   * is away it is made again once the database is back, for as long as this runtime is open.
   */
  protected lasting<T>(write: () => Promise<T>, what: string, taskId?: string): Promise<T> {
    return untilDatabaseBack(write, {
      signal: this.closing.signal,
      onWait: (attempt, retryInMs) => {
        if (attempt === 1 || attempt % 10 === 0) this.log({ level: "warn", msg: `the task store is unavailable: ${what} waits for it`, taskId, attempt, retryInMs });
      },
    });
  }

  /** The answer to a request met by the store's database being away: declared, retryable, naming nothing of the database. */
  protected unavailable(): TaskProtocolError {
    return unavailableError((name, ctx, fallback, data) => this.plan.error(name, ctx, fallback, data));
  }

  /**
   * Resolves with the task once it is in a state where its work may go on (`held` says which roles hold
   * it), once it ended, or once its work was stopped; undefined when the task is gone.
   */
  protected async hold(taskId: string, active: ActiveTask, held: (role: string | undefined) => boolean): Promise<TaskRecord | undefined> {
    for (;;) {
      let wake!: () => void;
      const changed = new Promise<void>((resolve) => (wake = resolve));
      // Watch before reading: a change between the read and the wait is not missed.
      const stop = this.watch(taskId, wake);
      const signal = active.controller.signal;
      signal.addEventListener("abort", wake, { once: true });
      try {
        // Work that waits for its task's state waits for the database too, rather than fail.
        const found = await this.lasting(() => this.store.get(taskId), "the work's wait for its task's state", taskId);
        if (found?.state !== "live") return undefined;
        const rec = found.record;
        if (this.isTerminal(rec.status) || signal.aborted || !held(this.plan.status.roleOf[rec.status])) return rec;
        await changed;
      } finally {
        stop();
        signal.removeEventListener("abort", wake);
      }
    }
  }

  /**
   * Checks the params of a task method (-32602 on failure). The generated guard decides on the
   * hot path; the zod schema, which accepts exactly what the guard accepts, runs only on params the
   * guard rejects, for the details of the error.
   */
  protected params(method: string, params: unknown): unknown {
    const guards = this.descriptor.requestGuards;
    if (Object.prototype.hasOwnProperty.call(guards, method) && guards[method]?.params(params)) return params;
    const v = this.descriptor.validateParams(method, params);
    if (!v.success) throw invalidParams(`Invalid params for ${method}: ${describeIssues(v.error)}`);
    return v.data;
  }

  protected rateLimited(operation: string): TaskProtocolError {
    return this.plan.error(this.plan.behaviour.limits.rateLimitError, { operation, method: operation }, () =>
      new TaskProtocolError("rateLimited", -32010, `Rate limit exceeded: ${operation}`),
    );
  }

  /**
   * The creation rate to take in the create itself, where the store can (one round trip fewer): a shared store
   * that counts rates and takes them with a bounded create, for an id this process draws (a requestor's own id
   * may be tried twice).
   */
  protected rateWithCreate(key: string, perMinute: number, along: boolean): RateTake | undefined {
    const store = this.store;
    if (store.shared !== true || store.takeRate === undefined || store.createTakesRate !== true || !Number.isFinite(perMinute)) return undefined;
    if (this.plan.creation.idFromRequestor) return undefined;
    if (!(along ? store.createAlong !== undefined : store.createBounded !== undefined)) return undefined;
    return { key, perMinute };
  }

  /** A per-minute budget: counted in the store where it is shared (over every process), else in this process. */
  protected takeRate(key: string, perMinute: number): Promise<boolean> | boolean {
    const store = this.store;
    if (store.shared === true && store.takeRate !== undefined && Number.isFinite(perMinute)) return store.takeRate(key, perMinute);
    return this.rates.take(key, perMinute);
  }

  protected async rate(owner: string, bucket: string, perMinute: number, operation: string): Promise<void> {
    if (await this.takeRate(`${bucket}|${owner}`, perMinute)) return;
    this.audit({ type: "denied", owner, method: operation, reason: `${bucket} rate limit` });
    throw this.rateLimited(operation);
  }

  /**
   * Stores a new task; undefined when its requestor already has a task of that id, "limit" when it
   * has `max` unfinished tasks. A requestor-chosen id is the requestor's own: where another requestor
   * holds it, the task is stored under the id with this requestor's scope (shown without it), so that
   * the answer tells nothing of the other's task. On a shared store that counts unfinished tasks
   * (createBounded), the count covers every process; otherwise this process's own count, taken
   * before, is the only one.
   */
  protected async createRecord(record: Omit<TaskRecord, "seq">, max: number, along?: (rec: TaskRecord, sql: SqlRunner) => Promise<void>, rate?: RateTake): Promise<TaskRecord | undefined | "limit" | "rate"> {
    const store = this.store;
    const create =
      along !== undefined && store.createAlong !== undefined
        ? (r: Omit<TaskRecord, "seq">) => store.createAlong!(r, max, along, rate)
        : store.shared === true && store.createBounded !== undefined && (Number.isFinite(max) || rate !== undefined)
          ? (r: Omit<TaskRecord, "seq">) => store.createBounded!(r, max, rate)
          : (r: Omit<TaskRecord, "seq">) => store.create(r);
    if (!this.plan.creation.idFromRequestor) return create(record);
    const scoped = scopedTaskId(record.taskId, record.owner);
    if ((await store.get(scoped)) !== undefined) return undefined;
    const made = await create(record);
    if (made) return made;
    const held = await store.get(record.taskId);
    const heldBy = held === undefined ? undefined : held.state === "live" ? held.record.owner : held.owner;
    if (heldBy === undefined || heldBy === record.owner) return undefined;
    return create({ ...record, taskId: scoped });
  }

  /**
   * Finds a task the requestor may see; another requestor's task is "not found".
   * A `then`, not an async function: every task method but the list method passes here.
   */
  protected lookup(taskId: string, owner: string, extra: ServerExtra, method: string): Promise<TaskRecord> {
    return this.store.get(taskId).then(async (held) => {
      if (held?.state === "live" && held.record.owner === owner) return held.record;
      // A requestor-chosen id another requestor held first: this requestor's task is under its scope.
      const heldBy = held === undefined ? undefined : held.state === "live" ? held.record.owner : held.owner;
      const found = heldBy !== undefined && heldBy !== owner && this.plan.creation.idFromRequestor && !taskId.includes(TASK_SCOPE_MARK) ? await this.store.get(scopedTaskId(taskId, owner)) : held;
      if (found?.state === "live" && found.record.owner === owner) return found.record;
      const denied = (reason: string) => this.audit({ ...requestor(owner, extra), method, taskId, type: "denied", reason });
      if (found === undefined) {
        denied(heldBy !== undefined && heldBy !== owner ? "task of another requestor" : "unknown task id");
        throw notFoundError(this.plan);
      }
      if (found.state === "expired") {
        if (found.owner !== owner) {
          denied("task of another requestor");
          throw notFoundError(this.plan);
        }
        throw this.plan.error(this.plan.retention.expiredError, {}, () => notFoundError(this.plan));
      }
      denied("task of another requestor");
      throw notFoundError(this.plan);
    });
  }

  protected audit(e: Omit<AuditEvent<S>, "at">): void {
    if (!this.auditSink) return;
    try {
      this.auditSink({ at: new Date().toISOString(), ...e });
    } catch {
      // An audit sink that throws must not break the protocol.
    }
  }

  protected log(e: LogEntry): void {
    try {
      this.logSink(e);
    } catch {
      // A log sink that throws must not break the protocol.
    }
  }

  /** Cancels a non-terminal task and stops its work (see RuntimeExecution). */
  abstract cancel(taskId: string, reason: string): Promise<TaskRecord | undefined>;
}
