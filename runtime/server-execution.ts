// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * A task's work in this process: its context (fields, input, notifications), its run from start to its
 * end (result, failure, cancel), and its expiry.
 */
import { z } from "zod";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type CreateMessageResult,
  type ElicitResult,
  type Result,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import {
  cancelledError,
  INPUT_CAPABILITIES,
  internalError,
  PROGRESS,
  progressTokenOf,
  type ActiveTask,
  type ServerExtra,
  type TaskContext,
} from "./task-context.js";
import { TaskProtocolError } from "./errors.js";
import { askBySideRequest, askInline, askThroughResultStream, describeIssues, failInputs } from "./input.js";
import { isObject } from "./plan.js";
import type { TaskEvent } from "./machine.js";
import { type TaskPatch, type TaskRecord } from "./store.js";
import { toWireTask, wireTaskId, withRelated, withResultType } from "./wire.js";
import { EXPIRED_READABLE_MS, toolErrorMessage, asRpcError } from "./server-api.js";
import { RuntimeCore } from "./server-core.js";

export abstract class RuntimeExecution<S extends string = string, W = Record<string, unknown>> extends RuntimeCore<S, W> {
  /** The error for input a task's requestor never declared it can answer (undefined when it did, or when that is unknown). */
  protected undeclaredInput(active: ActiveTask, method: string, params: Record<string, unknown>): TaskProtocolError | undefined {
    const declared = active.requestorCapabilities;
    const capability = Object.prototype.hasOwnProperty.call(INPUT_CAPABILITIES, method) ? INPUT_CAPABILITIES[method] : undefined;
    if (declared === undefined || capability === undefined) return undefined;
    const have = declared[capability];
    // A URL-mode elicitation needs the url sub-capability; an empty elicitation capability means forms.
    const ok = isObject(have) && !(capability === "elicitation" && params.mode === "url" && !isObject(have.url));
    if (ok) return undefined;
    const required = capability === "elicitation" && params.mode === "url" ? { elicitation: { url: {} } } : { [capability]: {} };
    const client = this.plan.behaviour.capabilities.client;
    const name = client === false ? undefined : client.missingError;
    const decl = name !== undefined && Object.prototype.hasOwnProperty.call(this.descriptor.errors, name) ? this.descriptor.errors[name] : undefined;
    const data = decl?.dataField === undefined ? undefined : { [decl.dataField]: required };
    return this.plan.error(
      name,
      { method },
      () => new TaskProtocolError("missingClientCapability", -32603, `The requestor did not declare the ${capability} capability (required for ${method})`),
      data,
    );
  }

  /** Counts a task's retention from creation: once it elapses, the running work is stopped. */
  protected armExpiry(taskId: string, active: ActiveTask, at: number): void {
    if (active.expiry) clearTimeout(active.expiry);
    active.expiry = setTimeout(() => void this.onExpiry(taskId).catch(() => undefined), Math.min(2_147_483_647, Math.max(1, at - Date.now() + 1)));
    active.expiry.unref?.();
  }

  protected async onExpiry(taskId: string): Promise<void> {
    const active = this.active.get(taskId);
    if (!active) return;
    const found = await this.store.get(taskId);
    if (found?.state === "live") {
      const rec = found.record;
      if (this.isTerminal(rec.status)) return;
      const expiry = this.plan.status.onExpiry;
      if (expiry === undefined) {
        if (rec.expiresAt !== null) this.armExpiry(taskId, active, rec.expiresAt);
        return;
      }
      // Expiry is an event with a state of its own: the task ends there and stays readable a while.
      const message = this.plan.task.statusMessageField === undefined ? {} : { statusMessage: "The task's retention ran out before it ended" };
      const moved = await this.step(taskId, { type: "expire" }, { patch: { ...message, expiresAt: Date.now() + (this.options.expiredReadableMs ?? EXPIRED_READABLE_MS) } });
      if (moved.decision?.kind !== "move") return;
    }
    // The receiver may delete a task whose retention elapsed, whatever its status: stop its work.
    this.log({ level: "info", msg: "task expired while running", taskId });
    active.cancelled = true;
    active.controller.abort(new Error("The task expired"));
    failInputs(active, new TaskProtocolError("expired", -32603, "The task expired"));
    this.concurrency.releaseTask(taskId, active.owner);
    this.wake(taskId);
  }

