/** The Errors section: declared errors added, removed, or changed in code, message, HTTP status, message values or data. */
import type { IR, IRError } from "../ir.js";
import { emit, type Ctx } from "./context.js";
import { union, who } from "./directions.js";
import { cap, firstSentence, typeText } from "./text.js";
import { compareValue, type Loc } from "./values.js";

export function diffErrors(ctx: Ctx) {
  const newE = new Map(ctx.new.errors.map((e) => [e.name, e]));
  const oldE = new Map(ctx.old.errors.map((e) => [e.name, e]));
  const dirsOf = (name: string) => union(ctx.ou.errors.get(name), ctx.nu.errors.get(name));
  const text = (e: IRError) => `${e.code} "${e.message}"${e.http ? ` (HTTP ${e.http})` : ""}`;
  const ctxText = (e: IRError) => e.context.map((c) => `${c.name}: ${typeText(c.type)}`).join(", ");
  for (const e of ctx.old.errors) {
    const n = newE.get(e.name);
    const dirs = dirsOf(e.name);
    const w = who("error", dirs);
    const path = `errors.${e.name}`;
    if (!n) {
      const sameCode = ctx.new.errors.find((x) => x.code === e.code && x.message === e.message);
      emit(ctx, {
        section: "errors", rule: "error.removed", path, subject: e.name, dirs, before: text(e),
        summary: `Error \`${e.name}\` removed (${text(e)})`,
        hint: sameCode ? `Now declared as \`${sameCode.name}\`; nothing changes on the wire.` : `${cap(w.P)} stop answering it; ${w.C} may drop code that matches it.`,
      });
      continue;
    }
    if (e.code !== n.code) {
      emit(ctx, {
        section: "errors", rule: "error.code", path: `${path}.code`, subject: e.name, dirs, before: e.code, after: n.code,
        summary: `Error \`${e.name}\`: code ${e.code} → ${n.code}`,
        hint: `${cap(w.P)} must answer ${n.code}; ${w.C} that match on ${e.code} must match ${n.code}.`,
      });
    }
    if (e.message !== n.message) {
      emit(ctx, {
        section: "errors", rule: "error.message", path: `${path}.message`, subject: e.name, dirs, before: e.message, after: n.message,
        summary: `Error \`${e.name}\`: message "${e.message}" → "${n.message}"`,
        hint: `Update the text; code that matches on the message (rather than the code) must change.`,
      });
    }
    if (e.http !== n.http) {
      emit(ctx, {
        section: "errors", rule: "error.http", path: `${path}.http`, subject: e.name, dirs, before: e.http ?? null, after: n.http ?? null,
        summary: `Error \`${e.name}\`: HTTP status ${e.http ?? "none"} → ${n.http ?? "none"}`,
        hint: n.http ? `${cap(w.P)} must answer it with HTTP ${n.http} over Streamable HTTP.` : `${cap(w.P)} answer it with the transport's usual status.`,
      });
    }
    if (ctxText(e) !== ctxText(n)) {
      emit(ctx, {
        section: "errors", rule: "error.context", path: `${path}.context`, subject: e.name, dirs, before: ctxText(e), after: ctxText(n),
        summary: `Error \`${e.name}\`: message values (${ctxText(e) || "none"}) → (${ctxText(n) || "none"})`,
        hint: `Pass (${ctxText(n) || "nothing"}) to the generated error helper.`,
      });
    }
    const loc: Loc = { section: "errors", fieldSection: "errors", subject: e.name, path: `${path}.data`, label: `${e.name}.data`, inField: false, dirs };
    if (e.data && n.data) compareValue(ctx, e.data, n.data, loc);
    else if (e.data || n.data) {
      emit(ctx, {
        section: "errors", rule: n.data ? "field.added.optional" : "field.removed.optional", path: loc.path, subject: e.name, dirs,
        ...(e.data ? { before: typeText(e.data) } : { after: typeText(n.data!) }),
        summary: `Error \`${e.name}\` ${n.data ? `now carries data (${typeText(n.data)})` : "no longer carries data"}`,
        hint: n.data ? `${cap(w.C)} may read \`data\` (${typeText(n.data)}).` : `${cap(w.C)} must not expect \`data\`.`,
      });
    }
  }
  for (const n of ctx.new.errors) {
    if (oldE.has(n.name)) continue;
    const dirs = dirsOf(n.name);
    const w = who("error", dirs);
    const sameCode = ctx.old.errors.find((x) => x.code === n.code && x.message === n.message);
    emit(ctx, {
      section: "errors", rule: "error.added", path: `errors.${n.name}`, subject: n.name, dirs, after: text(n),
      summary: `Error \`${n.name}\` added (${text(n)})${n.description ? `: ${firstSentence(n.description)}` : ""}`,
      hint: sameCode ? `Was declared as \`${sameCode.name}\`; nothing changes on the wire.` : `${cap(w.C)} may get ${n.code}; handle it${usedBy(ctx.new, n.name)}.`,
    });
  }
}

function usedBy(ir: IR, error: string): string {
  const ms = ir.methods.filter((m) => m.errors.includes(error)).map((m) => `\`${m.method}\``);
  return ms.length ? ` on ${ms.join(", ")}` : "";
}
