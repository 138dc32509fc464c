// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// The task store: the `TaskStore` interface the server scaffold talks to
// (async, records are plain JSON, so durable stores fit behind it) and the
// in-memory implementation, with one ordered index per owner (pages
// cost O(page size)) and ONE expiry structure (a min-heap and a single timer).

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
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") throw new Error(`${store} needs ${needs}: npm install ${install}`, { cause: e });
    throw e;
  }
  return mod.default ?? mod;
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
  createBounded?(record: Omit<TaskRecord, "seq">, max: number): Promise<TaskRecord | undefined | "limit">;
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
  createAlong?(record: Omit<TaskRecord, "seq">, max: number, alongside: (rec: TaskRecord, sql: SqlRunner) => Promise<void>): Promise<TaskRecord | undefined | "limit">;
  /** With `createAlong`: the database the store lives in (host, port and name; never credentials). */
  readonly database?: string;
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

export interface InMemoryTaskStoreOptions {
  /**
   * How long a task whose retention elapsed is remembered as "expired" (so
   * lookups can say so) before it is forgotten entirely. Default 10 minutes.
   */
  rememberExpiredMs?: number;
  /**
   * A clock (epoch ms) for tests. Without one, expiry follows the store's single
   * timer: a task goes when the event loop runs the timer, never before its
   * deadline and late at most by the loop's lag (the revisions let a receiver
   * delete a task any time after its retention; none requires it on the dot),
   * and lookups read no clock. With one, which no timer can follow, every
   * lookup reads it and applies the deadlines that have passed.
   */
  now?: () => number;
}

// The largest delay setTimeout accepts.
const MAX_TIMER = 2_147_483_647;
const CHUNK = 512;

/**
 * A store's one timer, for the earliest of its deadlines: set again only for an earlier one, and never
 * keeping the process alive. `fire` runs once the time is reached (the timer is unset by then).
 */
export class DeadlineTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private at = Infinity;

  constructor(
    private readonly fire: () => void,
    private readonly now: () => number,
  ) {}

  /** Fires at `at` (epoch ms on the store's clock; -Infinity: on the next turn), unless it is set to fire no later. */
  armAt(at: number): void {
    if (this.timer !== undefined && this.at <= at) return;
    this.clear();
    this.at = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.at = Infinity;
        this.fire();
      },
      Math.min(MAX_TIMER, Math.max(0, at - this.now())),
    );
    this.timer.unref?.();
  }

  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.at = Infinity;
  }
}

/** The rarely set parts of a task, kept out of line so that most tasks carry one empty field for all four. */
interface SlotExtra {
  statusMessage?: string;
  error?: StoredError;
  result?: Record<string, unknown>;
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  fields?: Record<string, unknown>;
}

/**
 * One live task as the in-memory store lays it out: a fixed-shape object (every
 * task shares one hidden class), strings shared with the caller rather than
 * copied (they are immutable), and the nested JSON values (result, error, input
 * requests) deep-copied once on the way in and frozen, so records handed out can
 * share them instead of copying them on every read.
 */
class Slot {
  readonly taskId: string;
  readonly owner: string;
  status: string;
  readonly method: string;
  readonly requestId: string | number;
  readonly createdAt: number;
  updatedAt: number;
  terminalAt: number | null;
  keepAlive: number | null;
  pollFrequency: number;
  expiresAt: number | null;
  pendingInputs: number;
  readonly seq: number;
  /** Position in the deadline heap, -1 when not in it. */
  heapIndex = -1;
  extra: SlotExtra | undefined = undefined;

  constructor(r: Omit<TaskRecord, "seq">, owner: string, seq: number) {
    this.taskId = flat(r.taskId);
    this.owner = owner;
    this.status = r.status;
    this.method = r.method;
    this.requestId = r.requestId;
    this.createdAt = r.createdAt;
    this.updatedAt = r.updatedAt;
    this.terminalAt = r.terminalAt;
    this.keepAlive = r.keepAlive;
    this.pollFrequency = r.pollFrequency;
    this.expiresAt = r.expiresAt;
    this.pendingInputs = r.pendingInputs;
    this.seq = seq;
    this.setExtra(r);
  }

