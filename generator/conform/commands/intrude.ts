/** Requestor isolation: another session asks for the tasks of this one. */
import type { IRMethod } from "../../ir.js";
import { TaskCmd } from "./base.js";
import { itemsOf, pages } from "./list.js";
import { refresh } from "../follow.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { addressing, brief, count, expectAnswer, isLimitError, isObject, validParams, type World } from "../world.js";

/**
 * Requestor isolation, where the spec binds tasks to the session: a second session (its own handshake) can
 * neither read, fetch the result of, cancel, delete nor list a task of the first; it is told the task does
 * not exist.
 */
export class Intrude extends TaskCmd {
  constructor(
    pick: number,
    readonly which: number,
  ) {
    super(pick);
  }
  toString() {
    return `otherSession(#${this.pick}, ${this.which})`;
  }
  async exec(w: World): Promise<void> {
    // The drawn task is read; a running one, where there is one, is cancelled and deleted (those of an ended
    // task may be refused with the not-found error's code anyway, and a blocking result of it served at once).
    const read = this.task(w);
    const t = this.openTask(w);
    if (!read || !t || !w.isolation) return;
    const list = w.model.op("list");
    // Every way in, each group starting from a drawn one: the reading ones first, so that where a reading is
    // served (a deviation the user may choose to ignore), no cancel or delete of another session changes the task.
    const rotate = <T,>(xs: T[]): T[] => xs.map((_, i) => xs[(this.which + i) % xs.length]!);
    const destructive = (m: IRMethod | "list") => m !== "list" && (m.operation === "cancel" || m.operation === "delete");
    const all: Array<IRMethod | "list"> = [...addressing(w.model).filter((m) => w.offered(m.method)), ...(list && w.offered(list.method) ? (["list"] as const) : [])];
    const methods = [...rotate(all.filter((m) => !destructive(m))), ...rotate(all.filter(destructive))];
    if (!methods.length) return;
    const other = w.otherSession();
    // Another principal (--other-header): what it is refused is the authorization context's binding.
    const principal = "url" in w.target && w.target.otherHeaders !== undefined;
    const rule = principal ? rules.authorization : rules.isolation;
    let touched = false;
    let notified = false;
    try {
      const h = await other.open();
      if (h !== undefined && !h.result) return;
      count(w, principal ? "other principal" : "other session");
      checked(rules.isolation);
      checked(rule);
      for (const method of methods) {
        if (method === "list") {
          for await (const a of pages(w, other, list!.method)) {
            if (!a.result) break;
            const mine = itemsOf(w, a.result).map((x) => (isObject(x) ? x[w.model.idField] : undefined)).find((id) => w.tasks.some((x) => x.id === id));
            if (mine !== undefined) fail(rule, `${list!.method} from another session lists task ${String(mine)} of this one`, "only that session's tasks", mine);
          }
          continue;
        }
        const subject = destructive(method) ? t : read;
        // A blocking result method waits for the end: asked of a live task by its owner, it could only time out. Another
        // principal is refused at once: it is given 5 s (no answer is a request waited on as for the owner).
        const blocking = method.operation === "result" && w.model.ir.behaviour.results.mode === "block-until-terminal" && !w.model.terminal.has(subject.status);
        if (blocking && !principal) continue;
        touched ||= method.operation === "cancel" || method.operation === "delete";
        const a = blocking ? await other.probe(method.method, validParams(w, method, subject.id), 5000) : await other.request(method.method, validParams(w, method, subject.id), 10_000);
        if (blocking && a.timedOut) fail(rule, `${method.method} of running task ${subject.id} of another principal got no answer within 5 s: it is waited on as for its owner, where it is refused`, w.model.notFound ? { code: w.model.notFound.code, message: w.model.notFound.message } : "an error", "no answer");
        expectAnswer(a, rule, `${method.method} of another session's task`);
        if (a.error && isLimitError(w.model, a.error.code)) continue;
        if (!a.error && method.operation === "delete") t.gone = t.deleted = true;
        else if (!a.error && method.operation === "cancel") await refresh(w, t);
        if (!a.error) fail(rule, `${method.method} from another session was served task ${subject.id} of this one`, w.model.notFound ? { code: w.model.notFound.code, message: w.model.notFound.message } : "an error", brief(a));
        if (w.model.notFound && a.error.code !== w.model.notFound.code) fail(rule, `${method.method} from another session answered error ${a.error.code}, not the not-found error that hides the task`, { code: w.model.notFound.code }, a.error);
        // Another declared error of the same code (e.g. "already ended") tells the other session that the task exists.
        const nf = w.model.notFound;
        const told = nf && !nf.pattern.test(a.error.message) ? w.model.ir.errors.map((e) => w.model.error(e.name)).find((e) => e !== undefined && e.name !== nf.name && e.code === a.error!.code && e.pattern.test(a.error!.message)) : undefined;
        if (nf && told) {
          fail(rule, `${method.method} from another session answered ${told.name} ("${a.error.message}"), which tells that the task exists, not the not-found error that hides it (${nf.name})`, { code: nf.code, message: nf.message }, a.error);
        }
      }
      // Where notifications/cancelled cancels the task its request made: sent by another session, the same
      // request id names none of this session's requests (long work, so that an end can only be that cancel).
      if (w.model.ir.behaviour.cancellation.via === "cancelled-notification" && t.requestId !== undefined && t.outcome === "long" && !t.cancelRequested && !w.model.terminal.has(t.status)) {
        await other.wire.notify("notifications/cancelled", { requestId: t.requestId, reason: "conform: another session" });
        notified = true;
      }
    } finally {
      await other.close();
    }
    if (notified) {
      await new Promise((r) => setTimeout(r, 300));
      await refresh(w, t);
      if (w.model.terminal.has(t.status)) fail(rules.isolation, `task ${t.id} ended ${t.status} after another session's notifications/cancelled named the id of the request that made it`, "the task still running", t.status);
      return;
    }
    // The task is untouched.
    if (touched) await refresh(w, t);
  }
}
