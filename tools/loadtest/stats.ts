/**
 * Latency samples and percentiles. Samples are kept whole (a run is bounded, at most a few
 * million numbers) so percentiles are exact rather than estimated from buckets.
 */
export class LatencyRecorder {
  private samples: number[] = [];

  record(ms: number): void {
    this.samples.push(ms);
  }

  /** Times `fn` and records its duration in milliseconds, also when it throws. */
  async time<T>(fn: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await fn();
    } finally {
      this.record(performance.now() - start);
    }
  }

  get count(): number {
    return this.samples.length;
  }

  /** Nearest-rank percentile, `p` in [0, 100]; null when nothing was recorded. */
  percentile(p: number): number | null {
    return percentile(this.samples, p);
  }
}

export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export const median = (values: readonly number[]): number | null => percentile(values, 50);

/** Rounds for reports: 2 decimals is plenty for milliseconds and rates. */
export const round2 = (x: number | null): number | null =>
  x === null ? null : Math.round(x * 100) / 100;
