/** Rule `cancellation`: Cancelling a live task ends it where the spec's cancel leads; cancelling a terminal one answers what the spec declares for a terminal task. */
import { defineRule } from "../rule.js";

export const cancellation = defineRule({
  name: "cancellation",
  description: "Cancelling a live task ends it where the spec's cancel leads; cancelling a terminal one answers what the spec declares for a terminal task; a task cancelled while it waits for input stays cancelled once that input is answered.",
  statements: [
    "ext-tasks-2026-07-28/cancel.ack-empty",
    "ext-tasks-2026-07-28/cancel.may-stay-working",
    "mcp-2025-11-25/cancel.cancelled-before-reply",
    "mcp-2025-11-25/cancel.stays-cancelled",
    "mcp-2025-11-25/cancel.terminal-error",
    "mcp-2025-11-25/errors.cancel-terminal",
    "sep-1686-draft/cancel.ignore-pending-responses",
    "sep-1686-draft/cancel.move-to-cancelled",
  ],
  reads: ["behaviour.cancellation", "behaviour.events.cancel", "methods.*.operation=cancel"],
});
