/**
 * The keys of a task's input requests, where input is asked in the task itself and answered through the update
 * method (`behaviour.input.via: inline-poll`): made once per invocation with work that asks several inputs at
 * once (the `inputs` outcome). Every outstanding request is shown; a key names one request for the task's whole
 * life (never another one, not even after its answer); a partial answer leaves the task waiting for the rest; an
 * answer to a key never issued, or to one already answered, is acknowledged and changes nothing.
 */
import { isDeepStrictEqual } from "node:util";
import { answerInputRound, limitedPoll, observe, seeToEnd } from "../follow.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { checkEmptyAck, checkResultType } from "../rules/result-type.js";
import { answerInput, taskIn } from "../session.js";
import { checkSchema, count, expectAnswer, idParams, isLimitError, isObject, type World } from "../world.js";
import { Create } from "./create.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long the tester waits for the several requests to show, and for an acknowledged answer to take effect. */
const SETTLE_MS = 3000;

/** Whether the spec asks input in the task and takes answers by key (then these checks make the inputs outcome's work). */
export function keyedInput(w: World): boolean {
  const input = w.model.ir.behaviour.input;
  return input !== false && input.via === "inline-poll" && input.updateMethod !== undefined && !!input.requestsField && !!input.responsesField && w.model.op("get") !== undefined;
}

