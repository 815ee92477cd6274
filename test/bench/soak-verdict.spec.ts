import { assessLeak, type HeapSample, slope } from '../../bench/soak-verdict';

const MB = 1024 * 1024;
const series = (count: number, heapAt: (i: number) => number): HeapSample[] =>
  Array.from({ length: count }, (_, i) => ({ atSeconds: i * 60, heapUsedBytes: heapAt(i) }));

describe('soak leak verdict', () => {
  it('fits a least-squares slope', () => {
    expect(
      slope([
        { x: 0, y: 1 },
        { x: 1, y: 3 },
        { x: 2, y: 5 },
      ]),
    ).toBeCloseTo(2);
    expect(slope([{ x: 1, y: 7 }])).toBe(0);
  });

  it('finds no leak in a flat, noisy heap', () => {
    const samples = series(30, (i) => 100 * MB + (i % 3) * 0.5 * MB);
    const result = assessLeak(100 * MB, 101 * MB, samples);
    expect(result.verdict).toBe('no leak found');
    expect(result.rule).toContain('yes');
  });

  it('finds no leak when a cache fills in the first half and then stays', () => {
    const samples = series(30, (i) => (i < 10 ? 100 + i : 110) * MB);
    expect(assessLeak(100 * MB, 110 * MB, samples).verdict).toBe('no leak found');
  });

  it('suspects a leak when the end is beyond 10% + 5 MB of the start', () => {
    expect(
      assessLeak(
        100 * MB,
        116 * MB,
        series(30, () => 100 * MB),
      ).verdict,
    ).toBe('leak suspected');
  });

  it('suspects a leak when the last half still climbs, even within the end bound', () => {
    // 0.3 MB a minute: 4.35 MB over the last 14.5 minutes, above 2% of 100 MB + 2 MB.
    const samples = series(30, (i) => 100 * MB + i * 0.3 * MB);
    const result = assessLeak(100 * MB, 109 * MB, samples);
    expect(result.verdict).toBe('leak suspected');
    expect(result.lastHalfRiseBytes! / MB).toBeCloseTo(4.35, 1);
  });

  it('is inconclusive with too few samples to see a trend', () => {
    expect(
      assessLeak(
        100 * MB,
        100 * MB,
        series(3, () => 100 * MB),
      ).verdict,
    ).toBe('inconclusive');
  });
});
