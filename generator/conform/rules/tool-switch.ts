/** Rule `tool-switch`: A tool whose switch forbids tasks refuses a task request, and one that requires them refuses a plain call, with the declared errors. */
import { defineRule } from "../rule.js";

export const toolSwitch = defineRule({
  name: "tool-switch",
  description: "A tool whose switch forbids tasks refuses a task request, and one that requires them refuses a plain call, with the declared errors.",
  statements: [
    "mcp-2025-11-25/tool.forbidden-error",
    "mcp-2025-11-25/tool.required-error",
  ],
  reads: ["behaviour.creation.toolSwitch"],
});
