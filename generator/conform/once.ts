/**
 * The checks made once per invocation of conform, after its runs, on a session of their own: what a drawn run is
 * too short to show. Creations at the same time (no task id handed out twice) and their gets at the same time
 * (each shows its own task), a listing of more tasks than one
 * page of the spec's default size holds (every page followed, every task listed), and a listing after another
 * requestor made newer tasks (none of theirs shown, none of ours lost); a task's log messages; the keys of a task's input requests,
 * with work that asks several inputs at once (`commands/input-keys.ts`); the retention a task shows is the one
 * applied (`once-retention.ts`); and the edges of the task requests, a running task's delete among them
 * (`once-edges.ts`). What the server sent meanwhile is checked at the end, as after a drawn command.
 */
import { Create } from "./commands/create.js";
import { inputKeyChecks } from "./commands/input-keys.js";
import { itemsOf, List } from "./commands/list.js";
import { observe } from "./follow.js";
import { freshConnectionRead } from "./fresh-connection.js";
import { credentialChecks } from "./authorization.js";
import { cancelWhileWaiting, deleteWhileRunning, ignoredTaskRequest, optionalServedPlainly, paramIsTheTask, sameAsPlain, taskLogs, twoInputs, twoWaiting } from "./once-edges.js";
import { checked, fail } from "./rule.js";
import { rules } from "./rules/index.js";
import { checkHttpResponses } from "./rules/http-response.js";
import { checkNotifications } from "./rules/notifications.js";
import { pushedOnListen } from "./once-push.js";
import { retentionApplied } from "./once-retention.js";
import { checkServerRequests } from "./rules/related-task.js";
import { taskIn } from "./session.js";
import { checkErrorsAnswered, count, expectAnswer, idParams, isLimitError, mayAugment, type ModelTask, type World } from "./world.js";

/** Creations at once: more than a server's id counter or clock could tell apart if it reused them. */
const CONCURRENT = 8;
/** The largest default page size a full page is made for (creations cost time). */
const MAX_PAGE = 200;

/** Runs the checks; `other` opens a world of another requestor where isolation can be checked. */
export async function onceChecks(w: World, other: (() => World) | undefined, skipped: string[]): Promise<void> {
  // First, while no other work of the tester runs.
  await taskLogs(w);
  await inputKeyChecks(w, skipped);
  await ignoredTaskRequest(w);
  await optionalServedPlainly(w);
  await sameAsPlain(w);
  await paramIsTheTask(w);
  await twoInputs(w);
  await twoWaiting(w);
  await cancelWhileWaiting(w);
  await deleteWhileRunning(w);
  await pushedOnListen(w, skipped);
  await freshConnectionRead(w, skipped);
  await credentialChecks(w, skipped);
  // The retention's wait overlaps the many creations (its task is a probe no listing counts on).
  await Promise.all([retentionApplied(w, skipped), manyTasks(w, other, skipped)]);
  // What came meanwhile is checked as after a drawn command.
  checkNotifications(w);
  checkServerRequests(w);
  checkHttpResponses(w);
  checkErrorsAnswered(w);
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
  const fill = async (n: number) => {
    for (let i = live(); i < n; i++) if ((await new Create("complete").make(w)) === undefined) break;
    return live() >= n;
  };
  if (!(await fill(listing.pageSize + 1))) {
    skipped.push(`once per run: a full page: the server refused creations before ${listing.pageSize + 1} tasks (a limit)`);
    return;
  }
  count(w, "once: more than a page");
  // Its first page is limited: it names a next cursor. A server whose own page is larger than the spec's default
  // is given a reasonable page more (REASONABLE_PAGE) before its single page counts as no paging at all.
  let first = await firstPage(w, list.method);
  if (first !== undefined && !first.next && listing.pageSize < REASONABLE_PAGE && (await fill(REASONABLE_PAGE + 1))) first = await firstPage(w, list.method);
  if (first !== undefined && !first.next) {
    fail(rules.listing, `${list.method} answered ${first.items} tasks on one page, with no ${w.model.paging.next}, for a requestor with at least ${live()}: it does not page (the spec's default page is ${listing.pageSize})`, `a ${w.model.paging.next} on the first page`, first.items);
  }
  await new List().exec(w);
}

/** A page of more tasks than this is no limit on a response (the spec's default page may be smaller). */
const REASONABLE_PAGE = 100;

/** The first page of the listing: how many items it holds and whether it names a next cursor (undefined: refused for a limit). */
async function firstPage(w: World, method: string): Promise<{ items: number; next: boolean } | undefined> {
  const a = await w.session.request(method, {});
  expectAnswer(a, rules.listing, method);
  checked(rules.listing);
  if (a.error) {
    if (isLimitError(w.model, a.error.code)) return undefined;
    fail(rules.listing, `${method} failed`, "a page", a.error);
  }
  return { items: itemsOf(w, a.result!).length, next: typeof a.result![w.model.paging.next] === "string" };
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
