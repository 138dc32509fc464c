/**
 * The generator: fresh processes of the built CLI, as ratios to `node -e 0`
 * measured in the same rounds, and against ts-to-zod turning our generated
 * types.ts into zod schemas.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmtNum, fmtRatio, median, ratioOf, timeProcess, type ProcResult, type Settings } from "./harness.js";
import { ROOT, SDK_SPEC } from "./messages.js";
import type { Section, Table, TargetResult } from "./report.js";

const BIN = join(ROOT, "bin", "mcp-task-gen.js");
const TS_TO_ZOD = join(ROOT, "node_modules", "ts-to-zod", "bin", "run");

interface Ctx {
  tmp: string;
  env: NodeJS.ProcessEnv;
}

function must(r: ProcResult, what: string): ProcResult {
  if (r.status !== 0) throw new Error(`${what} exited ${r.status}: ${(r.stderr || r.stdout).slice(0, 2000)}`);
  return r;
}

const node = (ctx: Ctx, args: string[], cwd = ctx.tmp, env = ctx.env) => timeProcess(process.execPath, args, { cwd, env });

function generate(ctx: Ctx, spec: string, out: string, env = ctx.env): ProcResult {
  return must(node(ctx, [BIN, "generate", "--spec", spec, "--out", out, "--quiet"], ctx.tmp, env), `mcp-task-gen generate --spec ${spec}`);
}

/** Our compiler emitting only the zod schemas (validators.ts), formatted, written: what ts-to-zod produces. */
function zodOnly(ctx: Ctx, spec: string, out: string): ProcResult {
  const script = [
    `import { mkdirSync, writeFileSync } from "node:fs";`,
    `import { join } from "node:path";`,
    `const { compile } = await import(${JSON.stringify(join(ROOT, "dist", "generator", "pipeline.js"))});`,
    `const { resolveSpec } = await import(${JSON.stringify(join(ROOT, "dist", "generator", "specs.js"))});`,
    `const r = resolveSpec(${JSON.stringify(spec)}, process.cwd());`,
    `const { files } = await compile(r.source, { emitters: ["validators"] });`,
    `mkdirSync(${JSON.stringify(out)}, { recursive: true });`,
    `for (const f of files) writeFileSync(join(${JSON.stringify(out)}, f.path), f.contents);`,
  ].join("\n");
  return must(node(ctx, ["--input-type=module", "-e", script]), `zod-only compile of ${spec}`);
}

function tsToZod(ctx: Ctx, dir: string): ProcResult {
  // ts-to-zod resolves its arguments against the cwd; --skipValidation: only produce the schemas (its
  // validation step type-checks the output with the TypeScript compiler, which our generator does not do).
  return must(node(ctx, [TS_TO_ZOD, "--skipValidation", "types.ts", "zod.ts"], dir), `ts-to-zod in ${dir}`);
}

// ---------------------------------------------------------------------------
// What dominates a cold generate: a CPU profile, self time grouped by package.
// ---------------------------------------------------------------------------

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  children?: number[];
}

function category(url: string, fn: string): string {
  if (fn === "(garbage collector)") return "garbage collection";
  if (fn === "(program)" || fn === "(root)") return "V8/runtime (program)";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (m) {
    const pkg = m[1];
    if (pkg === "prettier") return "prettier (parse + print)";
    if (["yargs", "yargs-parser", "y18n", "cliui", "string-width", "strip-ansi", "wrap-ansi", "escalade", "get-caller-file", "emoji-regex", "ansi-regex", "get-east-asian-width"].includes(pkg))
      return "yargs (argument parsing)";
    return pkg;
  }
  if (url.startsWith("node:internal/modules") || url.includes("internal/modules")) return "module loading (node:internal/modules)";
  if (url.includes("/dist/generator/")) return "mcp-task-gen itself (dist/generator)";
  if (url.startsWith("node:")) return "node core";
  if (url === "") return "native / compile";
  return "other";
}

/**
 * Self time by category over every thread's profile (each thread writes one), idle time left out:
 * the CPU the run spent.
 */
