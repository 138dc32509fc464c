/**
 * Validators: messages per second of the generated fast guards and the
 * generated zod schemas, against the SDK 1.32's own zod schemas and a
 * hand-written check (the ceiling), on the same messages.
 */
import {
  GetTaskRequestSchema as SdkGetTaskRequest,
  GetTaskResultSchema as SdkGetTaskResult,
  ListTasksResultSchema as SdkListTasksResult,
} from "@modelcontextprotocol/sdk/types.js";
import { HAND } from "./handwritten.js";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inChild } from "./in-child.js";
import { fmtNum, fmtRatio, measureSync, median, perRound, ratioOf, type Ratio, type Settings, type SyncCase } from "./harness.js";
import { ROOT } from "./messages.js";
import { messagesOf, SDK_SPEC, type Messages } from "./messages.js";
import type { Section, Table, TargetResult } from "./report.js";

type Check = (v: unknown) => boolean;

interface Subject {
  guard: Check;
  zod: Check;
  sdk: Check;
  hand: Check;
  /** The generated guard without its date-time format tests: the same checks as the SDK's schema. */
  like?: Check;
  message: unknown;
  sdkMessage: unknown;
  valid: boolean;
}

const isObj = (v: any) => typeof v === "object" && v !== null && !Array.isArray(v);

async function load(spec: string) {
  const G = (await import(`../output-samples/${spec}/guards.ts`)) as Record<string, any>;
  const V = (await import(`../output-samples/${spec}/validators.ts`)) as Record<string, any>;
  // The same guards without the `format: date-time` tests, where there are any.
  const source = readFileSync(join(ROOT, "output-samples", spec, "guards.ts"), "utf8");
  const stripped = source.replace(/ && DATE_TIME_RE\.test\([A-Za-z0-9_$]+\)/g, "");
  let L: Record<string, any> | undefined;
  if (stripped !== source) {
    const dir = mkdtempSync(join(tmpdir(), "mcp-task-gen-bench-guards-"));
    writeFileSync(join(dir, "guards.ts"), stripped);
    L = (await import(join(dir, "guards.ts"))) as Record<string, any>;
    rmSync(dir, { recursive: true, force: true });
  }
  return { G, V, L };
}

function subjects(
  spec: string,
  G: Record<string, any>,
  V: Record<string, any>,
  L: Record<string, any> | undefined,
  m: Messages,
  sdkM: Messages,
): Record<string, Subject | undefined> {
  const hand = HAND[spec];
  const getG = G.requestGuards["tasks/get"];
  const getV = V.requestValidators["tasks/get"];
  const listG = G.requestGuards["tasks/list"];
  const listV = V.requestValidators["tasks/list"];
  const getL = L?.requestGuards["tasks/get"];
  const listL = L?.requestGuards["tasks/list"];
  const sdkGetReq: Check = (v) => SdkGetTaskRequest.safeParse(v).success;
  const sdkGetRes: Check = (v) => SdkGetTaskResult.safeParse(v).success;
  const sdkList: Check = (v) => SdkListTasksResult.safeParse(v).success;
  return {
    "tasks/get request": {
      // The generated guards check params by method; the envelope's method is one comparison.
      guard: (v: any) => isObj(v) && v.method === "tasks/get" && getG.params(v.params),
      zod: (v) => V.GetTaskRequestSchema.safeParse(v).success,
      sdk: sdkGetReq,
      hand: hand.getRequest,
      message: m.getRequest,
      sdkMessage: sdkM.getRequest,
      valid: true,
    },
    "tasks/get result": {
      guard: getG.result,
      zod: (v) => getV.result.safeParse(v).success,
      sdk: sdkGetRes,
      hand: hand.getResult,
      like: getL?.result,
      message: m.getResult,
      sdkMessage: sdkM.getResult,
      valid: true,
    },
    "tasks/list result, 100 tasks":
      listG && listV && m.list100 && hand.listResult
        ? {
            guard: listG.result,
            zod: (v) => listV.result.safeParse(v).success,
            sdk: sdkList,
            hand: hand.listResult,
            like: listL?.result,
            message: m.list100,
            sdkMessage: sdkM.list100,
            valid: true,
          }
        : undefined,
    "invalid tasks/get result (unknown status)": {
      guard: getG.result,
      zod: (v) => getV.result.safeParse(v).success,
      sdk: sdkGetRes,
      hand: hand.getResult,
      message: m.invalid,
      sdkMessage: sdkM.invalid,
      valid: false,
    },
  };
}

