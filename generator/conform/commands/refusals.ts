/**
 * What the spec refuses: unknown ids, params the type refuses, a tool's switch, the per-request envelope, methods
 * the capabilities gate or the spec does not serve, and a requestor's id that exists.
 */
import { Cmd, TaskCmd } from "./base.js";
import { refresh } from "../follow.js";
import type { SpecModel } from "../model.js";
import { checked, fail } from "../rule.js";
import { rules } from "../rules/index.js";
import { minimalValue } from "../schemas.js";
import { CLIENT_CAPABILITIES_KEY, envelope, PROTOCOL_VERSION_KEY, valueAt } from "../session.js";
import { addressing, count, expectAnswer, expectError, isLimitError, METHOD_NOT_FOUND, isObject, mayAugment, validParams, type World } from "../world.js";

/** Methods that address one task, each asked about an id no one was given. */
export class Unknown extends Cmd {
  constructor(readonly which: number) {
    super();
  }
  toString() {
    return `unknownId(${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const methods = addressing(w.model).filter((m) => w.offered(m.method));
    for (let i = 0; i < methods.length; i++) {
      const method = methods[(this.which + i) % methods.length]!;
      count(w, "unknown id");
      const a = await w.session.request(method.method, validParams(w, method, `conform-unknown-${this.which}`));
      // A server may support no deletion at all: its delete method is not found, whatever the task.
      if (a.error?.code === METHOD_NOT_FOUND && method.method === w.model.op("delete")?.method) continue;
      expectError(a, w.model.notFound, rules.unknownId, `${method.method} of an unknown task id`, -32602);
    }
  }
}

export class WrongParams extends Cmd {
  constructor(readonly which: number) {
    super();
  }
  toString() {
    return `wrongParams(${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const methods = addressing(w.model).filter((m) => w.offered(m.method));
    if (!methods.length) return;
    const method = methods[this.which % methods.length]!;
    count(w, "wrong params");
    checked(rules.params);
    const bad = this.which % 2 === 0 ? {} : { [w.model.idField]: 42 };
    const a = await w.session.request(method.method, bad);
    expectAnswer(a, rules.params, `${method.method} with ${JSON.stringify(bad)}`);
    if (!a.error) fail(rules.params, `${method.method} with params its type refuses (${JSON.stringify(bad)}) answered a result`, { code: -32602 }, a.result);
    // A server may support no deletion at all: its delete method is not found, whatever the params.
    if (a.error.code === METHOD_NOT_FOUND && method.method === w.model.op("delete")?.method) return;
    if (a.error.code !== -32602 && !(w.model.notFound && a.error.code === w.model.notFound.code)) {
      fail(rules.params, `${method.method} with params its type refuses answered error ${a.error.code}`, { code: -32602 }, a.error);
    }
  }
}

/** Plain arguments that a tool's input schema accepts: its required properties, each with a value of its type. */
export function argumentsFor(tool: Record<string, unknown>): Record<string, unknown> {
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === "string") : [];
  const out: Record<string, unknown> = {};
  for (const k of required) {
    const p = isObject(props[k]) ? (props[k] as Record<string, unknown>) : {};
    out[k] = Array.isArray(p.enum) && p.enum.length ? p.enum[0] : p.type === "boolean" ? true : p.type === "number" || p.type === "integer" ? 1 : p.type === "array" ? [] : p.type === "object" ? {} : "conform";
  }
  return out;
}

/** A tool's setting of the spec's per-tool switch (the spec's default where the tool gives none). */
export function switchSetting(m: SpecModel, tool: Record<string, unknown>): string | undefined {
  const sw = m.ir.behaviour.creation.toolSwitch;
  if (sw === false) return undefined;
  const v = valueAt(tool, sw.field.split("."));
  return typeof v === "string" ? v : sw.default;
}

/** The tools whose switch forbids or requires a task. */
export function switchCandidates(m: SpecModel, tools: ReadonlyMap<string, Record<string, unknown>>): Array<Record<string, unknown>> {
  return [...tools.values()].filter((t) => switchSetting(m, t) === "forbidden" || switchSetting(m, t) === "required");
}

/** The spec's per-tool switch: a tool that forbids tasks refuses a task request, one that requires them a plain call. */
export class Switch extends Cmd {
  constructor(readonly which: number) {
    super();
  }
  toString() {
    return `toolSwitch(${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const sw = w.model.ir.behaviour.creation.toolSwitch;
    // A server that does not declare tools/call among its task requests serves every call plainly: no switch applies.
    if (sw === false || !w.augmented("tools/call")) return;
    const setting = (t: Record<string, unknown>) => switchSetting(w.model, t);
    const candidates = switchCandidates(w.model, w.tools);
    if (!candidates.length) return;
    const tool = candidates[this.which % candidates.length]!;
    const forbidden = setting(tool) === "forbidden";
    count(w, "tool switch");
    const call = { name: tool.name, arguments: argumentsFor(tool) };
    const a = await w.session.request("tools/call", forbidden ? w.session.taskParams(call, undefined, 60_000) : call, 10_000);
    if (a.error && isLimitError(w.model, a.error.code)) return;
    const err = w.model.error(forbidden ? sw.forbiddenError : sw.requiredError);
    expectError(a, err, rules.toolSwitch, `tools/call of ${String(tool.name)} (${sw.field}: ${setting(tool)}) ${forbidden ? "with" : "without"} a task request`);
  }
}

/**
 * The per-request lifecycle's envelope: a request whose `_meta` protocol version or client capabilities are absent
 * is malformed (-32602, over HTTP with 400), one whose version is empty or one the spec does not speak is refused,
 * and a task method the client capability gates (`requiredBy`) is refused without that capability, with the
 * declared error.
 */
export class Envelope extends Cmd {
  constructor(readonly which: number) {
    super();
  }
  toString() {
    return `envelope(${this.which})`;
  }
  async exec(w: World): Promise<void> {
    if (!w.model.perRequest) return;
    const cap = w.model.ir.behaviour.capabilities.client;
    const kind = this.which % 5;
    if (kind === 3) {
      if (cap === false || !cap.requiredBy?.length || cap.missingError === undefined) return;
      const name = cap.requiredBy[this.which % cap.requiredBy.length]!;
      const method = w.model.ir.methods.find((m) => m.method === name);
      if (method === undefined) return;
      count(w, "missing capability");
      const declared = w.model.metaKey(w.model.ir.behaviour.creation.capabilityMeta);
      const params = { ...validParams(w, method, `conform-unknown-envelope-${this.which}`), _meta: { [CLIENT_CAPABILITIES_KEY]: {}, ...(declared === undefined ? {} : { [declared]: {} }) } };
      const a = await w.session.request(name, params);
      expectError(a, w.model.error(cap.missingError), rules.capabilities, `${name} without the client capability ${cap.path.join(".")}`);
      return;
    }
    // A request that succeeds with a good envelope (a listing), or a task method that needs the envelope's every
    // field (a get), so that only the envelope can refuse it.
    const get = w.model.op("get");
    const onTask = get !== undefined && (kind === 4 || this.which >= 5);
    const method = onTask ? get.method : "tools/list";
    const params = onTask ? validParams(w, get, `conform-unknown-envelope-${this.which}`) : {};
    count(w, "envelope");
    checked(rules.envelope);
    if (kind === 0 || kind === 4) {
      // A required field of the envelope missing: the request is malformed (-32602; over HTTP, 400 Bad Request).
      const missing = kind === 0 ? PROTOCOL_VERSION_KEY : CLIENT_CAPABILITIES_KEY;
      const declared = w.model.metaKey(w.model.ir.behaviour.creation.capabilityMeta);
      const omit = kind === 0 ? [missing] : [missing, ...(declared === undefined ? [] : [declared])];
      const a = await w.session.request(method, params, 10_000, undefined, { omit });
      const what = `${method} whose _meta has no ${missing}`;
      expectAnswer(a, rules.envelope, what);
      if (!a.error) fail(rules.envelope, `${what} was served`, { code: -32602 }, a.result);
      if (a.error.code !== -32602) fail(rules.envelope, `${what} answered error ${a.error.code}: a request missing a required field is refused with -32602`, { code: -32602 }, a.error);
      if (a.http !== undefined && a.http !== 400) fail(rules.envelope, `${what} was refused with HTTP ${a.http}`, 400, a.http);
      return;
    }
    const version = (["", "1999-01-01"] as const)[kind - 1];
    const a = await w.session.request(method, params, 10_000, undefined, { set: { [PROTOCOL_VERSION_KEY]: version } });
    expectAnswer(a, rules.envelope, method);
    if (!a.error) fail(rules.envelope, `${method} whose _meta protocol version is ${JSON.stringify(version)} was served`, "an error", a.result);
  }
}

/**
 * Capabilities as gates both ways: a method the server's capability gates, where the server does not declare
 * that part, is refused (rule `capabilities`); a method the spec lists as unsupported gets its declared error
 * (rule `unsupported`).
 */
export class Gate extends TaskCmd {
  constructor(
    pick: number,
    readonly which: number,
  ) {
    super(pick);
  }
  toString() {
    return `ungated(#${this.pick}, ${this.which})`;
  }
  async exec(w: World): Promise<void> {
    const caps = w.model.ir.behaviour.capabilities.server;
    const gates = caps === false ? {} : (caps.gates ?? {});
    const unsupported = w.model.ir.behaviour.unsupportedMethods;
    const all = [...Object.keys(gates).filter((m) => !w.offered(m)).map((m) => ({ method: m, gated: true })), ...(unsupported?.methods ?? []).map((m) => ({ method: m, gated: false }))];
    if (!all.length) return;
    const { method, gated } = all[this.which % all.length]!;
    const t = this.task(w);
    const decl = w.model.ir.methods.find((m) => m.method === method);
    const base = decl?.params === undefined ? {} : minimalValue(w.model.ir, decl.params);
    const params: Record<string, unknown> = isObject(base) ? { ...base } : {};
    if (w.model.idField in params || decl === undefined) params[w.model.idField] = t?.id ?? "conform-unknown-gated";
    count(w, gated ? "undeclared method" : "unsupported method");
    if (gated) checked(rules.capabilities);
    const a = await w.session.request(method, params, 10_000);
    if (gated) {
      expectAnswer(a, rules.capabilities, method);
      if (a.error && isLimitError(w.model, a.error.code)) return;
      if (!a.error) fail(rules.capabilities, `${method} was served, but the server does not declare ${caps === false ? "" : [...caps.path, ...gates[method]!].join(".")} in its capabilities`, { code: -32601 }, a.result);
      if (t && (w.model.op("cancel")?.method === method || w.model.ops("cancel").some((x) => x.method === method))) await refresh(w, t);
      return;
    }
    expectError(a, w.model.error(unsupported!.error), rules.unsupported, `${method}, which the spec does not serve`);
  }
}

/** Requestor-chosen ids: a task request with the id of a task that exists is refused with the declared error. */
export class Duplicate extends TaskCmd {
  toString() {
    return `duplicateId(#${this.pick})`;
  }
  async exec(w: World): Promise<void> {
    const c = w.model.ir.behaviour.creation;
    const t = this.task(w);
    const recipe = w.outcomes.complete;
    if (c.taskId.assignedBy !== "requestor" || !t || !recipe || !w.tools.has(recipe.name) || !mayAugment(w.model, "tools/call")) return;
    count(w, "duplicate id");
    const params = w.session.taskParams({ name: recipe.name, arguments: recipe.arguments ?? {} }, t.id, 60_000);
    const a = await w.session.request("tools/call", params, 15_000);
    if (a.error && isLimitError(w.model, a.error.code)) return;
    expectError(a, w.model.error(c.taskId.duplicateError), rules.duplicateId, `a task request with the id of task ${t.id}, which exists`);
  }
}
