import { ConsoleFeedbackEventDocument, type ConsoleFeedbackEventQuery } from '../../../clients/typescript/src';
import { Marks } from '../components/marks';
import { Problem } from '../components/problem';
import { utcTime, yesNo } from '../format';
import { routeHref } from '../route';
import { useQuery } from '../use-query';

type FeedbackEvent = NonNullable<ConsoleFeedbackEventQuery['feedbackEvent']>;
type Recall = NonNullable<FeedbackEvent['recallEvent']>;

/** One feedback event: its judgment and comment, and the recall it judges with each returned snapshot's stub in rank order. */
export function FeedbackEventPage({ id }: { id: string }) {
  const { data, problem } = useQuery(ConsoleFeedbackEventDocument, { id }, id);
  if (problem !== null) return <Problem text={problem} />;
  if (data === null) return <p>Loading…</p>;
  const event = data.feedbackEvent;
  if (event === null)
    return (
      <Problem
        text={`No visible feedback event ${id}: it does not exist, belongs to another team, or its space was sealed, retired or moved to a new generation. `}
      >
        <a href={routeHref(['feedback'])}>Back to the list</a>
      </Problem>
    );

  return (
    <article class="event">
      <p>
        <a href={routeHref(['feedback'])}>← Feedback events</a>
      </p>
      <h1>Feedback {event.id}</h1>
      <Marks event={event} />
      <dl class="facts">
        <dt>Given</dt>
        <dd>{utcTime(event.createdAt)}</dd>
        <dt>By user</dt>
        <dd>{event.actorId}</dd>
        <dt>Recall of user</dt>
        <dd>{event.profileId}</dd>
        <dt>Space</dt>
        <dd>
          {event.spaceId} (generation {event.spaceGeneration})
        </dd>
        <dt>Contract</dt>
        <dd>{event.contractVersion}</dd>
        <dt>Tools</dt>
        <dd>{event.toolNames.join(', ') || '–'}</dd>
      </dl>
      <h2>Comment</h2>
      <blockquote class="comment-text">{event.feedbackComment ?? 'No comment.'}</blockquote>
      {event.irrelevantResultRefs.length > 0 && (
        <p>Marked irrelevant: {event.irrelevantResultRefs.map((r) => `#${r.rank} ${r.type} ${r.id}`).join(', ')}</p>
      )}
      {event.hypothesisFeedback.length > 0 && <Hypotheses judgments={event.hypothesisFeedback} />}
      {event.recallEvent ? <RecallSection recall={event.recallEvent} currentId={event.id} /> : <p>The recall is no longer visible.</p>}
    </article>
  );
}

function Hypotheses({ judgments }: { judgments: FeedbackEvent['hypothesisFeedback'] }) {
  return (
    <>
      <h2>Hypotheses</h2>
      <table>
        <thead>
          <tr>
            <th>Hypothesis</th>
            <th>Used</th>
            <th>Contradicted</th>
            <th>Quality</th>
            <th>Comment</th>
          </tr>
        </thead>
        <tbody>
          {judgments.map((h) => (
            <tr key={h.hypothesisId}>
              <td>{h.hypothesisId}</td>
              <td>{yesNo(h.used)}</td>
              <td>{yesNo(h.contradicted)}</td>
              <td>{h.quality ?? '–'}</td>
              <td>{h.feedbackComment ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function RecallSection({ recall, currentId }: { recall: Recall; currentId: string }) {
  const others = (recall.feedbackEvents ?? []).filter((f) => f.id !== currentId);
  return (
    <section class="recall">
      <h2>The recall</h2>
      <dl class="facts">
        <dt>Recall event</dt>
        <dd>{recall.id}</dd>
        <dt>Made</dt>
        <dd>
          {utcTime(recall.createdAt)} ({recall.source.toLowerCase()})
        </dd>
        <dt>Query fingerprint</dt>
        <dd class="mono">{recall.queryFingerprint ?? 'none (no query)'}</dd>
        <dt>Freshness / fusion</dt>
        <dd>
          {recall.searchFreshness ?? '–'} / {recall.fusionMode ?? '–'}
        </dd>
        <dt>Degraded</dt>
        <dd>{recall.degradedBranches.join(', ') || 'no'}</dd>
      </dl>
      <h3>Returned, in rank order</h3>
      {recall.returnedResults.length === 0 && <p>The recall returned nothing.</p>}
      <ol class="refs">
        {recall.returnedResults.map((ref) => (
          <li key={`${ref.type}:${ref.id}`} data-rank={ref.rank}>
            <p>
              <strong>#{ref.rank}</strong> {ref.type} <span class="mono">{ref.id}</span>
              {ref.snapshot && (
                <>
                  {' '}
                  · {ref.snapshot.toolName} · {ref.snapshot.sizeTokens.toLocaleString('en-US')} tokens · {utcTime(ref.snapshot.createdAt)}
                </>
              )}
            </p>
            {ref.snapshot ? (
              <pre class="stub">{ref.snapshot.stub}</pre>
            ) : (
              <p class="muted">No readable snapshot (deleted, or not a tool result).</p>
            )}
          </li>
        ))}
      </ol>
      {others.length > 0 && (
        <p>
          Other feedback on this recall:{' '}
          {others.map((f, i) => (
            <>
              {i > 0 && ', '}
              <a key={f.id} href={routeHref(['feedback', f.id])}>
                {utcTime(f.createdAt)} {f.quality ?? ''}
              </a>
            </>
          ))}
        </p>
      )}
    </section>
  );
}
