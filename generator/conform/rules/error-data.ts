/** Rule `error-data`: an expected error that the spec declares with a `data` type carries data of that type. */
import { defineRule } from "../rule.js";

export const errorData = defineRule({
  name: "error-data",
  description: "An expected error that the spec declares with a data type carries data of that type.",
  statements: [
    "ext-tasks-2026-07-28/core.missing-capability-error",
  ],
  basis: "the spec's own error declarations: an error's declared data type (errors[].data)",
  reads: ["errors.*.data"],
});
