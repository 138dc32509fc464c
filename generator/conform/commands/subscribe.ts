/**
 * A task subscription, where the spec delivers status notifications on one (`statusNotifications.delivery:
 * subscription`, e.g. subscriptions/listen): opened for one of the requestor's tasks and an id it was never given,
 * watched, then cancelled by the requestor; and asked without the opt-in, which is refused.
 */
import { TaskCmd } from "./base.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { streamIds } from "../rules/subscriptions.js";
import { BASE_CAPABILITIES, CLIENT_CAPABILITIES_KEY, taskIn, valueAt } from "../session.js";
import type { Answer, JsonRpcError, Wire } from "../wire.js";
import { count, expectError, isLimitError, isObject, type World } from "../world.js";

/** Core 2026-07-28's names for a subscription stream: the acknowledgement, and the meta key naming the stream. */
export const SUBSCRIPTION_ACK = "notifications/subscriptions/acknowledged";
export const SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Params whose dotted `path` holds `value`. */
function nested(path: readonly string[], value: unknown): Record<string, unknown> {
  return path.reduceRight<Record<string, unknown>>((acc, k, i) => (i === path.length - 1 ? { [k]: value } : { [k]: acc }), {});
}

/** A stream request of the session: its id (once sent), kept among the session's stream ids, and the messages that carry it. */
export interface Stream {
  open: Promise<Answer>;
  id(): number | undefined;
  messages(): Wire["notifications"];
}

/** Sends `method` as a stream request (a subscription, a listen stream). */
export function openStream(w: World, method: string, params: Record<string, unknown>): Stream {
  let id: number | undefined;
  const before = w.session.wire.notifications.length;
  const open = w.session.request(method, params, 60_000, (n) => {
    id = n;
    streamIds.set(w.session, (streamIds.get(w.session) ?? new Set()).add(n));
  });
  void open.catch(() => undefined);
  return {
    open,
    id: () => id,
    messages: () => w.session.wire.notifications.slice(before).filter((n) => id !== undefined && isObject(n.params?._meta) && n.params._meta[SUBSCRIPTION_ID_KEY] === id),
  };
}

/** Waits up to 10 s for the stream's first message: the error its request was answered with instead, if any. */
export async function firstMessage(stream: Stream): Promise<JsonRpcError | undefined> {
  const deadline = Date.now() + 10_000;
  while (!stream.messages().length && Date.now() < deadline) {
    const early = await Promise.race([stream.open, sleep(25).then(() => undefined)]);
    if (early?.error) return early.error;
  }
  return undefined;
}

