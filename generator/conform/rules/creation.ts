/** Rule `creation`: A task request is acknowledged at once (or by the declared notification) with a task, and no task id is handed out twice. */
import { defineRule } from "../rule.js";

export const creation = defineRule({
  name: "creation",
  description: "A task request is acknowledged at once (or by the declared notification) with a task, and no task id is handed out twice.",
  statements: [],
  reads: ["behaviour.creation"],
});
