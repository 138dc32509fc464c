/**
 * `conform`: a stateful, property-based test of a running server against a
 * spec. fast-check draws sequences of commands (create a task of some outcome,
 * get, ask for its result, list, cancel, delete, move it, send what the spec
 * refuses); each command checks the server's answers against the model the
 * spec gives (types, transitions, terminal states, declared errors, paging).
 * A failing sequence is shrunk to the shortest one that still fails and
 * reported with the rule it breaks, what was expected and what came.
 *
 * This module is the runner: the probe before the runs, the runs, the report. The rules are modules of `rules/`,
 * the commands of `commands/`, what a run draws is `generators.ts`, and the model of a run is `world.ts`.
 */
import fc from "fast-check";
import { END_OF_RUN, EndOfRun } from "./commands/read.js";
import { type SpecModel, specModel } from "./model.js";
import { augmentDeclared, listTools, otherAugmentable, transportChecks } from "./probe.js";
import { notTaskTyped } from "./rules/result-type.js";
import { sessionChecks } from "./rules/http-session.js";
import { CannotTestError, type ConformOptions, type ConformReport, DEFAULT_OUTCOMES, type OutcomeName, type Outcomes, type ToolRecipe, type Violation, ViolationError } from "./report.js";
import { checked, fail, tallied } from "./rule.js";
import { RULE_CATALOGUE, rules } from "./rules/index.js";
import { Connector, DEFAULT_TIMING, Session, valueAt } from "./session.js";
import { StdioWire, type TranscriptEntry } from "./wire.js";
import { brief, idParams, isObject, mayAugment, type Made, type World } from "./world.js";
import { drawnCommands } from "./generators.js";
import { onceChecks } from "./once.js";
import { teardownCheck } from "./teardown.js";
export { CannotTestError, DEFAULT_OUTCOMES, ViolationError, type ConformOptions, type ConformReport, type OutcomeName, type Outcomes, type ToolRecipe, type Verdict, type Violation } from "./report.js";

export async function conform(opts: ConformOptions): Promise<ConformReport> {
  const started = Date.now();
  const model = specModel(opts.ir);
  const seed = opts.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;
  const runs = opts.runs ?? 20;
  const outcomes = opts.outcomes ?? DEFAULT_OUTCOMES;
  const timing = opts.timing ?? DEFAULT_TIMING;
  const connector = new Connector(model, opts.target, timing, opts.freshProcess ?? false);
  try {
    return await conformWith(opts, connector, { started, model, seed, runs, outcomes });
  } finally {
    await connector.close();
  }
}

/** The report of a run that could not test the server, with what it saw. */
function untestable(
  base: Omit<ConformReport, "ok" | "verdict" | "failure" | "durationMs">,
  started: number,
  kind: "unreachable" | "timeout" | "crash",
  message: string,
  sequence: string[],
  transcript: TranscriptEntry[],
): ConformReport {
  return { ...base, ok: false, verdict: "untestable", failure: { kind, violation: { rule: kind, message }, sequence, shrunk: false, transcript }, durationMs: Date.now() - started };
}