export class Subscribe extends TaskCmd {
  constructor(
    pick: number,
    readonly which: number,
  ) {
    super(pick);
  }
  toString() {
    return `subscribe(#${this.pick}, ${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const sn = w.model.ir.behaviour.statusNotifications;
    const t = this.openTask(w);
    if (sn === false || sn.delivery !== "subscription" || sn.subscribeMethod === undefined || sn.subscribeField === undefined || t === undefined) return;
    const path = sn.subscribeField.split(".");
    const unknown = `conform-not-given-${this.which}`;
    const params = nested(path, [t.id, unknown]);
    // Without the opt-in: refused, as any task method is; then (but for one draw in three) with it.
    const cap = w.model.ir.behaviour.capabilities.client;
    if (cap !== false && cap.missingError !== undefined) {
      count(w, "subscribe without the opt-in");
      checked(rules.subscriptions);
      const key = w.model.metaKey(w.model.ir.behaviour.creation.capabilityMeta) ?? CLIENT_CAPABILITIES_KEY;
      let sid: number | undefined;
      const from = w.session.wire.notifications.length;
      const pending = w.session.request(sn.subscribeMethod, params, 10_000, (n) => {
        sid = n;
        streamIds.set(w.session, (streamIds.get(w.session) ?? new Set()).add(n));
      }, { set: { [key]: structuredClone({ ...BASE_CAPABILITIES }), [CLIENT_CAPABILITIES_KEY]: structuredClone({ ...BASE_CAPABILITIES }) } });
      // A stream that opens (its first message comes) was served: the refusal never comes.
      for (let answered = false; !answered; ) {
        answered = (await Promise.race([pending.then(() => true), sleep(25).then(() => false)])) as boolean;
        const opened = w.session.wire.notifications.slice(from).find((n) => sid !== undefined && isObject(n.params?._meta) && n.params._meta[SUBSCRIPTION_ID_KEY] === sid);
        if (!answered && opened !== undefined) {
          await w.session.wire.notify("notifications/cancelled", { requestId: sid, reason: "conform" });
          fail(rules.subscriptions, `${sn.subscribeMethod} without the client capability was served: its stream opened with ${opened.method}`, w.model.error(cap.missingError)?.code, opened.params);
        }
      }
      const a = await pending;
      if (!(a.error && isLimitError(w.model, a.error.code))) expectError(a, w.model.error(cap.missingError), rules.subscriptions, `${sn.subscribeMethod} without the client capability`);
    }
    if (this.which % 3 === 2) return;
    count(w, "subscription");
    checked(rules.subscriptions);
    const before = w.session.wire.notifications.length;
    const stream = openStream(w, sn.subscribeMethod, params);
    const ofStream = stream.messages;
    // The acknowledgement, first of the stream.
    const refused = await firstMessage(stream);
    if (refused !== undefined) {
      if (isLimitError(w.model, refused.code)) return;
      fail(rules.subscriptions, `${sn.subscribeMethod} of the requestor's own task ${t.id} was refused`, "an acknowledgement", refused);
    }
    const id = stream.id();
    const first = ofStream()[0];
    if (first === undefined) fail(rules.subscriptions, `no message of the ${sn.subscribeMethod} stream (carrying its subscription id) within 10 s`, SUBSCRIPTION_ACK, "nothing");
    if (first.method !== SUBSCRIPTION_ACK) fail(rules.subscriptions, `the first message of the ${sn.subscribeMethod} stream is ${first.method}, not its acknowledgement`, SUBSCRIPTION_ACK, first.method);
    const acked = valueAt(first.params, path);
    if (!Array.isArray(acked) || !acked.includes(t.id)) fail(rules.subscriptions, `the acknowledgement does not hold task ${t.id}, which the requestor made and asked for`, [t.id], acked);
    if (acked.includes(unknown)) fail(rules.subscriptions, `the acknowledgement holds ${unknown}, an id no one was given`, [t.id], acked);
    // Watched a little while the task goes on: only the acknowledged tasks, no progress or log message.
    await sleep(300);
    const forbidden = sn.forbiddenOnStream ?? [];
    for (const n of ofStream().slice(1)) {
      if (forbidden.includes(n.method)) fail(rules.subscriptions, `${n.method} came on the ${sn.subscribeMethod} stream`, "no such message on a task stream", n.params);
      // The stream asked for task notifications alone: nothing else comes on it.
      if (n.method !== sn.method) fail(rules.subscriptions, `${n.method} came on a ${sn.subscribeMethod} stream that asked only for ${sn.method}`, sn.method, n.method);
      const shown = n.method === sn.method ? taskIn(w.model, n.params) : undefined;
      if (shown !== undefined && !acked.includes(shown[w.model.idField])) fail(rules.subscriptions, `${n.method} on the stream names task ${String(shown[w.model.idField])}, which it did not acknowledge`, acked, shown[w.model.idField]);
    }
    // Every status notification on the session is of a stream: it carries the stream's id.
    for (const n of w.session.wire.notifications.slice(before)) {
      if (n.method === sn.method && !(isObject(n.params?._meta) && n.params._meta[SUBSCRIPTION_ID_KEY] !== undefined)) fail(rules.subscriptions, `${n.method} came without the subscription id of the stream it belongs to`, SUBSCRIPTION_ID_KEY, n.params);
    }
    // Cancelled by the requestor: nothing more of it (a margin for messages already under way).
    await w.session.wire.notify("notifications/cancelled", { requestId: id, reason: "conform" });
    await sleep(300);
    const after = ofStream().length;
    await sleep(500);
    const late = ofStream().slice(after);
    if (late.length) fail(rules.subscriptions, `${late.length} message(s) of the ${sn.subscribeMethod} stream came after the requestor cancelled it`, "nothing", late[0]!.params);
  }
}
