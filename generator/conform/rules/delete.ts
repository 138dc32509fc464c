/** Rule `delete`: Delete follows the deletable statuses, and a deleted task is gone from the list and from get. */
import { defineRule } from "../rule.js";

export const deletion = defineRule({
  name: "delete",
  description: "Delete follows the deletable statuses, and a deleted task is gone from the list and from get.",
  statements: [],
  reads: ["behaviour.cancellation.deletableStatuses", "behaviour.cancellation.deleteRefusedError", "operations.delete"],
});
