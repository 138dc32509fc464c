/** Rule `tool-switch`: A tool whose switch forbids tasks refuses a task request, and one that requires them refuses a plain call, with the declared errors. */
import { defineRule } from "../rule.js";

export const toolSwitch = defineRule({
  name: "tool-switch",
  description:
    "A tool whose switch forbids tasks refuses a task request, and one that requires them refuses a plain call, with the declared errors. The server may require tasks for any tool that can run as one (a permission conform honours): it says so in the tool's switch (required), and a plain call of it is then refused as for any required tool; a tool whose switch leaves tasks optional is served plainly.",
  statements: [
    "mcp-2025-11-25/support.may-require",
    "mcp-2025-11-25/tool.forbidden-error",
    "mcp-2025-11-25/tool.required-error",
  ],
  reads: ["behaviour.creation.toolSwitch"],
});
