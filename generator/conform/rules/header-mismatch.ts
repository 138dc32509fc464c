/** Rule `header-mismatch`: over Streamable HTTP, a task method whose routing header is missing or names another task is refused. */
import { defineRule } from "../rule.js";

export const headerMismatch = defineRule({
  name: "header-mismatch",
  description: "Over Streamable HTTP, a task method whose routing header (behaviour.http, e.g. Mcp-Name) is missing or differs from the task id in its body is refused with the declared error and its HTTP status; one whose value is the task id in the Base64 sentinel encoding is decoded and served.",
  statements: ["ext-tasks-2026-07-28/core.header-decode-before-compare", "ext-tasks-2026-07-28/core.header-mismatch-400", "ext-tasks-2026-07-28/core.header-mismatch-32020", "ext-tasks-2026-07-28/core.header-mismatch-reject"],
  reads: ["behaviour.http"],
});
