/**
 * The checks made once per invocation of conform, after its runs, on a session of their own: what a drawn run is
 * too short to show. Creations at the same time (no task id handed out twice) and their gets at the same time
 * (each shows its own task), a listing of more tasks than one
 * page of the spec's default size holds (every page followed, every task listed), and a listing after another
 * requestor made newer tasks (none of theirs shown, none of ours lost); the keys of a task's input requests,
 * with work that asks several inputs at once (`commands/input-keys.ts`); and the edges of the task requests
 * (`once-edges.ts`). What the server sent meanwhile is checked at the end, as after a drawn command.
 */
import { Create } from "./commands/create.js";
import { inputKeyChecks } from "./commands/input-keys.js";
import { List } from "./commands/list.js";
import { observe } from "./follow.js";
import { freshConnectionRead } from "./fresh-connection.js";
import { credentialChecks } from "./authorization.js";
import { cancelWhileWaiting, ignoredTaskRequest, optionalServedPlainly, paramIsTheTask, twoInputs } from "./once-edges.js";
import { fail } from "./rule.js";
import { rules } from "./rules/index.js";
import { checkHttpResponses } from "./rules/http-response.js";
import { checkNotifications } from "./rules/notifications.js";
import { checkServerRequests } from "./rules/related-task.js";
import { taskIn } from "./session.js";
import { count, expectAnswer, idParams, isLimitError, mayAugment, type ModelTask, type World } from "./world.js";

/** Creations at once: more than a server's id counter or clock could tell apart if it reused them. */
const CONCURRENT = 8;
/** The largest default page size a full page is made for (creations cost time). */
const MAX_PAGE = 200;

/** Runs the checks; `other` opens a world of another requestor where isolation can be checked. */
export async function onceChecks(w: World, other: (() => World) | undefined, skipped: string[]): Promise<void> {
  await inputKeyChecks(w, skipped);
  await ignoredTaskRequest(w);
  await optionalServedPlainly(w);
  await paramIsTheTask(w);
  await twoInputs(w);
  await cancelWhileWaiting(w);
  await freshConnectionRead(w, skipped);
  await credentialChecks(w, skipped);
  await manyTasks(w, other, skipped);
  // What came meanwhile is checked as after a drawn command.
  checkNotifications(w);
  checkServerRequests(w);
  checkHttpResponses(w);
}

async function manyTasks(w: World, other: (() => World) | undefined, skipped: string[]): Promise<void> {
  const quick = w.outcomes.complete !== undefined && w.tools.has(w.outcomes.complete.name) && mayAugment(w.model, "tools/call");
  if (!quick) {
    skipped.push("once per run: concurrent creations, a full page and another requestor's newer tasks need the complete outcome");
    return;
  }
  count(w, "once: concurrent creations");
  const made = await Promise.all(Array.from({ length: CONCURRENT }, () => new Create("complete").make(w)));
  // Each read at the same time: every answer shows the task it names.
  const get = w.model.op("get");
  if (get !== undefined) {
    count(w, "once: concurrent gets");
    await Promise.all(made.map((x) => (x === undefined ? undefined : readAtOnce(w, x.t, get.method))));
  }
  const list = w.model.op("list");
  const listing = w.model.ir.behaviour.listing;
  if (list === undefined || listing === false || !w.offered(list.method)) return;
  if (other !== undefined) {
    // Another requestor's tasks, newer than all of ours: a listing that takes the newest and then filters loses ours.
    const theirs = other();
    try {
      await theirs.session.open();
      for (let i = 0; i < 3; i++) {
        const made = await new Create("complete").make(theirs);
        if (made !== undefined) w.foreign.add(made.t.id);
      }
    } finally {
      await theirs.session.close();
    }
    count(w, "once: another requestor's newer tasks");
    await new List().exec(w);
  }
  if (listing.pageSize > MAX_PAGE) {
    skipped.push(`once per run: a full page: the default page size (${listing.pageSize}) is over ${MAX_PAGE}`);
    return;
  }
  // One task more than the default page holds: the listing must page, and every task must be on a page.
  const live = () => w.tasks.filter((t) => !t.gone).length;
  for (let i = live(); i <= listing.pageSize; i++) if ((await new Create("complete").make(w)) === undefined) break;
  if (live() <= listing.pageSize) {
    skipped.push(`once per run: a full page: the server refused creations before ${listing.pageSize + 1} tasks (a limit)`);
    return;
  }
  count(w, "once: more than a page");
  await new List().exec(w);
}

async function readAtOnce(w: World, t: ModelTask, method: string): Promise<void> {
  const sent = Date.now();
  const a = await w.session.request(method, idParams(w, t.id));
  expectAnswer(a, rules.get, `${method} of task ${t.id}`);
  if (a.error) {
    if (isLimitError(w.model, a.error.code)) return;
    fail(rules.get, `${method} of task ${t.id}, read at the same time as ${CONCURRENT - 1} others, failed`, "the task", a.error);
  }
  const task = taskIn(w.model, a.result);
  if (task === undefined) fail(rules.get, `${method} of task ${t.id} answered no task`, undefined, a.result);
  observe(w, t, task, `${method} (${CONCURRENT} at once)`, sent);
}
