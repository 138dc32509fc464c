// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
/**
 * The requestor's side of a task protocol, on top of the SDK `Client` (or any
 * connection with the same `request` method): typed task methods, requests
 * that become tasks (racing the direct answer against the task: creation
 * acknowledgement, then polling at the suggested interval), cancellation
 * through an AbortSignal, and a graceful fallback against servers without tasks.
 * Every strategy is read from the descriptor's plan.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  CallToolResultSchema,
  GetPromptResultSchema,
  ReadResourceResultSchema,
  type CallToolRequest,
  type CallToolResult,
  type GetPromptRequest,
  type GetPromptResult,
  type ReadResourceRequest,
  type ReadResourceResult,
} from "@modelcontextprotocol/sdk/types.js";
import { checkRuntimeVersion, type TaskSpecDescriptor } from "./descriptor.js";
import { TaskProtocolError } from "./errors.js";
import { isObject, makePlan, type RuntimePlan } from "./plan.js";
import {
  type TaskLike,
  fieldOf,
  type TaskListPage,
  type TaskMethodResult,
  type TaskConnectionLike,
  type Sender,
  type Listening,
  type Discovering,
  type TaskClientOptions,
  type TaskRequestOptions,
  TaskEndedError,
  TaskCancelledError,
  toTaskError,
  sleep,
  pathIn,
  capabilityAdder,
  relateAnswers,
  PendingRequest,
} from "./client-request.js";

export {
  type TaskLike,
  type TaskListPage,
  type TaskMethodResult,
  type TaskConnectionLike,
  type TaskClientOptions,
  type TaskRequestOptions,
  type TaskProgress,
  TaskEndedError,
  TaskCancelledError,
  toTaskError,
  clientCapabilityOf,
  withCapability,
  relatedMeta,
  relatedTaskId,
  PendingRequest,
} from "./client-request.js";

/**
 * Typed task methods and task-augmented requests on an SDK `Client`.
 * Create it before `client.connect(...)` so the creation acknowledgement is heard.
 * The methods a spec does not declare (e.g. a result method where results come
 * inline) are present and reject with an error naming what is missing.
 */
export class TaskClient<Task extends TaskLike = TaskLike> {
  readonly defaultPollFrequency: number;
  /** The strategies this client follows, derived from the descriptor. */
  readonly plan: RuntimePlan;
  private readonly waiters = new Map<string, () => void>();
  private readonly options: TaskClientOptions<Task>;
  /** Wakes a poller early when the server pushes the task's state. */
  private readonly pokes = new Map<string, Set<() => void>>();
  /** Task support of the server's tools, from tools/list (the per-tool switch). */
  private toolSupport: Map<string, string> | undefined;
  private readonly addCapability: (meta: unknown) => Record<string, unknown>;
  private readonly schemas = new Map<string, z.ZodType>();

  constructor(
    descriptor: TaskSpecDescriptor,
    readonly client: TaskConnectionLike,
    options: TaskClientOptions<Task> = {},
  ) {
    checkRuntimeVersion(descriptor);
    const plan = makePlan(descriptor);
    this.plan = plan;
    this.options = options;
    this.defaultPollFrequency = options.defaultPollFrequency ?? plan.polling.default;
    this.addCapability = capabilityAdder(plan);
    const listening = client as unknown as Listening;
    if (plan.creation.ackMode === "notification") {
      const method = plan.creation.ackNotification ?? "";
      if (typeof listening.setNotificationHandler !== "function") {
        throw new Error(`the connection cannot receive notifications: tasks are acknowledged with ${method}`);
      }
      const relatedKey = plan.related.key;
      listening.setNotificationHandler(z.object({ method: z.literal(method), params: z.unknown() }), async (n) => {
        const params = n.params as Record<string, unknown> | undefined;
        const meta = params?._meta as Record<string, unknown> | undefined;
        const taskId =
          relatedKey !== undefined ? (meta?.[relatedKey] as { taskId?: unknown } | undefined)?.taskId : (meta as { taskId?: unknown } | undefined)?.taskId;
        if (typeof taskId === "string") this.waiters.get(taskId)?.();
      });
    } else if (plan.statusPush !== undefined && typeof listening.setNotificationHandler === "function") {
      // The server may push every status change; a poller waiting on that task wakes at once.
      listening.setNotificationHandler(z.object({ method: z.literal(plan.statusPush.method), params: z.unknown() }), async (n) => {
        const parsed = descriptor.validateTask(n.params);
        if (!parsed.success) return;
        const task = parsed.data as Task;
        for (const poke of this.pokes.get(String(fieldOf(task, plan.idField))) ?? []) poke();
        await this.options.onStatusNotification?.(task);
      });
    }
    relateAnswers(client, plan);
  }

