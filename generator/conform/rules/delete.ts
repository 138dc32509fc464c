/** Rule `delete`: Delete follows the deletable statuses, and a deleted task is gone from the list and from get. */
import { defineRule } from "../rule.js";

export const deletion = defineRule({
  name: "delete",
  description: "Delete follows the deletable statuses, and a deleted task is gone from the list and from get.",
  statements: [
    "sep-1686-draft/deletion.delete-everything",
  ],
  reads: ["behaviour.cancellation.deleteMethod", "behaviour.cancellation.deletableStatuses", "behaviour.cancellation.deleteRefusedError", "methods.*.operation=delete"],
});
