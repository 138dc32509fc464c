/** The Types section: declared types added, removed, or compared value by value (their fields land in Fields). */
import { emit, type Ctx } from "./context.js";
import { union } from "./directions.js";
import { firstSentence, typeText } from "./text.js";
import { compareValue } from "./values.js";

export function diffTypes(ctx: Ctx) {
  const skip = new Set([ctx.old.statusType, ctx.new.statusType]);
  const oldT = new Map(ctx.old.types.filter((t) => !skip.has(t.name)).map((t) => [t.name, t]));
  const newT = new Map(ctx.new.types.filter((t) => !skip.has(t.name)).map((t) => [t.name, t]));
  const dirsOf = (name: string) => union(ctx.ou.types.get(name), ctx.nu.types.get(name));
  for (const [name, t] of oldT) {
    const n = newT.get(name);
    const dirs = dirsOf(name);
    if (!n) {
      emit(ctx, {
        section: "types", rule: "type.removed", path: `types.${name}`, subject: name, dirs, before: typeText(t.type),
        summary: `Type \`${name}\` removed (${typeText(t.type)})`,
        hint: `Remove uses of \`${name}\`; the methods and fields that used it say what replaces it.`,
      });
      continue;
    }
    compareValue(ctx, t.type, n.type, { section: "types", fieldSection: "fields", subject: name, path: `types.${name}`, label: name, inField: false, dirs });
  }
  for (const [name, t] of newT) {
    if (oldT.has(name)) continue;
    emit(ctx, {
      section: "types", rule: "type.added", path: `types.${name}`, subject: name, dirs: dirsOf(name), after: typeText(t.type),
      summary: `Type \`${name}\` added (${typeText(t.type)})${t.description ? `: ${firstSentence(t.description)}` : ""}`,
      hint: `Nothing to do until you use it.`,
    });
  }
}
