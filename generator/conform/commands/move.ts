/** The spec's own operations: transitions a requestor asks for, and custom operations. */
import { TaskCmd } from "./base.js";
import { observe, refresh } from "../follow.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { minimalValue } from "../schemas.js";
import { taskIn } from "../session.js";
import { checkSchema, count, expectAnswer, idParams, isLimitError, isObject, type World } from "../world.js";

export class Move extends TaskCmd {
  constructor(
    pick: number,
    readonly which: number,
  ) {
    super(pick);
  }
  toString() {
    return `transition(#${this.pick}, ${this.which})`;
  }
  async exec(w: World): Promise<void> {
    // A move of an ended task can only be refused.
    const t = this.openTask(w);
    const moves = w.model.ops("transition");
    if (!t || !moves.length) return;
    count(w, "transition");
    await refresh(w, t);
    // Half the draws take a move the spec allows from where the task is (where one does), so that held states
    // are reached and left; the others any move, allowed or not.
    const legal = moves.filter((m) => m.to !== undefined && w.model.direct.get(t.status)?.has(m.to));
    const among = legal.length && this.which % 2 === 0 ? legal : moves;
    const mv = among[Math.floor(this.which / 2) % among.length]!;
    const from = t.status;
    const a = await w.session.request(mv.method, idParams(w, t.id));
    expectAnswer(a, rules.transitions, mv.method);
    if (a.error && isLimitError(w.model, a.error.code)) return;
    const allowed = mv.to !== undefined && (w.model.direct.get(from)?.has(mv.to) ?? false);
    if (a.result) {
      checkSchema(w.model.schemas.result(mv.method), a.result, rules.types, `${mv.method} result`);
      // A task in the answer is the task as the move left it.
      const shown = taskIn(w.model, a.result);
      if (shown !== undefined) observe(w, t, shown, `${mv.method} result`);
      await refresh(w, t);
      const movedTo = mv.to !== undefined && (t.status === mv.to || (w.model.reach.get(mv.to)?.has(t.status) ?? false));
      if (allowed && movedTo && w.model.terminal.has(t.status) && !w.model.terminal.has(from)) t.endedByMove = true;
      if (!allowed && t.status === from && mv.to !== from) return; // ignored where it could not apply
      if (mv.to !== undefined && !w.model.reach.get(mv.to)?.has(t.status) && !(t.status === from)) {
        fail(rules.transitions, `${mv.method} moved task ${t.id} from ${from} to ${t.status}; the spec moves it to ${mv.to}`, mv.to, t.status);
      }
      return;
    }
    if (allowed) {
      await refresh(w, t);
      if (t.status === from && !w.model.terminal.has(from)) {
        // Guards may refuse it; a guarded transition's refusal is the spec's own.
        const guarded = w.model.ir.transitions.some((x) => x.from === from && x.to === mv.to && x.guard !== undefined);
        if (!guarded) fail(rules.transitions, `${mv.method} of a task in ${from} failed, but the spec allows ${from} → ${mv.to}`, "a result", a.error);
      }
    }
  }
}

/**
 * A custom operation, called with params of its declared type (naming one of the requestor's tasks where
 * the type has the id field): what it does is the handler's, but it answers, and a result has the declared
 * result type.
 */
export class Custom extends TaskCmd {
  constructor(
    pick: number,
    readonly which: number,
  ) {
    super(pick);
  }
  toString() {
    return `custom(${this.which}, #${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const methods = w.model.ops("custom").filter((m) => m.kind === "request" && m.from !== "server" && w.offered(m.method));
    if (!methods.length) return;
    const method = methods[this.which % methods.length]!;
    const base = method.params === undefined ? {} : minimalValue(w.model.ir, method.params);
    const params: Record<string, unknown> = isObject(base) ? { ...base } : {};
    const t = this.task(w);
    if (t && w.model.idField in params) params[w.model.idField] = t.id;
    count(w, "custom");
    checked(rules.custom);
    const a = await w.session.request(method.method, params, 20_000);
    expectAnswer(a, rules.custom, `${method.method} with ${JSON.stringify(params)}`);
    if (a.error) {
      if (!Number.isInteger(a.error.code)) fail(rules.custom, `${method.method} answered an error without an integer code`, "a JSON-RPC error", a.error);
      if (isLimitError(w.model, a.error.code)) return;
      // An error is an answer only where the spec declares it for this operation (or for an id it cannot see).
      const declared = (method.errors ?? []).map((e) => w.model.error(e)?.code);
      const unseen = w.model.idField in params && (t === undefined || t.gone) && a.error.code === (w.model.notFound?.code ?? -32602);
      if (!declared.includes(a.error.code) && !unseen) fail(rules.custom, `${method.method} answered error ${a.error.code}, which the spec does not declare for it`, method.errors ?? "a result", a.error);
      return;
    }
    checkSchema(w.model.schemas.result(method.method), a.result, rules.types, `${method.method} result`);
  }
}
