// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Audit events and log entries: what the runtime reports about the tasks it
 * serves, and the default sink (one JSON line on stderr, never stdout, which
 * may carry JSON-RPC).
 */

/** One audit event. */
export interface AuditEvent<S extends string = string> {
  type: "created" | "status" | "result" | "deleted" | "denied";
  /** ISO 8601. */
  at: string;
  taskId?: string | undefined;
  /** The requestor key the task is bound to. */
  owner: string;
  sessionId?: string | undefined;
  clientId?: string | undefined;
  method?: string | undefined;
  from?: S | undefined;
  to?: S | undefined;
  reason?: string | undefined;
}

/** A structured log entry (illegal transitions, unexpected failures). */
export interface LogEntry {
  level: "info" | "warn" | "error";
  msg: string;
  [key: string]: unknown;
}

/** Writes one JSON line to stderr. */
export function stderrLine(obj: unknown): void {
  process.stderr.write(JSON.stringify(obj) + "\n");
}
