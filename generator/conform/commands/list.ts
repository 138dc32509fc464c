/** Listing the requestor's tasks, page by page. */
import { Cmd } from "./base.js";
import { Create } from "./create.js";
import type { Session } from "../session.js";
import type { Answer } from "../wire.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { goneAfterCancel } from "../rules/cancellation.js";
import { checkRelated } from "../rules/related-task.js";
import { checkCreatedAt } from "../rules/timestamps.js";
import { checkSchema, count, expectAnswer, expectError, idParams, isLimitError, isObject, mayAugment, type World } from "../world.js";

export class List extends Cmd {
  toString() {
    return "list()";
  }
  async exec(w: World): Promise<void> {
    const list = w.model.op("list");
    if (list && !w.offered(list.method)) return;
    const listing = w.model.ir.behaviour.listing;
    if (!list) return;
    const get = w.model.op("get");
    count(w, "list");
    checked(rules.listing);
    // Enough tasks for a small page size to page.
    const recipe = w.outcomes.complete !== undefined && w.tools.has(w.outcomes.complete.name) && mayAugment(w.model, "tools/call") ? "complete" : undefined;
    for (let i = w.tasks.filter((t) => !t.gone).length; recipe !== undefined && i < 3; i++) await new Create(recipe).make(w);
    const seen = new Set<string>();
    for await (const a of pages(w, w.session, list.method)) {
      expectAnswer(a, rules.listing, list.method);
      if (a.error) {
        if (isLimitError(w.model, a.error.code)) return;
        fail(rules.listing, `${list.method} failed`, "a page", a.error);
      }
      checkSchema(w.model.schemas.result(list.method), a.result, rules.types, `${list.method} result`);
      checkRelated(w, undefined, list.method, a.result!);
      for (const item of itemsOf(w, a.result!)) {
        if (isObject(item)) checkCreatedAt(w, item, `${list.method} item`);
        const id = isObject(item) ? item[w.model.idField] : undefined;
        if (typeof id === "string") {
          if (seen.has(id)) fail(rules.listing, `${list.method} listed task ${id} twice across its pages`);
          seen.add(id);
        }
      }
    }
    for (const t of w.tasks) {
      // A cancelled task the spec lets be deleted at any time may be gone: the get method says whether it is.
      if (!t.gone && !seen.has(t.id) && get !== undefined && w.model.endStates.cancel.has(t.status)) goneAfterCancel(w, t, (await w.session.request(get.method, idParams(w, t.id))).error);
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

/** The most pages a listing is followed for: a bound on the loop, far above any page count a run makes. */
const MAX_PAGES = 10_000;

/**
 * The answers to the list method, page after page in the spec's paging names, until one has no next cursor (or
 * is not a page). A next cursor handed out twice means pages that never end: that breaks \`listing\`.
 */
export async function* pages(w: World, session: Session, method: string): AsyncGenerator<Answer> {
  const { cursor: cursorField, next: nextField } = w.model.paging;
  const given = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const a = await session.request(method, cursor === undefined ? {} : { [cursorField]: cursor });
    yield a;
    const next = a.result?.[nextField];
    if (typeof next !== "string") return;
    if (given.has(next)) fail(rules.listing, `${method} handed out the next cursor ${JSON.stringify(next)} twice: its pages never end`, "a new cursor or none", next);
    given.add(next);
    cursor = next;
  }
  fail(rules.listing, `${method} still had a next cursor after ${MAX_PAGES} pages`, "a last page", cursor);
}

/** The items of a page: the result's field the spec names for them, else its one array. */
export function itemsOf(w: World, result: Record<string, unknown>): unknown[] {
  const named = w.model.paging.items === undefined ? undefined : result[w.model.paging.items];
  const items = Array.isArray(named) ? named : Object.values(result).find(Array.isArray);
  return (items as unknown[] | undefined) ?? [];
}