  /** Applies a patch's fields (the patch is the caller's: nested values are copied, never kept). */
  apply(p: TaskPatch): void {
    if (p.status !== undefined) this.status = p.status;
    if (p.updatedAt !== undefined) this.updatedAt = p.updatedAt;
    if (p.terminalAt !== undefined) this.terminalAt = p.terminalAt;
    if (p.keepAlive !== undefined) this.keepAlive = p.keepAlive;
    if (p.pollFrequency !== undefined) this.pollFrequency = p.pollFrequency;
    if (p.expiresAt !== undefined) this.expiresAt = p.expiresAt;
    if (p.pendingInputs !== undefined) this.pendingInputs = p.pendingInputs;
    this.setExtra(p);
  }

  private setExtra(p: SlotExtra): void {
    if (p.statusMessage === undefined && p.error === undefined && p.result === undefined && p.inputRequests === undefined && p.fields === undefined) return;
    const x: SlotExtra = { ...this.extra };
    if (p.statusMessage !== undefined) x.statusMessage = p.statusMessage;
    if (p.error !== undefined) x.error = frozenCopy(p.error);
    if (p.result !== undefined) x.result = frozenCopy(p.result);
    if (p.inputRequests !== undefined) x.inputRequests = frozenCopy(p.inputRequests);
    if (p.fields !== undefined) x.fields = frozenCopy(p.fields);
    this.extra = x;
  }

  /** A fresh record for a caller; nested values are the slot's frozen ones. */
  toRecord(): TaskRecord {
    const r: TaskRecord = {
      taskId: this.taskId,
      owner: this.owner,
      status: this.status,
      method: this.method,
      requestId: this.requestId,
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
      terminalAt: this.terminalAt,
      keepAlive: this.keepAlive,
      pollFrequency: this.pollFrequency,
      expiresAt: this.expiresAt,
      pendingInputs: this.pendingInputs,
      seq: this.seq,
    };
    const x = this.extra;
    if (x !== undefined) {
      if (x.statusMessage !== undefined) r.statusMessage = x.statusMessage;
      if (x.error !== undefined) r.error = x.error;
      if (x.result !== undefined) r.result = x.result;
      if (x.inputRequests !== undefined) r.inputRequests = x.inputRequests;
      if (x.fields !== undefined) r.fields = x.fields;
    }
    return r;
  }
}

/**
 * The string, flat. V8 keeps a string built by concatenation as a tree of pieces
 * until something needs it whole: a `randomUUID()` is about twenty pieces, some
 * 490 heap bytes, where its 36 characters flat take 64. Converting it to a
 * number flattens it in place (the pieces become garbage); the result is
 * compared so the conversion cannot be dropped as unused.
 */
function flat(s: string): string {
  return Number(s) === Number.MIN_VALUE ? `${s}` : s;
}

/**
 * A deep, frozen copy of plain JSON data (what records hold): taken once when a
 * value enters the store, then shared by every record handed out. An own
 * "__proto__" key stays a key.
 */
function frozenCopy<V>(value: V): V {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as V;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const v = frozenCopy((value as Record<string, unknown>)[key]);
    if (key === "__proto__") Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return Object.freeze(out) as V;
}

/**
 * One owner's live tasks in creation order, as sorted chunks of slots: insertion
 * at the end is O(1), removal O(log n + chunk), and a page after a given
 * sequence number O(log n + page).
 */
class OrderedIndex {
  private chunks: Slot[][] = [];
  size = 0;

  readonly owner: string;

  /** `owner` becomes the one string all of the owner's slots share. */
  constructor(owner: string) {
    this.owner = flat(owner);
  }

  /** Appends a slot; slots arrive in increasing seq (the store assigns them). */
  push(s: Slot): void {
    const last = this.chunks[this.chunks.length - 1];
    if (last === undefined || last.length >= CHUNK) this.chunks.push([s]);
    else last.push(s);
    this.size++;
  }

  /** The first chunk whose last slot has seq >= n (or the last chunk). */
  private chunkFor(n: number): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = this.chunks[mid]!;
      if (c[c.length - 1]!.seq < n) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  remove(s: Slot): boolean {
    if (this.chunks.length === 0) return false;
    const c = this.chunkFor(s.seq);
    const chunk = this.chunks[c]!;
    const i = lowerBound(chunk, s.seq);
    if (chunk[i] !== s) return false;
    chunk.splice(i, 1);
    if (chunk.length === 0) this.chunks.splice(c, 1);
    this.size--;
    return true;
  }

