// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * The table interpreter: the one place that decides what happens to a task's
 * status. A pure function in the shape of a statechart's
 * `transition(machine, snapshot, event)`: given the spec's table (with its
 * guards and roles), the task as it stands and what happened, it answers the
 * move (the target state, the record patch that writes it, what to tell) or
 * the refusal (the error to answer, where one is answered). Nothing else in the
 * runtime picks a state or writes one.
 *
 * Where an event leads to a role that several states have, the target is the
 * state the spec names for the event first (the behaviour's own choice), then
 * the other states of that role in declaration order: the first one the table
 * allows from the current state, guards holding, wins.
 */
import type { StateRole } from "./behaviour.js";
import type { TransitionContext } from "./descriptor.js";
import { invalidParams, TaskProtocolError } from "./errors.js";
import type { RuntimePlan } from "./plan.js";
import type { StoredError, TaskPatch, TaskRecord } from "./store.js";

/** What happened to a task. */
export type TaskEvent =
  /** Its work began. */
  | { readonly type: "start" }
  /** Its work returned a result (`toolError`: a tool result with isError). */
  | { readonly type: "finish"; readonly toolError?: boolean }
  /** Its work threw a protocol error. */
  | { readonly type: "fail" }
  /** Its work threw something else. */
  | { readonly type: "throw" }
  /** Its work asked the requestor for input. */
  | { readonly type: "ask" }
  /** The requestor answered (the guards read how many answers are still pending). */
  | { readonly type: "answer" }
  /** The requestor cancelled it. */
  | { readonly type: "cancel" }
  /** Its retention ran out before it ended. */
  | { readonly type: "expire" }
  /** The process running it stopped (a restart, a lost lease). */
  | { readonly type: "restart" }
  /** A transition operation (e.g. pause) addressed it: `to` is the state the method declares. */
  | { readonly type: "operation"; readonly method: string; readonly to: string }
  /** The server's own code (a custom operation) moves it to `to`. */
  | { readonly type: "goto"; readonly to: string };

/** An event's kind as the machine's choices are keyed (a tool's error result is an outcome of its own). */
export type EventKey = TaskEvent["type"] | "toolError";

function keyOf(event: TaskEvent): EventKey {
  return event.type === "finish" && event.toolError === true ? "toolError" : event.type;
}

/** What the runtime tells once a move is written. */
export type Notice = "status" | "ended";

export type Decision =
  /** Write `patch` (compare-and-set on `from`), then act on `notices`. */
  | { readonly kind: "move"; readonly from: string; readonly to: string; readonly patch: TaskPatch; readonly notices: readonly Notice[]; readonly forced?: true }
  /** The task is where the event leads already: nothing to write. */
  | { readonly kind: "stay"; readonly from: string }
  /** No edge of the table is legal: `error` is what a requestor who asked for it is answered. */
  | { readonly kind: "refused"; readonly from: string; readonly tried: readonly string[]; readonly guard?: string; readonly error: TaskProtocolError };

/** The spec's table and what the runtime reads of its behaviour, as the interpreter needs them. */
export interface TaskMachine {
  readonly states: readonly string[];
  readonly initial: string;
  readonly roleOf: Readonly<Record<string, StateRole>>;
  canTransition(from: string, to: string, ctx?: TransitionContext): boolean;
  isTerminal(status: string): boolean;
  /** The name of the guard on `from -> to` when the move is refused by it. */
  guardOf?(from: string, to: string, ctx: TransitionContext): string | undefined;
  /** The state the spec names first for each event (undefined: the role's states only). */
  readonly prefer: { readonly [K in EventKey]?: string | undefined };
  /** The roles each event leads to, in order. */
  readonly roles: Readonly<Partial<Record<EventKey, readonly StateRole[]>>>;
  /** Retention as a move to a terminal state sets it. */
  readonly retention: { readonly fromTerminal: boolean; readonly expiryEvent: boolean };
  /** The status message field, where the task has one. */
  readonly statusMessage: boolean;
  /** The error code of the server's own failures. */
  readonly internalCode: number;
  /** The error a refused cancel is answered with (its code), where the spec declares one. */
  readonly cancelRefusedCode?: number;
}

/** The interpreter's view of a runtime plan. */
export function machineOf(plan: RuntimePlan): TaskMachine {
  const d = plan.descriptor;
  const s = plan.status;
  const m = d.machine as unknown as { canTransition(f: string, t: string, c?: TransitionContext): boolean; isTerminal(s: string): boolean; assertTransition(f: string, t: string, c?: TransitionContext): void };
  const role = (state: string | undefined): StateRole[] => (state === undefined || d.states.roleOf[state] === undefined ? [] : [d.states.roleOf[state]!]);
  const internal = d.errors[plan.errors.internal];
  const refused = plan.behaviour.cancellation.terminalError;
  const cancelRefused = refused === undefined ? undefined : d.errors[refused];
  return {
    states: d.states.all,
    initial: d.states.initial,
    roleOf: d.states.roleOf,
    canTransition: (f, t, c) => m.canTransition(f, t, c),
    isTerminal: (x) => m.isTerminal(x),
    guardOf: (f, t, c) => {
      try {
        m.assertTransition(f, t, c);
      } catch (e) {
        const g = (e as { guard?: unknown }).guard;
        return typeof g === "string" ? g : undefined;
      }
      return undefined;
    },
    prefer: {
      start: s.running,
      finish: s.completed,
      toolError: s.onToolError,
      fail: s.onProtocolError,
      throw: s.onUnexpected,
      ask: s.input,
      answer: s.resume,
      cancel: s.cancelled,
      expire: s.onExpiry,
      restart: s.onRestart,
    },
    roles: {
      start: ["running"],
      finish: ["completed"],
      toolError: role(s.onToolError),
      fail: role(s.onProtocolError),
      throw: role(s.onUnexpected),
      ask: ["input_required"],
      answer: ["running"],
      cancel: ["cancelled"],
      expire: [],
      restart: [...new Set([...role(s.onRestart), ...role(s.onUnexpected), ...role(s.onProtocolError), "failed", "cancelled"] as StateRole[])],
    },
    retention: { fromTerminal: plan.retention.countedFrom === "terminal", expiryEvent: s.onExpiry !== undefined },
    statusMessage: plan.task.statusMessageField !== undefined,
    internalCode: internal?.code ?? -32603,
    ...(cancelRefused === undefined ? {} : { cancelRefusedCode: cancelRefused.code }),
  };
}

/** The state a new task starts in, and the patch that writes it. */
export function initialState(machine: TaskMachine): { status: string } {
  return { status: machine.initial };
}

/** A task as every new task stands before anything happened to it: in the initial state, nothing asked. */
export function freshTask(machine: TaskMachine, now: number): TaskSnapshot {
  return { status: machine.initial, pendingInputs: 0, keepAlive: null, createdAt: now, expiresAt: null };
}

/** The states an event may lead to, in the order they are tried. */
export function candidates(machine: TaskMachine, event: TaskEvent): string[] {
  if (event.type === "operation" || event.type === "goto") return [event.to];
  const type = keyOf(event);
  const first = machine.prefer[type];
  const roles = machine.roles[type] ?? [];
  const out: string[] = [];
  if (first !== undefined && machine.roleOf[first] !== undefined) out.push(first);
  for (const r of roles) for (const st of machine.states) if (machine.roleOf[st] === r && !out.includes(st)) out.push(st);
  // Restart ends a task: only terminal states qualify.
  return type === "restart" ? out.filter((x) => machine.isTerminal(x)) : out;
}

/** What the interpreter reads of a task: its status and what its guards read. */
export type TaskSnapshot = Pick<TaskRecord, "status" | "pendingInputs" | "keepAlive" | "createdAt" | "expiresAt"> & Partial<Pick<TaskRecord, "fields">>;

/**
 * The move `event` makes of the task `rec`, or why none is legal. `ctx` adds to
 * what the guards read; `patch` is what the caller writes with the move (result,
 * error, status message: never the status); `now` is the time written.
 */
export function transition(
  machine: TaskMachine,
  rec: TaskSnapshot,
  event: TaskEvent,
  options: { ctx?: TransitionContext; patch?: TaskPatch; now?: number; failure?: StoredError } = {},
): Decision {
  const from = rec.status;
  const ctx = { ...(rec.fields ?? {}), pendingInputs: rec.pendingInputs, ...(options.ctx ?? {}) } as TransitionContext;
  const tried = candidates(machine, event);
  const explicit = event.type === "operation" || event.type === "goto";
  if (machine.isTerminal(from)) return refuse(machine, event, from, tried, undefined);
  // Already where the event leads (a start of a running task, a second question): nothing moves.
  if (!explicit && tried.includes(from) && event.type !== "restart") return { kind: "stay", from };
  let to = tried.find((t) => t !== from && machine.canTransition(from, t, ctx));
  let forced: true | undefined;
  if (to === undefined && event.type === "restart" && tried.length > 0) {
    // No work is behind the task any more: it ends in the declared restart state even where the table
    // has no edge for it, since staying would promise work that never happens.
    to = tried[0]!;
    forced = true;
  }
  if (to === undefined) {
    const guard = tried.map((t) => machine.guardOf?.(from, t, ctx)).find((g) => g !== undefined);
    return refuse(machine, event, from, tried, guard);
  }
  const now = options.now ?? Date.now();
  const patch: TaskPatch = { ...(options.patch ?? {}), status: to, updatedAt: now };
  const notices: Notice[] = ["status"];
  if (machine.isTerminal(to)) {
    notices.push("ended");
    patch.terminalAt = now;
    patch.pendingInputs = 0;
    if (rec.keepAlive !== null && machine.retention.fromTerminal) patch.expiresAt = now + rec.keepAlive;
    // Where expiry is an event, the store drops an ended task at the deadline counted from creation.
    else if (rec.keepAlive !== null && machine.retention.expiryEvent && rec.expiresAt === null && event.type !== "expire") {
      patch.expiresAt = Math.max(now, rec.createdAt + rec.keepAlive);
    }
    // A task that ends in a failed state carries why (its result method answers it): the caller's reason,
    // or, for a requestor's operation, the operation that moved it.
    if (machine.roleOf[to] === "failed" && patch.error === undefined) {
      const failure = options.failure ?? (explicit ? { code: machine.internalCode, message: movedBy(to, event.type === "operation" ? event.method : undefined) } : undefined);
      if (failure !== undefined) {
        patch.error = failure;
        if (explicit && machine.statusMessage && patch.statusMessage === undefined) patch.statusMessage = failure.message;
      }
    }
  }
  return forced ? { kind: "move", from, to, patch, notices, forced } : { kind: "move", from, to, patch, notices };
}

function refuse(machine: TaskMachine, event: TaskEvent, from: string, tried: readonly string[], guard: string | undefined): Decision {
  const target = tried.length === 1 ? `'${tried[0]}'` : tried.length === 0 ? "no state" : tried.map((t) => `'${t}'`).join(" or ");
  const why = guard === undefined ? "" : ` (guard ${guard} does not hold)`;
  let error: TaskProtocolError;
  if (event.type === "cancel") {
    error = new TaskProtocolError("cancelRefused", machine.cancelRefusedCode ?? -32602, `Cannot cancel task: the task cannot move from '${from}' to ${target}${why}`);
  } else {
    error = invalidParams(`Task cannot move from '${from}' to ${target}${why}`);
  }
  return guard === undefined ? { kind: "refused", from, tried, error } : { kind: "refused", from, tried, guard, error };
}

/** Why a task a requestor's operation (or the server's own code) moved is where it is. */
export function movedBy(to: string, method: string | undefined): string {
  return method === undefined ? `The task was moved to '${to}'` : `The task was moved to '${to}' by ${method}`;
}

/** Whether `status` has `role`. */
export function hasRole(machine: Pick<TaskMachine, "roleOf">, status: string, role: StateRole): boolean {
  return machine.roleOf[status] === role;
}
