/**
 * What the per-request lifecycle adds to a task request: the requestor's opt-in on each request (a request without
 * it gets no task), and over Streamable HTTP the routing header that repeats the task id.
 */
import { TaskCmd } from "./base.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { refresh } from "../follow.js";
import { taskIn } from "../session.js";
import { brief, count, expectAnswer, expectError, idParams, isLimitError, plainCall, validParams, type World } from "../world.js";

/** A tool call of quick work without the requestor's opt-in: a plain result, or the declared refusal; never a task. */
export class WithoutOptIn extends TaskCmd {
  toString() {
    return `withoutOptIn(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const c = w.model.ir.behaviour.creation;
    const recipe = w.outcomes.complete;
    if (c.via !== "client-capability" || recipe === undefined || !w.tools.has(recipe.name)) return;
    count(w, "without the opt-in");
    checked(rules.optIn);
    const a = await plainCall(w, recipe.name, recipe.arguments ?? {});
    expectAnswer(a, rules.optIn, `tools/call of ${recipe.name} without the opt-in`);
    if (a.error) {
      if (isLimitError(w.model, a.error.code)) return;
      expectError(a, w.model.error(c.requiredTaskError), rules.optIn, `tools/call of ${recipe.name} without the opt-in`);
      return;
    }
    const rt = w.model.ir.behaviour.resultType;
    const task = taskIn(w.model, a.result);
    if ((rt !== false && a.result![rt.field] === rt.task) || task !== undefined) {
      fail(rules.optIn, `tools/call of ${recipe.name} without the opt-in was answered with a task`, "a plain result, or the declared refusal", brief(a));
    }
  }
}

/** A task method over Streamable HTTP whose routing header is left out, or names another task: refused as declared. */
export class HeaderMismatch extends TaskCmd {
  constructor(
    pick: number,
    readonly which: number,
  ) {
    super(pick);
  }
  toString() {
    return `headerMismatch(#${this.pick}, ${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const http = w.model.ir.behaviour.http;
    const t = this.task(w);
    if (http === false || !("url" in w.target) || t === undefined) return;
    const methods = http.methods.filter((m) => w.offered(m) && w.model.ir.methods.some((x) => x.method === m));
    if (!methods.length) return;
    const method = methods[this.which % methods.length]!;
    const header = http.header.toLowerCase();
    if (this.which % 3 === 2) {
      // The header's value in the Base64 sentinel encoding: decoded before it is compared, it names the task.
      count(w, "header in Base64");
      checked(rules.headerMismatch);
      const encoded = `=?base64?${Buffer.from(t.id, "utf8").toString("base64")}?=`;
      const decl = w.model.ir.methods.find((x) => x.method === method)!;
      const isCancel = w.model.ops("cancel").some((x) => x.method === method) || w.model.ir.behaviour.cancellation.method === method;
      if (isCancel && !w.model.terminal.has(t.status)) t.cancelRequested = true;
      const a = await w.session.request(method, validParams(w, decl, t.id), 10_000, undefined, { headers: { [header]: encoded } });
      expectAnswer(a, rules.headerMismatch, `${method} whose ${http.header} header is ${encoded}`);
      const declared = w.model.error(http.mismatchError);
      if (a.error && (a.error.code === declared?.code || a.http === 400)) fail(rules.headerMismatch, `${method} whose ${http.header} header is the task id in the Base64 sentinel encoding (${encoded}) was refused: the value must be decoded before it is compared`, "the header decoded and found equal", a.error);
      if (isCancel) await refresh(w, t);
      return;
    }
    const wrong = this.which % 3 === 0 ? undefined : `${t.id}-other`;
    count(w, "header mismatch");
    checked(rules.headerMismatch);
    const a = await w.session.request(method, idParams(w, t.id), 10_000, undefined, { headers: { [header]: wrong } });
    const declared = w.model.error(http.mismatchError);
    expectError(a, declared, rules.headerMismatch, `${method} whose ${http.header} header is ${wrong === undefined ? "missing" : `${JSON.stringify(wrong)} (another task)`}`);
    const status = w.model.ir.errors.find((e) => e.name === http.mismatchError)?.http;
    if (status !== undefined && a.http !== undefined && a.http !== status) fail(rules.headerMismatch, `${method} with a mismatched ${http.header} header was refused with HTTP ${a.http}`, status, a.http);
  }
}
