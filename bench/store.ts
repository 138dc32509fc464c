/**
 * Task store: the generated InMemoryTaskStore against the SDK's, in one
 * process (a child started with --expose-gc): create, get, paging through
 * every task, and heap bytes per task with retention set.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { InMemoryTaskStore as SdkStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { inChild } from "./in-child.js";
import { fmtNum, fmtRatio, measureAsync, median, perRound, ratioOf, type Ratio, type Settings } from "./harness.js";
import { ROOT } from "./messages.js";
import type { Section, Table, TargetResult } from "./report.js";

/** The store is the same code for every spec (only the status type differs); the brief's spec. */
const STORE_SPEC = "sep-1686-draft";
const RETENTION_MS = 3_600_000;
const PAGE = 10; // the SDK's fixed page size; ours is given the same
const OWNER = "bench";

type OurStore = {
  create(r: Record<string, unknown>): Promise<unknown>;
  get(id: string): Promise<unknown>;
  list(owner: string, afterSeq: number, limit: number): Promise<{ records: { seq: number }[]; hasMore: boolean }>;
  close(): Promise<void>;
};

interface Job {
  n: number;
  heap: { oursPerTask: number[]; sdkPerTask: number[] };
  create: { ours: number[]; sdk: number[] };
  get: { ours: number[]; sdk: number[]; clock: number[] };
  paging: { oursMs: number[]; sdkEstMs: number[]; sdkPagesSampled: number; oursPages: number; sdkPageMs: number[] };
}

const gc = () => {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) throw new Error("the store bench needs --expose-gc");
  g();
  g();
};

export async function storeJob(s: Settings): Promise<Job> {
  const n = s.quick ? 10_000 : 100_000;
  const mod = (await import(`../output-samples/${STORE_SPEC}/store.ts`)) as { InMemoryTaskStore: new () => OurStore };
  const T = (await import(`../output-samples/${STORE_SPEC}/transitions.ts`)) as { INITIAL_STATE: string };
  const request = { method: "tools/call", params: { name: "bench", arguments: {} } }; // shared: the SDK keeps a reference per task
  let requestId = 0;
  // What the generated server hands the store on task creation (see TaskRuntime in server.ts).
  const ourRecord = () => {
    const now = Date.now();
    return {
      taskId: randomUUID(),
      owner: OWNER,
      status: T.INITIAL_STATE,
      method: "tools/call",
      requestId: ++requestId,
      createdAt: now,
      updatedAt: now,
      terminalAt: null,
      keepAlive: RETENTION_MS,
      pollFrequency: 1000,
      expiresAt: now + RETENTION_MS,
      pendingInputs: 0,
    };
  };
  const ourCreate = async (st: OurStore) => {
    const r = ourRecord();
    await st.create(r);
    return r.taskId;
  };
  const sdkCreate = async (st: SdkStore) => (await st.createTask({ ttl: RETENTION_MS, pollInterval: 1000 }, ++requestId, request as never)).taskId;

  // Heap per task: fresh stores, n tasks each, after full GCs; alternating order, twice.
  const heap = { oursPerTask: [] as number[], sdkPerTask: [] as number[] };
  const heapOf = async (which: "ours" | "sdk") => {
    gc();
    const before = process.memoryUsage().heapUsed;
    let holder: OurStore | SdkStore;
    if (which === "ours") {
      const st = new mod.InMemoryTaskStore();
      for (let i = 0; i < n; i++) await ourCreate(st);
      holder = st;
    } else {
      const st = new SdkStore();
      for (let i = 0; i < n; i++) await sdkCreate(st);
      holder = st;
    }
    gc();
    const after = process.memoryUsage().heapUsed;
    if (holder instanceof SdkStore) holder.cleanup();
    else await holder.close();
    return (after - before) / n;
  };
  for (const order of [["ours", "sdk"], ["sdk", "ours"]] as const) {
    for (const which of order) (which === "ours" ? heap.oursPerTask : heap.sdkPerTask).push(await heapOf(which));
  }

  // Create: both stores grow to n in interleaved batches.
  const ours = new mod.InMemoryTaskStore();
  const sdk = new SdkStore();
  const oursIds: string[] = [];
  const sdkIds: string[] = [];
  const batch = s.quick ? 500 : 2_000;
  const create = { ours: [] as number[], sdk: [] as number[] };
  for (let r = 0; oursIds.length < n; r++) {
    const m = Math.min(batch, n - oursIds.length);
    const runOurs = async () => {
      const t0 = performance.now();
      for (let i = 0; i < m; i++) oursIds.push(await ourCreate(ours));
      create.ours.push((m * 1000) / (performance.now() - t0));
    };
    const runSdk = async () => {
      const t0 = performance.now();
      for (let i = 0; i < m; i++) sdkIds.push(await sdkCreate(sdk));
      create.sdk.push((m * 1000) / (performance.now() - t0));
    };
    if (r % 2 === 0) (await runOurs(), await runSdk());
    else (await runSdk(), await runOurs());
  }

  // Get: random existing ids.
  const order = Array.from({ length: 4096 }, (_, i) => (Math.imul(i + 1, 2654435761) >>> 0) % n);
  let gi = 0;
  let si = 0;
  // What one clock read costs, measured alongside: neither get reads one (expiry follows the stores'
  // timers), and on some VMs a clock read alone is a sixth of a get.
  let clockSink = 0;
  const get = await measureAsync(
    [
      { name: "ours", fn: () => ours.get(oursIds[order[gi++ & 4095]]) },
      { name: "sdk", fn: () => sdk.getTask(sdkIds[order[si++ & 4095]]) },
      { name: "clock", fn: async () => void (clockSink += Date.now()) },
    ],
    s,
  );
  const probe = (await ours.get(oursIds[0])) as { state?: string } | undefined;
  if (probe?.state !== "live" || !(await sdk.getTask(sdkIds[0]))) throw new Error("bench bug: a created task is not found");

  // Paging through all n tasks, PAGE at a time. Ours: the whole pass, every round. The SDK's listTasks
  // copies and filters every key and searches the cursor on each page (O(n) per page, O(n²/PAGE) per
  // pass), so a whole pass is minutes: it is estimated from pages sampled evenly across the pass.
  const paging = { oursMs: [] as number[], sdkEstMs: [] as number[], sdkPagesSampled: 0, oursPages: 0, sdkPageMs: [] as number[] };
  const pages = Math.ceil(n / PAGE);
  const samples = s.quick ? 4 : 12;
  for (let r = 0; r < Math.max(2, Math.min(s.rounds, 5)); r++) {
    let t0 = performance.now();
    let after = 0;
    let seen = 0;
    let count = 0;
    for (;;) {
      const page = await ours.list(OWNER, after, PAGE);
      seen += page.records.length;
      count++;
      if (!page.hasMore) break;
      after = page.records[page.records.length - 1].seq;
    }
    paging.oursMs.push(performance.now() - t0);
    if (seen !== n) throw new Error(`bench bug: paged ${seen} of ${n} tasks`);
    paging.oursPages = count;
    let sdkMs = 0;
    for (let k = 0; k < samples; k++) {
      // Evenly spaced, shifted each round: page index p starts after task p*PAGE-1.
      const p = Math.min(pages - 1, Math.floor(((k + (r % 3) / 3) * pages) / samples));
      const cursor = p === 0 ? undefined : sdkIds[p * PAGE - 1];
      t0 = performance.now();
      const res = await sdk.listTasks(cursor);
      const dt = performance.now() - t0;
      if (res.tasks.length === 0) throw new Error("bench bug: an empty SDK page");
      sdkMs += dt;
      paging.sdkPageMs.push(dt);
    }
    paging.sdkPagesSampled += samples;
    paging.sdkEstMs.push((sdkMs / samples) * pages);
  }
  ours.close();
  sdk.cleanup();
  if (clockSink === 0) throw new Error("bench bug: the clock never ran");
  return { n, heap, create: { ours: create.ours, sdk: create.sdk }, get: { ours: get.get("ours")!, sdk: get.get("sdk")!, clock: get.get("clock")! }, paging };
}