  protected context(
    extra: ServerExtra,
    taskId: string | undefined,
    signal: AbortSignal,
    active: ActiveTask | undefined,
    taskRequest?: Record<string, unknown>,
  ): TaskContext {
    return {
      taskId,
      taskRequest,
      setFields: (fields) => (taskId === undefined ? Promise.resolve() : this.setFields(taskId, fields)),
      whenRunning: () => (taskId === undefined || active === undefined ? Promise.resolve() : this.whenRunning(taskId, active)),
      signal,
      requestId: extra.requestId,
      sessionId: extra.sessionId,
      authInfo: extra.authInfo,
      extra,
      elicit: (params) =>
        this.askRequestor(extra, taskId, active, "elicitation/create", params as Record<string, unknown>, ElicitResultSchema) as Promise<ElicitResult>,
      sample: (params) =>
        this.askRequestor(extra, taskId, active, "sampling/createMessage", params as Record<string, unknown>, CreateMessageResultSchema) as Promise<CreateMessageResult>,
      notify: (notification) => this.notifyRequestor(extra, taskId, active, notification),
      progressToken: active === undefined ? progressTokenOf(undefined, extra) : active.progressToken,
    };
  }

  /**
   * A notification about a request to its requestor. For a task: with the related-task meta where the
   * spec declares it on notifications; on the request's own stream while that request is still open
   * (tasks acknowledged by notification), else the way that reaches the requestor after the answer.
   */
  protected notifyRequestor(
    extra: ServerExtra,
    taskId: string | undefined,
    active: ActiveTask | undefined,
    notification: { method: string; params?: Record<string, unknown> },
  ): Promise<void> {
    if (taskId === undefined || active === undefined) return extra.sendNotification(notification as unknown as ServerNotification);
    // A task's progress ends with it: what its work reports once it was cancelled or became terminal goes nowhere.
    if (notification.method === PROGRESS.method && (active.cancelled || active.ended)) {
      this.log({ level: "info", msg: `progress after the task ${active.cancelled ? "was cancelled" : "ended"} dropped`, taskId });
      return Promise.resolve();
    }
    const plan = this.plan;
    const key = plan.related.key;
    let message = notification;
    // Progress after the answer still names the original request's token (valid for the task's life).
    if (active.progressToken !== undefined && notification.method === PROGRESS.method && notification.params?.[PROGRESS.tokenField] === undefined) {
      message = { method: notification.method, params: { ...notification.params, [PROGRESS.tokenField]: active.progressToken } };
    }
    if (plan.related.notifications && key !== undefined) {
      const params = message.params ?? {};
      const meta = isObject(params._meta) ? params._meta : {};
      message = { method: notification.method, params: { ...params, _meta: { ...meta, [key]: { taskId: wireTaskId(taskId) } } } };
    }
    if (plan.creation.ackMode === "notification") return extra.sendNotification(message as unknown as ServerNotification);
    return active.notify(message);
  }

  /** Sends a request to the requestor; for a task, the declared way, with the task in the input status until every answer arrived. */
  protected askRequestor(
    extra: ServerExtra,
    taskId: string | undefined,
    active: ActiveTask | undefined,
    method: string,
    params: Record<string, unknown>,
    schema: z.ZodType,
  ): Promise<unknown> {
    if (taskId === undefined || active === undefined) {
      return extra.sendRequest({ method, params } as ServerRequest, schema as never, { timeout: this.inputTimeout });
    }
    // A task asks only for what its requestor declared it can answer; anything else could never be answered.
    const missing = this.undeclaredInput(active, method, params);
    if (missing) return Promise.reject(missing);
    switch (this.plan.input.via) {
      case "side-request":
        return askBySideRequest(this.host, extra, taskId, active, method, params, schema);
      case "result-stream":
        return askThroughResultStream(this.host, taskId, active, method, params, schema);
      case "inline-poll":
        return askInline(this.host, taskId, active, method, params, schema);
      case "none":
        return Promise.reject(new TaskProtocolError("noInput", -32603, `A task of this protocol cannot ask its requestor for input (${method})`));
    }
  }

