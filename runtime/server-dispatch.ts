// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * The task methods (get, result, list, delete, cancel, transitions, custom operations, update): each
 * request checked, gated and rated, then answered from the store.
 */
import { type JSONRPCRequest, type Result } from "@modelcontextprotocol/sdk/types.js";
import { internalError, requestor, type ServerExtra, type TaskPeer } from "./task-context.js";
import { answerCancel, answerDelete } from "./cancellation.js";
import { signCursor, verifyCursor } from "./cursor.js";
import { invalidParams, TaskProtocolError } from "./errors.js";
import { answerInline } from "./input.js";
import { capabilityAt, isObject } from "./plan.js";
import { movedBy } from "./machine.js";
import { awaitResult, resultWhenCompleted } from "./results.js";
import { type TaskPatch, type TaskRecord } from "./store.js";
import { checkTaskIdHeader, declaresClientCapability, toDetailedTask, toWireTask, wireTaskId, withResultType } from "./wire.js";
import { methodNotFound } from "./server-api.js";
import { RuntimeCreation } from "./server-creation.js";

export abstract class RuntimeDispatch<S extends string = string, W = Record<string, unknown>> extends RuntimeCreation<S, W> {
  /** -32601 for a method gated on a capability path this runtime does not declare (e.g. the list method without `list`). */
  protected gate(method: string): void {
    const decl = this.capabilityDecl;
    const gates = decl === false ? undefined : decl.gates;
    const path = gates !== undefined && Object.prototype.hasOwnProperty.call(gates, method) ? gates[method] : undefined;
    if (path !== undefined && capabilityAt(this.capabilityValue, path) === undefined) throw methodNotFound();
  }

  // -------------------------------------------------------------------------
  // Task methods
  // -------------------------------------------------------------------------

