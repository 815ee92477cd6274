import { DEFAULT_BLOCK_ROWS, DEFAULT_BLOCK_TOKEN_BUDGET } from '../../../config/setting-defaults';
import {
  BlockSnapshot,
  PREVIOUSLY_FETCHED_FOOTER,
  PREVIOUSLY_FETCHED_HEADER,
  renderPreviouslyFetchedBlock,
} from '../previously-fetched-block';
import { o200kTokenizer, Tokenizer } from '../../../common/text/tokenizer';
import { summarizeToolResult } from '../../../../test/support/tool-results-service';

const budget = { tokenBudget: DEFAULT_BLOCK_TOKEN_BUDGET, tokenizer: o200kTokenizer };

/** A snapshot as the write path stores it: its summary is built once, from the output. */
function snapshot(id: string, iso: string, toolName: string, toolInput: unknown, toolOutput: unknown): BlockSnapshot {
  return {
    id,
    memId: `mem-${id}`,
    toolName,
    toolInput,
    createdAt: new Date(iso),
    handle: { summaryOneliner: summarizeToolResult(toolName, toolInput, toolOutput) },
  };
}

const recentMembers = snapshot(
  's3',
  '2026-05-12T14:05:00Z',
  'query_site_data',
  { target: 'recent_members' },
  {
    members: [
      { name: 'Ada', registered_at: '2026-05-10T09:12:00Z' },
      { name: 'Ben', registered_at: '2026-05-09T17:40:00Z' },
      { name: 'Cleo', registered_at: '2026-05-08' },
      { name: 'Dev', registered_at: '2026-05-07T08:00:00Z' },
      { name: 'Eli', registered_at: '2026-05-05T12:00:00Z' },
      { name: 'Fay', registered_at: '2026-05-04T12:00:00Z' },
      { name: 'Gus', registered_at: '2026-05-02T12:00:00Z' },
      { name: 'Hal', registered_at: '2026-05-01T12:00:00Z' },
    ],
  },
);

const kpiTrend = snapshot(
  's2',
  '2026-05-12T14:02:00Z',
  'query_kpi_trend',
  { metric: 'active_members', granularity: 'week' },
  {
    metric: 'active_members',
    granularity: 'week',
    points: [200, 203, 207, 210, 215, 219, 224].map((value, i) => ({ period: `2026-W${12 + i}`, value })),
  },
);

const memberships = snapshot(
  's1',
  '2026-05-08T10:00:00Z',
  'query_site_data',
  { target: 'memberships' },
  {
    plans: [
      { name: 'Basic', active_members: 9 },
      { name: 'Starter Pack', active_members: 23 },
      { name: 'Pro', active_members: 14 },
      { name: 'Team', active_members: 4 },
      { name: 'Annual', active_members: 23 },
    ],
  },
);

