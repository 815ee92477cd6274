import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  ConsoleFeedbackEventsDocument,
  type ConsoleFeedbackEventsQuery,
  ConsoleSpacesDocument,
  type ConsoleSpacesQuery,
} from '../../../clients/typescript/src';
import { Marks } from '../components/marks';
import { Problem } from '../components/problem';
import { countText, utcTime } from '../format';
import { routeHref } from '../route';
import { client, describeError } from '../session';
import { FILTER_KEYS, type FilterKey, filterFromParams } from './feedback-filter';

type Connection = ConsoleFeedbackEventsQuery['feedbackEvents'];
type FeedbackRow = Connection['edges'][number]['node'];

const PAGE_SIZE = 50;
const YES_NO = [
  { value: '', label: 'any' },
  { value: 'yes', label: 'yes' },
  { value: 'no', label: 'no' },
];

/** Feedback events, newest first, filtered by the address's parameters; more load as the list's end scrolls into view. */
export function FeedbackListPage({ params }: { params: URLSearchParams }) {
  const key = params.toString();
  const [rows, setRows] = useState<FeedbackRow[]>([]);
  const [page, setPage] = useState<Omit<Connection, 'edges'> | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [spaces, setSpaces] = useState<ConsoleSpacesQuery['spaces']>([]);
  const generation = useRef(0);

  const load = useCallback(
    async (after: string | null) => {
      const mine = generation.current;
      setLoading(true);
      try {
        const { feedbackEvents } = await client.request(ConsoleFeedbackEventsDocument, {
          filter: filterFromParams(new URLSearchParams(key)),
          first: PAGE_SIZE,
          after,
        });
        // A filter changed while this page was on its way: its rows belong to the old list.
        if (mine !== generation.current) return;
        const { edges, ...rest } = feedbackEvents;
        setRows((old) => (after === null ? [] : old).concat(edges.map((e) => e.node)));
        setPage(rest);
        setProblem(null);
      } catch (error) {
        if (mine === generation.current) setProblem(describeError(error));
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [key],
  );

  useEffect(() => {
    generation.current += 1;
    setRows([]);
    setPage(null);
    void load(null);
  }, [load]);

  useEffect(() => {
    client.request(ConsoleSpacesDocument).then(
      ({ spaces }) => setSpaces(spaces),
      () => setSpaces([]),
    );
  }, []);

  const sentinel = useRef<HTMLDivElement>(null);
  const more = page?.pageInfo.hasNextPage === true && !loading && problem === null;
  useEffect(() => {
    const target = sentinel.current;
    if (!more || target === null) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void load(page?.pageInfo.endCursor ?? null);
    });
    observer.observe(target);
    return () => observer.disconnect();
  }, [more, load, page]);

  const setFilter = (name: FilterKey, value: string) => {
    const next: Record<string, string> = {};
    for (const k of FILTER_KEYS) next[k] = params.get(k) ?? '';
    next[name] = value;
    window.location.hash = routeHref(['feedback'], next);
  };
  const choice = (name: FilterKey, label: string, options: { value: string; label: string }[]) => (
    <label>
      {label}
      <select name={name} value={params.get(name) ?? ''} onChange={(e) => setFilter(name, e.currentTarget.value)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <section>
      <h1>Feedback events</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        {choice('quality', 'Quality', [
          { value: '', label: 'any' },
          { value: 'LOW', label: 'LOW' },
          { value: 'MEDIUM', label: 'MEDIUM' },
          { value: 'HIGH', label: 'HIGH' },
        ])}
        {choice('used', 'Used', YES_NO)}
        {choice('supported', 'Answer supported', YES_NO)}
        {choice('missing', 'Missing context', YES_NO)}
        {choice('irrelevant', 'Irrelevant', YES_NO)}
        {choice('comment', 'Has comment', YES_NO)}
        {choice('space', 'Space', [{ value: '', label: 'any' }, ...spaces.map((s) => ({ value: s.id, label: s.name }))])}
        <label>
          Tool
          <input
            name="tool"
            value={params.get('tool') ?? ''}
            placeholder="tool name"
            onChange={(e) => setFilter('tool', e.currentTarget.value.trim())}
          />
        </label>
        <label>
          From (UTC)
          <input name="since" type="date" value={params.get('since') ?? ''} onChange={(e) => setFilter('since', e.currentTarget.value)} />
        </label>
        <label>
          To (UTC)
          <input name="until" type="date" value={params.get('until') ?? ''} onChange={(e) => setFilter('until', e.currentTarget.value)} />
        </label>
      </form>
      {problem !== null && <Problem text={problem} />}
      {page !== null && <p class="count">{countText(page.totalCount, page.totalCountIsExact, 'event')}</p>}
      <table class="events">
        <thead>
          <tr>
            <th>When</th>
            <th>Marks</th>
            <th>Tools</th>
            <th>Comment</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-event-id={row.id}>
              <td>
                <a href={routeHref(['feedback', row.id])}>{utcTime(row.createdAt)}</a>
              </td>
              <td>
                <Marks event={row} />
              </td>
              <td>{row.toolNames.join(', ') || '–'}</td>
              <td class="comment">{row.feedbackComment ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page !== null && rows.length === 0 && <p>No feedback event matches these filters.</p>}
      <div ref={sentinel} class="sentinel">
        {loading ? 'Loading…' : more ? <button onClick={() => void load(page?.pageInfo.endCursor ?? null)}>Load more</button> : null}
      </div>
    </section>
  );
}
