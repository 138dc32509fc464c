/** Rule `delete`: Delete follows the deletable statuses, and a deleted task is gone from the list, from get and from the result method. */
import { defineRule } from "../rule.js";

export const deletion = defineRule({
  name: "delete",
  description:
    "Delete follows the deletable statuses, and a deleted task is gone from the list, from get and from the result method (each refuses it as an unknown task). The server may refuse any delete at its own discretion, with the declared refusal error, or support no deletion at all, answering Method not found (-32601) (permissions conform honours): a task whose delete was refused is still there, and get answers it.",
  statements: [
    "sep-1686-draft/deletion.delete-everything",
    "sep-1686-draft/deletion.may-accept-or-reject",
    "sep-1686-draft/deletion.may-not-support",
  ],
  reads: ["behaviour.cancellation.deleteMethod", "behaviour.cancellation.deletableStatuses", "behaviour.cancellation.deleteRefusedError", "methods.*.operation=delete"],
});
