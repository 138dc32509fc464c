/** Rule `opt-in`: where the requestor opts in per request, a request without the opt-in gets no task. */
import { defineRule } from "../rule.js";

export const optIn = defineRule({
  name: "opt-in",
  description: "Where the requestor opts in to tasks per request (a client capability), a request without it is served plainly or refused with the declared error (with its data); it never gets a task.",
  statements: ["ext-tasks-2026-07-28/negotiation.missing-capability-error", "ext-tasks-2026-07-28/negotiation.no-task-without-capability", "ext-tasks-2026-07-28/core.missing-capability-error", "ext-tasks-2026-07-28/core.no-undeclared-capabilities"],
  reads: ["behaviour.creation.via", "behaviour.creation.capability", "behaviour.creation.requiredTaskError"],
});
