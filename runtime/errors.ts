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
