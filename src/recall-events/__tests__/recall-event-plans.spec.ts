import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SnapshotSearch } from '../../tool-results';
import { toolResultRepositoryFor } from '../../../test/support/tool-results-service';
import type { RecallEventDraft } from '../recall-event.record';
import { RecallEventRepository } from '../recall-event.repository';
import {
  BLOCK_RANKING_VERSION,
  FUSION_MODE_SINGLE,
  newRecallEventId,
  queryFingerprint,
  RECALL_CONTRACT_VERSION,
  RecallEventSource,
  SEARCH_FRESHNESS_SYNCHRONOUS,
  SEARCH_RANKING_VERSION,
} from '../recall-event.rules';
import { nestedPlanOf as nestedPlanOfCall, type PlanNode, planNodes as nodes } from '../../../test/support/plans';
import { captureSql, createTestOrm, type TestOrm } from '../../../test/support/test-orm';

/**
 * The nodes that read `relation`, as [node type, index name or null]. A Bitmap Index Scan names
 * only its index, so an index counts by its name (this schema prefixes index names with the table).
 */
function scansOf(plan: PlanNode[], relation: string): [string, string | null][] {
  return plan
    .filter((n) => n['Node Type'] !== 'ModifyTable')
    .filter((n) => n['Relation Name'] === relation || (n['Relation Name'] === undefined && n['Index Name']?.startsWith(`${relation}_`)))
    .map((n) => [n['Node Type'], n['Index Name'] ?? null]);
}

const SEARCH_INDEX = 'message_tool_results_user_search';

/**
 * Pins the plans of reading a recall event back and of the full-text search (docs/requirements.md §9) on a
 * realistic spread of rows: the read is a primary-key lookup on (team_id, id), and a search
 * answers the user and the words with one scan of the (user_id, search_vector) GIN index instead
 * of walking every snapshot of the user or of the space.
 */
