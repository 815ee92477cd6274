import { ConsoleFeedbackTrendDocument } from '../../../clients/typescript/src';
import { Problem } from '../components/problem';
import { TrendPlot } from '../components/trend-plot';
import { percent } from '../format';
import { useQuery } from '../use-query';
import { filterFromParams } from './feedback-filter';

/** The daily series of the last 30 days (UTC), plotted and tabled; the feedback filters in the address apply. */
export function TrendPage({ params }: { params: URLSearchParams }) {
  const key = params.toString();
  const { data, problem } = useQuery(ConsoleFeedbackTrendDocument, { filter: filterFromParams(params) }, key);
  if (problem !== null) return <Problem text={problem} />;
  if (data === null) return <p>Loading…</p>;
  const buckets = data.feedbackMetrics;
  return (
    <section>
      <h1>Feedback per day (UTC)</h1>
      <TrendPlot points={buckets} />
      <table class="trend">
        <thead>
          <tr>
            <th>Day</th>
            <th>Events</th>
            <th>Used</th>
            <th>Answer supported</th>
            <th>Mean quality</th>
          </tr>
        </thead>
        <tbody>
          {buckets.map((b) => (
            <tr key={b.group}>
              <td>{b.group}</td>
              <td>{b.events}</td>
              <td>{b.events === 0 ? '–' : percent(b.usedRate)}</td>
              <td>{b.events === 0 ? '–' : percent(b.answerSupportedRate)}</td>
              <td>{b.averageQuality === null ? '–' : b.averageQuality.toFixed(2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
