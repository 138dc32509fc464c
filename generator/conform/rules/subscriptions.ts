/** Rule `subscriptions`: a task subscription is acknowledged first, holds only the requestor's tasks, and ends when cancelled. */
import { checked, defineRule, fail } from "../rule.js";
import { count, isObject, type World } from "../world.js";

export const subscriptions = defineRule({
  name: "subscriptions",
  description:
    "Where status notifications come on a subscription (statusNotifications.delivery: subscription): the subscribe request is acknowledged before anything else of its stream, with only the requestor's own task ids; every message of the stream carries its subscription id; it carries no notification for a task it was not given, no progress or log message, and nothing once the requestor cancelled it; without the opt-in it is refused. On the per-request lifecycle, the server sends notifications/cancelled for nothing but a subscription stream.",
  statements: [
    "ext-tasks-2026-07-28/core.cancelled-only-for-subscriptions",
    "ext-tasks-2026-07-28/core.subscription-ack-first",
    "ext-tasks-2026-07-28/core.subscription-id-in-meta",
    "ext-tasks-2026-07-28/core.subscription-nothing-before-ack",
    "ext-tasks-2026-07-28/core.subscription-only-requested",
    "ext-tasks-2026-07-28/errors.missing-capability-listen",
    "ext-tasks-2026-07-28/notifications.missing-capability",
    "ext-tasks-2026-07-28/notifications.no-progress-on-stream",
  ],
  reads: ["behaviour.statusNotifications"],
});

/** The request ids of the subscription streams each session opened. */
export const streamIds = new WeakMap<object, Set<unknown>>();

/**
 * On the per-request lifecycle a server's notifications/cancelled tears down a subscription stream and is sent for
 * nothing else: it names the request that opened one of the session's streams.
 */
export function checkServerCancelled(w: World, n: { method: string; params?: Record<string, unknown> }): void {
  if (n.method !== "notifications/cancelled" || !w.model.perRequest) return;
  count(w, "notifications/cancelled from the server");
  checked(subscriptions);
  const id = isObject(n.params) ? n.params.requestId : undefined;
  if (!streamIds.get(w.session)?.has(id)) fail(subscriptions, `the server sent notifications/cancelled for request ${JSON.stringify(id)}, which opened no subscription stream`, "notifications/cancelled only for a subscription stream it tears down", n.params);
}
