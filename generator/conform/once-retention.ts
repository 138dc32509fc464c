/**
 * The retention a task shows is the one applied, checked once per invocation of conform (see `once.ts`): a task of
 * the complete outcome asks a short retention and is read until it runs out; where the spec keeps a task reachable
 * for its whole retention, the get method answers it until then, and some margin after it the task is gone.
 */
import { Create } from "./commands/create.js";
import { waitTerminal } from "./follow.js";
import { checked, fail } from "./rule.js";
import { rules } from "./rules/index.js";
import { count, expectAnswer, idParams, isLimitError, mayAugment, type World } from "./world.js";

/** The retention asked: short, so that the check costs little more than its own length. */
const ASKED_MS = 1500;
/** Before the retention runs out: a margin for the time between the task's end and the tester seeing it. */
const BEFORE_MS = 750;
/** After it: a margin for a server that removes what ran out a little later. */
const AFTER_MS = 2000;
/** A granted retention longer than this is not waited for. */
const LONGEST_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export async function retentionApplied(w: World, skipped: string[]): Promise<void> {
  const b = w.model.ir.behaviour;
  const ret = b.retention;
  const get = w.model.op("get");
  const recipe = w.outcomes.complete;
  if (ret === false || !ret.reachableWholeTime || b.creation.retentionField === undefined || get === undefined) return;
  if (recipe === undefined || !w.tools.has(recipe.name) || !mayAugment(w.model, "tools/call") || !w.augmented("tools/call")) return;
  const made = await new Create("complete", undefined, ASKED_MS).make(w);
  if (made === undefined) return;
  const t = made.t;
  // A probe: its retention runs out during the checks, so no other command counts on it.
  t.gone = true;
  await waitTerminal(w, t, 15_000);
  if (!w.model.terminal.has(t.status)) return;
  const kept = t.retained;
  if (typeof kept !== "number") {
    if (kept === null) skipped.push(`once per run: the retention applied: task ${t.id} asked ${ASKED_MS} ms and was granted an unlimited one`);
    return;
  }
  if (kept > LONGEST_MS) {
    skipped.push(`once per run: the retention applied: task ${t.id} asked ${ASKED_MS} ms and was granted ${kept} ms, longer than is waited for`);
    return;
  }
  const from = ret.countedFrom === "terminal" ? t.endedAt : (t.acknowledgedAt ?? t.answeredAt);
  if (from === undefined) return;
  count(w, "once: the retention applied");
  checked(rules.retention);
  const read = async () => {
    const sent = Date.now();
    const a = await w.session.request(get.method, idParams(w, t.id));
    expectAnswer(a, rules.retention, `${get.method} of task ${t.id}`);
    return { a, sent };
  };
  // Reachable until its retention runs out.
  while (Date.now() < from + kept - BEFORE_MS) {
    const { a, sent } = await read();
    if (a.error && !isLimitError(w.model, a.error.code) && sent < from + kept - BEFORE_MS) {
      fail(rules.retention, `${get.method} of task ${t.id}, which shows ${ret.field} ${kept} ms, answered an error ${sent - from} ms after ${ret.countedFrom === "terminal" ? "its end" : "it was made"}: the retention shown is not the one applied`, "the task", a.error);
    }
    await sleep(250);
  }
  // Gone some margin after it.
  await sleep(from + kept + AFTER_MS - Date.now());
  const { a } = await read();
  if (a.error && isLimitError(w.model, a.error.code)) return;
  if (!a.error) {
    fail(rules.retention, `${get.method} of task ${t.id}, which shows ${ret.field} ${kept} ms, still answers the task ${Date.now() - from} ms after ${ret.countedFrom === "terminal" ? "its end" : "it was made"}: the retention shown is not the one applied`, "an error: the task is gone", a.result);
  }
}
