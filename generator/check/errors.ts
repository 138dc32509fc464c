/** `errors`: codes in the ranges JSON-RPC and MCP leave to applications, and message templates. */
import { suggest, type Ctx } from "./context.js";

/** A message template's tokens: an escaped brace ({{ or }}), or a placeholder {name} (group 1). */
export const TEMPLATE_TOKEN = /\{\{|\}\}|\{([^{}]*)\}/g;

/** The codes JSON-RPC 2.0 defines. */
export const JSONRPC_STANDARD_CODES = new Set([-32700, -32600, -32601, -32602, -32603]);

/** The codes MCP 2026-07-28 (the per-request core) defines in its reserved -32020..-32099: header mismatch, missing client capability, unsupported protocol version. */
export const PER_REQUEST_CORE_CODES = new Set([-32020, -32021, -32022]);

/**
 * Where a spec may answer -32601 (Method not found): where the request is, for this receiver, a method it
 * does not serve (a tool that refuses or requires tasks, a method the spec leaves unsupported, a method
 * the requestor's capabilities do not allow, a request served only as a task).
 */
function methodNotFoundUses(spec: Ctx["spec"]): Set<string> {
  const b = spec.behaviour;
  const cr = b.creation;
  const out = new Set<string>();
  const add = (n: string | false | undefined) => n && out.add(n);
  if (cr.toolSwitch) {
    add(cr.toolSwitch.forbiddenError);
    add(cr.toolSwitch.requiredError);
  }
  add(cr.requiredTaskError);
  add(b.unsupportedMethods?.error);
  for (const side of ["server", "client"] as const) {
    const cap = b.capabilities[side];
    if (cap) add(cap.missingError);
  }
  return out;
}

/** The behaviour paths that name each error, with what they mean. */
function errorUses(spec: Ctx["spec"]): Map<string, string[]> {
  const b = spec.behaviour;
  const cr = b.creation;
  const uses = new Map<string, string[]>();
  const use = (n: string | false | undefined, what: string) => {
    if (!n) return;
    uses.set(n, [...(uses.get(n) ?? []), what]);
  };
  use(cr.taskId.duplicateError, "creation.taskId.duplicateError (an id already taken)");
  if (b.retention) use(b.retention.expiredError, "retention.expiredError (a task past its retention)");
  use(b.results.notReadyError, "results.notReadyError (a result not ready yet)");
  use(b.results.cancelledError, "results.cancelledError (the result of a cancelled task)");
  use(b.cancellation.terminalError, "cancellation.terminalError (cancelling an ended task)");
  use(b.cancellation.deleteRefusedError, "cancellation.deleteRefusedError (a task that may not be deleted)");
  if (b.listing) use(b.listing.invalidCursorError, "listing.invalidCursorError (a cursor the server did not give)");
  use(b.notFoundError, "notFoundError (an unknown task id)");
  use(b.internalError, "internalError (the server's own failure)");
  if (b.http) use(b.http.mismatchError, "http.mismatchError (a header that disagrees with the body)");
  use(b.limits.rateLimitError, "limits.rateLimitError (too many requests)");
  use(b.limits.concurrencyError, "limits.concurrencyError (too many live tasks)");
  return uses;
}

/**
 * JSON-RPC's standard codes keep their meaning: -32700 is only ever the answer to text that is not JSON
 * (a server that read a request cannot answer it), and -32601 tells a client the method does not exist,
 * which a client acts on (it stops calling it).
 */
export function checkStandardCodeMeanings(ctx: Ctx): void {
  const { spec, report } = ctx;
  const methodNotFound = methodNotFoundUses(spec);
  const uses = errorUses(spec);
  for (const [n, e] of Object.entries(spec.errors)) {
    if (e.code === -32700) {
      report(
        "MTG053",
        "error",
        `error '${n}' uses -32700, JSON-RPC's parse error, which only a message that is not JSON gets: a server that read the request cannot answer it, and a client would think its message broken; choose a code of your own (e.g. in -32099..-32000)`,
        ["errors", n, "code"],
      );
    } else if (e.code === -32601 && !methodNotFound.has(n)) {
      const used = uses.get(n);
      if (used === undefined) continue;
      report(
        "MTG053",
        "error",
        `error '${n}' uses -32601 (Method not found) but the spec answers it for ${used.join(", ")}: a client reads -32601 as "this method does not exist here" and stops calling it; choose a code of your own (e.g. in -32099..-32000)`,
        ["errors", n, "code"],
      );
    }
  }
}

/** Each error's code range, and the placeholders of its message against its context. */
export function checkErrors(ctx: Ctx): void {
  const { spec, report } = ctx;
  // The core under a per-request lifecycle (MCP 2026-07-28) splits the server range: -32000..-32019 is
  // legacy (new code SHOULD NOT use it), -32020..-32099 belongs to the core specification, and
  // application-specific codes SHOULD lie outside -32768..-32000. Older cores only know JSON-RPC's ranges.
  const perRequestCore = spec.protocol.lifecycle === "per-request";
  for (const [n, e] of Object.entries(spec.errors)) {
    const c = e.code;
    const reservedBlock = c >= -32768 && c <= -32000;
    const serverRange = c >= -32099 && c <= -32000;
    if (reservedBlock && !serverRange && !JSONRPC_STANDARD_CODES.has(c)) {
      report(
        "MTG050",
        "error",
        `code ${c} lies in JSON-RPC's reserved block (-32768..-32000) but is not a standard code (-32700, -32600..-32603) nor in the server range (-32099..-32000); choose another code`,
        ["errors", n, "code"],
      );
    } else if (perRequestCore) {
      if (c >= -32019 && c <= -32000) {
        report(
          "MTG050",
          "warning",
          `code ${c} lies in -32000..-32019, which the per-request core (MCP 2026-07-28) calls legacy: new code SHOULD NOT use it; allocate an application-specific code outside -32768..-32000`,
          ["errors", n, "code"],
        );
      } else if (serverRange && !PER_REQUEST_CORE_CODES.has(c)) {
        report(
          "MTG050",
          "warning",
          `code ${c} lies in -32020..-32099, which the per-request core (MCP 2026-07-28) reserves for codes it defines (${[...PER_REQUEST_CORE_CODES].join(", ")}); allocate an application-specific code outside -32768..-32000`,
          ["errors", n, "code"],
        );
      }
    } else if (!reservedBlock && !JSONRPC_STANDARD_CODES.has(c)) {
      report(
        "MTG050",
        "warning",
        `code ${c} is outside the JSON-RPC ranges (standard -32700, -32600..-32603; server -32099..-32000); MCP peers may not recognise it; prefer a server code (-32099..-32000)`,
        ["errors", n, "code"],
      );
    }
    const ctx = new Set(Object.keys(e.context ?? {}));
    const used = new Set<string>();
    for (const m of e.message.matchAll(TEMPLATE_TOKEN)) {
      const name = m[1];
      if (name === undefined) continue;
      used.add(name);
      if (name === "" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        report("MTG051", "error", `placeholder {${name}} is no name the context could fill; for literal braces write {{ and }} (e.g. {{${name}}})`, ["errors", n, "message"]);
      } else if (!ctx.has(name)) {
        report(
          "MTG051",
          "error",
          `placeholder {${name}} has no value: declare '${name}' under this error's \`context\`${suggest(name, ctx)}`,
          ["errors", n, "message"],
        );
      }
    }
    for (const k of ctx) {
      if (!used.has(k)) report("MTG052", "warning", `context value '${k}' is never used in the message; use {${k}} in the message or remove it`, ["errors", n, "context", k], true);
    }
  }
}
