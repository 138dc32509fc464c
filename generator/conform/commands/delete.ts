/** Deleting a task, where the spec declares a delete method. */
import { TaskCmd } from "./base.js";
import { itemsOf, pages } from "./list.js";
import { refresh } from "../follow.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { checkRelated } from "../rules/related-task.js";
import { checkSchema, count, expectAnswer, expectError, idParams, isLimitError, isObject, type ModelTask, type World } from "../world.js";

export class Delete extends TaskCmd {
  toString() {
    return `delete(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    // Half the draws a running task where there is one (whose delete the spec may refuse), the others any.
    const t = this.pick % 2 === 0 ? this.openTask(w) : this.task(w);
    if (!t || !w.model.op("delete")) return;
    count(w, "delete");
    await refresh(w, t);
    await deleteTask(w, t);
  }
}

/** Deletes a task: refused outside the deletable statuses, else gone from the list, the get method and the result method. */
export async function deleteTask(w: World, t: ModelTask): Promise<void> {
  checked(rules.deletion);
  {
    const del = w.model.op("delete")!;
    const c = w.model.ir.behaviour.cancellation;
    const deletable = c.deletableStatuses === undefined ? w.model.terminal.has(t.status) : c.deletableStatuses.includes(t.status);
    const a = await w.session.request(del.method, idParams(w, t.id));
    expectAnswer(a, rules.deletion, del.method);
    if (a.error && isLimitError(w.model, a.error.code)) return;
    if (!deletable) {
      if (a.error) {
        expectError(a, w.model.error(c.deleteRefusedError), rules.deletion, `${del.method} of a task in ${t.status}`);
        return;
      }
      // It ended between the look and the request: then deleting it is right, unless it could not have ended.
      const held = (t.outcome === "long" && !t.cancelRequested) || w.model.roleOf[t.status] === "paused";
      if (held) fail(rules.deletion, `${del.method} of task ${t.id} in ${t.status}, which the spec does not let be deleted, answered a result`, w.model.error(c.deleteRefusedError)?.message ?? "an error", a.result);
      t.gone = true;
      t.deleted = true;
      return;
    }
    if (a.error) fail(rules.deletion, `${del.method} of a task in ${t.status} (deletable) failed`, "a result", a.error);
    checkSchema(w.model.schemas.result(del.method), a.result, rules.types, `${del.method} result`);
    checkRelated(w, t, del.method, a.result!);
    t.gone = true;
    t.deleted = true;
    const list = w.model.op("list");
    if (list !== undefined && w.offered(list.method)) {
      for await (const l of pages(w, w.session, list.method)) {
        if (!l.result) break;
        if (itemsOf(w, l.result).some((x) => isObject(x) && x[w.model.idField] === t.id)) fail(rules.deletion, `${list.method} still lists task ${t.id} after ${del.method}`, "not listed", t.id);
      }
    }
    const get = w.model.op("get");
    if (get) {
      const g = await w.session.request(get.method, idParams(w, t.id));
      expectError(g, w.model.notFound, rules.deletion, `${get.method} of a deleted task`, -32602);
    }
    // Its result went with it: the result method refuses it as an unknown task.
    const res = w.model.op("result");
    if (res !== undefined && w.model.ir.behaviour.results.mode !== "inline") {
      const r = await w.session.request(res.method, idParams(w, t.id));
      expectError(r, w.model.notFound, rules.deletion, `${res.method} of a deleted task`, -32602);
    }
  }
}
