// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
// One mapping between a task record and the columns of a SQL store's `tasks` table, shared by the
// SQLite and PostgreSQL stores so that a field added to TaskRecord is stored the same way in both.

import type { TaskPatch, TaskRecord } from "./store.js";

/** What a column holds: a number, a string, or JSON text of any value. */
type ColumnKind = "number" | "string" | "json";

type Column = readonly [field: keyof TaskRecord, column: string, kind: ColumnKind, optional: boolean];

/** The task record's columns, in the order a store's INSERT lists them (`seq` is the store's own). */
const COLUMNS: readonly Column[] = [
  ["taskId", "task_id", "string", false],
  ["owner", "owner", "string", false],
  ["status", "status", "string", false],
  ["method", "method", "string", false],
  ["requestId", "request_id", "json", false],
  ["createdAt", "created_at", "number", false],
  ["updatedAt", "updated_at", "number", false],
  ["terminalAt", "terminal_at", "number", false],
  ["keepAlive", "keep_alive", "number", false],
  ["pollFrequency", "poll_frequency", "number", false],
  ["expiresAt", "expires_at", "number", false],
  ["pendingInputs", "pending_inputs", "number", false],
  ["statusMessage", "status_message", "string", true],
  ["error", "error", "json", true],
  ["result", "result", "json", true],
  ["inputRequests", "input_requests", "json", true],
  ["fields", "fields", "json", true],
  ["runner", "runner", "string", true],
];

/** The fields a TaskPatch may change. */
const PATCHABLE: ReadonlySet<keyof TaskRecord> = new Set<keyof TaskPatch>([
  "status",
  "updatedAt",
  "terminalAt",
  "keepAlive",
  "pollFrequency",
  "expiresAt",
  "pendingInputs",
  "statusMessage",
  "error",
  "result",
  "inputRequests",
  "fields",
  "runner",
]);

export interface TaskRowsOptions {
  /**
   * How strings are stored: as they are, or as JSON text (PostgreSQL's TEXT cannot hold U+0000,
   * which a task id or a status message may contain).
   */
  strings: "plain" | "json";
  /** Record fields the table has no column for (an older schema, or a store that does not use them). */
  without?: readonly (keyof TaskRecord)[];
}

/** A SQL store's rows: the columns it writes and how a record is written to and read from them. */
export class TaskRows {
  private readonly columns: readonly Column[];
  private readonly patchable: readonly Column[];

  constructor(private readonly options: TaskRowsOptions) {
    const without = new Set(options.without ?? []);
    this.columns = COLUMNS.filter(([field]) => !without.has(field));
    this.patchable = this.columns.filter(([field]) => PATCHABLE.has(field));
  }

  /** The columns an INSERT names, in the order of {@link insertValues}. */
  get insertColumns(): readonly string[] {
    return this.columns.map(([, column]) => column);
  }

  /** The values of a new record, in the order of {@link insertColumns}. */
  insertValues(record: Omit<TaskRecord, "seq">): unknown[] {
    return this.columns.map(([field, , kind]) => this.encode(kind, record[field as keyof typeof record]));
  }

  /** The columns a patch sets and their values (the SQL is built from this fixed list, never from the patch's keys). */
  patch(patch: TaskPatch): { columns: string[]; values: unknown[] } {
    const present = this.patchable.filter(([field]) => patch[field as keyof TaskPatch] !== undefined);
    return {
      columns: present.map(([, column]) => column),
      values: present.map(([field, , kind]) => this.encode(kind, patch[field as keyof TaskPatch])),
    };
  }

  /** The text a string column holds for `value` (for a WHERE clause on task_id, owner or status). */
  text(value: string): string {
    return this.options.strings === "json" ? JSON.stringify(value) : value;
  }

  /** The record a row holds. */
  toRecord(row: Record<string, unknown>): TaskRecord {
    const record: Record<string, unknown> = { seq: num(row.seq) };
    for (const [field, column, kind, optional] of this.columns) {
      const v = row[column];
      if (v === null || v === undefined) {
        if (!optional) record[field] = null;
        continue;
      }
      record[field] = this.decode(kind, v);
    }
    return record as unknown as TaskRecord;
  }

  /** A string column's value as read back. */
  readText(v: unknown): string {
    return this.options.strings === "json" ? (JSON.parse(v as string) as string) : (v as string);
  }

  private encode(kind: ColumnKind, v: unknown): unknown {
    if (v === undefined || v === null) return null;
    if (kind === "json") return JSON.stringify(v);
    if (kind === "string") return this.text(v as string);
    return v;
  }

  private decode(kind: ColumnKind, v: unknown): unknown {
    if (kind === "json") return JSON.parse(v as string);
    if (kind === "string") return this.readText(v);
    return num(v);
  }
}

/** A number column's value (PostgreSQL's BIGINT comes back as a string; epoch ms and sequence numbers fit a double). */
function num(v: unknown): number {
  return typeof v === "number" ? v : Number(v);
}
