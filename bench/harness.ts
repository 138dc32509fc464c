/**
 * The measuring core of `npm run bench`.
 *
 * This machine is shared and noisy, so nothing here trusts an absolute time:
 * every candidate is measured in the same process as its baseline, in short
 * interleaved slices (baseline, candidate, baseline, ... in rotating order),
 * and a ratio is the median of the per-round ratios, so a burst of noise hits
 * both sides of one round instead of one side of the whole comparison.
 */
import { spawnSync, type SpawnSyncOptions } from "node:child_process";

export interface Settings {
  quick: boolean;
  /** Interleaved rounds per comparison. */
  rounds: number;
  /** Wall time per case per round, in ms (micro-benchmarks). */
  sliceMs: number;
  /** Fresh-process rounds (generator). */
  processRounds: number;
  /** Warm-up per case before measuring, in ms (lets the JIT tier up). */
  warmMs: number;
}

export const settingsFor = (quick: boolean): Settings =>
  quick
    ? { quick, rounds: 5, sliceMs: 6, processRounds: 1, warmMs: 40 }
    : { quick, rounds: 12, sliceMs: 40, processRounds: 3, warmMs: 100 };

/** Results land here so that no measured call is dead code. */
export let sink = 0;
export const consume = (v: unknown) => {
  sink = (sink + (v === true ? 1 : v === false ? 2 : v === undefined || v === null ? 3 : 4)) | 0;
};

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** The 25th and 75th percentiles (nearest rank), to show how much rounds disagree. */
export function quartiles(xs: readonly number[]): [number, number] {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return [NaN, NaN];
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))];
  return [at(0.25), at(0.75)];
}

export interface Ratio {
  /** Median over rounds of candidate/baseline (for throughput: candidate ops/s over baseline ops/s). */
  median: number;
  q1: number;
  q3: number;
  rounds: number;
}

export function ratioOf(per: readonly number[]): Ratio {
  const [q1, q3] = quartiles(per);
  return { median: median(per), q1, q3, rounds: per.length };
}

// ---------------------------------------------------------------------------
// Synchronous micro-benchmarks: ops/s of functions called in a loop.
// ---------------------------------------------------------------------------

export interface SyncCase {
  name: string;
  fn: () => unknown;
}

/** Calls per batch such that one batch takes about `ms`. */
function calibrate(fn: () => unknown, ms: number): number {
  let n = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) consume(fn());
    const dt = performance.now() - t0;
    if (dt >= ms / 4 || n >= 1 << 28) return Math.max(1, Math.round((n * ms) / Math.max(dt, 0.001)));
    n *= 4;
  }
}

function runBatch(fn: () => unknown, n: number): number {
  let acc = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = fn();
    acc += r === true ? 1 : r === false ? 2 : 3;
  }
  const dt = performance.now() - t0;
  sink = (sink + acc) | 0;
  return (n * 1000) / dt;
}

/**
 * Measure several cases interleaved. Returns, per case, the ops/s of every round
 * (index-aligned across cases, so per-round ratios compare neighbours in time).
 */
export function measureSync(cases: readonly SyncCase[], s: Settings): Map<string, number[]> {
  const sizes = new Map<string, number>();
  for (const c of cases) {
    // Warm up (and let the JIT settle) before calibrating.
    const n = calibrate(c.fn, s.sliceMs);
    for (let t0 = performance.now(); performance.now() - t0 < s.warmMs; ) runBatch(c.fn, n);
    sizes.set(c.name, calibrate(c.fn, s.sliceMs));
  }
  const out = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let r = 0; r < s.rounds; r++) {
    // Rotate the order so no case always runs first (or right after a GC-heavy one).
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + r) % cases.length];
      out.get(c.name)!.push(runBatch(c.fn, sizes.get(c.name)!));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Asynchronous micro-benchmarks (store operations, round trips).
// ---------------------------------------------------------------------------

export interface AsyncCase {
  name: string;
  /** One operation. */
  fn: () => Promise<unknown>;
}

async function runAsyncFor(fn: () => Promise<unknown>, ms: number): Promise<number> {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let i = 0; i < 8; i++) consume(await fn());
    n += 8;
    t = performance.now();
  }
  return (n * 1000) / (t - t0);
}

export async function measureAsync(cases: readonly AsyncCase[], s: Settings, sliceMs = s.sliceMs): Promise<Map<string, number[]>> {
  for (const c of cases) await runAsyncFor(c.fn, Math.max(sliceMs, s.warmMs));
  const out = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let r = 0; r < s.rounds; r++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + r) % cases.length];
      out.get(c.name)!.push(await runAsyncFor(c.fn, sliceMs));
    }
  }
  return out;
}

/** Per-round ratios a/b of two index-aligned series. */
export function perRound(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.min(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(a[i] / b[i]);
  return out;
}

// ---------------------------------------------------------------------------
// Fresh processes.
// ---------------------------------------------------------------------------

export interface ProcResult {
  ms: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

export function timeProcess(cmd: string, args: readonly string[], opts: SpawnSyncOptions = {}): ProcResult {
  const t0 = performance.now();
  const r = spawnSync(cmd, args as string[], { encoding: "utf8", ...opts });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  return { ms, status: r.status, stdout: String(r.stdout ?? ""), stderr: String(r.stderr ?? "") };
}

// ---------------------------------------------------------------------------
// Formatting.
// ---------------------------------------------------------------------------

export function fmtNum(x: number | undefined, digits = 3): string {
  if (x === undefined || !Number.isFinite(x)) return "–";
  if (x === 0) return "0";
  const abs = Math.abs(x);
  if (abs >= 1e9) return `${(x / 1e9).toPrecision(digits)} G`;
  if (abs >= 1e6) return `${(x / 1e6).toPrecision(digits)} M`;
  if (abs >= 1e4) return `${(x / 1e3).toPrecision(digits)} k`;
  if (abs >= 100) return x.toFixed(0);
  return x.toPrecision(digits);
}

export function fmtRatio(r: Ratio | undefined): string {
  if (!r || !Number.isFinite(r.median)) return "–";
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  return `${f(r.median)}× (${f(r.q1)}–${f(r.q3)})`;
}
