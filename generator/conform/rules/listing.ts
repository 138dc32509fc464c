/** Rule `listing`: Every task of the requestor appears once across the pages; more tasks than a page holds are paged; a forged cursor gets the declared error. */
import { defineRule } from "../rule.js";

export const listing = defineRule({
  name: "listing",
  description:
    "Every task of the requestor appears once across the pages; a listing of more tasks than the spec's default page (and than a reasonable page of 100) names a next cursor on its first page; a forged cursor gets the declared error.",
  statements: [
    "mcp-2025-11-25/errors.invalid-cursor",
    "mcp-2025-11-25/listing.get-implies-list",
    "mcp-2025-11-25/listing.next-cursor",
    "mcp-2025-11-25/listing.paginate",
    "sep-1686-draft/errors.invalid-cursor",
    "sep-1686-draft/listing.get-implies-list",
    "sep-1686-draft/listing.next-cursor",
    "sep-1686-draft/listing.paginate",
  ],
  reads: ["behaviour.listing", "methods.*.operation=list"],
});
