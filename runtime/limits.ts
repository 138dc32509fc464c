// Part of the mcp-task-gen runtime, copied verbatim into generated output (runtime/).
// Do not edit a copy: it is replaced whenever the spec is regenerated.
/**
 * Per-requestor limits: token buckets for the rates (creation, polling,
 * results, listing) and the count of a requestor's non-terminal tasks.
 */

/** The limits a runtime enforces per requestor. */
export interface TaskLimits {
  /** Tasks of one requestor that may be non-terminal at once. */
  maxConcurrentPerRequestor: number;
  createPerMinute: number;
  /** Task polls (the get method) per requestor and minute. */
  pollPerMinute: number;
  /** Result retrievals per requestor and minute. */
  resultPerMinute: number;
  listPerMinute: number;
}

/** Token buckets per requestor and operation: `perMinute` tokens, refilled continuously. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** Takes a token from the bucket `key`; false when it is empty. */
  take(key: string, perMinute: number, now = Date.now()): boolean {
    let b = this.buckets.get(key);
    if (!b) {
      // Full buckets carry no information: dropping them bounds the map.
      if (this.buckets.size > 10_000) this.sweep(now, perMinute);
      b = { tokens: perMinute, at: now };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(perMinute, b.tokens + ((now - b.at) * perMinute) / 60_000);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** The number of buckets kept. */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number, perMinute: number): void {
    for (const [k, b] of this.buckets) if (b.tokens + ((now - b.at) * perMinute) / 60_000 >= perMinute) this.buckets.delete(k);
  }
}

/**
 * Non-terminal tasks per requestor. A slot is reserved before the task is
 * stored, held by the task once stored, and released once: when the task ends,
 * expires, or could not be stored.
 */
export class ConcurrencyCounter {
  private readonly running = new Map<string, number>();
  private readonly held = new Set<string>();

  /** The requestor's slots in use. */
  count(owner: string): number {
    return this.running.get(owner) ?? 0;
  }

  /** Takes a slot for `owner` unless `max` are in use. */
  reserve(owner: string, max: number): boolean {
    const n = this.running.get(owner) ?? 0;
    if (n >= max) return false;
    this.running.set(owner, n + 1);
    return true;
  }

  /** Gives back a reserved slot no task holds. */
  release(owner: string): void {
    const n = (this.running.get(owner) ?? 1) - 1;
    if (n <= 0) this.running.delete(owner);
    else this.running.set(owner, n);
  }

  /** Marks the reserved slot as held by the stored task `taskId`. */
  hold(taskId: string): void {
    this.held.add(taskId);
  }

  /** Releases the slot `taskId` holds (once; later calls do nothing). */
  releaseTask(taskId: string, owner: string): void {
    if (this.held.delete(taskId)) this.release(owner);
  }
}