  /** Answers a task method, or returns undefined for other methods. */
  protected async dispatch(request: JSONRPCRequest, extra: ServerExtra, peer?: TaskPeer): Promise<Result | undefined> {
    const plan = this.plan;
    const b = plan.behaviour;
    const methods = plan.methods;
    const method = request.method;
    const params = request.params ?? {};
    // A method the spec has only the other side send is not this side's to answer.
    const decl = this.descriptor.methods.find((m) => m.method === method && m.kind === "request");
    if (decl !== undefined && decl.from !== "either" && decl.from === this.side) throw methodNotFound();
    // Methods gated on the declared capability (e.g. the list method on `list`).
    this.gate(method);
    if (peer !== undefined && extra.sessionId !== undefined && !this.peers.has(extra.sessionId)) this.peers.set(extra.sessionId, peer);
    if (b.unsupportedMethods !== undefined && b.unsupportedMethods.methods.includes(method)) {
      throw plan.error(b.unsupportedMethods.error, {}, methodNotFound);
    }
    if (b.http !== false && b.http.methods.includes(method)) checkTaskIdHeader(plan, extra, params);
    // Before the task is looked up: a requestor that does not declare the capability learns nothing.
    if (plan.capabilityGated !== undefined && plan.capabilityGated.includes(method) && !declaresClientCapability(plan, params)) {
      const missing = plan.missingCapability(plan.gateErrorName, { method });
      if (missing) throw missing;
    }
    const idField = plan.idField;
    if (method === methods.get) {
      const { rec } = await this.addressed(method, params, extra, "poll", this.limits.pollPerMinute);
      const task = plan.results.mode === "inline" ? toDetailedTask<Record<string, unknown>>(plan, rec) : toWireTask<Record<string, unknown>>(plan, rec);
      // withRelated's and withResultType's answers, made in place: the task is a fresh object, and V8 is slow to copy one that then gains a key.
      if (plan.related.onGet) task._meta = { [plan.related.key!]: { taskId: wireTaskId(rec.taskId) } };
      const rt = b.resultType;
      if (rt !== false && typeof task[rt.field] !== "string") task[rt.field] = rt.complete;
      return task as Result;
    }
    if (method === methods.result) {
      const { owner, rec } = await this.addressed(method, params, extra, "result", this.limits.resultPerMinute);
      if (plan.results.mode === "block-until-terminal") return awaitResult(this.host, rec, owner, extra, method, peer);
      return resultWhenCompleted(this.host, rec, owner, extra);
    }
    if (method === methods.list && b.listing !== false) {
      const listing = b.listing;
      const p = this.params(method, params) as { cursor?: string };
      const owner = this.ownerOf(extra);
      await this.rate(owner, "list", this.limits.listPerMinute, method);
      let after = 0;
      if (p.cursor !== undefined) {
        const seq = verifyCursor(this.cursorSecret, owner, p.cursor);
        if (seq === undefined) {
          this.audit({ type: "denied", ...requestor(owner, extra), method, reason: "invalid cursor" });
          throw plan.error(listing.invalidCursorError, {}, () => new TaskProtocolError("invalidCursor", -32602, "Invalid cursor"));
        }
        after = seq;
      }
      const size = Math.max(1, Math.min(this.options.pageSize ?? listing.pageSize, listing.maxPageSize));
      const page = await this.store.list(owner, after, size);
      const last = page.records[page.records.length - 1];
      const result: Record<string, unknown> = { tasks: page.records.map((r) => toWireTask(plan, r)) };
      if (page.hasMore && last) result.nextCursor = signCursor(this.cursorSecret, owner, last.seq);
      return result as Result;
    }
    if (method === methods.delete) {
      const { owner, rec } = await this.addressed(method, params, extra);
      const deletable = this.options.deletableStatuses ?? b.cancellation.deletableStatuses ?? plan.terminal;
      return answerDelete(this.host, rec, owner, extra, method, deletable);
    }
    if (method === methods.cancel) {
      const { rec } = await this.addressed(method, params, extra);
      return answerCancel(this.host, rec);
    }
    const to = plan.transitions.get(method);
    if (to !== undefined) {
      const { owner, rec } = await this.addressed(method, params, extra, "poll", this.limits.pollPerMinute);
      // A task already there is refused like any move the table does not allow: the request changed nothing.
      // Ended in a failed state, a tool call carries the result a failed tool call has (where the spec ends tool errors there).
      const toolFailure = rec.method === "tools/call" && plan.isRole(to, "failed") && plan.isRole(plan.status.onToolError, "failed");
      const patch: TaskPatch = toolFailure ? { result: withResultType(plan, { content: [{ type: "text", text: movedBy(to, method) }], isError: true }) } : {};
      const step = await this.step(rec.taskId, { type: "operation", method, to }, { patch, known: rec, quiet: true });
      if (step.decision?.kind !== "move" || step.rec === undefined) {
        const from = step.decision?.from ?? rec.status;
        this.audit({ type: "denied", ...requestor(owner, extra), method, taskId: rec.taskId, reason: `no transition ${from} -> ${to}` });
        throw invalidParams(`Task ${wireTaskId(rec.taskId)} cannot move from '${from}' to '${to}'`);
      }
      this.stopEnded(step.rec);
      return toWireTask<Record<string, unknown>>(plan, step.rec) as Result;
    }
    if (plan.custom.includes(method)) {
      const handler = this.operations.get(method);
      if (handler === undefined) throw methodNotFound();
      const p = this.params(method, params) as Record<string, unknown>;
      const owner = this.ownerOf(extra);
      await this.rate(owner, "poll", this.limits.pollPerMinute, method);
      const answer = await handler(p, {
        owner,
        extra,
        task: async (taskId: string) => toWireTask<W>(plan, await this.lookup(taskId, owner, extra, method)),
        move: async (taskId: string, status: S) => {
          const rec = await this.lookup(taskId, owner, extra, method);
          const step = await this.step(rec.taskId, { type: "goto", to: status }, { known: rec, quiet: true });
          if (step.decision?.kind !== "move" || step.rec === undefined) return undefined;
          this.stopEnded(step.rec);
          return toWireTask<W>(plan, step.rec);
        },
      });
      // The answer goes out as the spec declares it or not at all: a handler's mistake is the server's failure.
      const checked = this.descriptor.validateResult?.(method, answer);
      if (checked !== undefined && !checked.success) {
        this.log({ level: "error", msg: "custom operation answered a result its declared type refuses", method, issues: checked.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "result"}: ${i.message}`) });
        throw internalError(plan);
      }
      return answer as Result;
    }
    if (method === methods.update) {
      // Only taskId and the shape are checked here: values under keys that are not
      // pending are ignored unread; pending ones are checked against what was asked.
      const field = plan.input.responsesField;
      const p = isObject(params) ? params : {};
      const taskId = p[idField];
      if (typeof taskId !== "string") throw invalidParams(`Invalid params for ${method}: ${idField}: expected a string`);
      const responses = p[field];
      if (!isObject(responses)) throw invalidParams(`Invalid params for ${method}: ${field}: expected an object`);
      const owner = this.ownerOf(extra);
      await this.rate(owner, "update", this.limits.pollPerMinute, method);
      const rec = await this.lookup(taskId, owner, extra, method);
      await answerInline(this.host, rec.taskId, responses);
      return withResultType(plan, {} as Result);
    }
    return undefined;
  }

  /**
   * The task a task method addresses by its id field: the params checked, the requestor's rate counted
   * in `bucket` where given, the task looked up as this requestor may see it.
   */
  protected async addressed(method: string, params: unknown, extra: ServerExtra, bucket?: string, perMinute = 0): Promise<{ owner: string; rec: TaskRecord }> {
    const p = this.params(method, params) as Record<string, string>;
    const owner = this.ownerOf(extra);
    if (bucket !== undefined) await this.rate(owner, bucket, perMinute, method);
    return { owner, rec: await this.lookup(p[this.plan.idField]!, owner, extra, method) };
  }
}
