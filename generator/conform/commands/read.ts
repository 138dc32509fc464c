/** Reading tasks: get, waiting for the end, reading an ended task again, and the end of a run. */
import { Cmd, TaskCmd } from "./base.js";
import { cancelByMethod, cancelByNotification } from "./cancel.js";
import { deleteTask } from "./delete.js";
import { Result } from "./result.js";
import { endChecks, letGo, limitedPoll, observe, refresh, seeToEnd, waitTerminal } from "../follow.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { checkRelated } from "../rules/related-task.js";
import { checkResultType } from "../rules/result-type.js";
import { checkInline } from "../rules/results.js";
import { taskIn } from "../session.js";
import { cancelMethodOf, checkSchema, count, expectAnswer, idParams, isLimitError, type World } from "../world.js";

export class Get extends TaskCmd {
  toString() {
    return `get(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const t = this.task(w);
    const get = w.model.op("get");
    if (!t || !get) return;
    count(w, "get");
    checked(rules.get);
    const sent = Date.now();
    const a = await w.session.request(get.method, idParams(w, t.id));
    expectAnswer(a, rules.get, `${get.method}`);
    if (a.error) {
      if (limitedPoll(w, t, sent, a.error.code, get.method)) return;
      fail(rules.get, `${get.method} of live task ${t.id} failed`, "the task", a.error);
    }
    checkResultType(w, get.method, a.result!);
    checkSchema(w.model.schemas.result(get.method), a.result, rules.types, `${get.method} result`);
    const task = taskIn(w.model, a.result);
    if (!task) fail(rules.get, `${get.method} answered no task`, undefined, a.result);
    observe(w, t, task, get.method, sent);
    checkInline(w, t, task, get.method);
    checkRelated(w, t, get.method, a.result!);
  }
}

export class Wait extends TaskCmd {
  toString() {
    return `wait(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const t = this.task(w);
    if (!t || !w.model.op("get") || t.outcome === "long") return;
    count(w, "wait");
    await seeToEnd(w, t);
  }
}

/**
 * Terminal stability: an ended task, read again after a pause, is as it ended (rule `terminal`), and its
 * result is what its end declares (rule `results`): a completed task's result, any other end's error.
 */
export class Reread extends TaskCmd {
  toString() {
    return `reread(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const t = this.task(w);
    if (!t || !w.model.op("get") || (t.outcome === "long" && !t.cancelRequested)) return;
    if (!w.model.terminal.has(t.status)) await waitTerminal(w, t, 15_000);
    if (!w.model.terminal.has(t.status)) return;
    count(w, "reread");
    await new Promise((r) => setTimeout(r, 300));
    await refresh(w, t);
    await endChecks(w, t);
  }
}

/**
 * The end of a run: what the drawn commands left is checked, so that no task a run made goes unexamined however
 * the commands fell. Every task still there whose work ends on its own (or that was cancelled) is seen to its
 * end, as `wait` sees one; a task still held by a transition (paused) is let go by the spec's way out.
 */
export const END_OF_RUN = "endOfRun()";

export class EndOfRun extends Cmd {
  toString() {
    return END_OF_RUN;
  }
  async exec(w: World): Promise<void> {
    if (!w.model.op("get")) return;
    for (const t of w.tasks) {
      if (t.gone || t.endChecked) continue;
      if (t.outcome === "long" && !t.cancelRequested) {
        // A blocking result asked of running work, once in a whole test where no drawn command asked one: that it
        // does not answer early is then checked whatever the draws.
        if (w.model.ir.behaviour.results.mode === "block-until-terminal" && (w.exercised["result before the end"] ?? 0) === 0) {
          const live = w.tasks.filter((x) => !x.gone);
          await new Result(live.indexOf(t)).exec(w);
        }
        await refresh(w, t);
        // Running work the spec does not let be deleted: its delete is refused.
        const c = w.model.ir.behaviour.cancellation;
        const deletable = c.deletableStatuses === undefined ? w.model.terminal.has(t.status) : c.deletableStatuses.includes(t.status);
        if (w.model.op("delete") && !deletable && !w.model.terminal.has(t.status)) {
          count(w, "end of run: delete refused");
          await deleteTask(w, t);
          if (t.gone) continue;
        }
        if (w.model.roleOf[t.status] === "paused") count(w, "end of run: let go");
        await letGo(w, t);
        // Where notifications/cancelled cancels (no reply to check, so only the end shows it), the run's last
        // cancel of running work is a checked one rather than the clean-up's.
        if (w.model.ir.behaviour.cancellation.via === "cancelled-notification" && t.requestId !== undefined && !w.model.terminal.has(t.status)) {
          count(w, "end of run: cancelled");
          await cancelByNotification(w, t);
        }
        // By the cancel method, once in a whole test where no drawn command cancelled running work: that an
        // acknowledged cancel stops the work is then checked whatever the draws.
        const method = cancelMethodOf(w);
        if (method !== undefined && (w.exercised["cancel of running work"] ?? 0) === 0 && !w.model.terminal.has(t.status)) {
          count(w, "end of run: cancelled");
          await cancelByMethod(w, t, method);
        }
        continue;
      }
      count(w, "end of run: seen to its end");
      await seeToEnd(w, t);
    }
  }
}
