/** Rule `progress-token`: Progress for a task's token increases and stops at the end (and, where the token lives as long as the request, at the answer). */
import { checked, defineRule, fail } from "../rule.js";
import { checkRelatedNotification } from "./related-task.js";
import { ms } from "./timestamps.js";
import { count, type World } from "../world.js";

export const progressToken = defineRule({
  name: "progress-token",
  description: "Progress for a task's token increases and stops at the end (and, where the token lives as long as the request, at the answer).",
  statements: [],
  basis: "core MCP progress: the notifications of a progress token increase, and for a task they stop where the spec's progressTokenLifetime ends them",
  reads: ["behaviour.creation.progressTokenLifetime"],
});

/**
 * Progress for a task's request: its value increases, and none comes once the task was seen terminal (nor,
 * where the token lives only as long as the request, once the request was answered).
 */
export function checkProgress(w: World, n: { params?: Record<string, unknown>; at: number }): void {
  const token = n.params?.progressToken;
  checked(progressToken);
  if (typeof token !== "string" && typeof token !== "number") fail(progressToken, "a progress notification carries no progress token", "the token of a request that asked for progress", n.params);
  // Progress only for a token a request gave (of this session, or of a run before it on the same connection).
  if (!w.made.tokens.has(String(token))) fail(progressToken, `a progress notification names the token ${JSON.stringify(token)}, which no request of the tester gave`, [...w.made.tokens].slice(-3), n.params);
  const t = w.tasks.find((x) => x.progressToken === token);
  if (t === undefined) return;
  // Once the task exists (acknowledged: announced, or its request answered), its progress is a message of the task's.
  const since = t.acknowledgedAt ?? t.answeredAt;
  if (since !== undefined && n.at > since) checkRelatedNotification(w, t, "notifications/progress", n.params);
  count(w, "progress notification");
  const p = n.params?.progress;
  if (typeof p === "number" && t.progress !== undefined && p <= t.progress) fail(progressToken, `progress for task ${t.id} went from ${t.progress} to ${p}; it must increase`, `more than ${t.progress}`, p);
  if (typeof p === "number") t.progress = p;
  // A margin for a notification sent just before the end that came on another stream than the answer.
  if (t.endedAt !== undefined && n.at - t.endedAt > 250) fail(progressToken, `a progress notification for task ${t.id} came ${n.at - t.endedAt} ms after the task was seen ${t.status}`, "no progress after the end", n.params);
  if (w.model.ir.behaviour.creation.progressTokenLifetime === "request" && t.answeredAt !== undefined && n.at - t.answeredAt > 250) {
    fail(progressToken, `a progress notification for task ${t.id} came after its request was answered; the spec's token lives as long as the request`, "no progress after the answer", n.params);
  }
}