async function conformWith(
  opts: ConformOptions,
  connector: Connector,
  { started, model, seed, runs, outcomes }: { started: number; model: SpecModel; seed: number; runs: number; outcomes: Outcomes },
): Promise<ConformReport> {
  const exercised: Record<string, number> = {};
  const ruleChecks: Record<string, number> = Object.fromEntries(RULE_CATALOGUE.map((r) => [r.name, 0]));
  const made: Made = { tasks: 0, plainly: 0, ended: new Set(), tokens: new Set(), ids: new Set(), endedIds: new Set(), handedOut: new Set(), plainErrors: new Map(), plainResults: new Map() };
  const skipped: string[] = [];
  const ignore = new Set(opts.ignore ?? []);
  const deviations: ConformReport["deviations"] = {};
  const base = () => ({ spec: opts.ir.spec.name, seed, runs: 0, commands: 0, exercised, skipped, rules: ruleChecks, deviations, checks: [] as ConformReport["checks"], serverStarts: connector.starts });
  const transport = await transportChecks(opts.target, model, connector.timing);
  if (transport instanceof CannotTestError) return untestable(base(), started, transport.kind, transport.reason, [], []);
  const checks = transport;
  // Streamable HTTP's sessions and streams, on a session of their own.
  if ("url" in opts.target) checks.push(...(await sessionChecks(opts.target, model, connector.timing.requestMs)));

  // One probe session: the handshake, the tools offered, which outcomes can be made here.
  const probe = connector.session();
  const hello = await probe.open();
  if (hello !== undefined && !hello.result) {
    await probe.close();
    const transcript = probe.wire.transcript.slice(-10);
    if (hello.timedOut) {
      const t = connector.timing;
      const stdio = "stdio" in opts.target;
      return untestable({ ...base(), checks }, started, "timeout", `no answer to initialize within ${(stdio ? t.startupMs : t.requestMs) / 1000} s (${stdio ? "--startup-timeout" : "--request-timeout"})${stderrTail(probe)}`, ["initialize"], transcript);
    }
    if (hello.broken !== undefined) return untestable({ ...base(), checks }, started, "unreachable", `initialize: ${hello.broken}${stderrTail(probe)}`, ["initialize"], transcript);
    return {
      ...base(),
      checks,
      ok: false,
      verdict: "violation",
      failure: { kind: "violation", violation: { rule: "handshake", message: `initialize failed: error ${hello.error?.code} ${hello.error?.message}` }, sequence: ["initialize"], shrunk: false, transcript },
      durationMs: Date.now() - started,
    };
  }
  const caps = model.ir.behaviour.capabilities.server;
  if (hello !== undefined && caps !== false) {
    const at = valueAt(probe.serverCapabilities, caps.path);
    checks.push({ rule: "capabilities", ok: at !== undefined, message: `the server ${at === undefined ? "does not declare" : "declares"} the capability at ${caps.path.join(".")}` });
  }
  if (model.perRequest && caps !== false) {
    // The per-request lifecycle's discovery: the server names its capabilities there, the spec's among them.
    const d = await probe.request("server/discover", {});
    if (d.result) {
      checks.push(...notTaskTyped(model, "server/discover", d.result));
      const at = valueAt(isObject(d.result.capabilities) ? d.result.capabilities : {}, caps.path);
      checks.push({ rule: "capabilities", ok: at !== undefined, message: `server/discover ${at === undefined ? "does not declare" : "declares"} the capability at ${caps.path.join(".")}` });
    } else if (!d.timedOut) checks.push({ rule: "capabilities", ok: false, message: `server/discover was not served: ${JSON.stringify(d.error ?? d.broken)}` });
  }
  const tools = await listTools(probe, (r) => checks.push(...notTaskTyped(model, "tools/list", r)));
  if (tools === undefined) {
    await probe.close();
    return untestable({ ...base(), checks }, started, probe.wire.closedReason === undefined ? "timeout" : "unreachable", `tools/list: ${probe.wire.closedReason ?? `no answer in time (--startup-timeout ${connector.timing.startupMs / 1000} s, --request-timeout ${connector.timing.requestMs / 1000} s)`}${stderrTail(probe)}`, ["tools/list"], probe.wire.transcript.slice(-10));
  }
  const augmentable = await otherAugmentable(probe, model);
  await probe.close();
  // A method the server's capability gates is offered only where the server declares that part of it.
  const gates = caps === false ? {} : (caps.gates ?? {});
  const offered = (method: string): boolean => {
    const gate = Object.prototype.hasOwnProperty.call(gates, method) ? gates[method] : undefined;
    return gate === undefined || hello === undefined || caps === false || valueAt(probe.serverCapabilities, [...caps.path, ...gate]) !== undefined;
  };
  const augmented = (method: string): boolean => hello === undefined || augmentDeclared(model, probe.serverCapabilities, method);
  // Tasks bound to the session can be kept from another session over HTTP; those bound to the auth context, from
  // another principal where the tester is given one (--other-header). Over stdio a process is one requestor: the
  // other is another server process on the same store (--other-stdio), which the user starts as another requestor.
  const binding = model.ir.behaviour.sessionBinding;
  const bySession = !model.perRequest && (binding === "session" || binding === "session-and-auth");
  const byAuth = binding === "auth" || binding === "session-and-auth";
  const isolation = "url" in opts.target ? bySession || (byAuth && opts.target.otherHeaders !== undefined) : opts.target.other !== undefined && binding !== "none";
  if (!isolation) {
    skipped.push(
      `isolation: ${
        binding === "none"
          ? "tasks are bound to nothing"
          : "url" in opts.target
            ? "tasks are bound to the auth context, and the tester has one principal (--other-header gives it another)"
            : "over stdio the server process is one requestor (--other-stdio names another process on the same store)"
      }`,
    );
  }
  const foreign = new Set<string>();
  for (const method of Object.keys(gates)) if (!offered(method)) skipped.push(`${method}: the server does not declare it (capability ${caps === false ? "" : [...caps.path, ...gates[method]!].join(".")})`);
  const available: OutcomeName[] = [];
  for (const [name, recipe] of Object.entries(outcomes) as Array<[OutcomeName | "inputs", ToolRecipe | undefined]>) {
    if (recipe === undefined || name === "inputs") continue;
    if (!mayAugment(model, "tools/call")) skipped.push(`outcome ${name}: the spec lets no tools/call become a task (creation.requests.server: ${model.ir.behaviour.creation.requests.server.join(", ")})`);
    else if (!tools.has(recipe.name)) skipped.push(`outcome ${name}: the server offers no tool ${recipe.name}`);
    else if (name === "input" && model.ir.behaviour.input === false) skipped.push("outcome input: the spec declares no input");
    else available.push(name);
  }
  for (const [what, op] of [["get", "get"], ["result", "result"], ["list", "list"], ["delete", "delete"], ["transition", "transition"]] as const) {
    if (!model.op(op)) skipped.push(`${what}: the spec declares no ${op} method`);
  }

  for (const method of ["resources/read", "prompts/get"]) {
    if (mayAugment(model, method) && !augmentable.some((a) => a.method === method)) skipped.push(`creation through ${method}: the server offers nothing to ask it of, or does not declare it as a task request`);
  }
  const commandArbs = drawnCommands({ model, offered, tools, available, augmentable, isolation, http: "url" in opts.target, gates });
  const worldOf = (session: Session): World => ({ model, session, tasks: [], outcomes, tools, exercised, ignore, deviations, offered, augmented, target: opts.target, isolation, foreign, made, notificationsSeen: 0, serverRequestsSeen: 0, httpResponsesSeen: 0, otherSession: () => connector.otherSession() });
  let commands = 0;
  type Run = { transcript: TranscriptEntry[]; sequence: string[] };
  let last: (Run & { violation: Violation; atEnd: boolean }) | undefined;
  let previous: Run | undefined;
  let runsDone = 0;
  // Once the server could not be tested, nothing more is asked of it: the runs left (and shrinking) pass at once.
  let cannot: { kind: "unreachable" | "timeout" | "crash"; message: string; sequence: string[]; transcript: TranscriptEntry[] } | undefined;
  const property = fc.asyncProperty(fc.commands(commandArbs, { maxCommands: opts.maxCommands ?? 12, size: "+1" }), async (cmds) => {
    if (cannot !== undefined) return;
    // A stdio server that died after the last run's commands: that run crashed it.
    const died = connector.died();
    if (died !== undefined) {
      cannot = { kind: "crash", message: `the server stopped answering: ${died} after the run below ended${connector.stderrTail()}`, sequence: previous?.sequence ?? [], transcript: previous?.transcript ?? [] };
      return;
    }
    const session = connector.session();
    const world = worldOf(session);
    const from = session.wire.transcript.length;
    // A fresh server process holds none of the tasks the runs before made: their ids are no longer its own.
    if (opts.freshProcess === true) made.handedOut.clear();
    // The commands that ran, and the end-of-run checks once they started.
    let atEnd = false;
    const sequence = () => (atEnd ? [...ran(cmds), END_OF_RUN] : ran(cmds));
    try {
      const h = await session.open();
      if (h?.timedOut) throw new CannotTestError("timeout", `no answer to initialize within ${connector.timing.requestMs / 1000} s (--request-timeout)`);
      if (h !== undefined) checked(rules.handshake);
      if (h !== undefined && !h.result) fail(rules.handshake, "initialize failed", "a result", brief(h));
      await fc.asyncModelRun(() => ({ model: {}, real: world }), cmds);
      atEnd = true;
      await new EndOfRun().run({}, world);
    } catch (e) {
      if (e instanceof CannotTestError) {
        cannot = { kind: e.kind, message: e.reason, sequence: sequence(), transcript: session.wire.transcript.slice(from) };
        return;
      }
      const violation = e instanceof ViolationError ? e.violation : { rule: "tester", message: `the tester itself failed: ${(e as Error).stack ?? String(e)}` };
      // A server that stopped answering (its process exited, its port closed) crashed: no rule can be checked.
      if (gone(violation)) {
        const served = connector.sessionsBefore > 0 ? ` (its process had served ${connector.sessionsBefore} sessions before this one)` : "";
        cannot = { kind: "crash", message: `the server stopped answering: ${violation.message}${served}${connector.stderrTail()}`, sequence: sequence(), transcript: session.wire.transcript.slice(from) };
        return;
      }
      last = { violation, transcript: session.wire.transcript.slice(from), sequence: sequence(), atEnd };
      throw e;
    } finally {
      commands += ran(cmds).length;
      // Over stdio every run speaks on the one connection of its process: its tasks are not another requestor's.
      if ("url" in opts.target) for (const t of world.tasks) foreign.add(t.id);
      previous = { transcript: session.wire.transcript.slice(from), sequence: sequence() };
      // A server that does not answer in time would keep the cleanup waiting as long for each task.
      if (cannot === undefined) await cleanup(world);
      await session.close();
      opts.onRun?.(++runsDone);
    }
  });
  const result = await tallied(ruleChecks, () =>
    fc.check(property, {
      numRuns: runs,
      seed,
      ...(opts.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: opts.timeLimitMs }),
    }),
  );
  // What a drawn run is too short to show, once, on a session of its own.
  let once: (Run & { violation: Violation }) | undefined;
  if (!result.failed && cannot === undefined && !connector.died()) {
    const session = connector.session();
    const world = worldOf(session);
    if (opts.freshProcess === true) made.handedOut.clear();
    const other = isolation ? () => worldOf(connector.otherSession()) : undefined;
    try {
      await tallied(ruleChecks, async () => {
        const h = await session.open();
        if (h !== undefined && !h.result) return;
        await onceChecks(world, other, skipped);
        // The last: it shuts the server down.
        await teardownCheck(world, skipped);
      });
    } catch (e) {
      if (e instanceof ViolationError && ignore.has(e.violation.rule)) {
        // A rule the user chose to ignore: counted as a deviation, as in the runs (the checks after it are not made).
        const d = (deviations[e.violation.rule] ??= { count: 0, first: e.violation });
        d.count++;
      } else if (e instanceof ViolationError) once = { violation: e.violation, transcript: session.wire.transcript.slice(-40), sequence: ["once: input keys, concurrent creations, a full page, another requestor's newer tasks, the server shut down with a subscription open"] };
      else if (e instanceof CannotTestError) cannot = { kind: e.kind, message: e.reason, sequence: ["once per run"], transcript: session.wire.transcript.slice(-20) };
      else throw e;
    } finally {
      if (cannot === undefined) await cleanup(world);
      await session.close();
    }
  }
  for (const c of checks) ruleChecks[c.rule] = (ruleChecks[c.rule] ?? 0) + 1;
  const ok = !result.failed && once === undefined && checks.every((c) => c.ok || ignore.has(c.rule));
  const report: ConformReport = {
    ok,
    verdict: ok ? "held" : "violation",
    serverStarts: connector.starts,
    spec: opts.ir.spec.name,
    seed,
    runs: result.numRuns,
    commands,
    exercised,
    skipped,
    rules: ruleChecks,
    deviations,
    checks,
    durationMs: Date.now() - started,
  };
  // A server that declares no task capability and made no task has no task support: what it answered says nothing
  // of the spec's rules (a server that makes tasks without declaring the capability breaks \`capabilities\`).
  const undeclared = hello !== undefined && caps !== false && valueAt(probe.serverCapabilities, caps.path) === undefined;
  if (cannot === undefined && made.tasks === 0 && undeclared) {
    const also = result.failed && last ? ` (its answers without task support also broke ${last.violation.rule}: ${last.violation.message})` : "";
    return {
      ...report,
      ok: false,
      verdict: "untestable",
      failure: { kind: "nothing-tested", violation: { rule: "nothing-tested", message: `the server declares no task capability (${caps.path.join(".")}) and made no task: it has no task support to test; if it does serve tasks, name a tool it runs as a task with --outcomes${also}` }, sequence: [], shrunk: false, transcript: [] },
    };
  }
  if (once !== undefined) report.failure = { kind: "violation", violation: once.violation, sequence: once.sequence, shrunk: false, transcript: once.transcript };
  if (result.failed && last) {
    // The last failing run is the counterexample's: where its end-of-run checks failed, they end the sequence.
    const sequence = result.counterexample ? [...ran(result.counterexample[0] as Iterable<unknown>), ...(last.atEnd ? [END_OF_RUN] : [])] : last.sequence;
    report.failure = { kind: "violation", violation: last.violation, sequence, shrunk: true, transcript: last.transcript };
  } else if (cannot !== undefined) {
    report.ok = false;
    report.verdict = "untestable";
    const hint = cannot.kind === "timeout" ? " (the server may be too slow on this machine: raise --request-timeout, or --startup-timeout for its start-up)" : "";
    report.failure = { kind: cannot.kind, violation: { rule: cannot.kind, message: `${cannot.message}${hint}` }, sequence: cannot.sequence, shrunk: false, transcript: cannot.transcript };
  } else if (ok) {
    // Rules that held where nothing was tested say nothing of the server: a run must have made tasks and seen work end.
    const why = nothingTested(made, { model, outcomes, tools, available, augmentable });
    if (why !== undefined) {
      report.ok = false;
      report.verdict = "untestable";
      report.failure = { kind: "nothing-tested", violation: { rule: "nothing-tested", message: why }, sequence: [], shrunk: false, transcript: previous?.transcript.slice(-20) ?? [] };
    }
  }
  return report;
}

