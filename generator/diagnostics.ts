/**
 * Diagnostics are data: a code, a severity, a location and a message that says
 * what to do. Every code the compiler can report is listed in CODES with a
 * one-line summary, so the README and the tests can enumerate them.
 */

export type Severity = "error" | "warning";

export interface Location {
  file: string;
  line: number; // 1-based
  col: number; // 1-based
  /** The text of the line, for an excerpt. */
  lineText?: string;
  /** The length of the span on that line (for the caret). */
  length?: number;
}

export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  location?: Location;
  /** The path in the spec document, e.g. ["types", "Task", "fields"]. */
  path?: (string | number)[];
}

export const CODES = {
  MTG001: "the file cannot be read, or is larger than a spec can be",
  MTG002: "YAML or JSON syntax error",
  MTG003: "the document is not a mapping",
  MTG004: "the document nests mappings and lists too deeply",
  MTG010: "unknown key",
  MTG011: "a value has the wrong type or shape",
  MTG012: "a required key is missing",
  MTG020: "reference to an undefined type",
  MTG021: "reference to an undefined state",
  MTG022: "reference to an undefined method",
  MTG023: "reference to an undefined error",
  MTG024: "reference to an undefined meta entry",
  MTG025: "reference to an undefined guard",
  MTG026: "a type reference in a shorthand is not a primitive or a declared type",
  MTG030: "duplicate name",
  MTG031: "a name JavaScript gives a meaning to: `__proto__` anywhere, or `constructor` / `prototype` in a path",
  MTG032: "a declared name collides with a name the generated code declares",
  MTG040: "no initial state",
  MTG041: "more than one initial state",
  MTG042: "a transition leaves a terminal state",
  MTG043: "a state is unreachable from the initial state",
  MTG044: "a non-terminal state cannot reach a terminal state",
  MTG045: "a behaviour names a state whose role the runtime treats otherwise than the behaviour promises",
  MTG046: "a terminal state has a non-terminal role, or the reverse",
  MTG047: "a duplicate transition",
  MTG050: "an error code outside the JSON-RPC ranges",
  MTG051: "a message placeholder the error's context cannot fill",
  MTG052: "an error context value that the message never uses",
  MTG053: "an error reuses a JSON-RPC standard code with another meaning (-32700 for anything, -32601 for anything but a method not served)",
  MTG060: "a behaviour is incomplete: a property its mode needs is missing",
  MTG061: "a behaviour names a property that does not exist on the type it points at",
  MTG062: "a discriminated union whose variants lack the discriminator, or, over the task's states, leave out a state of a role they cover",
  MTG063: "a recursive type with no way to end",
  MTG064: "a method is declared but no behaviour or example uses it",
  MTG065: "a type defined by itself: a cycle of references and union variants with no object, array or record in between",
  MTG066: "a type expression nested too deeply",
  MTG067: "a task request whose operation is missing, ambiguous or cannot succeed",
  MTG068: "an event leads to a state the transition table does not reach from every state it can happen in",
  MTG069: "the spec asks for what the SDK or binding underneath cannot carry",
  MTG070: "a default value that does not fit its field's type",
  MTG071: "an example names an undefined method or type",
  MTG072: "a field the runtime fills is declared with a type that what it writes there does not fit",
  MTG073: "the spec asks for something the generated runtime does not carry out",
  MTG074: "a declared value that does not fit its declared type",
  MTG075: "a failure of the work or an expiry leads to a state the transition table reaches only through a guard that does not hold before the work sets anything (or an answered input through one that does not hold once all are answered), so the task could stay where it is for ever",
  MTG080: "an invalid regular expression",
  MTG081: "an HTTP header name that is not an HTTP token",
  MTG082: "a `_meta` key outside MCP's key format",
  MTG083: "a field path that is not a dotted path of identifiers",
  MTG090: "the configuration file is invalid",
} as const satisfies Record<string, string>;

export type Code = keyof typeof CODES;

export function diag(
  code: Code,
  severity: Severity,
  message: string,
  path?: (string | number)[],
  location?: Location,
): Diagnostic {
  return { code, severity, message, path, location };
}

/** `file:line:col severity CODE message` with an excerpt and a caret. */
export function formatDiagnostic(d: Diagnostic, opts: { color?: boolean } = {}): string {
  const where = d.location ? `${d.location.file}:${d.location.line}:${d.location.col}` : "<spec>";
  const sev = opts.color ? (d.severity === "error" ? "\x1b[31merror\x1b[0m" : "\x1b[33mwarning\x1b[0m") : d.severity;
  let out = `${where} ${sev} ${d.code} ${d.message}`;
  if (d.location?.lineText !== undefined) {
    const lineNo = String(d.location.line);
    const text = d.location.lineText.replace(/\t/g, " ");
    out += `\n  ${lineNo} | ${text}`;
    const len = Math.max(1, Math.min(d.location.length ?? 1, Math.max(1, text.length - d.location.col + 1)));
    out += `\n  ${" ".repeat(lineNo.length)} | ${" ".repeat(Math.max(0, d.location.col - 1))}${"^".repeat(len)}`;
  }
  return out;
}

export function hasErrors(diags: readonly Diagnostic[], warnAsError = false): boolean {
  return diags.some((d) => d.severity === "error" || (warnAsError && d.severity === "warning"));
}

export function sortDiagnostics(diags: Diagnostic[]): Diagnostic[] {
  return diags.sort(
    (a, b) =>
      (a.location?.line ?? 0) - (b.location?.line ?? 0) ||
      (a.location?.col ?? 0) - (b.location?.col ?? 0) ||
      a.code.localeCompare(b.code) ||
      a.message.localeCompare(b.message),
  );
}
