/**
 * Status notifications pushed on the per-request lifecycle (`statusNotifications.delivery: push`), which has no
 * session to push on: a `subscriptions/listen` stream the requestor opens carries the changes of all its tasks.
 * Once per invocation: the stream opened, a task of the complete outcome seen to its end, and the notification of
 * its terminal status come on the stream (rule `status-push`); then the stream is cancelled.
 */
import { Create } from "./commands/create.js";
import { SUBSCRIPTION_ID_KEY } from "./commands/subscribe.js";
import { seeToEnd } from "./follow.js";
import { checked, fail } from "./rule.js";
import { rules } from "./rules/index.js";
import { streamIds } from "./rules/subscriptions.js";
import { taskIn } from "./session.js";
import { count, isLimitError, isObject, mayAugment, type World } from "./world.js";

/** Core 2026-07-28's request for a stream of notifications, where the per-request lifecycle delivers them. */
export const LISTEN_METHOD = "subscriptions/listen";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function pushedOnListen(w: World, skipped: string[]): Promise<void> {
  const sn = w.model.ir.behaviour.statusNotifications;
  if (sn === false || sn.delivery !== "push" || !w.model.perRequest) return;
  const recipe = w.outcomes.complete;
  if (recipe === undefined || !w.tools.has(recipe.name) || !mayAugment(w.model, "tools/call")) {
    skipped.push(`status-push: the status notifications a ${LISTEN_METHOD} stream carries on the per-request lifecycle need a task of the complete outcome (--outcomes)`);
    return;
  }
  count(w, "once: status notifications on a listen stream");
  let id: number | undefined;
  const before = w.session.wire.notifications.length;
  const open = w.session.request(LISTEN_METHOD, {}, 60_000, (n) => {
    id = n;
    streamIds.set(w.session, (streamIds.get(w.session) ?? new Set()).add(n));
  });
  void open.catch(() => undefined);
  const ofStream = () => w.session.wire.notifications.slice(before).filter((n) => id !== undefined && isObject(n.params?._meta) && n.params._meta[SUBSCRIPTION_ID_KEY] === id);
  // The stream is open once its first message came (its acknowledgement).
  const deadline = Date.now() + 10_000;
  while (!ofStream().length && Date.now() < deadline) {
    const early = await Promise.race([open, sleep(25).then(() => undefined)]);
    if (early?.error) {
      if (isLimitError(w.model, early.error.code)) return;
      fail(rules.statusPush, `${LISTEN_METHOD}, where the spec pushes ${sn.method} on the per-request lifecycle, was refused`, "a stream of the requestor's task notifications", early.error);
    }
  }
  if (!ofStream().length) fail(rules.statusPush, `no message of the ${LISTEN_METHOD} stream (carrying its id) came within 10 s`, "its acknowledgement", "nothing");
  try {
    const made = await new Create("complete").make(w);
    if (made === undefined) return;
    const t = made.t;
    await seeToEnd(w, t);
    checked(rules.statusPush);
    const announced = () => ofStream().some((n) => n.method === sn.method && taskIn(w.model, n.params)?.[w.model.idField] === t.id && taskIn(w.model, n.params)?.[w.model.statusField] === t.status);
    const end = Date.now() + 3000;
    while (!announced() && Date.now() < end) await sleep(25);
    if (!announced()) fail(rules.statusPush, `the end of task ${t.id} (${t.status}) never came on the ${LISTEN_METHOD} stream the requestor opened`, `${sn.method} with status ${t.status}`, ofStream().map((n) => n.method));
  } finally {
    if (id !== undefined) await w.session.wire.notify("notifications/cancelled", { requestId: id, reason: "conform" });
  }
}
