// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// The task store's interface: the `TaskStore` the server scaffold talks to
// (async, records are plain JSON, so durable stores fit behind it), its
// records and patches, and what every store shares.

import { withCause } from "./errors.js";

/** A JSON-RPC error object, as stored for a failed task. */
export interface StoredError {
  code: number;
  message: string;
  data?: unknown;
}

/** One task as the store keeps it: plain JSON, no functions, no class instances. */
export interface TaskRecord {
  taskId: string;
  /** The requestor the task is bound to (session and/or auth context); only it may see the task. */
  owner: string;
  status: string;
  /** The method of the request the task augments, e.g. tools/call. */
  method: string;
  /** The JSON-RPC id of that request. */
  requestId: string | number;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  /** When the task reached a terminal status (epoch ms), or null. */
  terminalAt: number | null;
  /** The retention granted (ms); null = unlimited. */
  keepAlive: number | null;
  /** The suggested poll interval (ms). */
  pollFrequency: number;
  /** When the store removes the task (epoch ms); null = not scheduled (yet). */
  expiresAt: number | null;
  /** Related requests (elicitation, sampling) still unanswered. */
  pendingInputs: number;
  statusMessage?: string;
  /** Why the task failed (a JSON-RPC error object). */
  error?: StoredError;
  /** The result the augmented request produced. */
  result?: Record<string, unknown>;
  /** Input requests (elicitation, sampling, ...) still awaiting an answer, by key (input delivered inline through polling). */
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  /** The task's own fields (those the spec declares and no behaviour fills), as the work set them. */
  fields?: Record<string, unknown>;
  /** On a store several processes share: the process running the task's work (see `heartbeat`). */
  runner?: string;
  /** Creation order, assigned by the store. */
  seq: number;
}

/**
 * Loads a store's database driver, an optional package (its default export where it has one); where it
 * is not installed, the error says which version to install (`needs`, e.g. "the pg package, version 8").
 */
export async function loadDriverPackage(name: string, store: string, needs: string, install: string): Promise<unknown> {
  let mod: { default?: unknown };
  try {
    mod = (await import(name)) as { default?: unknown };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") throw withCause(new Error(`${store} needs ${needs}: npm install ${install}`), e);
    throw e;
  }
  return mod.default ?? mod;
}

/** One request taken from a per-minute budget (TaskStore.takeRate), with a create where the store can. */
export interface RateTake {
  readonly key: string;
  readonly perMinute: number;
}

