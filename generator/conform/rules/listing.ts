/** Rule `listing`: Every task of the requestor appears once across the pages; a forged cursor gets the declared error. */
import { defineRule } from "../rule.js";

export const listing = defineRule({
  name: "listing",
  description: "Every task of the requestor appears once across the pages; a forged cursor gets the declared error.",
  statements: [],
  reads: ["behaviour.listing", "operations.list"],
});
