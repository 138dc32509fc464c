/**
 * Status notifications pushed on the per-request lifecycle (`statusNotifications.delivery: push`), which has no
 * session to push on: a `subscriptions/listen` stream the requestor opens carries the changes of all its tasks.
 * Once per invocation: the stream opened, a task of the complete outcome seen to its end, and the notification of
 * its terminal status come on the stream (rule `status-push`); then the stream is cancelled.
 */
import { Create } from "./commands/create.js";
import { firstMessage, openStream } from "./commands/subscribe.js";
import { seeToEnd } from "./follow.js";
import { checked, fail } from "./rule.js";
import { rules } from "./rules/index.js";
import { taskIn } from "./session.js";
import { count, isLimitError, mayAugment, type World } from "./world.js";

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
  const stream = openStream(w, LISTEN_METHOD, {});
  const ofStream = stream.messages;
  // The stream is open once its first message came (its acknowledgement).
  const refused = await firstMessage(stream);
  if (refused !== undefined) {
    if (isLimitError(w.model, refused.code)) return;
    fail(rules.statusPush, `${LISTEN_METHOD}, where the spec pushes ${sn.method} on the per-request lifecycle, was refused`, "a stream of the requestor's task notifications", refused);
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
    const id = stream.id();
    if (id !== undefined) await w.session.wire.notify("notifications/cancelled", { requestId: id, reason: "conform" });
  }
}
