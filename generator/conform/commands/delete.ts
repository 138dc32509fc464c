/** Deleting a task, where the spec declares a delete method. */
import { TaskCmd } from "./base.js";
import { itemsOf, pages } from "./list.js";
import { observe, refresh } from "../follow.js";
import { taskIn } from "../session.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { checkRelated } from "../rules/related-task.js";
import { checkSchema, count, expectAnswer, expectError, idParams, isLimitError, METHOD_NOT_FOUND, isObject, type ModelTask, type World } from "../world.js";

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

/**
 * Deletes a task: refused outside the deletable statuses, else gone from the list, the get method and the result
 * method. A server may refuse any delete at its own discretion (with the declared refusal error) or support none
 * (Method not found): a refused task is still there.
 */
export async function deleteTask(w: World, t: ModelTask): Promise<void> {
  checked(rules.deletion);
  {
    const del = w.model.op("delete")!;
    const c = w.model.ir.behaviour.cancellation;
    const deletable = c.deletableStatuses === undefined ? w.model.terminal.has(t.status) : c.deletableStatuses.includes(t.status);
    const a = await w.session.request(del.method, idParams(w, t.id));
    expectAnswer(a, rules.deletion, del.method);
    if (a.error && isLimitError(w.model, a.error.code)) return;
    const refusal = w.model.error(c.deleteRefusedError);
    if (a.error && (a.error.code === METHOD_NOT_FOUND || (deletable && a.error.code === refusal?.code))) {
      await keptAfterRefusal(w, t, del.method, a.error.code);
      return;
    }
    if (!deletable) {
      if (a.error) {
        expectError(a, refusal, rules.deletion, `${del.method} of a task in ${t.status}`);
        await keptAfterRefusal(w, t, del.method, a.error.code);
        return;
      }
      // It ended between the look and the request: then deleting it is right, unless it could not have ended.
      const held = (t.outcome === "long" && !t.cancelRequested) || w.model.roleOf[t.status] === "paused";
      if (held) fail(rules.deletion, `${del.method} of task ${t.id} in ${t.status}, which the spec does not let be deleted, answered a result`, refusal?.message ?? "an error", a.result);
      t.gone = true;
      t.deleted = true;
      return;
    }
    if (a.error) fail(rules.deletion, `${del.method} of a task in ${t.status} (deletable) failed with neither the declared refusal nor Method not found`, "a result, or a refusal", a.error);
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

/** A delete the server refused (its discretion, or no deletion at all) leaves the task there: the get method still answers it. */
async function keptAfterRefusal(w: World, t: ModelTask, method: string, code: number): Promise<void> {
  count(w, "delete refused");
  const get = w.model.op("get");
  if (!get) return;
  const g = await w.session.request(get.method, idParams(w, t.id));
  if (g.error && !isLimitError(w.model, g.error.code) && !t.gone) {
    fail(rules.deletion, `${method} of task ${t.id} was refused (${code}), but ${get.method} no longer finds the task`, "the task, kept", g.error);
  }
  const task = taskIn(w.model, g.result);
  if (task) observe(w, t, task, `${get.method} after a refused ${method}`);
}
