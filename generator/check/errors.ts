/** `errors`: codes in the ranges JSON-RPC and MCP leave to applications, and message templates. */
import { suggest, type Ctx } from "./context.js";

/** The codes JSON-RPC 2.0 defines. */
export const JSONRPC_STANDARD_CODES = new Set([-32700, -32600, -32601, -32602, -32603]);

/** The codes MCP 2026-07-28 (the per-request core) defines in its reserved -32020..-32099: header mismatch, missing client capability, unsupported protocol version. */
export const PER_REQUEST_CORE_CODES = new Set([-32020, -32021, -32022]);

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
    for (const m of e.message.matchAll(/\{([^{}]*)\}/g)) {
      const name = m[1];
      used.add(name);
      if (!ctx.has(name)) {
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
