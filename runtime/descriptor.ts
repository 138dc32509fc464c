// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * What generated code hands the runtime: everything the spec decides, as data
 * and as the generated checks (transition table, guards, validators). The
 * runtime reads nothing else about the protocol it serves.
 */
import type { Behaviour, StateRole } from "./behaviour.js";
import type { ErrorCatalog } from "./errors.js";

/** The version of this runtime; generated code states the version it was generated with. */
export const RUNTIME_VERSION = "0.2.0";

/** The result of a zod `safeParse` (the runtime only reads these members). */
export type SafeParse<T> = { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } };

/** Context read by transition guards. */
export interface TransitionContext {
  pendingInputs?: number;
}

/** What a task request does; see the spec format's `operation`. */
export type Operation = "get" | "result" | "list" | "cancel" | "update" | "delete" | "transition" | "custom";

export interface MethodDecl {
  readonly method: string;
  readonly kind: "request" | "notification";
  /** Who sends it. */
  readonly from: "client" | "server" | "either";
  /** Requests: what it does to tasks. */
  readonly operation?: Operation;
  /** operation transition: the state it moves the addressed task to. */
  readonly to?: string;
}

export interface TaskSpecDescriptor<Status extends string = string> {
  readonly spec: {
    readonly id: string;
    readonly sha256: string;
    readonly protocol: {
      readonly name: string;
      readonly revision: string;
      readonly protocolVersion?: string;
      readonly lifecycle?: "initialize" | "per-request";
    };
  };
  /** The runtime version the code was generated for: checked when the runtime is constructed. */
  readonly runtimeVersion: string;
  readonly behaviour: Behaviour;
  /** `_meta` keys by their name in the spec. */
  readonly meta: Readonly<Record<string, string>>;
  readonly states: {
    readonly all: readonly Status[];
    readonly initial: Status;
    readonly terminal: readonly Status[];
    /** The first state declared with each role: the one the runtime tries first for it (see machine.ts). */
    readonly roles: Readonly<Partial<Record<StateRole, Status>>>;
    /** Every state's role (several states may share one). */
    readonly roleOf: Readonly<Record<string, StateRole>>;
  };
  readonly machine: {
    canTransition(from: Status, to: Status, ctx?: TransitionContext): boolean;
    /** Throws an error naming both statuses (and the guard, as `guard`) unless the move is allowed. */
    assertTransition(from: Status, to: Status, ctx?: TransitionContext): void;
    isTerminal(status: Status): boolean;
  };
  readonly errors: ErrorCatalog;
  readonly methods: readonly MethodDecl[];
  /** The fields of the task type (behaviour.taskType) as the requestor sees it. */
  readonly taskFields: readonly string[];
  /** The task's own fields (no behaviour fills them): the work sets them; the value a new task starts with (null: none). */
  readonly taskExtras: Readonly<Record<string, unknown>>;
  /** Fast checks of each task request's params (they accept exactly what `validateParams` accepts). */
  readonly requestGuards: Readonly<Record<string, { readonly params: (params: unknown) => boolean }>>;
  /** The zod check of a task request's params, for the wording of a rejection. */
  validateParams(method: string, params: unknown): SafeParse<unknown>;
  /** The zod check of a task request's result (a custom operation's answer is checked with it before it is sent). */
  validateResult?(method: string, result: unknown): SafeParse<unknown>;
  /** The zod check of the task type (as the requestor sees it). */
  validateTask(value: unknown): SafeParse<unknown>;
  /** The zod check of a task request (the creation param or meta entry), where the spec names its type. */
  validateCreation?(value: unknown): SafeParse<unknown>;
}

/** Throws when generated code and this runtime disagree on the runtime version. */
export function checkRuntimeVersion(descriptor: { readonly runtimeVersion: string; readonly spec: { readonly id: string } }): void {
  if (descriptor.runtimeVersion !== RUNTIME_VERSION) {
    throw new Error(
      `mcp-task-gen: the code generated for spec ${descriptor.spec.id} expects runtime ${descriptor.runtimeVersion}, but runtime ${RUNTIME_VERSION} is installed beside it; regenerate (npx mcp-task-gen) so both come from one generator`,
    );
  }
}