  /** Up to `limit` slots with seq greater than `after`, plus whether more follow. */
  after(after: number, limit: number): { items: Slot[]; hasMore: boolean } {
    const items: Slot[] = [];
    if (this.chunks.length === 0) return { items, hasMore: false };
    let c = this.chunkFor(after + 1);
    let i = lowerBound(this.chunks[c]!, after + 1);
    while (c < this.chunks.length) {
      const chunk = this.chunks[c]!;
      for (; i < chunk.length; i++) {
        if (items.length === limit) return { items, hasMore: true };
        items.push(chunk[i]!);
      }
      c++;
      i = 0;
    }
    return { items, hasMore: false };
  }
}

function lowerBound(a: readonly Slot[], n: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]!.seq < n) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The live tasks with a deadline, as a binary min-heap on `expiresAt` that knows
 * each slot's position (`heapIndex`): a changed deadline moves its slot in place
 * and a removed task leaves the heap at once, so the heap holds one array slot
 * per scheduled task and nothing stale.
 */
class DeadlineHeap {
  private a: Slot[] = [];
  peek(): Slot | undefined {
    return this.a[0];
  }
  /** Inserts the slot, or moves it after its `expiresAt` changed. */
  upsert(s: Slot): void {
    if (s.heapIndex < 0) {
      s.heapIndex = this.a.length;
      this.a.push(s);
    }
    this.down(this.up(s.heapIndex));
  }
  remove(s: Slot): void {
    const i = s.heapIndex;
    if (i < 0) return;
    s.heapIndex = -1;
    const last = this.a.pop()!;
    if (last === s) return;
    this.a[i] = last;
    last.heapIndex = i;
    this.down(this.up(i));
  }
  private up(i: number): number {
    const a = this.a;
    const s = a[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]!.expiresAt! <= s.expiresAt!) break;
      a[i] = a[p]!;
      a[i]!.heapIndex = i;
      i = p;
    }
    a[i] = s;
    s.heapIndex = i;
    return i;
  }
  private down(i: number): void {
    const a = this.a;
    const s = a[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const m = r < a.length && a[r]!.expiresAt! < a[l]!.expiresAt! ? r : l;
      if (a[m]!.expiresAt! >= s.expiresAt!) break;
      a[i] = a[m]!;
      a[i]!.heapIndex = i;
      i = m;
    }
    a[i] = s;
    s.heapIndex = i;
  }
}

/** Tasks whose retention elapsed, remembered until `forgetAt`, in the order they expired. */
interface Gone {
  taskId: string;
  owner: string;
  forgetAt: number;
}

