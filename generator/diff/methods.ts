/** The Methods section: requests and notifications added, removed or changed, their params, results and errors. */
import type { IR, IRMethod } from "../ir.js";
import { emit, type Ctx } from "./context.js";
import { flip, senders, union, who, type Dir, type Dirs } from "./directions.js";
import type { Side } from "./model.js";
import { B, C, type Impact, type RuleId } from "./rules.js";
import { cap, firstSentence, typeText } from "./text.js";
import { compareValue } from "./values.js";

export function diffMethods(ctx: Ctx) {
  const oldM = new Map(ctx.old.methods.map((m) => [m.method, m]));
  const newM = new Map(ctx.new.methods.map((m) => [m.method, m]));
  const sideName = (from: IRMethod["from"]) => (from === "either" ? "either side" : `${from}s`);
  for (const m of ctx.old.methods) {
    const n = newM.get(m.method);
    const path = `methods.${m.method}`;
    const dirs = senders(m.from);
    const w = who(m.kind === "request" ? "call" : "data", dirs);
    if (!n) {
      const unsupported = ctx.new.behaviour.unsupportedMethods?.methods.includes(m.method);
      const answer = unsupported ? ctx.new.errors.find((e) => e.name === ctx.new.behaviour.unsupportedMethods!.error) : undefined;
      if (m.kind === "request") {
        emit(ctx, {
          section: "methods", rule: "method.removed", path, subject: m.method, dirs,
          summary: `Request \`${m.method}\` removed${answer ? ` (now answered with ${answer.code} "${answer.message}")` : ""}`,
          hint: `${cap(w.P)} must stop calling \`${m.method}\`${replacementHint(ctx, m.method)}; ${w.C} may drop its handler.`,
        });
      } else {
        emit(ctx, {
          section: "methods", rule: "notification.removed", path, subject: m.method, dirs,
          summary: `Notification \`${m.method}\` removed`,
          hint: `${cap(w.C)} must stop waiting for \`${m.method}\`${replacementHint(ctx, m.method)}; ${w.P} stop sending it.`,
        });
      }
      continue;
    }
    if (m.kind !== n.kind) {
      emit(ctx, {
        section: "methods", rule: "method.kind", path, subject: m.method, dirs: union(dirs, senders(n.from)),
        summary: `\`${m.method}\` is now a ${n.kind} (was a ${m.kind})`, before: m.kind, after: n.kind,
        hint: `Re-implement \`${m.method}\` on both sides as a ${n.kind}.`,
      });
    }
    if (m.from !== n.from) {
      const os = senders(m.from);
      const ns = senders(n.from);
      const sends = (s: ReadonlySet<Dir>, side: Side) => s.has(side === "client" ? "c2s" : "s2c");
      const handles = (s: ReadonlySet<Dir>, side: Side) => sends(s, side === "client" ? "server" : "client");
      const impact = (side: Side): Impact =>
        n.kind === "request" && ((sends(os, side) && !sends(ns, side)) || (handles(ns, side) && !handles(os, side))) ? B : C;
      const lost = [...os].filter((d) => !ns.has(d)).map((d) => (d === "c2s" ? "clients" : "servers"));
      const gained = [...ns].filter((d) => !os.has(d)).map((d) => (d === "c2s" ? "clients" : "servers"));
      emit(
        ctx,
        {
          section: "methods", rule: "method.direction", path: `${path}.from`, subject: m.method, dirs: union(os, ns),
          summary: `\`${m.method}\` is now sent by ${sideName(n.from)} (was ${sideName(m.from)})`, before: m.from, after: n.from,
          hint: [
            lost.length ? `${cap(lost.join(" and "))} may no longer send \`${m.method}\`` : "",
            gained.length ? `${gained.join(" and ")} may now send it, so ${gained.map((g) => (g === "clients" ? "servers" : "clients")).join(" and ")} must handle it` : "",
          ]
            .filter(Boolean)
            .join("; ") + ".",
        },
        { client: impact("client"), server: impact("server") },
      );
    }
    if (m.name !== n.name) {
      emit(ctx, {
        section: "methods", rule: "method.name", path: `${path}.name`, subject: m.method, dirs,
        summary: `Generated names of \`${m.method}\`: ${m.name}* → ${n.name}*`, before: m.name, after: n.name,
        hint: `Rename uses of ${m.messageName} and related generated names to ${n.messageName} etc.; the wire does not change.`,
      });
    }
    const op = (x: typeof m) => (x.operation === undefined ? "none" : x.operation === "transition" ? `transition to ${x.to ?? "?"}` : x.operation);
    if (op(m) !== op(n)) {
      emit(ctx, {
        section: "methods", rule: "method.operation", path: `${path}.operation`, subject: m.method, dirs,
        summary: `\`${m.method}\` does another thing: ${op(m)} → ${op(n)}`, before: op(m), after: op(n),
        hint: `Servers answer \`${n.method}\` as the ${op(n)} operation; clients that call it for the ${op(m)} operation must change.`,
      });
    }
    const nd = union(dirs, senders(n.from));
    diffSlot(ctx, m, n, "params", nd);
    diffSlot(ctx, m, n, "result", flip(nd));
    const ed = flip(nd);
    const ew = who("error", ed);
    for (const e of n.errors.filter((x) => !m.errors.includes(x))) {
      const err = ctx.new.errors.find((x) => x.name === e);
      emit(ctx, {
        section: "methods", rule: "method.error.added", path: `${path}.errors.${e}`, subject: m.method, dirs: ed, after: e,
        summary: `\`${m.method}\` may answer \`${e}\`${err ? ` (${err.code})` : ""}`,
        hint: `${cap(ew.C)} may now get \`${e}\` from \`${m.method}\`; handle it like other errors of the method.`,
      });
    }
    for (const e of m.errors.filter((x) => !n.errors.includes(x))) {
      emit(ctx, {
        section: "methods", rule: "method.error.removed", path: `${path}.errors.${e}`, subject: m.method, dirs: ed, before: e,
        summary: `\`${m.method}\` no longer answers \`${e}\``,
        hint: `${cap(ew.P)} stop answering \`${e}\` to \`${m.method}\`; handling it there is dead code.`,
      });
    }
  }
  for (const n of ctx.new.methods) {
    if (oldM.has(n.method)) continue;
    const dirs = senders(n.from);
    const w = who(n.kind === "request" ? "call" : "data", dirs);
    const path = `methods.${n.method}`;
    const replaces = replacedBy(ctx, n.method);
    if (n.kind === "request") {
      emit(ctx, {
        section: "methods", rule: "method.added", path, subject: n.method, dirs,
        summary: `Request \`${n.method}\` added${n.description ? `: ${firstSentence(n.description)}` : ""}`,
        hint: `${cap(w.C)} must implement \`${n.method}\`${replaces ? ` (it takes over from ${replaces})` : ""}; ${w.P} may call it.`,
      });
    } else {
      emit(ctx, {
        section: "methods", rule: "notification.added", path, subject: n.method, dirs,
        summary: `Notification \`${n.method}\` added${n.description ? `: ${firstSentence(n.description)}` : ""}`,
        hint: `${cap(w.P)} may send \`${n.method}\`${replaces ? ` (it takes over from ${replaces})` : ""}; ${w.C} may listen for it.`,
      });
    }
  }
}

