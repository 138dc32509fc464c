/** Rule `status-push`: where the spec pushes status notifications at every change, the end of every task is announced. */
import { checked, defineRule, fail } from "../rule.js";
import { checkNotifications } from "./notifications.js";
import type { ModelTask, World } from "../world.js";

export const statusPush = defineRule({
  name: "status-push",
  description:
    "Where the spec pushes status notifications at every change (statusNotifications.delivery: push), the notification of every task's terminal status comes, within 3 s of the tester seeing the end: on the session under the initialize lifecycle, for every task; on the per-request lifecycle, which has no session, on a subscriptions/listen stream the requestor opens, once per invocation for a task of the complete outcome.",
  statements: [],
  basis: "the spec's own declaration that status notifications are pushed at every change (mcp-2025-11-25 itself lets a receiver send them or not)",
  reads: ["behaviour.statusNotifications.delivery", "behaviour.statusNotifications.method"],
});

/**
 * Where the spec pushes status notifications on the session, the end of every task is announced: the notification
 * of its terminal status comes (within 3 s of the tester seeing the end: another process may have ended it).
 */
export async function checkEndAnnounced(w: World, t: ModelTask): Promise<void> {
  const sn = w.model.ir.behaviour.statusNotifications;
  // Pushed on the session: the per-request lifecycle has none (its notifications come on a stream the requestor opens).
  if (sn === false || sn.delivery !== "push" || w.model.perRequest || !w.model.terminal.has(t.status)) return;
  checked(statusPush);
  const deadline = Date.now() + 3000;
  while (t.notified !== t.status && Date.now() < deadline) {
    checkNotifications(w);
    if (t.notified !== t.status) await new Promise((r) => setTimeout(r, 25));
  }
  if (t.notified !== t.status) fail(statusPush, `the end of task ${t.id} (${t.status}) was never announced by ${sn.method}`, t.status, t.notified ?? "no status notification");
}
