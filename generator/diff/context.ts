/**
 * What every section comparison shares: both IRs with their usage, the changes
 * found so far, and `emit`, which turns a finding into a classified Change.
 */
import type { IR } from "../ir.js";
import { BOTH, DIRECTION_NAMES, sidesOf, type Dirs, type Usage } from "./directions.js";
import type { Change, Json, Section } from "./model.js";
import { RULES, type Impact, type Rule, type RuleId } from "./rules.js";

const toJson = (v: unknown): Json => JSON.parse(JSON.stringify(v ?? null)) as Json;

export interface Ctx {
  old: IR;
  new: IR;
  ou: Usage;
  nu: Usage;
  out: Change[];
}

export function emit(
  ctx: Ctx,
  c: { section: Section; rule: RuleId; path: string; subject: string; summary: string; before?: unknown; after?: unknown; dirs: Dirs; hint: string; priority?: number },
  override?: { producer: Impact; consumer: Impact } | { client: Impact; server: Impact },
) {
  const sides = override && "client" in override ? override : sidesOf(c.rule, c.dirs, override);
  const dirs = c.dirs.size ? c.dirs : BOTH;
  ctx.out.push({
    section: c.section,
    rule: c.rule,
    path: c.path,
    subject: c.subject,
    summary: c.summary,
    ...(c.before === undefined ? {} : { before: toJson(c.before) }),
    ...(c.after === undefined ? {} : { after: toJson(c.after) }),
    client: sides.client,
    server: sides.server,
    directions: (["c2s", "s2c"] as const).filter((d) => dirs.has(d)).map((d) => DIRECTION_NAMES[d]),
    priority: c.priority ?? (RULES[c.rule] as Rule).priority,
    hint: c.hint,
  });
}
