/** Rule `notifications`: Every notification the spec declares matches its declared params and carries a declared state; status notifications follow the transition table and announce the end the task shows. */
import { checked, defineRule, fail } from "../rule.js";
import { checkProgress } from "./progress-token.js";
import { checkStatusNotificationMeta } from "./related-task.js";
import { checkServerCancelled } from "./subscriptions.js";
import { checkCreatedAt, checkTimes } from "./timestamps.js";
import { taskIn } from "../session.js";
import { checkSchema, count, type ModelTask, type World } from "../world.js";

export const notifications = defineRule({
  name: "notifications",
  description: "Every notification the spec declares matches its declared params and carries a declared state; status notifications follow the transition table and announce the end the task shows.",
  statements: [
    "ext-tasks-2026-07-28/notifications.may-push",
    "mcp-2025-11-25/notifications.may-send",
    "mcp-2025-11-25/status-notification.may-send",
  ],
  reads: ["behaviour.statusNotifications", "methods.*.kind=notification", "methods.*.params"],
});

/**
 * The notifications the spec declares (status notifications, creation acknowledgements) match their declared
 * params, and a status they carry is a declared state.
 */
export function checkNotifications(w: World): void {
  const all = w.session.wire.notifications;
  const m = w.model;
  const sn = m.ir.behaviour.statusNotifications;
  for (; w.notificationsSeen < all.length; w.notificationsSeen++) {
    const n = all[w.notificationsSeen]!;
    if (n.method === "notifications/progress") checkProgress(w, n);
    checkServerCancelled(w, n);
    if (sn !== false && n.method === sn.method) {
      checkStatusNotificationMeta(w, n.method, n.params);
      const shown = taskIn(m, n.params);
      if (shown !== undefined) checkCreatedAt(w, shown, `${n.method} params`);
      const t = shown === undefined ? undefined : w.tasks.find((x) => x.id === shown[m.idField]);
      const status = shown?.[m.statusField];
      if (t !== undefined && typeof status === "string" && m.states.has(status)) {
        count(w, "status notification");
        checked(notifications);
        const prev = t.notified;
        if (prev !== undefined && m.terminal.has(prev) && status !== prev) fail(notifications, `${n.method} says task ${t.id} is ${status} after one said it ended ${prev}`, prev, status);
        if (prev !== undefined && !m.reach.get(prev)?.has(status)) fail(notifications, `${n.method} for task ${t.id} came out of order: ${prev}, then ${status}, which no transition path allows`, [...(m.reach.get(prev) ?? [])], status);
        if (m.terminal.has(status) && m.terminal.has(t.status) && status !== t.status) fail(notifications, `${n.method} says task ${t.id} ended ${status}; the task shows ${t.status}`, t.status, status);
        // Sent well after the tester saw the task end (a margin for one sent before the end on another stream), a
        // notification of another status contradicts the task.
        if (!m.terminal.has(status) && t.endedAt !== undefined && n.at - t.endedAt > 250) {
          fail(notifications, `${n.method} says task ${t.id} is ${status}, ${n.at - t.endedAt} ms after it was seen ${t.status}`, t.status, status);
        }
        t.notified = status;
        // Not compared with earlier lastUpdatedAt values: notifications of one task may come on several streams.
        checkTimes(w, t, shown!, n.method, null);
      }
    }
    const decl = w.model.ir.methods.find((m) => m.method === n.method && m.kind === "notification");
    if (decl === undefined) continue;
    count(w, "notification");
    checked(notifications);
    checkSchema(w.model.schemas.params(n.method), n.params ?? {}, notifications, `${n.method} params`);
    const task = taskIn(w.model, n.params);
    const status = task?.[w.model.statusField];
    if (task !== undefined && (typeof status !== "string" || !w.model.states.has(status))) {
      fail(notifications, `${n.method} carries ${JSON.stringify(status)}, which is not a declared state`, [...w.model.states], status);
    }
  }
}