export async function inputKeyChecks(w: World, skipped: string[]): Promise<void> {
  const input = w.model.ir.behaviour.input;
  const recipe = w.outcomes.inputs;
  const get = w.model.op("get");
  if (!keyedInput(w) || input === false || input.updateMethod === undefined || !input.requestsField || !input.responsesField || get === undefined) return;
  if (recipe === undefined || !w.tools.has(recipe.name)) {
    skipped.push(`input keys: the server offers no tool of the inputs outcome${recipe ? ` (${recipe.name})` : ""}, work that asks several inputs at once`);
    return;
  }
  const { updateMethod, requestsField, responsesField } = input;
  // Made as the input outcome's work: it completes once its input is answered.
  const made = await new Create("input", undefined, undefined, recipe).make(w);
  if (made === undefined) return;
  const t = made.t;
  count(w, "once: input keys");
  // Every key the task showed, with the request it named when first shown.
  const named = new Map<string, unknown>();
  const read = async (): Promise<Record<string, unknown>> => {
    let sent = Date.now();
    let a = await w.session.request(get.method, idParams(w, t.id));
    // Rate-limited for polling sooner than the task's interval: asked again a little later.
    for (let tries = 0; a.error && tries < 50 && limitedPoll(w, t, sent, a.error.code, get.method); tries++) {
      await sleep(200);
      sent = Date.now();
      a = await w.session.request(get.method, idParams(w, t.id));
    }
    expectAnswer(a, rules.get, `${get.method} of task ${t.id}`);
    if (a.error) fail(rules.get, `${get.method} of a live task ${t.id} failed`, "the task", a.error);
    const task = taskIn(w.model, a.result) ?? {};
    observe(w, t, task, get.method, sent);
    const asked = isObject(task[requestsField]) ? (task[requestsField] as Record<string, unknown>) : {};
    for (const [k, r] of Object.entries(asked)) {
      checked(rules.input);
      if (!named.has(k)) named.set(k, r);
      else if (!isDeepStrictEqual(named.get(k), r)) fail(rules.input, `task ${t.id} names two requests with the key ${JSON.stringify(k)} in ${requestsField}: a key names one request for the task's whole life`, named.get(k), r);
    }
    return asked;
  };
  const update = async (responses: Record<string, unknown>, what: string) => {
    const u = await w.session.request(updateMethod, { ...idParams(w, t.id), [responsesField]: responses });
    expectAnswer(u, rules.input, `${updateMethod} of task ${t.id} ${what}`);
    checked(rules.input);
    if (u.error) {
      if (isLimitError(w.model, u.error.code)) return false;
      fail(rules.input, `${updateMethod} of task ${t.id} ${what} was refused: the server must ignore answers to keys that are not outstanding and accept the others`, "an acknowledgement", u.error);
    }
    checkResultType(w, updateMethod, u.result!);
    checkEmptyAck(w, updateMethod, u.result!, rules.input);
    checkSchema(w.model.schemas.result(updateMethod), u.result, rules.types, `${updateMethod} result`);
    return true;
  };
  const answer = (r: unknown) => answerInput(String(isObject(r) ? r.method : ""), isObject(r) && isObject(r.params) ? r.params : undefined);
  const waiting = () => w.model.roleOf[t.status] === "input_required";

  // The task asks for its inputs: all of them are shown at once.
  const deadline = Date.now() + 15_000;
  let asked: Record<string, unknown> = {};
  while (!waiting() && !w.model.terminal.has(t.status) && Date.now() < deadline) {
    asked = await read();
    if (!waiting()) await sleep(50);
  }
  if (!waiting()) fail(rules.progress, `task ${t.id} of ${recipe.name}, whose work asks for input, did not ask for it within 15 s`, "input_required", t.status);
  const settle = Date.now() + SETTLE_MS;
  while (Object.keys(asked).length < 2 && waiting() && Date.now() < settle) {
    await sleep(100);
    asked = await read();
  }
  if (waiting() && Object.keys(asked).length < 2) {
    fail(rules.input, `task ${t.id} of ${recipe.name}, whose work asks several inputs at once, shows ${Object.keys(asked).length} request(s) in ${requestsField} for ${SETTLE_MS / 1000} s: it must show every outstanding request`, "two or more requests", asked);
  }
  if (!waiting()) return seeToEnd(w, t);
  const [first, ...rest] = Object.keys(asked);
  const others = new Set(rest);

  // An answer to a key never issued: acknowledged, and nothing changes.
  const never = `conform-never-issued-${Math.random().toString(36).slice(2, 8)}`;
  count(w, "once: an answer to a key never issued");
  if (!(await update({ [never]: answer(asked[first!]) }, `answering only a key it never issued (${never})`))) return;
  const before = Object.keys(asked).sort();
  asked = await read();
  if (!waiting()) fail(rules.input, `task ${t.id} left input_required for ${t.status} after an answer to a key it never issued`, "input_required", t.status);
  if (!isDeepStrictEqual(Object.keys(asked).sort(), before)) fail(rules.input, `task ${t.id} shows other requests after an answer to a key it never issued`, before, Object.keys(asked));

  // A partial answer, where the spec lets the server take one: the task waits for the rest.
  if (input.partial === true) {
    count(w, "once: a partial answer");
    if (!(await update({ [first!]: answer(named.get(first!)) }, `answering ${first} of its ${others.size + 1} requests`))) return;
    const until = Date.now() + SETTLE_MS;
    do {
      await sleep(100);
      asked = await read();
      if (!waiting()) fail(rules.input, `task ${t.id} left input_required for ${t.status} after a partial answer, with ${[...others].join(", ")} unanswered`, "input_required until every request is answered", t.status);
      const lost = [...others].filter((k) => !(k in asked));
      if (lost.length) fail(rules.input, `after a partial answer, task ${t.id} no longer shows ${lost.join(", ")}, which were not answered`, [...others], Object.keys(asked));
    } while (first! in asked && Date.now() < until);
    // The answered key again: acknowledged, and nothing changes.
    count(w, "once: an answer to a key already answered");
    if (!(await update({ [first!]: answer(named.get(first!)) }, `answering ${first} again`))) return;
    asked = await read();
    if (!waiting()) fail(rules.input, `task ${t.id} left input_required for ${t.status} after an answer to a key already answered, with ${[...others].join(", ")} unanswered`, "input_required", t.status);
  }
  // The rest; the task then goes on to its end, every request it shows on the way keeping its key.
  const left = Object.keys(asked);
  if (left.length && !(await update(Object.fromEntries(left.map((k) => [k, answer(asked[k])])), `answering ${left.join(", ")}`))) return;
  const end = Date.now() + 15_000;
  while (!w.model.terminal.has(t.status) && Date.now() < end) {
    await sleep(100);
    await read();
    if (waiting()) await answerInputRound(w, t);
  }
  await seeToEnd(w, t);
}

