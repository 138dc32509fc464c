/** Retention asked at the edges: nothing, very little, far more than the spec's max. */
import { Cmd } from "./base.js";
import { Create } from "./create.js";
import { observe } from "../follow.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { taskIn } from "../session.js";
import { count, idParams, type World } from "../world.js";

/** What is asked: nothing at all, less than a second, more than any max. */
const ASKED = [0, 500, 1e12] as const;

export class Retention extends Cmd {
  constructor(readonly which: number) {
    super();
  }
  toString() {
    return `retention(${ASKED[this.which % ASKED.length]})`;
  }
  async exec(w: World): Promise<void> {
    const b = w.model.ir.behaviour;
    const ret = b.retention;
    const get = w.model.op("get");
    if (ret === false || b.creation.retentionField === undefined || w.outcomes.long === undefined || !w.tools.has(w.outcomes.long.name) || get === undefined) return;
    const asked = ASKED[this.which % ASKED.length]!;
    count(w, "retention at the edge");
    checked(rules.retention);
    // The task as the acknowledgement shows it is checked against its type (the retention field's bounds included).
    const sent = Date.now();
    const made = await new Create("long", undefined, asked).make(w);
    if (made === undefined) return;
    // Where a notification acknowledges it, the task as the get method first shows it.
    const shown = made.task ?? taskIn(w.model, (await w.session.request(get.method, idParams(w, made.t.id))).result);
    if (shown === undefined) return;
    const granted = shown[ret.field];
    if (asked > ret.max && typeof granted === "number" && granted > ret.max) {
      fail(rules.retention, `task ${made.t.id} asked a retention of ${asked} ms and was granted ${granted} ms, above the spec's max (${ret.max} ms)`, `at most ${ret.max}`, granted);
    }
    // Unlimited (null) is more than any max: a task that asked a bounded retention is not kept for ever.
    if (granted === null && ret.nullMeansUnlimited) {
      fail(rules.retention, `task ${made.t.id} asked a retention of ${asked} ms and was granted an unlimited one (null), above the spec's max (${ret.max} ms)`, `at most ${ret.max}`, granted);
    }
    // Granted more than nothing, the task is there to read right after (unless that retention may have run out meanwhile).
    const g = await w.session.request(get.method, idParams(w, made.t.id));
    const ranOut = typeof granted === "number" && Date.now() - sent >= granted;
    if (granted !== 0 && !ranOut && (g.error || taskIn(w.model, g.result) === undefined)) {
      fail(rules.retention, `task ${made.t.id}, granted a retention of ${JSON.stringify(granted)} ms when ${asked} ms was asked, could not be read right after it was made`, "the task", g.error ?? g.result);
    }
    // Read back, it shows the retention the acknowledgement granted (which may differ from the one asked).
    const again = taskIn(w.model, g.result);
    if (again !== undefined) observe(w, made.t, again, `${get.method} of a task granted ${JSON.stringify(granted)} ms when ${asked} ms was asked`);
    // A probe: its retention may run out at any time now, so no other command counts on it; its work is cancelled.
    made.t.gone = true;
    const c = b.cancellation;
    if (c.via === "method" && c.method !== undefined && w.offered(c.method)) await w.session.request(c.method, idParams(w, made.t.id), 3000);
  }
}