  protected async execute<R extends Result>(
    taskId: string,
    active: ActiveTask,
    method: string,
    extra: ServerExtra,
    work: (ctx: TaskContext) => R | Promise<R>,
    cleanup: () => void,
    taskRequest?: Record<string, unknown>,
    start: { known?: TaskRecord; running?: boolean } = {},
  ): Promise<R> {
    const plan = this.plan;
    try {
      // The task as this process last wrote it: where the spec has no state that holds work and the final
      // move needs no guard, that move compares the status it expects instead of reading the task again.
      let last =
        start.running === true ? start.known : (await this.lasting(() => this.step(taskId, { type: "start" }, start.known === undefined ? {} : { known: start.known }), "a task's start", taskId)).current;
      let result: R;
      try {
        result = await work(this.context(extra, taskId, active.controller.signal, active, taskRequest));
        // A task held by a transition (e.g. paused) ends only once a transition lets it run again.
        if (this.holds) last = await this.hold(taskId, active, (role) => role === "paused" || role === "queued");
      } catch (e) {
        if (active.cancelled) throw e;
        const rpc = asRpcError(e);
        if (rpc) {
          await this.lasting(() => this.step(taskId, { type: "fail" }, { patch: plan.task.statusMessageOnFailure ? { error: rpc, statusMessage: rpc.message } : { error: rpc } }), "a task's end", taskId);
          throw new TaskProtocolError("requestFailed", rpc.code, rpc.message, rpc.data);
        }
        this.log({ level: "error", msg: "unexpected failure of a task's work", taskId, method, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
        const internal = internalError(plan);
        const error = { code: internal.code, message: internal.message };
        await this.lasting(() => this.step(taskId, { type: "throw" }, { patch: plan.task.statusMessageOnFailure ? { error, statusMessage: internal.message } : { error } }), "a task's end", taskId);
        throw internal;
      }
      if (active.cancelled) return result;
      const toolError = method === "tools/call" && isObject(result) && result.isError === true;
      // Stored as the request's own answer would be (marked complete where the spec declares result types).
      const stored = withResultType(plan, JSON.parse(JSON.stringify(result)) as Record<string, unknown>);
      const finish: TaskEvent = { type: "finish", toolError };
      const ending = { patch: { result: stored } as TaskPatch, ...(toolError ? { failure: { code: -32603, message: toolErrorMessage(stored) } } : {}) };
      const ended = await this.lasting(() => this.step(taskId, finish, { ...ending, ...(last === undefined ? {} : { known: last }) }), "a task's end", taskId);
      // Moved by an operation into a state that waits for input nobody was asked: the work's end answers it.
      const at = ended.current;
      if (ended.decision?.kind === "refused" && at !== undefined && at.pendingInputs === 0 && plan.isRole(at.status, "input_required")) {
        const resumed = await this.step(taskId, { type: "answer" }, { known: at, quiet: true });
        if (resumed.decision?.kind === "move") await this.step(taskId, finish, { ...ending, ...(resumed.rec === undefined ? {} : { known: resumed.rec }) });
      }
      // Where the request itself is answered with the result, that answer relates to the task too.
      return plan.related.key !== undefined && plan.creation.ackMode === "notification" ? withRelated(plan, result, taskId) : result;
    } finally {
      cleanup();
    }
  }

  /**
   * TaskContext.whenRunning: waits while the task is in a state that holds its work (paused, queued). A
   * state that waits for input holds only the work that asked for it, which waits for its answer anyway.
   */
  protected async whenRunning(taskId: string, active: ActiveTask): Promise<void> {
    const rec = await this.hold(taskId, active, (role) => role === "paused" || role === "queued");
    if (rec === undefined || active.cancelled || this.isTerminal(rec.status)) throw active.controller.signal.reason ?? cancelledError();
  }

  /** TaskContext.setFields: the task's own fields, checked with the task as the requestor would see it. */
  protected async setFields(taskId: string, fields: Record<string, unknown>): Promise<void> {
    const extras = this.plan.task.extras ?? [];
    for (const k of Object.keys(fields)) {
      if (!extras.includes(k)) throw new TypeError(`'${k}' is not one of the task's own fields (${extras.length ? extras.join(", ") : "the spec declares none"})`);
    }
    const copy = JSON.parse(JSON.stringify(fields)) as Record<string, unknown>;
    for (let attempt = 0; attempt < 16; attempt++) {
      const found = await this.store.get(taskId);
      if (found?.state !== "live" || this.isTerminal(found.record.status)) return;
      const rec = found.record;
      const next = { ...(rec.fields ?? {}), ...copy };
      const checked = this.descriptor.validateTask(toWireTask(this.plan, { ...rec, fields: next }));
      if (!checked.success) throw new TypeError(`Invalid task fields: ${describeIssues(checked.error)}`);
      const updated = await this.store.update(taskId, rec.status, { fields: next, updatedAt: Date.now() });
      if (updated === undefined) continue; // the status changed meanwhile: look again
      this.wrote(updated);
      this.wake(taskId);
      this.pushStatus(updated);
      return;
    }
  }

  /**
   * Cancels a task (ignored once it is terminal) and aborts its work. Where the table allows no move to a
   * cancelled state from where the task is (a guard that does not hold), throws the error that says so.
   */
  async cancel(taskId: string, reason: string): Promise<TaskRecord | undefined> {
    const found = await this.store.get(taskId);
    if (found?.state !== "live" || this.isTerminal(found.record.status)) return undefined;
    const active = this.active.get(taskId);
    const patch: TaskPatch = this.plan.task.statusMessageField === undefined ? {} : { statusMessage: reason };
    const step = await this.step(taskId, { type: "cancel" }, { patch, known: found.record, quiet: true });
    const d = step.decision;
    if (d?.kind === "refused" && step.current !== undefined && !this.isTerminal(step.current.status)) {
      this.log({ level: "info", msg: "cancel refused by the transition table", taskId, from: d.from, guard: d.guard });
      throw d.error;
    }
    const updated = d?.kind === "move" ? step.rec : undefined;
    if (updated && active) {
      active.cancelled = true;
      active.controller.abort(new Error(reason));
      failInputs(active, cancelledError());
    }
    return updated;
  }
}
