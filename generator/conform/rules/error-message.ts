/** Rule `error-message`: Every error the server answers says what went wrong, with each placeholder of a declared message filled; a declared error that is expected comes with the declared message (placeholders match any text). */
import type { SpecModel } from "../model.js";
import { checked, defineRule, fail } from "../rule.js";
import type { JsonRpcError } from "../wire.js";

export const errorMessage = defineRule({
  name: "error-message",
  description: "Every JSON-RPC error the server answers, whatever request it answers, has a message that says what went wrong (not empty, not only a number or the word error), with each placeholder of a declared message of its code filled; every declared error that is expected comes with the declared message (placeholders match any text).",
  statements: [
    "ext-tasks-2026-07-28/errors.informative-messages",
    "mcp-2025-11-25/errors.informative-messages",
    "sep-1686-draft/errors.informative-messages",
  ],
  reads: ["errors"],
});

/** A message that names no cause: nothing, only numbers and signs, or only "error" ("Error", "Unknown error", "Error -32602"). */
const BARE = /^[^\p{L}]*(?:(?:an?\s+)?(?:unknown\s+)?error(?:\s+occurred)?)?[^\p{L}]*$/iu;

/** Whether a message says more than nothing about the cause of an error. */
export const informative = (message: string): boolean => !BARE.test(message);

/**
 * Every error the server answered (`seen`, with the method of the request it answers): its message says what went
 * wrong, and leaves no placeholder of a declared message of its code unfilled. Which declared error an error no
 * check expected is, its code does not tell (several causes share a code, and a protocol that defines a code may
 * leave its text free, as core MCP does for -32020): the declared message itself is required where a check expects
 * the declared error (`expectError`).
 */
export function checkErrorMessages(model: SpecModel, seen: readonly { method: string; error: JsonRpcError }[]): void {
  for (const { method, error } of seen) {
    checked(errorMessage);
    const what = `${method} answered error ${error.code}`;
    if (!informative(error.message)) fail(errorMessage, `${what} with the message ${JSON.stringify(error.message)}, which does not say what went wrong`, "a message that describes the cause", error);
    const declared = model.ir.errors.filter((e) => e.code === error.code);
    const unfilled = declared.flatMap((e) => e.context.map((c) => `{${c.name}}`)).find((p) => error.message.includes(p));
    if (unfilled !== undefined) fail(errorMessage, `${what} whose message leaves the placeholder ${unfilled} of a declared message unfilled`, declared.map((e) => e.message), error.message);
  }
}
