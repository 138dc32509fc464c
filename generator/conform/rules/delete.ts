/** Rule `delete`: Delete follows the deletable statuses, and a deleted task is gone from the list, from get and from the result method. */
import { defineRule } from "../rule.js";

export const deletion = defineRule({
  name: "delete",
  description: "Delete follows the deletable statuses, and a deleted task is gone from the list, from get and from the result method (each refuses it as an unknown task).",
  statements: [
    "sep-1686-draft/deletion.delete-everything",
  ],
  reads: ["behaviour.cancellation.deleteMethod", "behaviour.cancellation.deletableStatuses", "behaviour.cancellation.deleteRefusedError", "methods.*.operation=delete"],
});
