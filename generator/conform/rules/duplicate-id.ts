/** Rule `duplicate-id`: Where the requestor chooses ids: a task request with the id of a task that exists is refused with the declared error. */
import { defineRule } from "../rule.js";

export const duplicateId = defineRule({
  name: "duplicate-id",
  description: "Where the requestor chooses ids: a task request with the id of a task that exists is refused with the declared error.",
  statements: [
    "sep-1686-draft/errors.duplicate-task-id",
    "sep-1686-draft/id.may-validate",
  ],
  reads: ["behaviour.creation.taskId"],
});