describe('previously fetched block', () => {
  it('R-RC-1 renders the ADR example snapshots exactly, newest first, without a trailing newline', () => {
    const block = renderPreviouslyFetchedBlock([recentMembers, kpiTrend, memberships], budget);

    expect(block.text).toBe(
      'Previously fetched (this conversation, snapshots — not live data):\n' +
        '- 2026-05-12 query_site_data(target="recent_members"): 8 members, last registered 2026-05-10\n' +
        '- 2026-05-12 query_kpi_trend(metric="active_members", granularity="week"): 7-week trend, +12%\n' +
        '- 2026-05-08 query_site_data(target="memberships"): 5 plans, Starter Pack 23 active\n' +
        '\n' +
        'IMPORTANT: when referencing a row above, always prefix with "as of <date>".\n' +
        'If the user is asking about CURRENT state, call the tool fresh — do not\n' +
        'present these snapshots as live data.',
    );
    expect(block.tokens).toBe(o200kTokenizer.count(block.text));
    expect(block.droppedCount).toBe(0);
    expect(block.lines.map((line) => [line.snapshotId, line.memId, line.toolName])).toEqual([
      ['s3', 'mem-s3', 'query_site_data'],
      ['s2', 'mem-s2', 'query_kpi_trend'],
      ['s1', 'mem-s1', 'query_site_data'],
    ]);
    expect(block.lines[2].createdAt).toEqual(new Date('2026-05-08T10:00:00Z'));
    expect(block.lines[0].tokens).toBe(o200kTokenizer.count(block.lines[0].text));
  });

  it('R-RC-1 pins the header, footer and bounds as constants', () => {
    expect(PREVIOUSLY_FETCHED_HEADER).toBe('Previously fetched (this conversation, snapshots \u2014 not live data):');
    expect(PREVIOUSLY_FETCHED_FOOTER.split('\n')).toHaveLength(3);
    expect(PREVIOUSLY_FETCHED_FOOTER).toContain('call the tool fresh \u2014 do not\npresent');
    expect(DEFAULT_BLOCK_ROWS).toBe(5);
    expect(DEFAULT_BLOCK_TOKEN_BUDGET).toBe(300);
  });

  it('R-RC-1 dates each row in UTC', () => {
    const late = snapshot('x', '2026-05-12T23:30:00-05:00', 'query_site_data', { target: 'recent_members' }, { members: [] });
    const block = renderPreviouslyFetchedBlock([late], budget);
    expect(block.lines[0].text).toBe('- 2026-05-13 query_site_data(target="recent_members"): 0 members');
  });

  it('R-RC-1 renders nothing for no snapshots', () => {
    expect(renderPreviouslyFetchedBlock([], budget)).toEqual({ text: '', tokens: 0, lines: [], droppedCount: 0 });
  });
});

describe('previously fetched block budget', () => {
  const prose =
    'Quarterly retention narrative: cohorts acquired through referral campaigns renewed ' +
    'at markedly higher rates than paid-social cohorts, especially among annual subscribers.';
  const longRows = [1, 2, 3, 4, 5].map((n) =>
    snapshot(
      `s${n}`,
      `2026-05-${String(10 - n).padStart(2, '0')}T12:00:00Z`,
      'query_site_data',
      { target: `cohort_report_${n}`, filter: `signup_channel in (referral, paid_social, organic) #${n}`, limit: 500 },
      `${prose} Variant ${n}.`,
    ),
  );

  it('R-RC-2 keeps the whole block within 300 tokens by dropping the oldest rows', () => {
    const unbounded = renderPreviouslyFetchedBlock(longRows, { tokenBudget: Number.MAX_SAFE_INTEGER, tokenizer: o200kTokenizer });
    expect(unbounded.tokens).toBeGreaterThan(DEFAULT_BLOCK_TOKEN_BUDGET);

    const block = renderPreviouslyFetchedBlock(longRows, budget);

    expect(block.tokens).toBeLessThanOrEqual(DEFAULT_BLOCK_TOKEN_BUDGET);
    expect(block.tokens).toBe(o200kTokenizer.count(block.text));
    expect(block.droppedCount).toBeGreaterThan(0);
    expect(block.lines.length + block.droppedCount).toBe(longRows.length);
    expect(block.lines.map((line) => line.snapshotId)).toEqual(longRows.slice(0, block.lines.length).map((row) => row.id));
    expect(block.text.startsWith(`${PREVIOUSLY_FETCHED_HEADER}\n${block.lines[0].text}\n`)).toBe(true);
    expect(block.text.endsWith(`${block.lines[block.lines.length - 1].text}\n\n${PREVIOUSLY_FETCHED_FOOTER}`)).toBe(true);
  });

  it('R-RC-2 counts the exact final text, header and footer included', () => {
    const counted: string[] = [];
    const recording: Tokenizer = { count: (text) => (counted.push(text), text.length) };
    const block = renderPreviouslyFetchedBlock(longRows, { tokenBudget: 600, tokenizer: recording });
    expect(block.tokens).toBe(block.text.length);
    expect(block.tokens).toBeLessThanOrEqual(600);
    expect(counted).toContain(block.text);
  });

  it('R-RC-2 gives an empty block when the budget fits no row', () => {
    const block = renderPreviouslyFetchedBlock(longRows, { tokenBudget: 40, tokenizer: o200kTokenizer });
    expect(block).toEqual({ text: '', tokens: 0, lines: [], droppedCount: 5 });
  });
});
