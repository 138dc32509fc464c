/** Rule `duplicate-id`: Where the requestor chooses ids: a task request with the id of a task that exists is refused with the declared error. */
import { defineRule } from "../rule.js";

export const duplicateId = defineRule({
  name: "duplicate-id",
  description: "Where the requestor chooses ids: a task request with the id of a task that exists is refused with the declared error.",
  statements: [],
  reads: ["behaviour.creation.taskId"],
});
