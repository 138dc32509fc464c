/** Expiry: a long task asked for a short retention ends in the spec's expiry state. */
import { Cmd } from "./base.js";
import { Create } from "./create.js";
import { observe } from "../follow.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { ms } from "../rules/timestamps.js";
import { taskIn } from "../session.js";
import { count, expectAnswer, idParams, type World } from "../world.js";

/**
 * Expiry, where the spec declares an expiry state: a long task asked for a short retention (counted from
 * creation) moves to that state once the retention it was granted ran out (or is answered with the declared
 * expired error, or is gone). A server may grant another retention than asked: over 5 s, nothing is checked.
 */
export class Expire extends Cmd {
  toString() {
    return "expire(long)";
  }
  async exec(w: World): Promise<void> {
    const m = w.model;
    const b = m.ir.behaviour;
    const to = b.events?.expiry;
    const ret = b.retention;
    const recipe = w.outcomes.long;
    const get = m.op("get");
    if (to === undefined || ret === false || ret.countedFrom !== "creation" || b.creation.retentionField === undefined || !recipe || !get) return;
    if (b.creation.ack.mode === "notification" || b.creation.taskId.assignedBy === "requestor") return;
    const asked = Date.now();
    const made = await new Create("long", undefined, 1500).make(w);
    if (made?.task === undefined) return;
    const { t, task } = made;
    const granted = task[ret.field];
    if (typeof granted !== "number" || granted > 5_000) return;
    count(w, "expiry");
    checked(rules.expiry);
    const expired = m.error(ret.expiredError);
    const deadline = Date.now() + granted + 5_000;
    while (Date.now() < deadline) {
      const g = await w.session.request(get.method, idParams(w, t.id));
      expectAnswer(g, rules.expiry, `${get.method} of a task whose retention runs out`);
      // Answered before the retention could have run out (the task was made after it was asked for).
      const early = Date.now() < asked + granted - 50;
      if (g.error) {
        if (g.error.code === expired?.code || g.error.code === m.notFound?.code) {
          if (early) earlyEnd(w, t.id, granted, Date.now() - asked, g.error);
          t.gone = true;
          count(w, "expiry: gone");
          return;
        }
        fail(rules.expiry, `${get.method} of a task whose retention ran out answered error ${g.error.code}`, `the task in ${to}, or the expired error`, g.error);
      }
      const now = taskIn(m, g.result);
      if (now === undefined) fail(rules.get, `${get.method} answered without a task`, "a task", g.result);
      observe(w, t, now, `${get.method} while its retention runs out`);
      if (t.status === to) {
        if (early) earlyEnd(w, t.id, granted, Date.now() - asked, to);
        count(w, `expiry: ${to}`);
        return;
      }
      // A long task ends by its retention here, nothing else: another terminal state is not the declared one.
      if (m.terminal.has(t.status)) fail(rules.expiry, `task ${t.id} ended ${t.status} when its retention ran out, not in the declared expiry state`, to, t.status);
      await new Promise((r) => setTimeout(r, 200));
    }
    fail(rules.expiry, `task ${t.id} is still ${t.status} 5 s after the retention it was granted (${granted} ms) ran out`, to, t.status);
  }
}

/**
 * Where the spec keeps a task reachable its whole retention, the server may fail or delete it once that retention
 * ran out, not before: an expiry answered sooner after the task was asked for than the retention it was granted is early.
 */
function earlyEnd(w: World, id: string, granted: number, after: number, shown: unknown): void {
  const ret = w.model.ir.behaviour.retention;
  if (ret === false || !ret.reachableWholeTime) return;
  checked(rules.retention);
  fail(rules.retention, `task ${id}, granted a retention of ${granted} ms, was answered expired ${after} ms after it was asked for, before that retention could have run out`, "the task, live", shown);
}