describe('recall event and search plans (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  let event: { team_id: string; id: string; profile_id: string };
  let searcher: {
    userId: string;
    teamId: string;
    spaceId: string;
    spaceIds: string[];
    token: string;
    toolName: string;
    conversationId: string;
  };

  beforeAll(async () => {
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    // 20 teams × 2 spaces × 10 users; every user records 50 events in each of its team's
    // spaces: 20,000 recall events with ten refs each.
    await em.execute(
      `insert into teams (id) select gen_random_uuid() from generate_series(1, 20);
       insert into spaces (id, team_id, name) select gen_random_uuid(), t.id, 'space ' || g from teams t, generate_series(1, 2) g;
       insert into users (id, team_id) select gen_random_uuid(), t.id from teams t, generate_series(1, 10);
       insert into recall_events (team_id, id, profile_id, space_id, space_generation, query_fingerprint, query_text, contract_version,
                                  ranking_version, fusion_mode, search_freshness, degraded_branches, results, source, created_at)
         select u.team_id, 'rec_' || upper(substr(md5(u.id::text || s.id::text || g), 1, 26)), u.id, s.id, 1,
                encode(sha256(convert_to('query ' || (g % 300), 'UTF8')), 'hex'), null, 'recall-ledger.recall.v1',
                'fts-simple-rank-v1', 'single', 'synchronous', '[]'::jsonb,
                (select jsonb_agg(jsonb_build_object('type', 'TOOL_RESULT', 'id', md5(u.id::text || g || r), 'rank', r) order by r) from generate_series(1, 10) r),
                case when g % 10 = 0 then 'EXTERNAL' else 'INTERNAL' end, now() - make_interval(mins => g)
           from users u join spaces s on s.team_id = u.team_id, generate_series(1, 50) g;`,
    );
    // 40 users (4 teams) × 2 spaces × 10 conversations × 25 snapshots = 20,000 snapshots. Each
    // has a word of its own (tok…), one of 25 topics (once per conversation), one of 20 regions
    // and words every snapshot has; the trigger fills search_vector.
    await em.execute(
      `insert into conversations (id, user_id, space_id)
         select gen_random_uuid(), u.id, s.id
           from users u join spaces s on s.team_id = u.team_id, generate_series(1, 10)
          where u.team_id in (select id from teams order by id limit 4);
       insert into messages (id, conversation_id, user_id) select gen_random_uuid(), c.id, c.user_id from conversations c;
       insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
                                         summary_oneliner, stub, size_tokens, team_id, space_generation)
         select gen_random_uuid(), m.user_id, m.id, m.conversation_id, (array['query_site_data', 'search_docs', 'fetch_invoice'])[1 + g % 3],
                jsonb_build_object('target', 'region' || (g % 20)),
                jsonb_build_object('text', 'monthly report status tok' || substr(md5(m.id::text || g), 1, 10) || ' topic' || g, 'rows', jsonb_build_array(g, g + 1)),
                now() - make_interval(mins => g), 'toolu_' || md5(m.id::text || g), 'mem_' || substr(md5(m.id::text || g), 1, 16), 80,
                '1 key: text', '[recall-ledger tool_memory v2]', 20, u.team_id, 1
           from messages m join users u on u.id = m.user_id, generate_series(1, 25) g;
       analyze;`,
    );
    // The steady state: a bulk insert leaves every new GIN entry in the index's pending list
    // (fastupdate), which the planner prices as a scan of the whole list (cost ~1,760 here
    // against ~22 once merged); autovacuum merges it in production, VACUUM does it here.
    await em.execute('vacuum analyze message_tool_results');

    [event] = await em.execute<(typeof event)[]>('select team_id, id, profile_id from recall_events order by id limit 1 offset 5000');
    const [row] = await em.execute<
      { user_id: string; team_id: string; space_id: string; conversation_id: string; tool_name: string; text: string }[]
    >(
      `select r.user_id, u.team_id, c.space_id, r.conversation_id, r.tool_name, r.tool_output->>'text' as text
         from message_tool_results r join conversations c on c.id = r.conversation_id join users u on u.id = r.user_id
        order by r.id limit 1 offset 7000`,
    );
    const spaces = await em.execute<{ id: string }[]>('select id from spaces where team_id = ? order by id', [row.team_id]);
    searcher = {
      userId: row.user_id,
      teamId: row.team_id,
      spaceId: row.space_id,
      spaceIds: spaces.map((s) => s.id),
      token: row.text.split(' ').find((word) => word.startsWith('tok'))!,
      toolName: row.tool_name,
      conversationId: row.conversation_id,
    };
  });
  afterAll(() => db.close());

  /** Runs `work`, takes the first statement it ran containing `marker`, and returns the plan of that statement. */
  async function planOf(marker: string, work: () => Promise<unknown>): Promise<PlanNode[]> {
    statements.length = 0;
    await RequestContext.create(em, work);
    const sql = statements
      .filter((s) => s.includes(marker))[0]
      .replace(/^\[query\] /, '')
      .replace(/ \[took .*$/s, '');
    const [explained] = await em.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(`explain (format json) ${sql}`);
    return nodes(explained['QUERY PLAN'][0].Plan);
  }

  /**
   * The plan of a statement that runs inside a database function (`inner` names it): the
   * repository's call is run again with auto_explain reporting nested statements to the client.
   * (The policies of row-level security are not in these plans: the tests connect as the owner.)
   */
  async function nestedPlanOf(marker: string, inner: string, work: () => Promise<unknown>): Promise<PlanNode[]> {
    statements.length = 0;
    await RequestContext.create(em, work);
    const call = statements
      .filter((s) => s.includes(marker))[0]
      .replace(/^\[query\] /, '')
      .replace(/ \[took .*$/s, '');
    // Again, in a transaction rolled back: the event the first run stored is out of the way.
    return nestedPlanOfCall(db.database.url, call, inner, (client) =>
      client.query(`delete from recall_events where id = any($1)`, [call.match(/rec_[0-9A-Z]{26}/g) ?? []]),
    );
  }

  const scope = () => ({ userId: searcher.userId, spaceIds: searcher.spaceIds });
  const search = (query: string, extra: Partial<SnapshotSearch> = {}): SnapshotSearch => ({
    spaceId: searcher.spaceId,
    query,
    limit: 20,
    ...extra,
  });

  /** A recall event of the searcher's, before the statement places it in a space. */
  const eventDraft = (rankingVersion: string, searchFreshness: string | null) => ({
    id: newRecallEventId(),
    teamId: searcher.teamId,
    profileId: searcher.userId,
    queryFingerprint: null,
    queryText: null,
    contractVersion: RECALL_CONTRACT_VERSION,
    rankingVersion,
    fusionMode: FUSION_MODE_SINGLE,
    searchFreshness,
    degradedBranches: [],
    semanticGroups: null,
    authoredAlternatives: null,
    clarificationOutcome: null,
    source: RecallEventSource.INTERNAL,
  });

  function expectGinSearch(plan: PlanNode[]): void {
    const scans = scansOf(plan, 'message_tool_results');
    expect(scans).toContainEqual(['Bitmap Index Scan', SEARCH_INDEX]);
    expect(scans).toContainEqual(['Bitmap Heap Scan', null]);
    // No other way into the table: neither a heap walk nor another index.
    expect(scans.filter(([type]) => type === 'Seq Scan')).toEqual([]);
    expect(scans.map(([, index]) => index).filter((index) => index !== null)).toEqual([SEARCH_INDEX]);
  }

  it.each([
    ['a profile', () => event.profile_id],
    ['a team admin', () => null],
  ])('R-FB-8 §9 findVisible for %s reads recall_events by its primary key, never a Seq Scan', async (_reader, profileId) => {
    let found: unknown;
    const plan = await planOf('from recall_events e', async () => {
      found = await new RecallEventRepository(em).findVisible({ teamId: event.team_id, profileId: profileId() }, event.id);
    });
    expect(found).toMatchObject({ id: event.id, teamId: event.team_id });
    const scans = scansOf(plan, 'recall_events');
    expect(scans).toHaveLength(1);
    expect(['Index Scan', 'Index Only Scan']).toContain(scans[0][0]);
    expect(scans[0][1]).toBe('recall_events_pkey');
    expect(plan.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'recall_events')).toBe(false);
  });

  it('R-FB-8 §9 findVisible under another team (which finds nothing) is the same primary-key lookup', async () => {
    let found: unknown = 'unset';
    const plan = await planOf('from recall_events e', async () => {
      found = await new RecallEventRepository(em).findVisible(
        { teamId: searcher.teamId === event.team_id ? crypto.randomUUID() : searcher.teamId, profileId: null },
        event.id,
      );
    });
    expect(found).toBeNull();
    expect(scansOf(plan, 'recall_events')).toEqual([[expect.stringMatching(/^Index (Only )?Scan$/), 'recall_events_pkey']]);
    expect(plan.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'recall_events')).toBe(false);
  });

  it.each([
    ['a word of one snapshot', () => searcher.token, 1],
    ['a word of one snapshot per conversation', () => 'topic7', 10],
    ['two words', () => `${searcher.token} topic7`, null],
    // The phrase is the tool name's: the output's part of the document is stripped of
    // positions, and PostgreSQL's phrase operator never matches stripped lexemes.
    ['a phrase and a word', () => `"${searcher.toolName.replace(/_/g, ' ')}" ${searcher.token}`, 1],
  ])('R-RC-8 §9 the search for %s is a Bitmap Index Scan of message_tool_results_user_search, no Seq Scan', async (_what, query, hits) => {
    let rows: unknown[] = [];
    const plan = await planOf('tool_results_search', async () => {
      rows = await toolResultRepositoryFor(em).search(scope(), search(query()), { input: true });
    });
    if (hits !== null) expect(rows).toHaveLength(hits);
    expectGinSearch(plan);
  });

  it('R-RC-8 R-RC-9 §9 recallMemory’s one round trip (search and event insert) reads snapshots through the GIN index', async () => {
    const draft: RecallEventDraft = {
      ...eventDraft(SEARCH_RANKING_VERSION, SEARCH_FRESHNESS_SYNCHRONOUS),
      spaceId: searcher.spaceId,
      spaceGeneration: 1,
      queryFingerprint: queryFingerprint('topic7'),
    };
    let rows: unknown[] = [];
    const plan = await nestedPlanOf('recall_events_search_and_record', 'with hits as', async () => {
      rows = await new RecallEventRepository(em).searchAndRecord(scope(), search('topic7'), { input: true }, draft);
    });
    expect(rows).toHaveLength(10);
    expectGinSearch(plan);
    expect(plan.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'recall_events')).toBe(false);
  });

  it('R-RC-1 R-RC-9 §9 recallBlock’s one round trip (top K and event insert) walks the recency index on its kept generic plan', async () => {
    const [{ config }] = await em.execute<{ config: string[] }[]>(
      `select proconfig as config from pg_proc where proname = 'recall_events_recent_and_record'`,
    );
    // Planned once per connection, not per call (issue 25: planning cost 3× the execution).
    expect(config).toEqual(['plan_cache_mode=force_generic_plan']);
    const draft = eventDraft(BLOCK_RANKING_VERSION, null);
    let rows: unknown[] = [];
    const plan = await nestedPlanOf('recall_events_recent_and_record', 'with conv as', async () => {
      rows = await new RecallEventRepository(em).recentAndRecord(
        scope(),
        new Map(searcher.spaceIds.map((id) => [id, 1])),
        { conversationId: searcher.conversationId, limit: 5, columns: { input: true } },
        draft,
      );
    });
    expect(rows).toHaveLength(5);
    expect(scansOf(plan, 'message_tool_results')).toEqual([['Index Scan', 'message_tool_results_conversation_user_generation_recency']]);
    expect(plan.some((n) => n['Node Type'] === 'Limit')).toBe(true);
    expect(plan.some((n) => n['Node Type'] === 'Sort' && n.Plans?.some((c) => c['Relation Name'] === 'message_tool_results'))).toBe(false);
  });

  // Not a GIN pin: a word in every snapshot of the user, or a conversation filter, may rightly
  // start elsewhere; what holds is that the table is never walked.
  it.each([
    ['a word every snapshot has', () => search('report')],
    [
      'a conversation, tool and time filter',
      () =>
        search('topic7', { conversationId: searcher.conversationId, toolName: 'search_docs', since: new Date(Date.now() - 86_400_000) }),
    ],
  ])('R-RC-8 §9 the search for %s never does a Seq Scan of message_tool_results', async (_what, statement) => {
    const plan = await planOf('tool_results_search', () => toolResultRepositoryFor(em).search(scope(), statement(), { input: true }));
    const scans = scansOf(plan, 'message_tool_results');
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.filter(([type]) => type === 'Seq Scan')).toEqual([]);
  });
});