  /** The check of a task method's result: the task for the get method (and a cancel answering the task), pages of tasks for listing, objects else. */
  private resultSchema(method: string): z.ZodType {
    let schema = this.schemas.get(method);
    if (schema !== undefined) return schema;
    const plan = this.plan;
    const validateTask = (value: unknown, ctx: z.RefinementCtx, path: PropertyKey[]) => {
      const r = plan.descriptor.validateTask(value);
      if (!r.success) for (const i of r.error.issues) ctx.addIssue({ code: "custom", message: i.message, path: [...path, ...i.path] });
    };
    const isTask = method === plan.methods.get || (method === plan.methods.cancel && plan.behaviour.cancellation.reply === "task");
    const isList = method === plan.methods.list;
    schema = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
      if (isTask) validateTask(value, ctx, []);
      if (isList) {
        if (!Array.isArray(value.tasks)) ctx.addIssue({ code: "custom", message: "expected an array of tasks", path: ["tasks"] });
        else value.tasks.forEach((t, i) => validateTask(t, ctx, ["tasks", i]));
        if (value.nextCursor !== undefined && typeof value.nextCursor !== "string") {
          ctx.addIssue({ code: "custom", message: "expected a string", path: ["nextCursor"] });
        }
      }
    });
    this.schemas.set(method, schema);
    return schema;
  }

  private async call(method: string, params: Record<string, unknown>, opts: { timeout?: number; signal?: AbortSignal } = {}): Promise<TaskMethodResult> {
    // A method gated on the server's capability (e.g. listing) is not sent to a server without it.
    this.checkGate(method);
    // The requestor declares the capability on every request that needs it.
    if (this.plan.capabilityGated?.includes(method)) params = { ...params, _meta: this.addCapability(params._meta) };
    try {
      return (await (this.client as unknown as Sender).request({ method, params }, this.resultSchema(method), {
        timeout: opts.timeout ?? this.options.methodTimeout ?? 60_000,
        ...(opts.signal ? { signal: opts.signal } : {}),
      })) as TaskMethodResult;
    } catch (e) {
      throw toTaskError(e);
    }
  }

  /** `{ <id field>: taskId }`, with the related-task `_meta` where the spec puts it on task method requests. */
  private taskParams(taskId: string): Record<string, unknown> {
    const key = this.plan.related.key;
    const id = this.plan.idField;
    return this.plan.related.taskMethodRequests && key !== undefined ? { [id]: taskId, _meta: { [key]: { taskId } } } : { [id]: taskId };
  }

  private missing(what: string, detail: string): TaskProtocolError {
    return new TaskProtocolError("notSupported", -32603, `${what} is not supported: the spec ${this.plan.descriptor.spec.id} declares ${detail}`);
  }

  /** The get operation: the current state of a task. */
  async getTask(taskId: string): Promise<Task> {
    const method = this.plan.methods.get;
    if (method === undefined) throw this.missing("getTask", `no get operation (${taskId})`);
    return (await this.call(method, this.taskParams(taskId))) as unknown as Task;
  }

  /** A transition operation (e.g. pause, resume): moves the task through the spec's transition table; answers the task. */
  async transitionTask(method: string, taskId: string): Promise<Task> {
    if (!this.plan.transitions.has(method)) throw this.missing(`transitionTask(${method})`, "no such transition operation");
    return (await this.call(method, this.taskParams(taskId))) as unknown as Task;
  }

  /** A custom operation of the spec, with its params as declared. */
  async callOperation(method: string, params: Record<string, unknown>): Promise<TaskMethodResult> {
    if (!this.plan.custom.includes(method)) throw this.missing(`callOperation(${method})`, "no such custom operation");
    return this.call(method, params);
  }

  /** The update method: answers some of a task's input requests (by key); the task waits for input until all are answered. */
  async updateTask(taskId: string, responses: Record<string, unknown>): Promise<TaskMethodResult> {
    const method = this.plan.methods.update;
    if (method === undefined) throw this.missing("updateTask", `no update method (input requests travel by ${this.plan.input.via})`);
    return this.call(method, { [this.plan.idField]: taskId, [this.plan.input.responsesField]: responses });
  }

  /** The cancel method: asks the server to cancel a task (where the reply is an acknowledgement, the task ends later). */
  async cancelTask(taskId: string): Promise<TaskMethodResult> {
    const method = this.plan.methods.cancel;
    if (method === undefined) throw this.missing("cancelTask", `no cancel method (cancellation via ${this.plan.behaviour.cancellation.via})`);
    return this.call(method, this.taskParams(taskId));
  }

  /**
   * The result of a task (the original request's result). Where the spec's result method blocks until
   * the task ended, so does this (timeout: requestTimeout), carrying the task's input requests meanwhile;
   * a failed request's JSON-RPC error is thrown as a TaskProtocolError.
   */
  async getTaskResult(taskId: string, opts: { signal?: AbortSignal } = {}): Promise<Record<string, unknown>> {
    const method = this.plan.methods.result;
    if (method === undefined) throw this.missing("getTaskResult", `no result method (results ${this.plan.results.mode})`);
    return this.call(method, this.taskParams(taskId), {
      ...(this.plan.results.mode === "block-until-terminal" ? { timeout: this.options.requestTimeout ?? 86_400_000 } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }

  /** One page of the list method. */
  async listTasksPage(cursor?: string): Promise<TaskListPage<Task>> {
    const method = this.plan.methods.list;
    if (method === undefined) throw this.missing("listTasksPage", "no list method");
    return (await this.call(method, cursor === undefined ? {} : { cursor })) as TaskListPage<Task>;
  }

  /** The list method as an async iterator over pages. */
  async *listTasks(): AsyncGenerator<TaskListPage<Task>> {
    if (this.plan.methods.list === undefined) throw this.missing("listTasks", "no list method");
    let cursor: string | undefined;
    do {
      const page = await this.listTasksPage(cursor);
      yield page;
      const next = (page as { nextCursor?: unknown }).nextCursor;
      cursor = typeof next === "string" ? next : undefined;
    } while (cursor !== undefined);
  }

  /** The delete method: removes a task and its result. */
  async deleteTask(taskId: string): Promise<TaskMethodResult> {
    const method = this.plan.methods.delete;
    if (method === undefined) throw this.missing("deleteTask", "no delete method");
    return this.call(method, this.taskParams(taskId));
  }

  /**
   * Starts a task-augmented request (where tasks are acknowledged by notification). The direct
   * answer is still awaited; once the server acknowledges the task, polling races it.
   */
  beginRequest<R>(request: { method: string; params?: Record<string, unknown> }, resultSchema: z.ZodType<R>, options: TaskRequestOptions<Task> = {}): PendingRequest<R, Task> {
    const plan = this.plan;
    if (plan.creation.ackMode !== "notification") {
      throw new TaskProtocolError("notSupported", -32603, `not supported by this generated client yet: creation.ack ${plan.creation.ackMode}`);
    }
    const taskId = plan.creation.idFromRequestor ? (options.taskId ?? randomUUID()) : undefined;
    const taskRequest: Record<string, unknown> = { ...options.taskRequest, ...(taskId === undefined ? {} : { [plan.creation.idField]: taskId }) };
    if (options.keepAlive !== undefined && plan.creation.retentionField !== undefined) taskRequest[plan.creation.retentionField] = options.keepAlive;
    const params: Record<string, unknown> = { ...(request.params ?? {}) };
    if (plan.creation.via === "meta" && plan.creation.metaKey !== undefined) {
      params._meta = { ...((params._meta as Record<string, unknown> | undefined) ?? {}), [plan.creation.metaKey]: taskRequest };
    } else if (plan.creation.via === "param") {
      params[plan.creation.param] = taskRequest;
    }
    let acknowledged: (ok: boolean) => void = () => undefined;
    const created = new Promise<boolean>((resolve) => (acknowledged = resolve));
    if (taskId !== undefined) this.waiters.set(taskId, () => acknowledged(true));
    const release = () => {
      if (taskId !== undefined) this.waiters.delete(taskId);
    };
    const direct = (this.client as unknown as Sender).request({ method: request.method, params }, resultSchema, {
      timeout: this.options.requestTimeout ?? 86_400_000,
      maxTotalTimeout: this.options.requestTimeout ?? 86_400_000,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onprogress: options.onProgress } : {}),
    }) as Promise<R>;
    direct.then(
      () => acknowledged(false),
      () => acknowledged(false),
    );
    return new PendingRequest<R, Task>(this, direct, taskId, created, resultSchema, options, release);
  }

  /** tools/call as a task; resolves with the tool's result. */
  beginCallTool(params: CallToolRequest["params"], options: TaskRequestOptions<Task> = {}): PendingRequest<CallToolResult, Task> {
    return this.beginRequest({ method: "tools/call", params: params as Record<string, unknown> }, CallToolResultSchema as never, options);
  }

  /** tools/call: the tool's result, directly or through the task the server made of the call. */
  callTool(params: CallToolRequest["params"], options: TaskRequestOptions<Task> = {}): Promise<CallToolResult> {
    return this.request({ method: "tools/call", params: params as Record<string, unknown> }, CallToolResultSchema as never, options);
  }

  /** resources/read, directly or through a task. */
  readResource(params: ReadResourceRequest["params"], options: TaskRequestOptions<Task> = {}): Promise<ReadResourceResult> {
    return this.request({ method: "resources/read", params: params as Record<string, unknown> }, ReadResourceResultSchema as never, options);
  }

  /** prompts/get, directly or through a task. */
  getPrompt(params: GetPromptRequest["params"], options: TaskRequestOptions<Task> = {}): Promise<GetPromptResult> {
    return this.request({ method: "prompts/get", params: params as Record<string, unknown> }, GetPromptResultSchema as never, options);
  }

  /** A request whose answer may be a task: its result, directly or once the task ended. */
  async request<R>(request: { method: string; params?: Record<string, unknown> }, resultSchema: z.ZodType<R>, options: TaskRequestOptions<Task> = {}): Promise<R> {
    if (this.plan.creation.ackMode === "notification") return this.beginRequest(request, resultSchema, options).result();
    const started = await this.start(request, resultSchema, options);
    if ("result" in started) return started.result;
    await options.onTaskStatus?.(started.task);
    return this.waitForTask(String(fieldOf(started.task, this.plan.idField)), resultSchema, options);
  }

  /**
   * Sends a request the server may answer with a task at once (declaring the client capability on it
   * where the spec lets the server alone decide): resolves to the task handle, or to the request's own result.
   */
  async start<R>(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: z.ZodType<R>,
    options: Pick<TaskRequestOptions<Task>, "signal" | "keepAlive" | "taskRequest" | "onProgress"> = {},
  ): Promise<{ task: Task } | { result: R }> {
    const plan = this.plan;
    if (plan.creation.ackMode === "notification") {
      throw this.missing("start", `tasks acknowledged with ${plan.creation.ackNotification ?? "a notification"}, not in the answer (use beginRequest)`);
    }
    const params: Record<string, unknown> = { ...(request.params ?? {}) };
    if (plan.creation.via === "client-capability") params._meta = this.addCapability(params._meta);
    if (plan.creation.via === "param") {
      // Only where the server's capability and the tool's switch allow a task.
      if (await this.mayAugment(request.method, params)) {
        const retention = plan.creation.retentionField;
        params[plan.creation.param] = {
          ...options.taskRequest,
          ...(options.keepAlive === undefined || retention === undefined ? {} : { [retention]: options.keepAlive }),
        };
      }
    }
    // The signal cancels this request only while it is pending: once answered, the task is cancelled by method, never by notifications/cancelled.
    const pending = new AbortController();
    const onAbort = () => pending.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    let raw: Record<string, unknown>;
    try {
      raw = (await (this.client as unknown as Sender).request({ method: request.method, params }, z.record(z.string(), z.unknown()), {
        timeout: this.options.methodTimeout ?? 60_000,
        signal: pending.signal,
        // The client's SDK adds the token and, for an answer that is a task, keeps it for the task's life.
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      })) as Record<string, unknown>;
    } catch (e) {
      throw toTaskError(e);
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
    const task = this.taskOf(raw);
    if (task !== undefined) {
      // A task is a valid answer only to a request the spec lets become one.
      const allowed = plan.behaviour.creation.requests.server;
      if (!allowed.includes("*") && !allowed.includes(request.method)) {
        throw new TaskProtocolError(
          "invalidTaskAnswer",
          -32603,
          `invalid answer: the server answered ${request.method} with a task, but only ${allowed.join(", ") || "no request"} may become a task (spec ${plan.descriptor.spec.id})`,
        );
      }
      return { task };
    }
    return { result: resultSchema.parse(raw) };
  }

  /**
   * Polls a task at its suggested interval until it ends: its result when it completed (its error, a
   * TaskProtocolError, when it failed with an inline error), else a TaskEndedError. Input requests it
   * surfaces are answered with `onInputRequest` (where the spec surfaces them in the task); aborting
   * `signal` cancels it (with the cancel method, where the spec has one).
   */
  async waitForTask<R>(taskId: string, resultSchema: z.ZodType<R>, options: Pick<TaskRequestOptions<Task>, "signal" | "onTaskStatus"> = {}): Promise<R> {
    const plan = this.plan;
    const signal = options.signal ?? new AbortController().signal;
    const answered = new Set<string>();
    for (;;) {
      if (signal.aborted) {
        if (plan.methods.cancel !== undefined) await this.cancelTask(taskId).catch(() => undefined);
        throw await this.confirmCancelled(taskId);
      }
      const task = await this.getTask(taskId);
      await options.onTaskStatus?.(task);
      const fields = task as unknown as Record<string, unknown>;
      const status = fieldOf(task, plan.statusField) as string;
      if (plan.descriptor.machine.isTerminal(status)) return this.outcome(task, resultSchema);
      if (plan.isRole(status, "input_required")) {
        if (plan.input.via === "inline-poll") await this.answerInputs(task, answered);
        // The task's input requests travel on the blocking result method; wait there (the SDK
        // Client's own handlers answer them) until the task ended.
        else if (plan.input.via === "result-stream") return this.viaResultStream(taskId, resultSchema, signal);
      }
      const suggested = plan.polling.field === undefined ? undefined : fields[plan.polling.field];
      await this.pause(taskId, typeof suggested === "number" ? suggested : this.defaultPollFrequency, signal);
    }
  }

  /**
   * Whether a request may carry a task: the server's capability lists its type (where the spec lists
   * them), and for tools/call the tool's task support is not "forbidden" (where the spec has a per-tool
   * switch; tools/list is read once when needed).
   */
  private async mayAugment(method: string, params: Record<string, unknown>): Promise<boolean> {
    const decl = this.plan.behaviour.capabilities.server;
    if (decl !== false && decl.augments !== undefined) {
      const path = decl.augments[method];
      if (path === undefined) return false;
      // Not connected yet (no capabilities known): leave it to the server.
      const caps = (this.client as unknown as Discovering).getServerCapabilities?.();
      if (caps !== undefined && pathIn(pathIn(caps, decl.path), path) === undefined) return false;
    }
    const toolSwitch = this.plan.toolSwitch;
    if (toolSwitch !== undefined && method === "tools/call" && typeof params.name === "string") {
      if (this.toolSupport === undefined || !this.toolSupport.has(params.name)) await this.listTools().catch(() => undefined);
      return (this.toolSupport?.get(params.name) ?? toolSwitch.default) !== "forbidden";
    }
    return true;
  }

  /** Sleeps `ms`, waking early when the server pushes the task's state (or `signal` aborts). */
  private async pause(taskId: string, ms: number, signal: AbortSignal): Promise<void> {
    const early = new AbortController();
    const poke = () => early.abort();
    let set = this.pokes.get(taskId);
    if (!set) this.pokes.set(taskId, (set = new Set()));
    set.add(poke);
    const onAbort = () => early.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await sleep(ms, early.signal);
    } finally {
      signal.removeEventListener("abort", onAbort);
      set.delete(poke);
      if (set.size === 0) this.pokes.delete(taskId);
    }
  }

  /** Waits on the blocking result method until the task ended; aborting `signal` cancels the task. */
  private async viaResultStream<R>(taskId: string, resultSchema: z.ZodType<R>, signal: AbortSignal): Promise<R> {
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    try {
      return resultSchema.parse(await this.getTaskResult(taskId, { signal: stop.signal }));
    } catch (e) {
      if (signal.aborted) {
        if (this.plan.methods.cancel !== undefined) await this.cancelTask(taskId).catch(() => undefined);
        throw await this.confirmCancelled(taskId);
      }
      // The result method answers what the request would have; a cancelled task has no result.
      const task = await this.getTask(taskId).catch(() => undefined);
      if (task !== undefined && this.plan.isRole(fieldOf(task, this.plan.statusField) as string, "cancelled")) throw new TaskCancelledError<Task>(taskId, task, true);
      throw e;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** What an ended task yields. */
  private async outcome<R>(task: Task, resultSchema: z.ZodType<R>): Promise<R> {
    const plan = this.plan;
    const status = fieldOf(task, plan.statusField) as string;
    const taskId = String(fieldOf(task, plan.idField));
    if (plan.results.mode === "inline") {
      const fields = task as unknown as Record<string, unknown>;
      const inline = fields[plan.results.resultField];
      if (plan.isRole(status, "completed") && inline !== undefined) return resultSchema.parse(inline);
      const error = fields[plan.results.errorField];
      if (plan.isRole(status, "failed") && isObject(error) && typeof error.code === "number") {
        throw new TaskProtocolError("taskFailed", error.code, typeof error.message === "string" ? error.message : "Task failed", error.data);
      }
    }
    if (plan.methods.result !== undefined) {
      if (plan.isRole(status, "completed") || (plan.behaviour.results.replaysErrors && plan.isRole(status, "failed"))) {
        return resultSchema.parse(await this.getTaskResult(taskId));
      }
    }
    if (plan.isRole(status, "cancelled")) throw new TaskCancelledError<Task>(taskId, task, true);
    throw new TaskEndedError<Task>(task, plan.behaviour.outcomes.failureField ?? "error", plan.idField, plan.statusField);
  }

  /** Answers the input requests of a task not answered yet, each with its own update request. */
  private async answerInputs(task: Task, answered: Set<string>): Promise<void> {
    const requests = (task as unknown as Record<string, unknown>)[this.plan.input.requestsField];
    if (!isObject(requests)) return;
    const fresh = Object.keys(requests).filter((k) => !answered.has(k));
    if (fresh.length === 0) return;
    const handler = this.options.onInputRequest;
    const taskId = String(fieldOf(task, this.plan.idField));
    if (handler === undefined) throw new TaskProtocolError("inputRequired", -32603, `task ${taskId} needs input (${fresh.join(", ")}) and no onInputRequest handler is set`);
    for (const key of fresh) {
      answered.add(key);
      const response = await handler(requests[key] as { method: string; params?: Record<string, unknown> }, key, taskId);
      await this.updateTask(taskId, { [key]: response });
    }
  }

  /** -32601, without sending, for a method gated on a capability path the server does not declare. */
  private checkGate(method: string): void {
    const decl = this.plan.behaviour.capabilities.server;
    const gate = decl === false ? undefined : decl.gates?.[method];
    const caps = (this.client as unknown as Discovering).getServerCapabilities?.();
    if (decl === false || gate === undefined || caps === undefined) return;
    if (pathIn(pathIn(caps, decl.path), gate) === undefined) {
      throw new TaskProtocolError("methodNotFound", -32601, `${method} is not supported by the server (capability ${[...decl.path, ...gate].join(".")} not declared)`);
    }
  }

  /** tools/list (every page); remembers each tool's task support (where the spec has a per-tool switch). */
  async listTools(): Promise<Array<Record<string, unknown>>> {
    const tools: Array<Record<string, unknown>> = [];
    let cursor: string | undefined;
    do {
      const page = (await (this.client as unknown as Sender).request(
        { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
        z.looseObject({ tools: z.array(z.record(z.string(), z.unknown())), nextCursor: z.string().optional() }),
        { timeout: this.options.methodTimeout ?? 60_000 },
      )) as { tools: Array<Record<string, unknown>>; nextCursor?: string };
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const toolSwitch = this.plan.toolSwitch;
    if (toolSwitch !== undefined) {
      const support = new Map<string, string>();
      for (const t of tools) {
        const v = pathIn(t, toolSwitch.path);
        if (typeof t.name === "string") support.set(t.name, typeof v === "string" ? v : toolSwitch.default);
      }
      this.toolSupport = support;
    }
    return tools;
  }

  /** After an abort: polls until the task is terminal (or the timeout passes). */
  async confirmCancelled(taskId: string): Promise<TaskCancelledError<Task>> {
    const deadline = Date.now() + (this.options.cancelConfirmTimeout ?? 10_000);
    const never = new AbortController().signal;
    let last: Task | undefined;
    while (Date.now() < deadline) {
      try {
        last = await this.getTask(taskId);
        const status = fieldOf(last, this.plan.statusField) as string;
        if (this.plan.descriptor.machine.isTerminal(status)) return new TaskCancelledError<Task>(taskId, last, this.plan.isRole(status, "cancelled"));
        const suggested = this.plan.polling.field === undefined ? undefined : fieldOf(last, this.plan.polling.field);
        await sleep(Math.min(typeof suggested === "number" ? suggested : this.defaultPollFrequency, 1000), never);
      } catch {
        await sleep(Math.min(this.defaultPollFrequency, 250), never);
      }
    }
    return new TaskCancelledError<Task>(taskId, last, false);
  }

  /** The task in an immediate answer, or undefined when the answer is the request's own result. */
  private taskOf(raw: Record<string, unknown>): Task | undefined {
    const plan = this.plan;
    if (plan.creation.ackMode === "result") {
      const t = raw.task;
      return isObject(t) && typeof t[plan.idField] === "string" ? (t as unknown as Task) : undefined;
    }
    const resultType = plan.behaviour.resultType;
    if (resultType !== false) return raw[resultType.field] === resultType.task && typeof raw[plan.idField] === "string" ? (raw as unknown as Task) : undefined;
    return typeof raw[plan.idField] === "string" && typeof raw[plan.statusField] === "string" ? (raw as unknown as Task) : undefined;
  }
}
