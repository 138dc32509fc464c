/** Rule `input`: The task's own input requests are all shown, each under a key of its own for the task's life, and answered through the update method. */
import { defineRule } from "../rule.js";

export const input = defineRule({
  name: "input",
  description:
    "The task's own input requests are all shown at once, each under a key that names it alone for the task's whole life; answers through the update method are accepted; a partial answer leaves the task waiting for the rest; an answer to a key never issued or already answered is acknowledged and changes nothing; answers may show in the task a while after their acknowledgement.",
  statements: [
    "ext-tasks-2026-07-28/get.all-outstanding-requests",
    "ext-tasks-2026-07-28/update.ack-empty",
    "ext-tasks-2026-07-28/update.may-ack-early",
    "ext-tasks-2026-07-28/update.ignore-unknown-keys",
    "ext-tasks-2026-07-28/update.keys-unique",
    "ext-tasks-2026-07-28/update.may-accept-partial",
    "ext-tasks-2026-07-28/update.no-key-for-two-requests",
    "ext-tasks-2026-07-28/update.no-key-reuse-after-response",
  ],
  reads: ["behaviour.input", "methods.*.operation=update"],
});
