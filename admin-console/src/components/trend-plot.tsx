import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { type TrendPoint, trendColumns } from './trend-columns';

/** Used rate and answer-supported rate (%, left axis) and mean quality (1–3, right axis), per UTC day. */
export function TrendPlot({ points }: { points: readonly TrendPoint[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const target = box.current;
    if (target === null) return;
    const plot = new uPlot(
      {
        // The box's padding (8px each side) is inside clientWidth.
        width: Math.max(320, target.clientWidth - 16),
        height: 320,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true }, rate: { range: [0, 100] }, quality: { range: [1, 3] } },
        axes: [{}, { scale: 'rate', label: 'rate (%)' }, { scale: 'quality', side: 1, label: 'mean quality', grid: { show: false } }],
        series: [
          { label: 'day (UTC)' },
          { label: 'used rate', scale: 'rate', stroke: '#1f6feb', width: 2, value: (_u, v) => (v === null ? '–' : `${v.toFixed(1)}%`) },
          {
            label: 'answer supported',
            scale: 'rate',
            stroke: '#2da44e',
            width: 2,
            value: (_u, v) => (v === null ? '–' : `${v.toFixed(1)}%`),
          },
          {
            label: 'mean quality',
            scale: 'quality',
            stroke: '#bf3989',
            width: 2,
            dash: [6, 4],
            value: (_u, v) => (v === null ? '–' : v.toFixed(2)),
          },
        ],
      },
      trendColumns(points),
      target,
    );
    return () => plot.destroy();
  }, [points]);
  return <div ref={box} class="plot" aria-label="feedback trend plot" />;
}
