/** Rule `identity`: A task read by its id is that task. */
import { defineRule } from "../rule.js";

export const identity = defineRule({
  name: "identity",
  description: "A task read by its id is that task.",
  statements: [],
  basis: "the spec's get method answers the task it names",
  reads: ["behaviour.taskType", "behaviour.taskIdField", "methods.*.operation=get"],
});
