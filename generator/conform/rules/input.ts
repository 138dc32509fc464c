/** Rule `input`: The task's own input requests, answered through the update method, are accepted. */
import { defineRule } from "../rule.js";

export const input = defineRule({
  name: "input",
  description: "The task's own input requests, answered through the update method, are accepted.",
  statements: [
    "ext-tasks-2026-07-28/update.ack-empty",
  ],
  reads: ["behaviour.input", "methods.*.operation=update"],
});