/** Runs SQL in a transaction a store opened (TaskStore.createAlong). */
export interface SqlRunner {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Where a database URL points (host, port, database name), to tell whether two URLs name one database. */
export function databaseOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.hostname.toLowerCase()}:${u.port || "5432"}/${decodeURIComponent(u.pathname.replace(/^\//, ""))}`;
  } catch {
    return undefined;
  }
}

/** What a lookup finds: a live task, a task whose retention elapsed (still remembered), or nothing. */
export type TaskLookup = { state: "live"; record: TaskRecord } | { state: "expired"; owner: string; taskId: string } | undefined;

export type TaskPatch = Partial<Omit<TaskRecord, "taskId" | "owner" | "seq" | "createdAt" | "method" | "requestId">>;

/**
 * Where tasks live. Every method is async and every record crosses it as plain
 * JSON, so a durable implementation (a database, a shared cache) can replace
 * the in-memory one without touching the server scaffold. A record handed out
 * is the caller's to keep; its nested values (result, error, inputRequests)
 * may be shared and frozen, so a caller copies before changing them.
 */
export interface TaskStore {
  /** Adds a task; resolves to undefined when the id is already taken (live or remembered as expired). */
  create(record: Omit<TaskRecord, "seq">): Promise<TaskRecord | undefined>;
  /**
   * For a shared store: `create`, but only while the record's owner has fewer than `max` unfinished
   * tasks (no terminal time) in the store, counted over every process and checked and inserted as one
   * step, so that two processes creating at once cannot both take the last slot. "limit" when the
   * owner has `max`. Absent: the runtime counts unfinished tasks per process.
   */
  createBounded?(record: Omit<TaskRecord, "seq">, max: number, rate?: RateTake): Promise<TaskRecord | undefined | "limit" | "rate">;
  /**
   * The store takes a creation's rate (`takeRate`'s bucket) in the create itself: `createBounded` and
   * `createAlong` then accept `rate` and answer "rate", creating nothing, where its bucket is empty.
   * Absent: the runtime calls `takeRate` before the create.
   */
  readonly createTakesRate?: boolean;
  get(taskId: string): Promise<TaskLookup>;
  /**
   * Applies `patch` only if the task is still in status `expected` (compare and
   * set); resolves to the updated record, or undefined when the task is gone or
   * its status changed meanwhile.
   */
  update(taskId: string, expected: string, patch: TaskPatch): Promise<TaskRecord | undefined>;
  /** Removes a task and its result. */
  delete(taskId: string): Promise<boolean>;
  /** Up to `limit` tasks of `owner` created after `afterSeq`, in creation order. */
  list(owner: string, afterSeq: number, limit: number): Promise<{ records: TaskRecord[]; hasMore: boolean }>;
  /**
   * Up to `limit` live tasks of every owner whose status is one of `statuses`,
   * created after `afterSeq`, in creation order. A durable store implements it so
   * that the tasks left unfinished by a stopped process can be found and settled
   * after a restart (see `settleTasks`).
   */
  listByStatus?(statuses: readonly string[], afterSeq: number, limit: number): Promise<{ records: TaskRecord[]; hasMore: boolean }>;
  /**
   * Whether the tasks outlive the process (a database file or server). A runtime
   * starting on a durable store that is not `shared` settles the tasks a stopped
   * process left unfinished (TaskServerOptions.settleOnStart). Absent: false.
   */
  readonly durable?: boolean;
  /**
   * Whether several server processes serve the store at the same time. A starting
   * runtime cannot tell a stopped process's unfinished tasks from those a live
   * one is running, so it settles none unless told to. Absent: false.
   */
  readonly shared?: boolean;
  /**
   * For a shared store: records that process `runner` is alive now. With `liveRunners`, it lets the
   * processes that are still alive settle the unfinished tasks of one that stopped (its lease ran out).
   */
  heartbeat?(runner: string, instance?: string): Promise<void>;
  /**
   * For a shared store: takes the name `runner` for this start of a process (`instance`), renewed every
   * `renewMs`; rejects while another live process holds it, so that two never share a name.
   */
  takeRunner?(runner: string, instance: string, renewMs: number): Promise<void>;
  /**
   * For a shared store: takes one request from the per-minute budget `key` (a token bucket holding
   * `perMinute` requests, refilled continuously), counted over every process; false when it is empty.
   * Absent: the runtime counts rate limits per process.
   */
  takeRate?(key: string, perMinute: number): Promise<boolean>;
  /** For a shared store: the runners whose last heartbeat is at or after `since` (epoch ms). */
  liveRunners?(since: number): Promise<Set<string>>;
  /**
   * For a shared store on a SQL database: `createBounded` (no bound where `max` is not finite) with
   * `alongside` run in the same transaction on the new task, so that what it writes in that database (the
   * task's job on a queue there) commits with the task or not at all. `database` says which database.
   */
  createAlong?(record: Omit<TaskRecord, "seq">, max: number, alongside: (rec: TaskRecord, sql: SqlRunner) => Promise<void>, rate?: RateTake): Promise<TaskRecord | undefined | "limit" | "rate">;
  /** With `createAlong`: the database the store lives in (host, port and name; never credentials). */
  readonly database?: string | undefined;
  /**
   * For a shared store: `update`, applied only while no runner holds the task (its `runner` is unset).
   * A worker takes a task no other worker started in this one write. Absent: the runtime reads, checks
   * the runner, then updates.
   */
  claim?(taskId: string, expected: string, patch: TaskPatch): Promise<TaskRecord | undefined>;
  /**
   * For a store several processes share: calls `listener` on every change of a
   * task made through any of them, so the process running a task's work learns
   * that another cancelled, answered or moved it (see store-events.ts).
   * Returns the function that stops the calls. Absent: changes are only local.
   */
  watch?(listener: TaskChangeListener): () => void;
  /**
   * With `watch`: hands a message about a task (plain JSON, e.g. an answer to an
   * input request its work waits for) to every process watching the store, as a
   * change of kind "message". Resolves once the message is stored for delivery.
   */
  publish?(taskId: string, message: Record<string, unknown>): Promise<void>;
  /** Stops timers and releases resources. */
  close(): Promise<void>;
}

/** A change of a task, as a shared store announces it. */
export interface TaskChange {
  taskId: string;
  /**
   * created, updated, deleted, expired; or resync: changes may have been missed
   * (the store lost its connection for a while), so whatever a process holds
   * about its tasks is to be read again (taskId is then empty).
   */
  kind: "created" | "updated" | "deleted" | "expired" | "message" | "resync";
  /** The status after the change; absent once the task is gone. */
  status?: string;
  expiresAt?: number | null;
  /** The store (TaskStore instance) that made the change, as its `origin` names it. */
  origin: string;
  /** What `publish` sent (kind "message"). */
  message?: Record<string, unknown>;
}

export type TaskChangeListener = (change: TaskChange) => void;

/**
 * Moves every live task whose status is one of `statuses` to what `settle`
 * returns for it (a patch, its `status` included; undefined leaves the task
 * alone), each by a compare-and-set update, so a task that moved meanwhile is
 * left as it is. Returns the tasks updated. For a durable store after a restart:
 * the tasks that were running when the process stopped have no work behind them
 * any more.
 */
export async function settleTasks(
  store: TaskStore,
  statuses: readonly string[],
  settle: (record: TaskRecord) => TaskPatch | undefined,
  pageSize = 500,
): Promise<TaskRecord[]> {
  if (!store.listByStatus) throw new Error("this task store cannot list tasks by status");
  const settled: TaskRecord[] = [];
  let after = 0;
  for (;;) {
    const page = await store.listByStatus(statuses, after, pageSize);
    for (const record of page.records) {
      const patch = settle(record);
      if (patch === undefined) continue;
      const updated = await store.update(record.taskId, record.status, patch);
      if (updated) settled.push(updated);
    }
    if (!page.hasMore || page.records.length === 0) return settled;
    after = page.records[page.records.length - 1]!.seq;
  }
}
