/** Rule `cancellation`: Cancelling a live task ends it where the spec's cancel leads; cancelling a terminal one answers what the spec declares for a terminal task. */
import { defineRule } from "../rule.js";

export const cancellation = defineRule({
  name: "cancellation",
  description: "Cancelling a live task ends it where the spec's cancel leads; cancelling a terminal one answers what the spec declares for a terminal task.",
  statements: [],
  reads: ["behaviour.cancellation", "events.cancel"],
});