function profileShares(dir: string): { cat: string; ms: number; share: number }[] {
  const acc = new Map<string, number>();
  let total = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    const p = JSON.parse(readFileSync(join(dir, file), "utf8")) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    for (let i = 0; i < p.samples.length; i++) {
      const n = byId.get(p.samples[i]);
      const dt = p.timeDeltas[i] ?? 0;
      if (!n || dt < 0 || n.callFrame.functionName === "(idle)") continue;
      const c = category(n.callFrame.url, n.callFrame.functionName);
      acc.set(c, (acc.get(c) ?? 0) + dt);
      total += dt;
    }
  }
  return [...acc]
    .map(([cat, us]) => ({ cat, ms: us / 1000, share: us / total }))
    .sort((a, b) => b.ms - a.ms);
}

// ---------------------------------------------------------------------------

export async function runGenerator(specs: readonly string[], s: Settings): Promise<Section> {
  if (!existsSync(join(ROOT, "dist", "generator", "cli", "index.js"))) throw new Error("dist/ is missing: run `npm run build` first (npm run bench does)");
  const tmp = mkdtempSync(join(tmpdir(), "mcp-task-gen-bench-"));
  // A private no-change cache, so the run neither reads nor fills the user's.
  const ctx: Ctx = { tmp, env: { ...process.env, NO_COLOR: "1", MCP_TASK_GEN_CACHE: join(tmp, "cache") } };
  const cacheOff = { ...ctx.env, MCP_TASK_GEN_CACHE: "off" };
  const measured = s.quick ? [SDK_SPEC] : [SDK_SPEC, ...specs.filter((x) => x !== SDK_SPEC)];
  type Row = { base: number[]; cold: number[]; regenFull: number[]; regenFirst: number[]; regenFast: number[]; tsToZod: number[]; zodOnly: number[] };
  const empty = (): Row => ({ base: [], cold: [], regenFull: [], regenFirst: [], regenFast: [], tsToZod: [], zodOnly: [] });
  const rows = new Map<string, Row>(measured.map((sp) => [sp, empty()]));
  const raw = new Map<string, Row>(measured.map((sp) => [sp, empty()]));
  try {
    // Warm the OS file cache for node itself.
    node(ctx, ["-e", "0"]);
    let replayMismatch: string | undefined;
    // The SDK's revision gets every round; the others one round fewer (the run must stay within minutes).
    const roundsOf = (spec: string) => (spec === SDK_SPEC ? s.processRounds : Math.max(1, s.processRounds - 1));
    for (let r = 0; r < s.processRounds; r++) {
      for (const spec of measured) {
        if (r >= roundsOf(spec)) continue;
        const row = rows.get(spec)!;
        const abs = raw.get(spec)!;
        const out = join(tmp, `r${r}-${spec}`);
        const tz = join(tmp, `tz${r}-${spec}`);
        mkdirSync(tz, { recursive: true });
        copyFileSync(join(ROOT, "output-samples", spec, "types.ts"), join(tz, "types.ts"));
        // node -e 0 before and after this spec's runs: each ratio divides by the mean of its two neighbours.
        const b0 = node(ctx, ["-e", "0"]).ms;
        // A new directory: the full compile (the cache knows the spec from earlier rounds, but not this directory).
        const cold = generate(ctx, spec, out).ms;
        // The first no-change regenerate right after that write, then another one: both from the cache.
        const firstFast = generate(ctx, spec, out);
        const again = generate(ctx, spec, out);
        // Round 0: a no-change regenerate with the cache off compiles in full; the fast ones must print exactly what it prints.
        const full = r === 0 ? generate(ctx, spec, out, cacheOff) : undefined;
        for (const fast of [firstFast, again])
          if (full && (full.stdout !== fast.stdout || full.stderr !== fast.stderr))
            replayMismatch ??= `${spec}: ${JSON.stringify(full.stdout)} vs ${JSON.stringify(fast.stdout)}`;
        const ttz = tsToZod(ctx, tz).ms;
        const zo = r === 0 && !s.quick ? zodOnly(ctx, spec, join(tmp, `zo-${spec}`)).ms : undefined;
        const b1 = node(ctx, ["-e", "0"]).ms;
        const base = (b0 + b1) / 2;
        row.base.push(1);
        row.cold.push(cold / base);
        if (full) row.regenFull.push(full.ms / base);
        row.regenFirst.push(firstFast.ms / base);
        row.regenFast.push(again.ms / base);
        row.tsToZod.push(cold / ttz);
        if (zo !== undefined) row.zodOnly.push(zo / ttz);
        abs.base.push(base);
        abs.cold.push(cold);
        if (full) abs.regenFull.push(full.ms);
        abs.regenFirst.push(firstFast.ms);
        abs.regenFast.push(again.ms);
        abs.tsToZod.push(ttz);
        if (zo !== undefined) abs.zodOnly.push(zo);
      }
    }
    if (replayMismatch) throw new Error(`bench: a fast no-change regenerate printed something else than the full one: ${replayMismatch}`);

    // One profiled cold generate (full mode only) for the "what dominates" column.
    let shares: { cat: string; ms: number; share: number }[] = [];
    if (!s.quick) {
      const profDir = join(tmp, "prof");
      mkdirSync(profDir);
      must(
        node(ctx, ["--cpu-prof", `--cpu-prof-dir=${profDir}`, BIN, "generate", "--spec", SDK_SPEC, "--out", join(tmp, "prof-out"), "--quiet"], tmp, cacheOff),
        "profiled generate",
      );
      shares = profileShares(profDir);
    }

    const tables: Table[] = [];
    const targets: TargetResult[] = [];
    const figures: Record<string, number> = {};
    const tableRows: string[][] = [];
    const dominated = shares.length
      ? shares
          .slice(0, 4)
          .map((x) => `${x.cat} ${(x.share * 100).toFixed(0)}%`)
          .join(", ")
      : "not profiled in --quick mode";
    const prettierShare = shares.find((x) => x.cat.startsWith("prettier"))?.share;
    for (const spec of measured) {
      const row = rows.get(spec)!;
      const abs = raw.get(spec)!;
      const cold = ratioOf(row.cold);
      const full = ratioOf(row.regenFull);
      const first = ratioOf(row.regenFirst);
      const fast = ratioOf(row.regenFast);
      const vsTz = ratioOf(row.tsToZod);
      const zo = ratioOf(row.zodOnly);
      figures[`${spec}:cold/node`] = cold.median;
      figures[`${spec}:regen-full/node`] = full.median;
      figures[`${spec}:regen-first/node`] = first.median;
      figures[`${spec}:regen-fast/node`] = fast.median;
      figures[`${spec}:cold/ts-to-zod`] = vsTz.median;
      figures[`${spec}:zod-only/ts-to-zod`] = zo.median;
      const files = readdirSync(join(tmp, `r0-${spec}`)).length;
      tableRows.push([
        spec,
        String(files),
        `${fmtNum(median(abs.base))} ms`,
        `${fmtNum(median(abs.cold))} ms · ${fmtRatio(cold)}`,
        `${fmtNum(median(abs.regenFirst))} ms · ${fmtRatio(first)}`,
        `${fmtNum(median(abs.regenFast))} ms · ${fmtRatio(fast)}`,
        `${fmtNum(median(abs.regenFull))} ms · ${fmtNum(full.median)}× (one run)`,
        `${fmtNum(median(abs.tsToZod))} ms`,
        fmtRatio(vsTz),
        fmtRatio(zo),
      ]);
      targets.push({
        target: `cold generate ÷ node -e 0 (${spec})`,
        bar: "≤ 10×",
        measured: fmtRatio(cold),
        status: cold.median <= 10 ? "met" : "missed",
        why:
          cold.median <= 10
            ? undefined
            : `CPU profile of a cold generate (${SDK_SPEC}): ${dominated}. A generate runs no prettier: the emitters and templates print ` +
              "TypeScript one statement or entry per line, laid out by brace depth (generator/formatter.ts tidyStatements), the README is printed " +
              "directly (tidyMarkdown) and the runtime is a package the output imports; what is left is loading the compiler, checking the spec and rendering",
      });
      targets.push({
        target: `no-change regenerate ÷ node -e 0 (${spec})`,
        bar: "≤ 4×",
        measured: `${fmtRatio(first)} the first time after the write; ${fmtRatio(fast)} again`,
        status: Math.max(first.median, fast.median) <= 4 ? "met" : "missed",
        why:
          Math.max(first.median, fast.median) <= 4
            ? `met from the first no-change run after a write on (generator/fastpath.ts: every full compile records what the spec compiles to); ` +
              `with the cache off the same run compiles in full (${fmtNum(full.median)}×), dominated like a cold generate`
            : "the no-change check (hashing the generator, the spec and the output) costs more than expected",
      });
      targets.push({
        target: `cold generate ÷ ts-to-zod on our types.ts (${spec})`,
        bar: "≤ 1×",
        measured: fmtRatio(vsTz),
        status: vsTz.median <= 1 ? "met" : "missed",
        why:
          vsTz.median <= 1
            ? `ts-to-zod writes one unformatted file; we write ${files} laid-out ones (zod schemas only: ${fmtRatio(zo)})`
            : `we compile and lay out ${files} files, ts-to-zod writes one unformatted file${prettierShare !== undefined ? ` (prettier: ${(prettierShare * 100).toFixed(0)}% of a cold generate)` : ""}; ` +
              `producing only the zod schemas, as ts-to-zod does, takes ${fmtRatio(zo)} of ts-to-zod`,
      });
    }
    tables.push({
      title: "Fresh processes (median ms of the rounds · ratio to node -e 0 of the same round)",
      columns: [
        "spec",
        "files",
        "node -e 0",
        "cold generate",
        "no-change regenerate, first after the write",
        "no-change regenerate, again",
        "no-change regenerate, cache off (full compile)",
        "ts-to-zod on types.ts",
        "cold generate ÷ ts-to-zod",
        "zod schemas only ÷ ts-to-zod",
      ],
      rows: tableRows,
    });
    if (shares.length) {
      tables.push({
        title: `What a cold generate spends its CPU on (${SDK_SPEC}, node --cpu-prof, self time by package, every thread together, idle left out)`,
        columns: ["where", "ms", "share"],
        rows: shares.slice(0, 10).map((x) => [x.cat, fmtNum(x.ms), `${(x.share * 100).toFixed(1)}%`]),
        note: "The profiler slows the run down; the shares, not the milliseconds, are the point. The two threads run at the same time, so the sum exceeds the wall time.",
      });
    }
    return {
      id: "generator",
      title: "The generator",
      method:
        `Fresh \`node\` processes of the bench's own node binary, ${s.processRounds} round(s) for ${SDK_SPEC}` +
        (s.quick ? "" : `, ${Math.max(1, s.processRounds - 1)} for the other specs`) +
        "; in each round and for each spec: `node -e 0`, a cold `mcp-task-gen generate --spec <spec> --out <new temp dir> --quiet` on the built CLI, " +
        "two no-change regenerates of that directory right after it was written (\"first after the write\" and \"again\", both with the bench's private cache), " +
        "in the first round a third one with `MCP_TASK_GEN_CACHE=off` (a full compile that finds everything unchanged; the fast ones must print exactly what it prints), " +
        "ts-to-zod 5.1 (`--skipValidation types.ts zod.ts`, on a copy of our generated types.ts of the same spec), " +
        (s.quick ? "" : "in the first round our compiler emitting only validators.ts (the zod schemas, formatted) from a `node -e` script, ") +
        "and `node -e 0` again. " +
        "Each ratio to `node -e 0` divides by the mean of the two `node -e 0` runs around it; each ratio is the median over rounds.",
      tables,
      targets,
      notes: [
        "The no-change fast path (generator/fastpath.ts): every full compile records, under a key over the generator build (its compiled code, precompiled " +
          "and source templates, package.json and its dependencies' versions) and the spec (name and text), the sha256 of the manifest it produced and its warnings. " +
          "A later generate or check of a target (plain, or each target of a config, handler files included) whose key has an entry and whose output directory holds " +
          "exactly that manifest, every listed file re-hashed intact (and for check no other file), prints what the full run would and compiles nothing; " +
          "bin/mcp-task-gen.js decides that before loading the CLI. Anything else, or any doubt, takes the full path. The cache is the project's " +
          "`node_modules/.cache/mcp-task-gen` or `$MCP_TASK_GEN_CACHE`; `MCP_TASK_GEN_CACHE=off` disables it. test/fastpath.test.ts covers the forms.",
        "ts-to-zod warns that it maps `TaskRequestMethod`/`TaskNotificationMethod` (`keyof` types) to `z.any()`: its output is not equivalent to our validators.ts, only comparable work.",
      ],
      figures,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