export async function runStore(s: Settings): Promise<Section> {
  const storeFile = join(ROOT, "output-samples", STORE_SPEC, "store.ts");
  if (!existsSync(storeFile)) return notYet(`output-samples/${STORE_SPEC}/store.ts does not exist yet`);
  const same = ["mcp-2025-11-25", "ext-tasks-2026-07-28"].filter((sp) => {
    const f = join(ROOT, "output-samples", sp, "store.ts");
    return existsSync(f) && body(readFileSync(f, "utf8")) === body(readFileSync(storeFile, "utf8"));
  });
  const j = await inChild<Job>("store", { settings: s }, { exposeGc: true });
  const create = ratioOf(perRound(j.create.ours, j.create.sdk));
  const get = ratioOf(perRound(j.get.ours, j.get.sdk));
  const pagingPer = perRound(j.paging.sdkEstMs, j.paging.oursMs);
  const paging = ratioOf(pagingPer);
  const clockNs = 1e9 / median(j.get.clock);
  const getNs = 1e9 / median(j.get.ours);
  const heapOurs = median(j.heap.oursPerTask);
  const heapSdk = median(j.heap.sdkPerTask);
  const heapRatio: Ratio = ratioOf(perRound(j.heap.oursPerTask, j.heap.sdkPerTask));
  const figures = { "create:ours/sdk": create.median, "get:ours/sdk": get.median, "paging:ours/sdk": paging.median, "heap:ours/sdk": heapRatio.median };
  const targets: TargetResult[] = [
    {
      target: `create, ours ÷ SDK (${fmtNum(j.n)} tasks)`,
      bar: "≥ 1×",
      measured: fmtRatio(create),
      status: create.median >= 1 ? "met" : "missed",
      why:
        create.median >= 1
          ? undefined
          : "a create builds a fixed-shape slot, flattens the id, and inserts it into the id map, the owner's index and the deadline heap; the SDK builds one small object and arms one timer",
    },
    {
      target: "get, ours ÷ SDK",
      bar: "≥ 1×",
      measured: fmtRatio(get),
      status: get.median >= 1 ? "met" : "missed",
      why:
        get.median >= 1
          ? undefined
          : `a get (${fmtNum(getNs)} ns, mostly cache misses on a random id among ${fmtNum(j.n)}) is a map lookup and a fresh 13-field record, ` +
            "whose three epoch-ms numbers V8 boxes anew on every copy; the SDK's is a lookup and a spread of a 6-field task whose dates are strings. " +
            `Neither reads the clock (${fmtNum(clockNs)} ns here): both leave expiry to timers`,
    },
    {
      target: `paging through ${fmtNum(j.n)} tasks, ${PAGE} per page, ours ÷ SDK (speed-up)`,
      bar: "≥ 1000×",
      measured: fmtRatio(paging),
      status: paging.median >= 1000 ? "met" : "missed",
      why:
        paging.median >= 1000
          ? "the SDK's pass is estimated from sampled pages (its per-page cost is O(n) at a fixed n)"
          : `ours is O(page) per page; the SDK's estimate: ${fmtNum(median(j.paging.sdkEstMs))} ms per pass`,
    },
    {
      target: "heap bytes per task (retention set), ours ÷ SDK",
      bar: "≤ 0.6×",
      measured: `${fmtRatio(heapRatio)} (${fmtNum(heapOurs)} vs ${fmtNum(heapSdk)} B)`,
      status: heapRatio.median <= 0.6 ? "met" : "missed",
      why:
        heapRatio.median <= 0.6
          ? "per task we hold a 15-field slot (strings shared, the id flattened: a `randomUUID()` is a ~490-byte string tree until flattened), three boxed epoch-ms numbers, " +
            "a Map entry, and one array slot each in the owner's index and the deadline heap; the SDK holds a 6-field task with two ISO date strings, a wrapper, a Map entry and a Node Timeout per task"
          : "per task we hold a 15-field slot, three boxed epoch-ms numbers, the flat id, a Map entry and one array slot each in the owner's index and the deadline heap; " +
            "the SDK holds a 6-field task, a wrapper, a Map entry and a Timeout",
    },
  ];
  const tables: Table[] = [
    {
      title: `Generated InMemoryTaskStore (output-samples/${STORE_SPEC}/store.ts) vs the SDK's InMemoryTaskStore, ${fmtNum(j.n)} tasks`,
      columns: ["operation", "ours", "SDK", "ours ÷ SDK"],
      rows: [
        ["create (tasks/s)", fmtNum(median(j.create.ours)), fmtNum(median(j.create.sdk)), fmtRatio(create)],
        ["get (gets/s, random ids)", fmtNum(median(j.get.ours)), fmtNum(median(j.get.sdk)), fmtRatio(get)],
        ["(for scale: one clock read, `Date.now()`, per s; lookups make none)", fmtNum(median(j.get.clock)), "–", "–"],
        [
          `paging, one full pass (${fmtNum(j.paging.oursPages)} pages of ${PAGE})`,
          `${fmtNum(median(j.paging.oursMs))} ms`,
          `≈ ${fmtNum(median(j.paging.sdkEstMs))} ms (estimated from ${j.paging.sdkPagesSampled} sampled pages, median ${fmtNum(median(j.paging.sdkPageMs))} ms each)`,
          `${fmtRatio(paging)} faster`,
        ],
        ["heap bytes per task, retention set", fmtNum(heapOurs), fmtNum(heapSdk), fmtRatio(heapRatio)],
      ],
    },
  ];
  return {
    id: "store",
    title: "Task store",
    method:
      `In one process started with \`--expose-gc\`. **create**: both stores grow to ${fmtNum(j.n)} tasks in interleaved batches (ours gets the record the generated ` +
      `server builds, with a random UUID and a ${RETENTION_MS / 60000}-minute retention; the SDK's \`createTask({ ttl, pollInterval }, requestId, request)\` ` +
      "with a shared request object); the ratio is the median over batches. **get**: random existing ids, interleaved slices. " +
      `**paging**: \`list(owner, afterSeq, ${PAGE})\` against \`listTasks(cursor)\` (the SDK's page size is fixed at ${PAGE}) until the last page. ` +
      `**heap**: \`heapUsed\` after two full GCs, before and after creating ${fmtNum(j.n)} tasks with retention in a fresh store, both stores twice in alternating order.`,
    tables,
    targets,
    notes: [
      `The generated store is the same code for every spec (only the status type differs)${same.length ? `: ${same.join(" and ")} have it byte for byte, but for the header` : ""}.`,
      "Every store method is async in both; each operation is awaited.",
    ],
    figures,
  };
}

function body(text: string): string {
  return text.split("\n").slice(1).join("\n");
}

export function notYet(why: string): Section {
  return {
    id: "store",
    title: "Task store",
    method: "Not measured yet: " + why + ".",
    tables: [],
    targets: ["create", "get", "paging", "heap per task"].map((t) => ({ target: t, bar: "–", measured: "–", status: "not measured yet" as const, why })),
    notes: [],
    figures: {},
  };
}
