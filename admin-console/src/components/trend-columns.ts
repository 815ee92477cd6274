export interface TrendPoint {
  /** The UTC day's start (null only for groupings other than DAY and WEEK). */
  bucketStart: string | null;
  events: number;
  usedRate: number;
  answerSupportedRate: number;
  averageQuality: number | null;
}

/** uPlot's columns: days (unix seconds), then each series; a day without events is a gap, not a zero. */
export function trendColumns(buckets: readonly TrendPoint[]): [number[], ...(number | null)[][]] {
  const points = buckets.filter((p): p is TrendPoint & { bucketStart: string } => p.bucketStart !== null);
  const none = (p: TrendPoint) => p.events === 0;
  return [
    points.map((p) => Date.parse(p.bucketStart) / 1000),
    points.map((p) => (none(p) ? null : p.usedRate * 100)),
    points.map((p) => (none(p) ? null : p.answerSupportedRate * 100)),
    points.map((p) => (none(p) ? null : p.averageQuality)),
  ];
}