/**
 * The in-memory store. Tasks are removed when `expiresAt` passes and
 * then remembered as expired for `rememberExpiredMs`; one timer serves both
 * deadlines (the heap's earliest expiry, the oldest remembered task).
 *
 * Records cross the interface as fresh objects: callers may keep them, and
 * nothing they do to them reaches the store. Their nested values (result,
 * error, inputRequests) are frozen and shared between reads.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Slot>();
  private readonly expired = new Map<string, Gone>();
  /** The remembered tasks in expiry order (a queue: `goneHead` is its front). */
  private gone: Gone[] = [];
  private goneHead = 0;
  private readonly owners = new Map<string, OrderedIndex>();
  private readonly heap = new DeadlineHeap();
  private readonly timer = new DeadlineTimer(
    () => {
      this.sweep();
      this.arm();
    },
    () => this.now(),
  );
  private seq = 0;
  private readonly rememberExpiredMs: number;
  private readonly now: () => number;
  /** Only with an injected clock (see InMemoryTaskStoreOptions.now): a clock read costs up to ~250 ns on some VMs. */
  private readonly lookupsReadClock: boolean;
  private closed = false;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.rememberExpiredMs = options.rememberExpiredMs ?? 600_000;
    this.now = options.now ?? Date.now;
    this.lookupsReadClock = options.now !== undefined;
  }

  /** Live tasks held. */
  get size(): number {
    return this.tasks.size;
  }

  async create(record: Omit<TaskRecord, "seq">): Promise<TaskRecord | undefined> {
    if (this.tasks.has(record.taskId) || this.expired.has(record.taskId)) return undefined;
    let idx = this.owners.get(record.owner);
    if (!idx) this.owners.set(record.owner, (idx = new OrderedIndex(record.owner)));
    const slot = new Slot(record, idx.owner, ++this.seq);
    this.tasks.set(slot.taskId, slot);
    idx.push(slot);
    if (slot.expiresAt !== null) this.schedule(slot);
    return slot.toRecord();
  }

  async get(taskId: string): Promise<TaskLookup> {
    if (this.lookupsReadClock) this.sweep();
    const slot = this.tasks.get(taskId);
    if (slot) return { state: "live", record: slot.toRecord() };
    const gone = this.expired.get(taskId);
    if (gone) return { state: "expired", owner: gone.owner, taskId };
    return undefined;
  }

  async update(taskId: string, expected: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    const slot = this.tasks.get(taskId);
    if (!slot || slot.status !== expected) return undefined;
    const before = slot.expiresAt;
    slot.apply(patch);
    if (slot.expiresAt !== before) {
      if (slot.expiresAt === null) this.heap.remove(slot);
      else this.schedule(slot);
    }
    return slot.toRecord();
  }

  async delete(taskId: string): Promise<boolean> {
    const slot = this.tasks.get(taskId);
    if (!slot) return this.expired.delete(taskId);
    this.removeLive(slot);
    return true;
  }

  async list(owner: string, afterSeq: number, limit: number): Promise<{ records: TaskRecord[]; hasMore: boolean }> {
    if (this.lookupsReadClock) this.sweep();
    const idx = this.owners.get(owner);
    if (!idx) return { records: [], hasMore: false };
    const { items, hasMore } = idx.after(afterSeq, limit);
    return { records: items.map((s) => s.toRecord()), hasMore };
  }

  async listByStatus(statuses: readonly string[], afterSeq: number, limit: number): Promise<{ records: TaskRecord[]; hasMore: boolean }> {
    if (this.lookupsReadClock) this.sweep();
    const wanted = new Set(statuses);
    const records: TaskRecord[] = [];
    // The map keeps insertion order, which is creation order (an id taken again gets a new, larger seq).
    for (const slot of this.tasks.values()) {
      if (slot.seq <= afterSeq || !wanted.has(slot.status)) continue;
      if (records.length === limit) return { records, hasMore: true };
      records.push(slot.toRecord());
    }
    return { records, hasMore: false };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timer.clear();
  }

  private removeLive(slot: Slot): void {
    this.tasks.delete(slot.taskId);
    this.heap.remove(slot);
    const idx = this.owners.get(slot.owner);
    if (idx) {
      idx.remove(slot);
      if (idx.size === 0) this.owners.delete(slot.owner);
    }
  }

  private schedule(slot: Slot): void {
    this.heap.upsert(slot);
    this.arm();
  }

  /** The earliest deadline: the heap's first expiry or the oldest remembered task's forgetting. */
  private nextDeadline(): number {
    const top = this.heap.peek();
    const old = this.gone[this.goneHead];
    return Math.min(top === undefined ? Infinity : top.expiresAt!, old === undefined ? Infinity : old.forgetAt);
  }

  /** (Re)arms the single timer for the earliest deadline. */
  private arm(): void {
    if (this.closed) return;
    const at = this.nextDeadline();
    if (at !== Infinity) this.timer.armAt(at);
  }

  /** Applies every deadline that has passed. */
  private sweep(): void {
    // Without deadlines there is nothing to compare, so no clock read (one costs ~100 ns on some VMs).
    if (this.heap.peek() === undefined && this.gone.length === this.goneHead) return;
    const now = this.now();
    for (let top = this.heap.peek(); top !== undefined && top.expiresAt! <= now; top = this.heap.peek()) {
      this.removeLive(top);
      // Never before the newest remembered task: the queue stays in forgetting order (a deadline moved
      // into the past after a sweep expires late, and is remembered for at least rememberExpiredMs).
      const newest = this.gone.length > this.goneHead ? this.gone[this.gone.length - 1]!.forgetAt : -Infinity;
      const gone: Gone = { taskId: top.taskId, owner: top.owner, forgetAt: Math.max(newest, top.expiresAt! + this.rememberExpiredMs) };
      this.expired.set(top.taskId, gone);
      this.gone.push(gone);
    }
    // An entry deleted meanwhile is no longer the map's.
    for (let old = this.gone[this.goneHead]; old !== undefined && old.forgetAt <= now; old = this.gone[this.goneHead]) {
      this.gone[this.goneHead++] = undefined as never;
      if (this.expired.get(old.taskId) === old) this.expired.delete(old.taskId);
    }
    if (this.goneHead > 1024 && this.goneHead * 2 > this.gone.length) {
      this.gone = this.gone.slice(this.goneHead);
      this.goneHead = 0;
    }
  }
}
