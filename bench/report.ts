/**
 * What a bench area hands back, and how BENCHMARKS.md (and the JSON twin) is written.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";

export type Status = "met" | "missed" | "not measured yet" | "n/a";

export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
  note?: string;
}

export interface TargetResult {
  /** What is compared, e.g. "guards vs SDK schemas, tasks/get result (mcp-2025-11-25)". */
  target: string;
  /** The bar, e.g. "≥ 5×". */
  bar: string;
  /** The measured figure, e.g. "7.3×". */
  measured: string;
  status: Status;
  /** Where missed (or not measured): what dominates the cost, or why. */
  why?: string;
}

export interface Section {
  id: string;
  title: string;
  /** What was measured and how, in a few sentences of Markdown. */
  method: string;
  tables: Table[];
  targets: TargetResult[];
  notes: string[];
  /** Machine-readable headline figures (ratios are plain numbers: 2.5 means 2.5×). */
  figures: Record<string, number>;
  ms?: number;
}

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  v8: string;
  os: string;
  memGiB: number;
  loadStart: number[];
  loadEnd?: number[];
}

export function machine(): Machine {
  const c = cpus();
  return {
    cpu: c[0]?.model?.trim() || "unknown",
    cores: c.length,
    node: process.version,
    v8: process.versions.v8,
    os: `${platform()} ${release()}`,
    memGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    loadStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

export interface Report {
  generatedAt: string;
  quick: boolean;
  command: string;
  machine: Machine;
  durationMs: number;
  sections: Section[];
}

const esc = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

function table(t: Table): string {
  const lines = [`**${t.title}**`, "", `| ${t.columns.map(esc).join(" | ")} |`, `| ${t.columns.map(() => "---").join(" | ")} |`];
  for (const r of t.rows) lines.push(`| ${r.map(esc).join(" | ")} |`);
  if (t.note) lines.push("", t.note);
  return lines.join("\n");
}

const mark: Record<Status, string> = { met: "✅ met", missed: "❌ missed", "not measured yet": "⏳ not measured yet", "n/a": "n/a" };

export function markdown(r: Report): string {
  const m = r.machine;
  const out: string[] = [];
  out.push("# Benchmarks");
  out.push("");
  out.push(
    "Written by `npm run bench` (bench/run.ts). Every figure that matters is a **ratio** against a baseline measured in the same run, " +
      "interleaved with it round by round: the machine is shared and noisy, so absolute times are shown only for orientation. " +
      "A ratio is the median of the per-round ratios, with the interquartile range of the rounds in parentheses.",
  );
  out.push("");
  if (m.loadStart[0] > m.cores) {
    out.push(
      `> **This run shared the machine**: the load average was ${m.loadStart[0]} at the start${m.loadEnd ? ` and ${m.loadEnd[0]} at the end` : ""} on ${m.cores} cores. ` +
        "Interleaving keeps the in-process ratios fair, but a long CPU-bound process (a cold generate) suffers more from contention than a short one " +
        "(`node -e 0`), so the generator's ratios to `node -e 0` come out higher than on an idle machine.",
    );
    out.push("");
  }
  if (r.quick) {
    out.push("> **Quick mode** (`--quick`): a smoke run with a few hundred ms per case. The figures are rough; do not quote them.");
    out.push("");
  }
  out.push("## Machine and command");
  out.push("");
  out.push(`| | |`);
  out.push(`| --- | --- |`);
  out.push(`| CPU | ${esc(m.cpu)} |`);
  out.push(`| cores | ${m.cores} |`);
  out.push(`| Node | ${m.node} (V8 ${m.v8}) |`);
  out.push(`| OS | ${esc(m.os)}, ${m.memGiB} GiB |`);
  out.push(`| load average (1, 5, 15 min) | start ${m.loadStart.join(", ")}${m.loadEnd ? `; end ${m.loadEnd.join(", ")}` : ""} |`);
  out.push(`| run | ${r.generatedAt}, ${(r.durationMs / 1000).toFixed(0)} s |`);
  out.push("");
  out.push("Reproduce:");
  out.push("");
  out.push("```sh");
  out.push(r.command);
  out.push("```");
  out.push("");
  out.push("## Targets");
  out.push("");
  out.push("| area | comparison | target | measured | status | what dominates / why |");
  out.push("| --- | --- | --- | --- | --- | --- |");
  for (const s of r.sections) {
    for (const t of s.targets) {
      out.push(`| ${esc(s.title)} | ${esc(t.target)} | ${esc(t.bar)} | ${esc(t.measured)} | ${mark[t.status]} | ${esc(t.why ?? "")} |`);
    }
  }
  out.push("");
  for (const s of r.sections) {
    out.push(`## ${s.title}`);
    out.push("");
    out.push(s.method.trim());
    out.push("");
    for (const t of s.tables) {
      out.push(table(t));
      out.push("");
    }
    for (const n of s.notes) {
      out.push(`- ${n}`);
    }
    if (s.notes.length) out.push("");
  }
  // The sections measured by hand (fuzzing, conform runs, install size): kept, not overwritten by a run.
  const byHand = readFileSync(new URL("./measured-by-hand.md", import.meta.url), "utf8").replace(/^<!--[\s\S]*?-->\s*/, "");
  out.push(byHand);
  return out.join("\n").replace(/\n{3,}/g, "\n\n").trimEnd() + "\n";
}
