/**
 * conform follows a listing to its end in the spec's own paging names: every page up to the one without a next
 * cursor, however many there are, and a cursor handed out twice (pages that never end) breaks `listing`.
 */
import { describe, expect, it } from "vitest";
import { itemsOf, pages } from "../generator/conform/commands/list.js";
import { pagingNames, specModel } from "../generator/conform/model.js";
import { ViolationError } from "../generator/conform/report.js";
import type { Session } from "../generator/conform/session.js";
import type { World } from "../generator/conform/world.js";
import type { IR } from "../generator/ir.js";
import { irOf } from "./helpers/conform.js";

/** A session whose list method answers `pageOf(cursor)`, recording the params it was sent. */
function lister(pageOf: (params: Record<string, unknown>) => Record<string, unknown>) {
  const sent: Array<Record<string, unknown>> = [];
  const session = { request: async (_m: string, params: Record<string, unknown>) => (sent.push(params), { result: pageOf(params) }) } as unknown as Session;
  return { session, sent };
}

const world = (ir: IR) => ({ model: specModel(ir) }) as unknown as World;

describe("paging to the end", () => {
  it("follows 55 pages of one task each (more than any fixed cap of 50)", async () => {
    const w = world(irOf("mcp-2025-11-25"));
    const { session, sent } = lister((p) => {
      const n = typeof p.cursor === "string" ? Number(p.cursor) : 0;
      return { tasks: [{ taskId: `t${n}` }], ...(n < 54 ? { nextCursor: String(n + 1) } : {}) };
    });
    const ids: unknown[] = [];
    for await (const a of pages(w, session, "tasks/list")) ids.push(...itemsOf(w, a.result!).map((x) => (x as { taskId: string }).taskId));
    expect(ids).toHaveLength(55);
    expect(sent.at(-1)).toEqual({ cursor: "54" });
  });

  it("a next cursor handed out twice breaks listing (the pages never end)", async () => {
    const w = world(irOf("mcp-2025-11-25"));
    const { session } = lister(() => ({ tasks: [], nextCursor: "again" }));
    const run = async () => {
      for await (const _ of pages(w, session, "tasks/list"));
    };
    await expect(run()).rejects.toThrow(ViolationError);
    await expect(run()).rejects.toThrow(/handed out the next cursor "again" twice/);
  });

  it("reads a spec's own names for the cursor, the next cursor and the items", () => {
    const base = irOf("mcp-2025-11-25");
    const list = base.methods.find((m) => m.operation === "list")!;
    const renamed = {
      ...list,
      params: { kind: "object", fields: [{ name: "after", type: { kind: "string", nullable: false }, optional: true, deprecated: false }], open: false, strict: false, nullable: false },
      result: {
        kind: "object",
        fields: [
          { name: "jobs", type: { kind: "array", items: { kind: "ref", name: "Task", nullable: false }, nullable: false }, optional: false, deprecated: false },
          { name: "next", type: { kind: "string", nullable: false }, optional: true, deprecated: false },
        ],
        open: false,
        strict: false,
        nullable: false,
      },
    } as unknown as IR["methods"][number];
    expect(pagingNames(base, renamed)).toEqual({ cursor: "after", next: "next", items: "jobs" });
    expect(pagingNames(base, list)).toMatchObject({ cursor: "cursor", next: "nextCursor" });
  });
});
