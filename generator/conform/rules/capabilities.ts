/** Rule `capabilities`: The server declares the spec's capability; a method the capability gates is refused where the server does not declare it; a request gated on augments is served plainly where undeclared (a tool call of quick work with the result of the same call asked without a task); a method the client capability gates is refused without it. */
import { defineRule } from "../rule.js";

export const capabilities = defineRule({
  name: "capabilities",
  description: "The server declares the spec's capability; a method the capability gates is refused where the server does not declare it; a request gated on augments is served plainly where undeclared (a tool call of quick work with the result of the same call asked without a task); a method the client capability gates is refused without it.",
  statements: [
    "ext-tasks-2026-07-28/core.discover-implemented",
    "ext-tasks-2026-07-28/core.missing-capability-error",
    "ext-tasks-2026-07-28/core.result-type-advertised",
    "ext-tasks-2026-07-28/errors.missing-capability-task-methods",
    "mcp-2025-11-25/cap.server-declares",
    "mcp-2025-11-25/support.undeclared-normal",
  ],
  reads: ["behaviour.capabilities"],
});
