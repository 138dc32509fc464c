// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/// <reference types="node" />
// Input asked before a task exists (TaskContext.elicit / sample on a request of the per-request
// lifecycle): input_required rounds, whose earlier answers travel in an HMAC-protected requestState.

import { createHmac, timingSafeEqual } from "node:crypto";
import type { z } from "zod";
import { inputRequired } from "@modelcontextprotocol/server";
import { invalidParams } from "./errors.js";
import { isObject } from "./plan.js";

/** Thrown through the handler when it asked for input the request does not carry yet. */
export class InputNeeded extends Error {
  constructor() {
    super("input required");
    this.name = "InputNeeded";
  }
}

/**
 * One round of a request whose handler asks for input: the n-th question gets
 * the key `input-<n>` in every round, so a retried request finds its answers
 * under the keys it was asked with. Answers of earlier rounds come back in the
 * requestState, signed with HMAC-SHA256 over the requestor, the method and the
 * name, so a client cannot forge or move them.
 */
export class InputRound {
  private seq = 0;
  private readonly asked: Record<string, { method: string; params: Record<string, unknown> }> = {};
  readonly answers: Record<string, unknown>;

  constructor(
    private readonly secret: string | Uint8Array,
    private readonly scope: string,
    earlier: Record<string, unknown>,
    responses: Record<string, unknown> | undefined,
  ) {
    this.answers = { ...earlier, ...(responses ?? {}) };
  }

  /** The answer to the next question, or a rejection that ends the round. */
  ask(request: { method: string; params?: Record<string, unknown> }, schema: z.ZodType): Promise<unknown> {
    const key = `input-${++this.seq}`;
    if (Object.prototype.hasOwnProperty.call(this.answers, key)) {
      const parsed = schema.safeParse(this.answers[key]);
      if (!parsed.success) {
        return Promise.reject(invalidParams(`Invalid params: inputResponses.${key}: ${parsed.error.issues.map((i) => i.message).join("; ")}`));
      }
      return Promise.resolve(parsed.data);
    }
    this.asked[key] = { method: request.method, params: request.params ?? {} };
    return Promise.reject(new InputNeeded());
  }

  get pending(): boolean {
    return Object.keys(this.asked).length > 0;
  }

  /** The input_required result of this round. */
  result(): Record<string, unknown> {
    const known = Object.keys(this.answers).filter((k) => /^input-\d+$/.test(k));
    const state = known.length ? signState(this.secret, this.scope, Object.fromEntries(known.map((k) => [k, this.answers[k]]))) : undefined;
    return inputRequired({ inputRequests: this.asked as never, ...(state === undefined ? {} : { requestState: state }) }) as unknown as Record<string, unknown>;
  }
}

function mac(secret: string | Uint8Array, scope: string, payload: string): Buffer {
  return createHmac("sha256", secret).update(scope).update("\n").update(payload).digest();
}

/** Answers of earlier rounds as an opaque, integrity-protected requestState. */
export function signState(secret: string | Uint8Array, scope: string, answers: Record<string, unknown>): string {
  const payload = Buffer.from(JSON.stringify({ v: 1, a: answers })).toString("base64url");
  return `${payload}.${mac(secret, scope, payload).toString("base64url")}`;
}

/** The answers in a requestState issued by this server for this scope, or undefined when it was not. */
export function verifyState(secret: string | Uint8Array, scope: string, state: string): Record<string, unknown> | undefined {
  const dot = state.indexOf(".");
  if (dot <= 0 || state.length > 1_000_000) return undefined;
  const payload = state.slice(0, dot);
  const given = Buffer.from(state.slice(dot + 1), "base64url");
  const expected = mac(secret, scope, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { a?: unknown };
    return isObject(v.a) ? v.a : undefined;
  } catch {
    return undefined;
  }
}
