/** Rule `outcomes`: Work that completes, fails, errs or asks for input ends in the state the spec's outcomes name. */
import { defineRule } from "../rule.js";

export const outcomes = defineRule({
  name: "outcomes",
  description: "Work that completes, fails, errs or asks for input ends in the state the spec's outcomes name.",
  statements: [
    "ext-tasks-2026-07-28/execution.completed-with-error-result",
    "ext-tasks-2026-07-28/execution.error-is-that-error",
    "ext-tasks-2026-07-28/execution.failed-not-for-tool-errors",
    "ext-tasks-2026-07-28/execution.result-is-that-result",
    "ext-tasks-2026-07-28/status.failed-only-json-rpc",
    "mcp-2025-11-25/input.leave-input-required",
    "sep-1686-draft/lifecycle.prefer-failed",
  ],
  reads: ["behaviour.outcomes"],
});
