// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * List cursors: opaque to the requestor, HMAC-signed together with the
 * requestor they were issued to, so a cursor is neither forgeable nor usable by
 * another requestor.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** An opaque list cursor: the position, signed (HMAC-SHA256) together with the requestor it was issued to. */
export function signCursor(secret: Uint8Array | string, owner: string, seq: number): string {
  const payload = Buffer.from(JSON.stringify({ v: 1, s: seq })).toString("base64url");
  return `${payload}.${cursorMac(secret, owner, payload).toString("base64url")}`;
}

/** The position in a cursor, or undefined when it was not issued by this server to this requestor. */
export function verifyCursor(secret: Uint8Array | string, owner: string, cursor: string): number | undefined {
  const dot = cursor.indexOf(".");
  if (dot <= 0 || cursor.length > 512) return undefined;
  const payload = cursor.slice(0, dot);
  const mac = cursor.slice(dot + 1);
  const given = Buffer.from(mac, "base64url");
  const expected = cursorMac(secret, owner, payload);
  // The round trip rejects a mac that decodes to the right bytes from a different spelling.
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || given.toString("base64url") !== mac) return undefined;
  try {
    const v = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { s?: unknown };
    return typeof v.s === "number" && Number.isSafeInteger(v.s) && v.s >= 0 ? v.s : undefined;
  } catch {
    return undefined;
  }
}

function cursorMac(secret: Uint8Array | string, owner: string, payload: string): Buffer {
  return createHmac("sha256", secret).update(createHash("sha256").update(owner).digest()).update(payload).digest();
}
