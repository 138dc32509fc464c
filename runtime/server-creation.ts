// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Task creation: the task request read and checked, limits and rates, a replayed request answered with
 * its task, the record created and acknowledged the declared way, the work started here or enqueued.
 */
import { randomUUID } from "node:crypto";
import { type Result, type ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { activeTask, internalError, requestor, type ServerExtra, type TaskContext } from "./task-context.js";
import { invalidParams, isDatabaseUnavailable, TaskProtocolError } from "./errors.js";
import { describeIssues } from "./input.js";
import { capabilityAt, isObject } from "./plan.js";
import { initialState } from "./machine.js";
import { type TaskRecord } from "./store.js";
import { declaresClientCapability, TASK_SCOPE_MARK, withResultType } from "./wire.js";
import { type RunOptions, methodNotFound, hasError } from "./server-api.js";
import { RuntimeQueue } from "./server-queue.js";

export abstract class RuntimeCreation<S extends string = string, W = Record<string, unknown>> extends RuntimeQueue<S, W> {
  // -------------------------------------------------------------------------
  // Augmentation
  // -------------------------------------------------------------------------

  /** The task the requestor asked for, or undefined when the request is a plain one. */
  protected readTaskRequest(params: unknown): { taskId: string | undefined; keepAlive: number | null | undefined; request: Record<string, unknown> } | undefined {
    const p = isObject(params) ? params : {};
    const creation = this.plan.creation;
    let raw: unknown;
    if (creation.via === "client-capability") {
      // The requestor opts in through this request's own capabilities (never earlier ones);
      // it asks for nothing else: the receiver decides (run) and assigns id and retention.
      raw = declaresClientCapability(this.plan, p) ? {} : undefined;
    } else if (creation.via === "meta") {
      const meta = isObject(p._meta) ? p._meta : undefined;
      raw = creation.metaKey === undefined ? undefined : meta?.[creation.metaKey];
    } else {
      raw = p[creation.param];
    }
    if (raw === undefined) return undefined;
    if (!isObject(raw)) throw invalidParams("Invalid task metadata: expected an object");
    let taskId: string | undefined;
    if (creation.idFromRequestor) {
      const id = raw[creation.idField];
      if (typeof id !== "string" || id.length === 0) throw invalidParams("Invalid task metadata: taskId must be a non-empty string");
      if (id.length > 256) throw invalidParams("Invalid task metadata: taskId is longer than 256 characters");
      if (id.includes(TASK_SCOPE_MARK)) throw invalidParams("Invalid task metadata: taskId must not contain U+001F");
      taskId = id;
    }
    const keepAlive = creation.retentionField === undefined ? undefined : raw[creation.retentionField];
    if (keepAlive !== undefined && keepAlive !== null && (typeof keepAlive !== "number" || !Number.isFinite(keepAlive) || keepAlive < 0)) {
      throw invalidParams(`Invalid task metadata: ${creation.retentionField ?? "retention"} must be a non-negative number`);
    }
    // The rest of the task request's declared type (e.g. a priority enum): checked, then handed to the work.
    const validate = this.descriptor.validateCreation;
    if (validate !== undefined) {
      const checked = validate(raw);
      if (!checked.success) throw invalidParams(`Invalid task metadata: ${describeIssues(checked.error)}`);
    }
    return { taskId, keepAlive: keepAlive as number | null | undefined, request: raw };
  }

  protected augments(method: string): boolean {
    const allowed = this.options.augment ?? this.descriptor.behaviour.creation.requests[this.side];
    if (!(allowed.includes("*") || allowed.includes(method))) return false;
    // Where the capability lists augmentable requests (exhaustively), only a declared one is a task.
    const decl = this.capabilityDecl;
    const paths = decl === false ? undefined : decl.augments;
    if (paths === undefined) return true;
    // Own keys only: a method named like an Object.prototype member (constructor, toString) is no declared path.
    const path = Object.prototype.hasOwnProperty.call(paths, method) ? paths[method] : undefined;
    return path !== undefined && capabilityAt(this.capabilityValue, path) !== undefined;
  }

  /**
   * The per-tool switch: a task asked of a tool that forbids one, or a plain call of a tool that
   * requires one, is an error (not a silent fallback); so is a plain request of a method served only as a task.
   */
  protected checkTaskSupport(method: string, params: unknown, options: RunOptions): void {
    const asked = this.augments(method) && this.readTaskRequest(params) !== undefined;
    const toolSwitch = this.plan.toolSwitch;
    if (toolSwitch && options.tool !== undefined) {
      const tool = options.tool;
      const support = options.taskSupport ?? toolSwitch.default;
      if (asked && support === "forbidden") {
        throw this.plan.error(toolSwitch.forbiddenError, { tool, method }, () => invalidParams(`Tool ${tool} does not support task augmentation`));
      }
      if (!asked && support === "required") {
        throw this.plan.error(toolSwitch.requiredError, { tool, method }, () => invalidParams(`Tool ${tool} requires task augmentation`));
      }
    }
    const required = this.descriptor.behaviour.creation.requiredTaskError;
    if (!asked && hasError(this.descriptor, required) && (this.options.requireTask ?? []).includes(method)) {
      throw this.plan.error(required, { method, tool: options.tool ?? "" }, methodNotFound);
    }
  }

  /**
   * Runs one request: plainly when it carries no task request (or its method
   * is not augmentable), otherwise as a task.
   */
  async run<R extends Result>(
    method: string,
    params: unknown,
    extra: ServerExtra,
    work: (ctx: TaskContext) => R | Promise<R>,
    options: RunOptions = {},
  ): Promise<R> {
    const plan = this.plan;
    this.checkTaskSupport(method, params, options);
    const support = options.taskSupport ?? "optional";
    const wanted = support !== "forbidden" && this.augments(method) ? this.readTaskRequest(params) : undefined;
    if (wanted === undefined) {
      // A request that only runs as a task, from a requestor that did not allow one.
      if (support === "required") {
        const missing = plan.missingCapability(plan.behaviour.creation.requiredTaskError, { method });
        if (missing) throw missing;
      }
      const plain = this.context(extra, undefined, extra.signal, undefined);
      if (options.before) await options.before(plain);
      return plan.behaviour.resultType === false ? work(plain) : withResultType(plan, await work(plain));
    }
    const owner = this.ownerOf(extra);
    // A request id the requestor already used in this session for a task that still lives (a peer
    // replaying its request) makes no second task: it is answered with the task it made.
    const replay = this.replayKey(owner, method, extra);
    if (replay !== undefined) {
      const existing = await this.replayedTask(replay);
      if (existing !== undefined) {
        this.log({ level: "info", msg: "repeated request id answered with its task", taskId: existing.taskId, method, requestId: extra.requestId });
        return this.acknowledgement(existing) as R;
      }
    }
    // Input asked before the task exists is resolved with the request itself.
    if (options.before) await options.before(this.context(extra, undefined, extra.signal, undefined));
    const audit = { ...requestor(owner, extra), method };
    const rateDenied = () => {
      this.audit({ ...audit, type: "denied", reason: "task creation rate limit" });
      return this.rateLimited("task creation");
    };
    // Work for a worker: where the queue lives in the store's database, the job commits with the task, so a
    // crash between the two leaves neither a task no worker will run nor a job without its task.
    const along = this.enqueueAlong(params, extra, options, wanted.request);
    // Where the store takes the creation's rate in the create itself, no round trip of its own before it.
    const rate = this.rateWithCreate(`create|${owner}`, this.limits.createPerMinute, along !== undefined);
    if (rate === undefined && !(await this.takeRate(`create|${owner}`, this.limits.createPerMinute))) throw rateDenied();
    const limit = this.limits.maxConcurrentPerRequestor;
    const overLimit = () => {
      this.audit({ ...audit, type: "denied", reason: "concurrent task limit" });
      return plan.error(plan.behaviour.limits.concurrencyError, { limit }, () =>
        new TaskProtocolError("concurrencyLimitReached", -32011, `Too many concurrent tasks (limit ${limit})`),
      );
    };
    if (!this.concurrency.reserve(owner, limit)) throw overLimit();
    await this.ready;
    const wantedId = wanted.taskId ?? randomUUID();
    const keepAlive = this.grant(wanted.keepAlive);
    const now = Date.now();
    const fromTerminal = plan.retention.countedFrom === "terminal";
    // Where expiry is an event with a state of its own, the runtime applies it (the store must not drop the task first).
    const expiryEvent = plan.status.onExpiry !== undefined;
    const record = await this.createRecord(
      {
        taskId: wantedId,
        owner,
        ...initialState(this.machine),
        method,
        requestId: extra.requestId,
        createdAt: now,
        updatedAt: now,
        terminalAt: null,
        keepAlive,
        pollFrequency: this.options.pollFrequency ?? plan.polling.default,
        expiresAt: fromTerminal || keepAlive === null || expiryEvent ? null : now + keepAlive,
        pendingInputs: 0,
        // On a shared store with leases: who runs the work, so the others can settle it if this process dies.
        // Work enqueued for a worker has no runner until a worker takes it.
        ...(this.leaseTimer === undefined || (options.queued !== undefined && this.options.queue !== undefined) ? {} : { runner: this.runner }),
      },
      limit,
      along,
      rate,
    ).catch((e: unknown) => {
      // Nothing was created (the store, or the job written with the task, failed): the slot is free again.
      this.concurrency.release(owner);
      this.log({ level: "error", msg: "could not create a task", method, error: String((e as { cause?: unknown }).cause ?? e) });
      throw isDatabaseUnavailable(e) ? this.unavailable() : internalError(plan);
    });
    if (record === "limit" || record === "rate") {
      this.concurrency.release(owner);
      throw record === "limit" ? overLimit() : rateDenied();
    }
    if (!record) {
      this.concurrency.release(owner);
      this.audit({ ...audit, type: "denied", taskId: wantedId, reason: "duplicate task id" });
      throw plan.error(plan.behaviour.creation.taskId.duplicateError, { taskId: wantedId }, () => invalidParams(`Task ID already exists: ${wantedId}`));
    }
    // The stored key: the id, with the requestor's scope where another requestor holds the same id.
    const taskId = record.taskId;
    this.concurrency.hold(taskId);
    if (replay !== undefined) this.rememberRequest(this.byRequest, replay, taskId);
    // Answered at once, the request is no longer the SDK's to cancel: the runtime keeps what it made.
    if (plan.behaviour.cancellation.via === "cancelled-notification" && plan.creation.ackMode !== "notification") {
      this.rememberRequest(this.byCancellableRequest, this.cancelKey(extra.sessionId, extra.requestId), taskId);
    }
    this.audit({ ...audit, type: "created", taskId, to: plan.status.initial });
    if (options.queued !== undefined && this.options.queue !== undefined) return this.enqueue(taskId, record, params, extra, options, wanted.request, along !== undefined) as Promise<R>;
    const active = activeTask({
      controller: new AbortController(),
      owner,
      notify: this.notifier(extra, options.peer),
      requestorCapabilities: this.requestorCapabilities(params, extra, options.peer),
      progressToken: this.lastingProgressToken(params, extra),
    });
    this.active.set(taskId, active);
    // Retention counts from creation: a task still running when it elapses is stopped.
    if (!fromTerminal && keepAlive !== null) this.armExpiry(taskId, active, now + keepAlive);
    // Cancellation: the SDK aborts extra.signal when the request is cancelled.
    const onAbort = () => void this.cancel(taskId, "The request was cancelled").catch(() => undefined);
    extra.signal.addEventListener("abort", onAbort, { once: true });
    const cleanup = () => {
      extra.signal.removeEventListener("abort", onAbort);
      if (active.expiry) clearTimeout(active.expiry);
      active.ended = true;
      this.active.delete(taskId);
    };
    if (plan.creation.ackMode === "notification") {
      // The task can be polled now: acknowledge on the request's own stream; the request is answered with the result.
      const key = plan.related.key;
      await extra
        .sendNotification({
          method: plan.creation.ackNotification ?? "",
          params: { _meta: key === undefined ? {} : { [key]: { taskId: wantedId } } },
        } as unknown as ServerNotification)
        .catch((e: unknown) => this.log({ level: "warn", msg: "could not send the task creation notification", taskId, error: String(e) }));
      return this.execute(taskId, active, method, extra, work, cleanup, wanted.request);
    }
    // The request is answered at once with the task; the work goes on in the background.
    // The acknowledgement shows the task as this process last wrote it: no read of the store on the request's path.
    void this.execute(taskId, active, method, extra, work, cleanup, wanted.request, { known: record }).catch(() => undefined);
    return this.acknowledgement(active.latest ?? record) as R;
  }

  /**
   * The key of a request among the task-making requests of its session, where a repeated id can be
   * told from a new request: request ids are unique only within a session, and where the requestor
   * names the task itself (or the request stays open until its result), a repeat meets the declared
   * duplicate-id answer instead.
   */
  protected replayKey(owner: string, method: string, extra: ServerExtra): string | undefined {
    const creation = this.plan.creation;
    if (creation.idFromRequestor || creation.ackMode === "notification" || extra.sessionId === undefined) return undefined;
    return JSON.stringify([owner, extra.sessionId, method, extra.requestId]);
  }

  /** The live task a request key made, if any (a key whose task is gone is forgotten). */
  protected async replayedTask(key: string): Promise<TaskRecord | undefined> {
    const taskId = this.byRequest.get(key);
    if (taskId === undefined) return undefined;
    const found = await this.store.get(taskId);
    if (found?.state === "live") return found.record;
    if (this.byRequest.get(key) === taskId) this.byRequest.delete(key);
    return undefined;
  }

  /** Remembers in `map` the task a request key made; forgets the oldest keys whose tasks are gone, a few per call. */
  protected rememberRequest(map: Map<string, string>, key: string, taskId: string): void {
    map.set(key, taskId);
    let checked = 0;
    for (const [k, id] of map) {
      if (k === key || ++checked > 2) break;
      void this.store.get(id).then(
        (found) => {
          if (found?.state !== "live" && map.get(k) === id) map.delete(k);
        },
        () => undefined,
      );
    }
  }

  /** A request among those of its connection: its session, or the one connection a process without sessions has. */
  protected cancelKey(sessionId: string | undefined, requestId: string | number): string {
    return JSON.stringify([sessionId ?? this.connectionWithoutSession(), requestId]);
  }

  /**
   * notifications/cancelled naming a request of this connection, where the spec cancels tasks that way: the task
   * that request made is cancelled (through the transition table), also once the acknowledgement answered the
   * request. A request that made no task, or whose task ended, is ignored.
   */
  async cancelRequest(requestId: string | number, sessionId: string | undefined): Promise<void> {
    const plan = this.plan;
    if (plan.behaviour.cancellation.via !== "cancelled-notification" || plan.creation.ackMode === "notification") return;
    const taskId = this.byCancellableRequest.get(this.cancelKey(sessionId, requestId));
    if (taskId === undefined) return;
    try {
      await this.cancel(taskId, "The request was cancelled");
    } catch (e) {
      // The table refused (a guard that does not hold): the notification has no answer to carry it.
      this.log({ level: "info", msg: "cancel of a request's task refused", taskId, error: String(e) });
    }
  }
}
