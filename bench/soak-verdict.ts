/*
 * The soak's leak verdict, pure: from the service's heap after forced full collections, where
 * only live objects remain. Garbage not yet collected would make any heap curve look like a leak.
 */

const MB = 1024 * 1024;

/** One post-GC reading of the service's heap. */
export interface HeapSample {
  /** Seconds since the measured phase began. */
  atSeconds: number;
  heapUsedBytes: number;
}

export interface LeakRule {
  /** The end may exceed the start by this fraction of the start… */
  endGrowthFraction: number;
  /** …plus this many bytes (caches that fill up once, JIT code, pools). */
  endGrowthBytes: number;
  /** The line fitted through the last half's samples may rise by at most this much over that half. */
  trendFraction: number;
  trendBytes: number;
  /** Fewer samples in the last half than this cannot show a trend. */
  minTrendSamples: number;
}

const LEAK_RULE: LeakRule = {
  endGrowthFraction: 0.1,
  endGrowthBytes: 5 * MB,
  trendFraction: 0.02,
  trendBytes: 2 * MB,
  minTrendSamples: 4,
};

type LeakVerdict = 'no leak found' | 'leak suspected' | 'inconclusive';

export interface LeakAssessment {
  verdict: LeakVerdict;
  /** The rule in words, with this run's numbers. */
  rule: string;
  startBytes: number;
  endBytes: number;
  endLimitBytes: number;
  /** How much the fitted line rises over the last half (negative: falls); null without enough samples. */
  lastHalfRiseBytes: number | null;
  lastHalfLimitBytes: number;
  lastHalfSamples: number;
}

/** Least-squares slope of y over x; 0 for fewer than two distinct x. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - mx) ** 2;
    sxy += (p.x - mx) * (p.y - my);
  }
  return sxx === 0 ? 0 : sxy / sxx;
}

/**
 * `start` and `end` are the heaps at the start and end snapshots (each after a full collection);
 * `samples` the periodic post-GC heaps in between. No leak found when the end is within
 * 10% + 5 MB of the start AND the line through the last half's samples rises by less than
 * 2% of the start + 2 MB over that half; leak suspected when either fails; inconclusive when the
 * end is within bounds but the last half has too few samples to judge a trend.
 */
export function assessLeak(start: number, end: number, samples: readonly HeapSample[], rule: LeakRule = LEAK_RULE): LeakAssessment {
  const endLimitBytes = start * (1 + rule.endGrowthFraction) + rule.endGrowthBytes;
  const lastHalfLimitBytes = start * rule.trendFraction + rule.trendBytes;
  const times = samples.map((s) => s.atSeconds);
  const first = Math.min(...times);
  const last = Math.max(...times);
  const middle = (first + last) / 2;
  const lastHalf = samples.filter((s) => s.atSeconds >= middle);
  const enough = lastHalf.length >= rule.minTrendSamples && last > middle;
  const lastHalfRiseBytes = enough ? slope(lastHalf.map((s) => ({ x: s.atSeconds, y: s.heapUsedBytes }))) * (last - middle) : null;
  const endOk = end <= endLimitBytes;
  const trendOk = lastHalfRiseBytes === null || lastHalfRiseBytes < lastHalfLimitBytes;
  const verdict: LeakVerdict = !endOk || !trendOk ? 'leak suspected' : lastHalfRiseBytes === null ? 'inconclusive' : 'no leak found';
  const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
  const rule_ =
    `post-GC heap at the end ≤ start × ${1 + rule.endGrowthFraction} + ${mb(rule.endGrowthBytes)} ` +
    `(${mb(end)} ≤ ${mb(endLimitBytes)}: ${endOk ? 'yes' : 'no'}), and the least-squares line through the last half's ` +
    `post-GC samples rises by less than ${rule.trendFraction * 100}% of the start + ${mb(rule.trendBytes)} over that half ` +
    (lastHalfRiseBytes === null
      ? `(only ${lastHalf.length} samples, at least ${rule.minTrendSamples} needed: not judged)`
      : `(${mb(lastHalfRiseBytes)} < ${mb(lastHalfLimitBytes)} over ${lastHalf.length} samples: ${trendOk ? 'yes' : 'no'})`);
  return {
    verdict,
    rule: rule_,
    startBytes: start,
    endBytes: end,
    endLimitBytes,
    lastHalfRiseBytes,
    lastHalfLimitBytes,
    lastHalfSamples: lastHalf.length,
  };
}