export interface SpecPart {
  table: Table;
  targets: TargetResult[];
  figures: Record<string, number>;
}

/** One spec's validators, measured in a process of its own (bench/child.ts), so no spec's JIT state colours another's. */
export async function validatorsForSpec(spec: string, s: Settings): Promise<SpecPart> {
  const sdkMessages = messagesOf(SDK_SPEC);
  const targets: TargetResult[] = [];
  const figures: Record<string, number> = {};
  const { G, V, L } = await load(spec);
  const subs = subjects(spec, G, V, L, messagesOf(spec), sdkMessages);
  const rows: string[][] = [];
  for (const [what, sub] of Object.entries(subs)) {
    if (!sub) {
      rows.push([what, "–", "–", "–", "–", "–", "–", "–", "n/a: the spec has no tasks/list"]);
      continue;
    }
    // Every contender must give the expected verdict on its message, or the figures mean nothing.
    const verdicts: Record<string, boolean> = { guard: sub.guard(sub.message), zod: sub.zod(sub.message), hand: sub.hand(sub.message), sdk: sub.sdk(sub.sdkMessage) };
    if (sub.like) verdicts.like = sub.like(sub.message);
    for (const [who, got] of Object.entries(verdicts)) {
      if (got !== sub.valid) throw new Error(`bench bug: ${spec} ${what}: ${who} says ${got}, expected ${sub.valid}`);
    }
    const cases: SyncCase[] = [
      { name: "guard", fn: () => sub.guard(sub.message) },
      { name: "zod", fn: () => sub.zod(sub.message) },
      { name: "sdk", fn: () => sub.sdk(sub.sdkMessage) },
      { name: "hand", fn: () => sub.hand(sub.message) },
    ];
    if (sub.like) cases.push({ name: "like", fn: () => sub.like!(sub.message) });
    const res = measureSync(cases, s);
    const g = res.get("guard")!;
    const z = res.get("zod")!;
    const k = res.get("sdk")!;
    const h = res.get("hand")!;
    const gVsSdk = ratioOf(perRound(g, k));
    const zVsSdk = ratioOf(perRound(z, k));
    const gVsHand = ratioOf(perRound(g, h));
    const like = res.get("like");
    const likeVsSdk = like ? ratioOf(perRound(like, k)) : undefined;
    rows.push([
      what,
      fmtNum(median(g)),
      fmtNum(median(z)),
      fmtNum(median(k)),
      fmtNum(median(h)),
      fmtRatio(gVsSdk),
      fmtRatio(zVsSdk),
      fmtRatio(gVsHand),
      likeVsSdk ? fmtRatio(likeVsSdk) : "same checks",
    ]);
    const key = `${spec}:${what.split(",")[0].split(" (")[0]}`;
    figures[`${key}:guard/sdk`] = gVsSdk.median;
    figures[`${key}:zod/sdk`] = zVsSdk.median;
    figures[`${key}:guard/hand`] = gVsHand.median;
    if (likeVsSdk) figures[`${key}:guard-without-date-time/sdk`] = likeVsSdk.median;
    const met = gVsSdk.median >= 5;
    targets.push({
      target: `guards vs SDK schemas: ${what} (${spec}${spec === SDK_SPEC ? "" : ", SDK on its own 2025-11-25 message"})`,
      bar: "≥ 5×",
      measured: fmtRatio(gVsSdk),
      status: met ? "met" : "missed",
      why: met ? undefined : whyMissed(what, median(g), median(k), median(h), likeVsSdk),
    });
  }
  return {
    table: {
      title: `${spec}${spec === SDK_SPEC ? " (the revision the SDK speaks)" : " (SDK column: the SDK's schemas on the equivalent 2025-11-25 message)"}`,
      columns: [
        "message",
        "guard msg/s",
        "our zod msg/s",
        "SDK zod msg/s",
        "hand-written msg/s",
        "guard ÷ SDK",
        "our zod ÷ SDK",
        "guard ÷ hand",
        "guard without date-time checks ÷ SDK",
      ],
      rows,
    },
    targets,
    figures,
  };
}

