// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Protocol errors: the class every task error is thrown as, and the catalog
 * (declared code, message template, context) the runtime builds them from.
 */

/** A JSON-RPC error of the task protocol. `toJSON()` gives the wire error object. */
export class TaskProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;
  /** The catalog name, e.g. "taskNotFound". */
  readonly errorName: string;
  /** The HTTP status that carries it over Streamable HTTP, if the spec declares one. */
  readonly httpStatus: number | undefined;
  constructor(errorName: string, code: number, message: string, data?: unknown, httpStatus?: number) {
    super(message);
    this.name = "TaskProtocolError";
    this.errorName = errorName;
    this.code = code;
    this.data = data;
    this.httpStatus = httpStatus;
  }
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

/** One declared error. */
export interface ErrorDecl {
  readonly code: number;
  /** The message, with `{name}` placeholders filled from the context. */
  readonly message: string;
  /** The context values the message reads, each with the value used when a caller has none. */
  readonly context: Readonly<Record<string, string | number | boolean>>;
  readonly httpStatus?: number;
  /** When the error declares an object `data`: its first field (e.g. requiredCapabilities). */
  readonly dataField?: string;
}

export type ErrorCatalog = Readonly<Record<string, ErrorDecl>>;

/** Fills `{name}` placeholders of a declared message (`{{` and `}}` are literal braces); an unknown name stays as written. */
export function formatMessage(template: string, ctx: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, key: string | undefined) =>
    key === undefined ? whole[0]! : Object.prototype.hasOwnProperty.call(ctx, key) ? String(ctx[key]) : whole,
  );
}

/** The error `name` of the catalog with its context, or `fallback()` when the spec declares no such error. */
export function declaredError(
  catalog: ErrorCatalog,
  name: string | undefined,
  ctx: Readonly<Record<string, unknown>>,
  fallback: () => TaskProtocolError,
  data?: unknown,
): TaskProtocolError {
  const decl = name === undefined || !Object.prototype.hasOwnProperty.call(catalog, name) ? undefined : catalog[name];
  if (decl === undefined) return fallback();
  return new TaskProtocolError(name!, decl.code, formatMessage(decl.message, { ...decl.context, ...ctx }), data, decl.httpStatus);
}

/** A -32602 error whose message goes on the wire unchanged. */
export function invalidParams(message: string): TaskProtocolError {
  return new TaskProtocolError("invalidParams", -32602, message);
}

/** The answer to a request met by the store's database being away, where the spec declares none. */
const UNAVAILABLE = { code: -32002, message: "The task store is unavailable for a moment: retry shortly", data: { retryable: true, retryAfterMs: 1000 } } as const;

/**
 * The database behind a store or a queue cannot be reached for now (it restarts, is recovering, refuses
 * connections): a passing condition, worth retrying. Its message names no host, port or server text; the
 * driver's error stays in `cause` for the logs. Where it reaches a requestor through a path that does not
 * map it to the spec's error, its code, message and data are the runtime's default for it.
 */
export class DatabaseUnavailableError extends Error {
  readonly unavailable = true;
  readonly code = UNAVAILABLE.code;
  readonly data = UNAVAILABLE.data;
  constructor(cause?: unknown) {
    super(UNAVAILABLE.message);
    withCause(this, cause);
    this.name = "DatabaseUnavailableError";
  }
}

/**
 * Gives `error` its `cause` as `new Error(message, { cause })` does (an own, non-enumerable property),
 * written so that the runtime type-checks with a `lib` older than ES2022, where Error takes no options.
 */
export function withCause<E extends Error>(error: E, cause: unknown): E {
  Object.defineProperty(error, "cause", { value: cause, writable: true, configurable: true });
  return error;
}

/** Driver error codes of a connection that failed or was lost (Node's and pg's). */
const LOST_CONNECTION = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ECONNABORTED"]);
/**
 * PostgreSQL states of a server that is going away or not ready yet: class 08 (connection exception),
 * shutdown by the administrator or a crash, "the database system is starting up", too many connections.
 */
const PASSING_STATES = new Set(["57P01", "57P02", "57P03", "53300", "53400"]);
/** Messages pg gives a connection lost mid-way, without a code. */
const LOST_MESSAGES = /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout|Connection timed out/i;

/** Whether `e` says the database is out of reach for now (as opposed to a mistake in a query or a refusal). */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x !== null && typeof x === "object" && depth < 4; x = (x as { cause?: unknown }).cause, depth++) {
    if (x instanceof DatabaseUnavailableError || (x as { unavailable?: unknown }).unavailable === true) return true;
    const code = (x as { code?: unknown }).code;
    if (typeof code === "string" && (LOST_CONNECTION.has(code) || PASSING_STATES.has(code) || code.startsWith("08"))) return true;
    const message = (x as { message?: unknown }).message;
    if (typeof message === "string" && LOST_MESSAGES.test(message)) return true;
  }
  return false;
}

/**
 * The answer to a request made while the task store's database is away: the spec's `storeUnavailable`
 * error where its catalogue declares one, else -32002 with a message and `data.retryable` that say to
 * retry. `error` is the runtime plan's catalogue lookup.
 */
export function unavailableError(error: (name: string, ctx: Record<string, unknown>, fallback: () => TaskProtocolError, data?: unknown) => TaskProtocolError): TaskProtocolError {
  const data = { ...UNAVAILABLE.data };
  return error("storeUnavailable", {}, () => new TaskProtocolError("storeUnavailable", UNAVAILABLE.code, UNAVAILABLE.message, data), data);
}

/** Waits `ms`, or less once `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // Not unref'd: a process waiting for its database stays up for it.
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Runs `op` until it succeeds, retrying while it fails because the database is away, with a backoff
 * from 200 ms doubling up to `maxDelayMs` (default 5 s), for at most `forMs` (default: for as long as
 * it takes) or until `signal` aborts. `onWait` hears of each failed attempt and the next delay; any other
 * error is thrown at once.
 */
export async function untilDatabaseBack<T>(
  op: () => Promise<T>,
  options: { forMs?: number; maxDelayMs?: number; signal?: AbortSignal; onWait?: (attempt: number, delayMs: number, error: unknown) => void } = {},
): Promise<T> {
  const start = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (!isDatabaseUnavailable(e) || options.signal?.aborted === true) throw e;
      const delay = Math.min(options.maxDelayMs ?? 5000, 200 * 2 ** Math.min(attempt - 1, 10));
      if (options.forMs !== undefined && Date.now() - start + delay > options.forMs) throw e;
      options.onWait?.(attempt, delay, e);
      await pause(delay, options.signal);
    }
  }
}
