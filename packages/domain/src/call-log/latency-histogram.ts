// Latencies are kept as counts per bucket (upper bounds below, milliseconds; the last bucket is open), so a
// usage answer over millions of calls sums counts instead of sorting latencies, and every store answers the
// same percentiles from the same counts.

/** The upper bounds of the latency buckets, milliseconds (the last bucket, above 60 s, has none). */
export const LATENCY_BOUNDS_MS = [
  0.5, 1, 1.5, 2, 3, 5, 7.5, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500,
  10000, 15000, 20000, 30000, 60000,
] as const;

/** How many latency buckets a histogram has. */
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** The bucket a latency falls in. */
export const latencyBucketOf = (ms: number): number => {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= (LATENCY_BOUNDS_MS[i] as number)) return i;
  return LATENCY_BOUNDS_MS.length;
};

/** An empty histogram. */
export const emptyHistogram = (): Array<number> => new Array<number>(LATENCY_BUCKETS).fill(0);

/** Adds `from` into `into` (same length). */
export const addHistogram = (into: Array<number>, from: ReadonlyArray<number>): void => {
  for (let i = 0; i < LATENCY_BUCKETS; i++) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
};

/**
 * The `p` quantile (0..1) of a histogram, interpolated linearly inside its bucket (the open last bucket
 * answers its lower bound); 0 for an empty histogram. Rounded to 0.01 ms.
 */
export const percentileOf = (histogram: ReadonlyArray<number>, p: number): number => {
  const total = histogram.reduce((sum, n) => sum + n, 0);
  if (total === 0) return 0;
  const rank = p * total;
  let seen = 0;
  for (let i = 0; i < LATENCY_BUCKETS; i++) {
    const n = histogram[i] ?? 0;
    if (n > 0 && seen + n >= rank) {
      const lower = i === 0 ? 0 : (LATENCY_BOUNDS_MS[i - 1] as number);
      const upper = LATENCY_BOUNDS_MS[i];
      if (upper === undefined) return lower;
      return Math.round((lower + ((upper - lower) * (rank - seen)) / n) * 100) / 100;
    }
    seen += n;
  }
  return LATENCY_BOUNDS_MS.at(-1) as number;
};