export async function runValidators(specs: readonly string[], s: Settings): Promise<Section> {
  const ordered = [SDK_SPEC, ...specs.filter((x) => x !== SDK_SPEC)];
  const tables: Table[] = [];
  const targets: TargetResult[] = [];
  const figures: Record<string, number> = {};
  for (const spec of ordered) {
    const part = await inChild<SpecPart>("validators", { spec, settings: s });
    tables.push(part.table);
    targets.push(...part.targets);
    Object.assign(figures, part.figures);
  }
  const notes = [
    "guard: the generated `requestGuards[method].params/result` (for the request, plus one `method` comparison on the envelope); " +
      "our zod: the generated `GetTaskRequestSchema` / `requestValidators[method].result` with `safeParse`; " +
      "SDK zod: `GetTaskRequestSchema`, `GetTaskResultSchema`, `ListTasksResultSchema` from `@modelcontextprotocol/sdk/types.js` with `safeParse`; " +
      "hand-written: bench/handwritten.ts, the same checks inlined (the ceiling).",
    "Messages come from each spec's own `examples` (the test suite proves them valid); the list has the example's tasks repeated to 100 with distinct ids; " +
      "the invalid message is the tasks/get result with `status: \"done\"`. The SDK speaks 2025-11-25 and rejects the other revisions' messages, " +
      "so for sep-1686-draft and ext-tasks-2026-07-28 its column is measured on the 2025-11-25 message of the same kind.",
    "The revisions with timestamps (mcp-2025-11-25, ext-tasks-2026-07-28) declare `createdAt`/`lastUpdatedAt` as `format: date-time`, so our guards (and our zod) test " +
      "`DATE_TIME_RE` twice per task; the SDK's `TaskSchema` takes any string there. The last column measures, in the same rounds, the generated guard with " +
      "those two tests removed (the guard source with `&& DATE_TIME_RE.test(...)` stripped, loaded from a temp file): the same checks as the SDK's schema.",
    "Our zod schemas are `z.looseObject`s (unknown keys pass through, and zod runs the catch-all on each of them) and check `date-time` with a regex; " +
      "the SDK's are stripping `z.object`s without format checks. That is why our zod is slower than the SDK's on the same message; the guards are the hot path.",
    "Each spec is measured in a process of its own (bench/child.ts).",
  ];
  return {
    id: "validators",
    title: "Validators",
    method:
      "Messages per second of each validator on one message, called in a loop; the contenders of a row are measured interleaved " +
      `(${s.rounds} rounds of ${s.sliceMs} ms each, rotating order) and every ratio is the median of the per-round ratios.`,
    tables,
    targets,
    notes,
    figures,
  };
}

function whyMissed(what: string, guard: number, sdk: number, hand: number, like: Ratio | undefined): string {
  if (what.startsWith("invalid")) return `the SDK rejects this message fast too (${fmtNum(sdk)}/s)`;
  if (guard < hand * 0.5) return `the guard is far from the hand-written ceiling (${fmtNum(guard)} vs ${fmtNum(hand)}/s): generated code overhead`;
  if (like)
    return (
      `the two \`format: date-time\` regex tests per task dominate (the guard is at the hand-written ceiling: ${fmtNum(guard)} vs ${fmtNum(hand)}/s), ` +
      `and the SDK does not make them; with the same checks as the SDK the guard is ${fmtRatio(like)} the SDK`
    );
  return `the SDK's zod is within 5× of the hand-written ceiling on this message (${fmtNum(hand)}/s vs SDK ${fmtNum(sdk)}/s; the guard: ${fmtNum(guard)}/s)`;
}
