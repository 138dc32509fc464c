/** Rule `types`: Every answer, acknowledgement, task and notification params matches its declared type. */
import { defineRule } from "../rule.js";

export const types = defineRule({
  name: "types",
  description: "Every answer, acknowledgement, task and notification params matches its declared type.",
  statements: [
    "ext-tasks-2026-07-28/cancel.ack-empty",
    "ext-tasks-2026-07-28/execution.error-field",
    "ext-tasks-2026-07-28/get.cancelled",
    "ext-tasks-2026-07-28/get.completed-result",
    "ext-tasks-2026-07-28/get.failed-error",
    "ext-tasks-2026-07-28/get.input-required",
    "ext-tasks-2026-07-28/get.respond-by-status",
    "ext-tasks-2026-07-28/get.working",
    "ext-tasks-2026-07-28/update.ack-empty",
    "mcp-2025-11-25/exec.success-result",
    "mcp-2025-11-25/id.string",
    "mcp-2025-11-25/result.create-task-result",
    "mcp-2025-11-25/ttl.actual-in-get",
    "mcp-2025-11-25/ttl.created-at",
    "mcp-2025-11-25/ttl.last-updated-at",
    "mcp-2025-11-25/ttl.may-poll-interval",
    "sep-1686-draft/created.notify",
    "sep-1686-draft/id.string-server",
    "sep-1686-draft/keep-alive.actual-in-get",
    "sep-1686-draft/keep-alive.may-poll-frequency",
  ],
  reads: ["types", "<type>", "methods.*.params", "methods.*.result", "meta.*.type", "behaviour.creation.ack.resultType"],
});
