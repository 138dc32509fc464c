/** Rendering a Diff: JSON as is, and Markdown as a migration guide (summary, most important breaking changes, one table per section). */
import { isBreaking, SECTION_TITLES, SECTIONS, type Change, type Diff, type Json, type SpecRef } from "./model.js";
import { B, type Impact } from "./rules.js";
import { brief, capabilityText, count } from "./text.js";

export function renderDiffJson(d: Diff): string {
  return JSON.stringify(d, null, 2) + "\n";
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const impactCell = (i: Impact) => (i === B ? "**breaking**" : "compatible");

const rank = (c: Change) => (c.client === B && c.server === B ? 0 : isBreaking(c) ? 1 : 2);

/** Within a section: breaking for both, then for one side, then compatible; then priority; then declaration order. */
function importance(changes: readonly Change[]): Change[] {
  return changes
    .map((c, i) => ({ c, i }))
    .sort((x, y) => rank(x.c) - rank(y.c) || x.c.priority - y.c.priority || x.i - y.i)
    .map(({ c }) => c);
}

/** Across sections, for the list at the top: priority first, then as `importance`. */
function mostImportant(changes: readonly Change[]): Change[] {
  return changes
    .map((c, i) => ({ c, i }))
    .sort((x, y) => x.c.priority - y.c.priority || rank(x.c) - rank(y.c) || x.i - y.i)
    .map(({ c }) => c);
}

function specLine(s: SpecRef): string {
  return [`\`${s.name}\``, s.protocol, `revision ${s.revision}`, s.protocolVersion ? `protocol version ${s.protocolVersion}` : "", s.status ?? ""].filter(Boolean).join(" · ");
}

export const TOP_BREAKING = 15;

export function renderDiffMarkdown(d: Diff): string {
  const L: string[] = [];
  const s = d.summary;
  L.push(`# Upgrading from \`${d.old.name}\` to \`${d.new.name}\``, "");
  L.push(`- **From:** ${specLine(d.old)}`, `- **To:** ${specLine(d.new)}`, "");
  if (d.changes.length === 0) {
    L.push("No differences: the two specs declare the same protocol.", "");
    return L.join("\n");
  }
  const verdict = (n: number, side: string) => (n ? `**breaking for ${side}** (${count(n, "change")})` : `compatible for ${side}`);
  L.push(`${count(s.changes, "change")}: ${verdict(s.breaking.client, "clients")}, ${verdict(s.breaking.server, "servers")}.`, "");
  L.push(
    "_Breaking_ for a side: an implementation of that side written against the old spec must change to conform to the new one. " +
      "_Compatible_: it keeps working unchanged. Where either side may play a role (both may create or poll tasks), a change counts for both.",
    "",
  );
  L.push("## Summary", "");
  L.push("| Section | Changes | Breaking for clients | Breaking for servers | Compatible for both |", "|---|--:|--:|--:|--:|");
  for (const sec of SECTIONS) {
    const c = s.sections[sec];
    const compat = d.changes.filter((x) => x.section === sec && !isBreaking(x)).length;
    L.push(`| ${c.changes ? `[${SECTION_TITLES[sec]}](#${anchor(SECTION_TITLES[sec])})` : SECTION_TITLES[sec]} | ${c.changes} | ${c.breakingForClient} | ${c.breakingForServer} | ${compat} |`);
  }
  L.push(`| **Total** | **${s.changes}** | **${s.breaking.client}** | **${s.breaking.server}** | **${s.changes - s.breaking.any}** |`, "");

  const breaking = mostImportant(d.changes.filter(isBreaking));
  if (breaking.length) {
    L.push("## Most important breaking changes", "");
    breaking.slice(0, TOP_BREAKING).forEach((c, i) => {
      L.push(`${i + 1}. ${c.summary} — ${sidesText(c)}. ${c.hint}`);
    });
    if (breaking.length > TOP_BREAKING) L.push("", `…and ${breaking.length - TOP_BREAKING} more breaking changes below.`);
    L.push("");
  }

  for (const sec of SECTIONS) {
    const cs = importance(d.changes.filter((c) => c.section === sec));
    if (!cs.length) continue;
    L.push(`## ${SECTION_TITLES[sec]}`, "");
    if (sec === "fields") {
      L.push(...renderFields(cs));
      continue;
    }
    if (sec === "behaviour") {
      L.push("| Behaviour | Old | New | Clients | Servers | Migration |", "|---|---|---|---|---|---|");
      for (const c of cs) {
        L.push(`| \`${cell(c.path)}\` | ${cell(valueCell(c.before, c.path))} | ${cell(valueCell(c.after, c.path))} | ${impactCell(c.client)} | ${impactCell(c.server)} | ${cell(c.hint)} |`);
      }
      L.push("");
      continue;
    }
    L.push("| Change | Clients | Servers | Migration |", "|---|---|---|---|");
    for (const c of cs) L.push(`| ${cell(c.summary)} | ${impactCell(c.client)} | ${impactCell(c.server)} | ${cell(c.hint)} |`);
    L.push("");
  }
  return L.join("\n").replace(/\n+$/, "\n");
}

function valueCell(v: Json | undefined, path: string): string {
  if (v === undefined) return "—";
  const text = path.startsWith("behaviour.capabilities.") ? capabilityText(v) : brief(v, 60);
  return "`" + text.replace(/`/g, "'") + "`";
}

function sidesText(c: Change): string {
  if (c.client === B && c.server === B) return "breaking for clients and servers";
  return c.client === B ? "breaking for clients" : "breaking for servers";
}

function anchor(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9 -]/g, "").replace(/ /g, "-");
}

/** Field changes per type; types whose field changes are identical share one table. */
function renderFields(cs: readonly Change[]): string[] {
  const L: string[] = [];
  const bySubject = new Map<string, Change[]>();
  for (const c of cs) bySubject.set(c.subject, [...(bySubject.get(c.subject) ?? []), c]);
  const sig = (list: Change[]) =>
    JSON.stringify(list.map((c) => [c.rule, c.path.slice(`types.${c.subject}`.length), c.before ?? null, c.after ?? null, c.client, c.server]));
  const groups: { subjects: string[]; changes: Change[] }[] = [];
  for (const [subject, list] of bySubject) {
    const g = groups.find((x) => sig(x.changes) === sig(list));
    if (g) g.subjects.push(subject);
    else groups.push({ subjects: [subject], changes: list });
  }
  const rank = (g: (typeof groups)[number]) => Math.min(...g.changes.map((c) => (c.client === B && c.server === B ? 0 : isBreaking(c) ? 1 : 2)));
  groups.sort((x, y) => rank(x) - rank(y));
  for (const g of groups) {
    const dirs = g.changes[0].directions;
    const travel = dirs.length === 2 ? "sent both ways" : dirs[0] === "client-to-server" ? "sent by clients to servers" : "sent by servers to clients";
    L.push(`### ${g.subjects.map((x) => `\`${x}\``).join(", ")}`, "", `_${g.subjects.length > 1 ? "Same changes in each; " : ""}${travel}._`, "");
    L.push("| Change | Clients | Servers | Migration |", "|---|---|---|---|");
    // The heading names the type: labels inside it start at the field.
    const local = (text: string) => text.split(`\`${g.subjects[0]}.`).join("`").split(`\`${g.subjects[0]}`).join("`");
    for (const c of g.changes) L.push(`| ${cell(local(c.summary))} | ${impactCell(c.client)} | ${impactCell(c.server)} | ${cell(local(c.hint))} |`);
    L.push("");
  }
  return L;
}
