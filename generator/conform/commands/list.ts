/** Listing the requestor's tasks, page by page. */
import { Cmd } from "./base.js";
import { Create } from "./create.js";
import { fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { checkSchema, count, expectAnswer, expectError, isLimitError, isObject, type World } from "../world.js";

export class List extends Cmd {
  toString() {
    return "list()";
  }
  async exec(w: World): Promise<void> {
    const list = w.model.op("list");
    if (list && !w.offered(list.method)) return;
    const listing = w.model.ir.behaviour.listing;
    if (!list) return;
    count(w, "list");
    // Enough tasks for a small page size to page.
    const recipe = w.outcomes.complete !== undefined && w.tools.has(w.outcomes.complete.name) ? "complete" : undefined;
    for (let i = w.tasks.filter((t) => !t.gone).length; recipe !== undefined && i < 3; i++) await new Create(recipe).make(w);
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const a = await w.session.request(list.method, cursor === undefined ? {} : { [w.model.paging.cursor]: cursor });
      expectAnswer(a, rules.listing, list.method);
      if (a.error) {
        if (isLimitError(w.model, a.error.code)) return;
        fail(rules.listing, `${list.method} failed`, "a page", a.error);
      }
      checkSchema(w.model.schemas.result(list.method), a.result, rules.types, `${list.method} result`);
      const items = Object.values(a.result!).find(Array.isArray) as unknown[] | undefined;
      for (const item of items ?? []) {
        const id = isObject(item) ? item[w.model.idField] : undefined;
        if (typeof id === "string") {
          if (seen.has(id)) fail(rules.listing, `${list.method} listed task ${id} twice across its pages`);
          seen.add(id);
        }
      }
      const next = a.result![w.model.paging.nextCursor];
      if (typeof next !== "string") break;
      cursor = next;
    }
    for (const t of w.tasks) {
      if (!t.gone && !seen.has(t.id)) fail(rules.listing, `${list.method} does not list task ${t.id}, which its requestor made and can still read`, t.id, [...seen]);
      if (t.deleted && seen.has(t.id)) fail(rules.deletion, `${list.method} still lists task ${t.id}, which was deleted`, "not listed", t.id);
    }
    const theirs = [...seen].find((id) => w.isolation && w.foreign.has(id));
    if (theirs !== undefined) fail(rules.isolation, `${list.method} lists task ${theirs}, which another session made`, "only this session's tasks", theirs);
    if (listing !== false) {
      const forged = await w.session.request(list.method, { [w.model.paging.cursor]: "conform-forged-cursor" });
      expectError(forged, w.model.error(listing.invalidCursorError), rules.listing, `${list.method} with a forged cursor`);
    }
  }
}