/** The last lines the server wrote to stderr (stdio), to show why it did not answer. */
function stderrTail(session: Session): string {
  const err = session.wire instanceof StdioWire ? session.wire.stderr.join("").trim() : "";
  return err === "" ? "" : `; its stderr ends: ${err.slice(-600)}`;
}

/** The commands of a drawn sequence that ran (fast-check marks them; those after a failure did not). */
function ran(cmds: Iterable<unknown>): string[] {
  return [...cmds].filter((c) => (c as { hasRan?: boolean }).hasRan !== false).map(String);
}

/** Whether a violation says the server is gone (its process exited, its port stopped answering). */
function gone(v: Violation): boolean {
  return /HTTP request failed|process exited|could not start/.test(`${v.message} ${typeof v.observed === "string" ? v.observed : ""}`);
}

/** Leaves no work running behind a run: cancels what the model still knows as live (best effort). */
async function cleanup(w: World): Promise<void> {
  const c = w.model.ir.behaviour.cancellation;
  const cancel = c.via === "method" && c.method !== undefined && w.offered(c.method) ? c.method : undefined;
  for (const t of w.tasks) {
    if (t.gone || w.model.terminal.has(t.status)) continue;
    if (cancel !== undefined) await w.session.request(cancel, idParams(w, t.id), 3000).catch(() => undefined);
    else if (c.via === "cancelled-notification" && t.requestId !== undefined) await w.session.wire.notify("notifications/cancelled", { requestId: t.requestId, reason: "conform" });
  }
}

