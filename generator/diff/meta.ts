/** The Meta keys section: `_meta` entries added, removed, or changed in key, messages they appear on, or type. */
import type { IR, IRMeta } from "../ir.js";
import { emit, type Ctx } from "./context.js";
import { isObj } from "./data.js";
import { union, who } from "./directions.js";
import { cap, firstSentence, typeText } from "./text.js";
import { compareValue } from "./values.js";

export function diffMeta(ctx: Ctx) {
  const newM = new Map(ctx.new.meta.map((m) => [m.name, m]));
  const oldM = new Map(ctx.old.meta.map((m) => [m.name, m]));
  const dirsOf = (name: string) => union(ctx.ou.meta.get(name), ctx.nu.meta.get(name));
  const text = (m: IRMeta) => `${m.key} on ${m.on.join(", ")}`;
  for (const m of ctx.old.meta) {
    const n = newM.get(m.name);
    const dirs = dirsOf(m.name);
    const w = who("data", dirs);
    const path = `meta.${m.name}`;
    if (!n) {
      emit(ctx, {
        section: "meta", rule: "meta.removed", path, subject: m.name, dirs, before: text(m),
        summary: `Meta key \`${m.key}\` removed (was on ${m.on.join(", ")})`,
        hint: `${cap(w.C)} must stop reading \`_meta["${m.key}"]\`; ${w.P} can stop sending it.`,
      });
      continue;
    }
    if (m.key !== n.key) {
      emit(ctx, {
        section: "meta", rule: "meta.key", path: `${path}.key`, subject: m.name, dirs, before: m.key, after: n.key,
        summary: `Meta key \`${m.key}\` is now \`${n.key}\``,
        hint: `Send and read \`_meta["${n.key}"]\` instead of \`_meta["${m.key}"]\`.`,
      });
    }
    const gained = n.on.filter((x) => !m.on.includes(x));
    const lost = m.on.filter((x) => !n.on.includes(x));
    if (gained.length) {
      emit(ctx, {
        section: "meta", rule: "meta.on.added", path: `${path}.on`, subject: m.name, dirs, before: [...m.on], after: [...n.on],
        summary: `Meta key \`${n.key}\` may now also appear on ${gained.join(", ")}`,
        hint: `${cap(w.C)} may read it there too.`,
      });
    }
    if (lost.length) {
      emit(ctx, {
        section: "meta", rule: "meta.on.removed", path: `${path}.on`, subject: m.name, dirs, before: [...m.on], after: [...n.on],
        summary: `Meta key \`${n.key}\` no longer appears on ${lost.join(", ")}`,
        hint: `${cap(w.C)} must not expect it on ${lost.join(", ")}.`,
      });
    }
    compareValue(ctx, m.type, n.type, { section: "meta", fieldSection: "meta", subject: m.name, path: `${path}.type`, label: `_meta["${n.key}"]`, inField: false, dirs });
  }
  for (const n of ctx.new.meta) {
    if (oldM.has(n.name)) continue;
    const dirs = dirsOf(n.name);
    const w = who("data", dirs);
    emit(ctx, {
      section: "meta", rule: "meta.added", path: `meta.${n.name}`, subject: n.name, dirs, after: text(n),
      summary: `Meta key \`${n.key}\` added on ${n.on.join(", ")} (${typeText(n.type)})${n.description ? `: ${firstSentence(n.description)}` : ""}`,
      hint: metaUse(ctx.new, n.name) ?? `${cap(w.P)} may send it; ${w.C} may read it.`,
    });
  }
}

/** "Used by behaviour.x" for a meta entry that a behaviour names. */
function metaUse(ir: IR, name: string): string | undefined {
  const paths: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (isObj(v)) for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    else if (v === name && /meta$/i.test(path)) paths.push(path);
  };
  walk(ir.behaviour, "behaviour");
  return paths.length ? `Required where \`${paths.join("`, `")}\` applies: see Behaviour.` : undefined;
}
