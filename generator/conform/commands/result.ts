/** Asking for a task's result, as the spec's results mode answers it. */
import { TaskCmd } from "./base.js";
import { observe, refresh } from "../follow.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { checkRelated } from "../rules/related-task.js";
import { checkEndResult } from "../rules/results.js";
import { taskIn } from "../session.js";
import { brief, checkSchema, count, expectAnswer, expectError, idParams, isLimitError, type World } from "../world.js";

export class Result extends TaskCmd {
  toString() {
    return `result(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const t = this.task(w);
    const res = w.model.op("result");
    const r = w.model.ir.behaviour.results;
    if (!t || !res) return;
    if (r.mode === "block-until-terminal" && !w.model.terminal.has(t.status) && t.outcome === "long" && !t.cancelRequested) {
      // It blocks: no answer may come while the work runs.
      count(w, "result before the end");
      checked(rules.results);
      const early = await w.session.probe(res.method, idParams(w, t.id), 1500);
      if (early.timedOut || (early.error && isLimitError(w.model, early.error.code))) return;
      expectAnswer(early, rules.results, res.method);
      await refresh(w, t);
      if (!w.model.terminal.has(t.status)) fail(rules.results, `${res.method} of task ${t.id} answered while the task is still ${t.status}`, "no answer until the task ends", brief(early));
      return;
    }
    if (r.mode === "block-until-terminal" && !w.model.terminal.has(t.status) && (t.outcome === "long" || t.outcome === "input")) return;
    count(w, "result");
    const a = await w.session.request(res.method, idParams(w, t.id), 20_000);
    if (a.timedOut && r.mode === "block-until-terminal" && (t.outcome === "complete" || t.outcome === "fail")) {
      // No answer while the server still answers the rest: the quick work never ended (a broken rule), not a
      // server out of reach (which the get below reports as such).
      const get = w.model.op("get");
      const g = get ? await w.session.request(get.method, idParams(w, t.id)) : undefined;
      const task = g?.result ? taskIn(w.model, g.result) : undefined;
      if (task) observe(w, t, task, get!.method);
      if (task && !w.model.terminal.has(t.status)) fail(rules.progress, `task ${t.id} (${t.outcome}) is still ${t.status} after 20 s: ${res.method} never answered`, "a terminal state", t.status);
    }
    expectAnswer(a, rules.results, res.method);
    if (r.mode === "error-until-completed") {
      if (a.error && isLimitError(w.model, a.error.code)) return;
      if (a.error) {
        // A task that ended without completing: the error its end declares.
        if (w.model.terminal.has(t.status) && w.model.roleOf[t.status] !== "completed") return checkEndResult(w, t, a, res.method);
        const notReady = w.model.error(r.notReadyError);
        if (notReady && a.error.code === notReady.code) {
          if (w.model.roleOf[t.status] === "completed") fail(rules.results, `${res.method} of a task the server showed completed answered not ready`, "the result", a.error);
          // Several declared errors may share the code: the message tells which one came.
          if (!w.model.terminal.has(t.status)) expectError(a, notReady, rules.results, `${res.method} of a task not completed`);
          return;
        }
        if (!w.model.terminal.has(t.status) || w.model.roleOf[t.status] === "completed") expectError(a, notReady, rules.results, `${res.method} of a task not completed`);
        return;
      }
      checkSchema(w.model.schemas.result(res.method), a.result, rules.types, `${res.method} result`);
      checkRelated(w, t, res.method, a.result!);
      // A result: the task completed, now if not when last seen.
      if (w.model.roleOf[t.status] !== "completed") await refresh(w, t);
      if (w.model.terminal.has(t.status)) checkEndResult(w, t, a, res.method);
      else fail(rules.results, `${res.method} answered a result for task ${t.id}, which is still ${t.status}`, "the declared not-ready error", a.result);
      return;
    }
    // Blocking: the answer comes once the task is terminal, and the task must then be terminal.
    if (a.error && isLimitError(w.model, a.error.code)) return;
    if (a.result) {
      checkSchema(w.model.schemas.result(res.method), a.result, rules.types, `${res.method} result`);
      checkRelated(w, t, res.method, a.result);
    }
    const get = w.model.op("get");
    if (get) {
      const g = await w.session.request(get.method, idParams(w, t.id));
      const task = taskIn(w.model, g.result);
      if (task) {
        observe(w, t, task, `${get.method} after ${res.method}`);
        if (!w.model.terminal.has(t.status)) fail(rules.results, `${res.method} answered while the task is still ${t.status}`, "a terminal task", t.status);
        checkEndResult(w, t, a, res.method);
      }
    }
  }
}
