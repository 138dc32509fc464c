/** Rule `subscriptions`: a task subscription is acknowledged first, holds only the requestor's tasks, and ends when cancelled. */
import { defineRule } from "../rule.js";

export const subscriptions = defineRule({
  name: "subscriptions",
  description:
    "Where status notifications come on a subscription (statusNotifications.delivery: subscription): the subscribe request is acknowledged before anything else of its stream, with only the requestor's own task ids; every message of the stream carries its subscription id; it carries no notification for a task it was not given, no progress or log message, and nothing once the requestor cancelled it; without the opt-in it is refused.",
  statements: [
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