/**
 * Why the runs tested nothing, where they did: no task was made (the server offers no tool the outcomes name,
 * served every task request plainly, or the spec lets no request it offers become a task), or no outcome's work
 * was seen to its end. Undefined where something was tested.
 */
function nothingTested(
  made: Made,
  { model, outcomes, tools, available, augmentable }: { model: SpecModel; outcomes: Outcomes; tools: ReadonlyMap<string, unknown>; available: readonly OutcomeName[]; augmentable: readonly unknown[] },
): string | undefined {
  const fix = `name tools of the server with --outcomes (e.g. --outcomes '{"complete":{"name":"<tool>","arguments":{}},"long":{"name":"<slow tool>"}}')`;
  if (made.tasks === 0) {
    if (made.plainly > 0) return `no task was made: every task request (${made.plainly}) was served plainly, without a task; conform checks tasks only where the server makes them: ${fix}, naming tools the server runs as tasks`;
    if (!available.length && !augmentable.length) {
      const named = Object.entries(outcomes).filter(([, r]) => r !== undefined).map(([o, r]) => `${o}: ${r!.name}`);
      const offered = [...tools.keys()].slice(0, 10);
      return `no task was made: the server offers none of the tools the outcomes name (${named.join(", ") || "none"}); it offers ${offered.length ? offered.join(", ") : "no tool"}: ${fix}`;
    }
    return `no task was made: ${fix}`;
  }
  if (made.ended.size === 0) {
    const ends = (["complete", "fail", "error", "input"] as const).filter((o) => available.includes(o));
    return `${made.tasks} task(s) made, but none of the spec's outcomes was seen to its end (${ends.length ? `outcomes offered: ${ends.join(", ")}` : "the server offers a tool for no outcome that ends on its own"}): ${fix}`;
  }
  return undefined;
}
