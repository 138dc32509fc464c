/**
 * The Behaviour section: the declared behaviours compared path by path, lists of
 * requests as sets, each change mapped to its rule by `BEHAVIOUR_RULES`, and the
 * properties that go with a changed mode reported as details of it.
 */
import { behaviourHint } from "./behaviour-hints.js";
import { emit, type Ctx } from "./context.js";
import { isObj, isPrimList, same } from "./data.js";
import { union, who, type Dir, type Dirs } from "./directions.js";
import { BEHAVIOUR_RULES, type RuleId } from "./rules.js";
import { brief, cap, capabilityText } from "./text.js";

/** Directions for behaviour paths whose producer is a fixed side rather than "the task receiver". */
const BEHAVIOUR_DIRECTIONS: Readonly<Record<string, Dir>> = {
  "behaviour.creation.requests.server": "s2c",
  "behaviour.creation.requests.client": "c2s",
};

function behaviourRule(path: string, kind: "added" | "removed" | "changed", detail: boolean): { rule: RuleId; priority?: number } {
  let best: (typeof BEHAVIOUR_RULES)[number] | undefined;
  for (const r of BEHAVIOUR_RULES) {
    if (!(path === r.path || path.startsWith(r.path + "."))) continue;
    if (r.on && r.on !== kind) continue;
    if (!best || r.path.length > best.path.length || (r.path.length === best.path.length && r.on && !best.on)) best = r;
  }
  if (best) return { rule: best.rule, priority: best.path === path ? best.priority : undefined };
  if (detail) return { rule: "behaviour.detail" };
  const priority = MAJOR_KEYS.includes(path.split(".").pop()!) ? 2 : undefined;
  return { rule: kind === "added" ? "behaviour.added" : kind === "removed" ? "behaviour.removed" : "behaviour.changed", priority };
}

/**
 * Keys that select a mode, and the sibling properties that exist only for some of
 * its values (as the checker requires them): when the mode changes, those siblings
 * appearing or disappearing are details of that change.
 */
const MODE_DETAILS: Readonly<Record<string, readonly string[]>> = {
  "behaviour.creation.via": ["meta", "param", "paramType", "capabilityMeta", "capability"],
  "behaviour.creation.taskId.assignedBy": ["field", "duplicateError"],
  "behaviour.creation.ack.mode": ["notification", "resultType"],
  "behaviour.results.mode": ["method", "notReadyError", "resultField", "errorField"],
  "behaviour.cancellation.via": ["method"],
  "behaviour.cancellation.terminal": ["terminalError"],
  "behaviour.cancellation.deleteMethod": ["deletableStatuses", "deleteRefusedError"],
  "behaviour.input.via": ["requestsField", "updateMethod", "responsesField"],
  "behaviour.statusNotifications.delivery": ["subscribeMethod", "subscribeField", "forbiddenOnStream"],
};
/** Mode keys whose change is read first (priority 2). */
const MAJOR_KEYS = ["via", "mode", "assignedBy"];

/** Behaviour values compared whole: their parts mean nothing alone. */
const ATOMIC = new Set(["behaviour.capabilities.server", "behaviour.capabilities.client"]);

export function diffBehaviour(ctx: Ctx, a: unknown, b: unknown, path: string, detailOf: string | undefined) {
  if (same(a, b)) return;
  if (isObj(a) && isObj(b) && !ATOMIC.has(path)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !(k in a))];
    const modes = Object.entries(MODE_DETAILS).filter(([m]) => m.startsWith(`${path}.`) && !m.slice(path.length + 1).includes("."));
    const modeOf = (k: string) =>
      modes.find(([m, details]) => {
        const key = m.slice(path.length + 1);
        return details.includes(k) && !same(a[key], b[key]);
      })?.[0];
    for (const k of keys) {
      const both = k in a && k in b && a[k] !== false && b[k] !== false;
      diffBehaviour(ctx, a[k], b[k], `${path}.${k}`, detailOf ?? (both ? undefined : modeOf(k)));
    }
    return;
  }
  const dirs: Dirs = BEHAVIOUR_DIRECTIONS[path] ? new Set([BEHAVIOUR_DIRECTIONS[path]]) : union(ctx.ou.task, ctx.nu.task);
  const w = who("task", dirs);
  const subject = path.split(".")[1] ?? path;
  if (isPrimList(a) && isPrimList(b) && (path.endsWith(".requests") || path.startsWith("behaviour.creation.requests"))) {
    const input = path === "behaviour.input.requests";
    // "*" (any request) → a list narrows it: one removal, not a removal and an addition.
    const addedItems = a.includes("*") ? [] : b.filter((x) => !a.includes(x));
    const removedItems = b.includes("*") ? [] : a.filter((x) => !b.includes(x));
    const item = (x: unknown) => (x === "*" ? "any request" : `\`${String(x)}\``);
    if (addedItems.length) {
      emit(ctx, {
        section: "behaviour", rule: input ? "behaviour.input.added" : "behaviour.requests.added", path, subject, dirs, before: a, after: b,
        summary: `\`${path}\` adds ${addedItems.map(item).join(", ")}${b.includes("*") ? ` (now ${item("*")})` : ""}`,
        hint: input
          ? `${cap(w.P)} may now ask for input with ${addedItems.map(item).join(", ")}; ${w.C} must answer it.`
          : `${cap(w.P)} may now run ${addedItems.map(item).join(", ")} as tasks; ${w.C} may ask for it.`,
      });
    }
    if (removedItems.length) {
      emit(ctx, {
        section: "behaviour", rule: input ? "behaviour.input.removed" : "behaviour.requests.removed", path, subject, dirs, before: a, after: b,
        summary: a.includes("*")
          ? `\`${path}\`: any request → ${b.length ? b.map(item).join(", ") : "none"}`
          : `\`${path}\` drops ${removedItems.map(item).join(", ")}`,
        hint: input
          ? `${cap(w.P)} must no longer ask for input with ${removedItems.map(item).join(", ")}.`
          : `${cap(w.C)} can no longer get ${removedItems.map(item).join(", ")} run as a task${b.length ? ` (only ${b.map(item).join(", ")})` : " (none any more)"}.`,
      });
    }
    return;
  }
  // false stands for "none" next to an object (listing: false); between two booleans it is a value.
  const none = (x: unknown, other: unknown) => x === undefined || (x === false && typeof other !== "boolean");
  const kind = none(a, b) && !none(b, a) ? "added" : none(b, a) && !none(a, b) ? "removed" : "changed";
  const { rule, priority } = behaviourRule(path, kind, detailOf !== undefined);
  const show = (v: unknown, max: number) => (path.startsWith("behaviour.capabilities.") ? capabilityText(v) : brief(v, max));
  const summary =
    kind === "added"
      ? `\`${path}\` added: ${show(b, 90)}`
      : kind === "removed"
        ? `\`${path}\` removed (was ${show(a, 90)})`
        : `\`${path}\`: ${show(a, 45)} → ${show(b, 45)}`;
  emit(ctx, {
    section: "behaviour", rule, path, subject, dirs, summary, priority,
    ...(a === undefined ? {} : { before: a }),
    ...(b === undefined ? {} : { after: b }),
    hint: detailOf ? `Part of the \`${detailOf}\` change.` : behaviourHint(kind, path, a, b, rule, w),
  });
}
