/** Rule `get`: The get method answers a live task with that task. */
import { defineRule } from "../rule.js";

export const get = defineRule({
  name: "get",
  description: "The get method answers a live task with that task.",
  statements: [],
  reads: ["operations.get"],
});