/**
 * A removed method's successor: a new method declared in the same behaviour role
 * (cancel, result, listing, status push, ack, delete, input update).
 */
const METHOD_ROLES: readonly [string, (b: IR["behaviour"]) => string | false | undefined][] = [
  ["the task acknowledgement", (b) => b.creation.ack.notification],
  ["cancellation", (b) => b.cancellation.method ?? (b.cancellation.via === "cancelled-notification" ? "notifications/cancelled" : undefined)],
  ["deletion", (b) => b.cancellation.deleteMethod],
  ["the result", (b) => (b.results.mode === "inline" ? "tasks/get" : b.results.method)],
  ["listing", (b) => (b.listing ? b.listing.method : undefined)],
  ["status push", (b) => (b.statusNotifications ? b.statusNotifications.method : undefined)],
  ["input", (b) => (b.input ? (b.input.updateMethod ?? (b.input.via === "result-stream" ? b.results.method : undefined)) : undefined)],
];

function replacementHint(ctx: Ctx, method: string): string {
  for (const [role, get] of METHOD_ROLES) {
    if (get(ctx.old.behaviour) !== method) continue;
    const now = get(ctx.new.behaviour);
    if (now && now !== method) return ` (${role} now goes through \`${now}\`)`;
    if (!now) return ` (${role} has no method any more)`;
  }
  return "";
}

function replacedBy(ctx: Ctx, method: string): string | undefined {
  for (const [role, get] of METHOD_ROLES) {
    if (get(ctx.new.behaviour) !== method) continue;
    const was = get(ctx.old.behaviour);
    if (was && was !== method) return `\`${was}\` for ${role}`;
  }
  return undefined;
}

function diffSlot(ctx: Ctx, m: IRMethod, n: IRMethod, slot: "params" | "result", dirs: Dirs) {
  const a = m[slot];
  const b = n[slot];
  const path = `methods.${m.method}.${slot}`;
  const w = who("data", dirs);
  if (!a && !b) return;
  if (!a || !b) {
    const rule: RuleId = `method.${slot}.${a ? "removed" : "added"}`;
    emit(ctx, {
      section: "methods", rule, path, subject: m.method, dirs,
      summary: `\`${m.method}\` ${a ? "no longer has" : "now has"} ${slot} (${typeText((a ?? b)!)})`,
      ...(a ? { before: typeText(a) } : { after: typeText(b!) }),
      hint: a ? `${cap(w.C)} must not need the ${slot} of \`${m.method}\` any more.` : `${cap(w.P)} must send the ${slot} of \`${m.method}\`: ${typeText(b!)}.`,
    });
    return;
  }
  // Named types are compared once, under Types; only inline shapes and changed names are compared here.
  if (a.kind === "ref" && b.kind === "ref" && a.name === b.name && a.nullable === b.nullable) return;
  const label = `${m.method} ${slot}`;
  compareValue(ctx, a, b, { section: "methods", fieldSection: "methods", subject: m.method, path, label, inField: false, dirs });
}
