import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SnapshotSearch } from '../../tool-results';
import { toolResultRepositoryFor } from '../../../test/support/tool-results-service';
import { RecallReadsRepository } from '../recall-reads.repository';
import {
  BLOCK_RANKING_VERSION,
  FUSION_MODE_SINGLE,
  newRecallEventId,
  queryFingerprint,
  RECALL_CONTRACT_VERSION,
  RecallEventSource,
  SEARCH_FRESHNESS_SYNCHRONOUS,
  SEARCH_RANKING_VERSION,
  type RecallEventDraft,
  RecallEventRepository,
} from '../../recall-events';
import type { TenantScope } from '../../database/tenant-scope';
import { nestedPlanOf as nestedPlanOfCall, type PlanNode, requestPlanOf } from '../../../test/support/plans';
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
 * realistic spread of rows, as the request role with the settings its request makes (R-TN-8): the
 * read is a primary-key lookup on (team_id, id). A search is written to answer the user and the
 * words with one scan of the (team_id, user_id, search_vector) GIN index instead of walking every
 * snapshot of the user or of the space. Under the request role's policies `@@` (not leakproof)
 * could not be an index condition, so `tool_results_search` runs as the owner and applies the
 * tenant's predicates itself (issue 40); its statement is planned inside the function, so these
 * pins read it with auto_explain (`searchPlanOf`).
 */
describe('recall event and search plans (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  let event: { team_id: string; id: string; profile_id: string };
  /** Another user of the event's team: a team admin reading it. */
  let admin: string;
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
      `insert into conversations (team_id, id, user_id, space_id)
         select u.team_id, gen_random_uuid(), u.id, s.id
           from users u join spaces s on s.team_id = u.team_id, generate_series(1, 10)
          where u.team_id in (select id from teams order by id limit 4);
       insert into messages (team_id, id, conversation_id, user_id) select c.team_id, gen_random_uuid(), c.id, c.user_id from conversations c;
       insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
                                         summary_oneliner, stub, size_tokens, team_id, space_generation)
         select gen_random_uuid(), m.user_id, m.id, m.conversation_id, (array['query_site_data', 'search_docs', 'fetch_invoice'])[1 + g % 3],
                jsonb_build_object('target', 'region' || (g % 20)),
                jsonb_build_object('text', 'monthly report status tok' || substr(md5(m.id::text || g), 1, 10) || ' topic' || g, 'rows', jsonb_build_array(g, g + 1)),
                now() - make_interval(mins => g), 'toolu_' || md5(m.id::text || g), 'mem_' || substr(md5(m.id::text || g), 1, 16), 80,
                '1 key: text', '[recall-ledger tool_memory v2]', 20, m.team_id, 1
           from messages m, generate_series(1, 25) g;
       analyze;`,
    );
    // The steady state: a bulk insert leaves every new GIN entry in the index's pending list
    // (fastupdate), which the planner prices as a scan of the whole list (cost ~1,760 here
    // against ~22 once merged); autovacuum merges it in production, VACUUM does it here.
    await em.execute('vacuum analyze message_tool_results');

    [event] = await em.execute<(typeof event)[]>('select team_id, id, profile_id from recall_events order by id limit 1 offset 5000');
    [{ id: admin }] = await em.execute<{ id: string }[]>('select id from users where team_id = ? and id <> ? order by id limit 1', [
      event.team_id,
      event.profile_id,
    ]);
    const [row] = await em.execute<
      { user_id: string; team_id: string; space_id: string; conversation_id: string; tool_name: string; text: string }[]
    >(
      `select r.user_id, r.team_id, c.space_id, r.conversation_id, r.tool_name, r.tool_output->>'text' as text
         from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
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

  /** The first statement `work` ran containing `marker`, as it was sent (values inlined). */
  async function statementOf(marker: string, work: () => Promise<unknown>): Promise<string> {
    statements.length = 0;
    await RequestContext.create(em, work);
    return statements
      .filter((s) => s.includes(marker))[0]
      .replace(/^\[query\] /, '')
      .replace(/ \[took .*$/s, '');
  }

  /**
   * Runs `work`, takes the first statement it ran containing `marker`, and returns the plan of that
   * statement as the request role under `settings` (the tenant settings its request makes).
   */
  async function planOf(marker: string, settings: TenantScope, work: () => Promise<unknown>): Promise<PlanNode[]> {
    return requestPlanOf(db.database, settings, await statementOf(marker, work));
  }

  /**
   * The plan of a statement that runs inside a database function (`inner` names it): the
   * repository's call is run again as the request role, after the tenant settings `settings` (null
   * for the functions that make them from their arguments, rl_enter), with auto_explain reporting
   * nested statements to the client.
   */
  async function nestedPlanOf(
    marker: string,
    inner: string,
    settings: TenantScope | null,
    work: () => Promise<unknown>,
  ): Promise<PlanNode[]> {
    const call = await statementOf(marker, work);
    // Under a new event id: the event the first run stored keeps its own.
    return nestedPlanOfCall(db.database, settings, call.replace(/rec_[0-9A-Z]{26}/g, newRecallEventId()), inner);
  }

  /** The tenant settings of the searcher's request: its team and its user. */
  const searcherRequest = (): TenantScope => ({ teamId: searcher.teamId, userId: searcher.userId });

  /** The search statement inside `tool_results_search`, as the searcher's request plans it. */
  const SEARCH_STATEMENT = 'websearch_to_tsquery';
  const searchPlanOf = (work: () => Promise<unknown>): Promise<PlanNode[]> =>
    nestedPlanOf('tool_results_search', SEARCH_STATEMENT, searcherRequest(), work);
  const scope = () => ({ teamId: searcher.teamId, userId: searcher.userId, spaceIds: searcher.spaceIds });
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

  // A member's request makes its team and user the settings; so does a team admin's (its own user).
  it.each([
    ['a user', () => event.profile_id, () => event.profile_id],
    ['a team admin', () => null, () => admin],
  ])('R-FB-8 §9 findVisible for %s reads recall_events by its primary key, never a Seq Scan', async (_reader, profileId, requester) => {
    let found: unknown;
    const plan = await planOf('from recall_events e', { teamId: event.team_id, userId: requester() }, async () => {
      found = await new RecallEventRepository(em).findVisible({ teamId: event.team_id, userId: profileId() }, event.id);
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
    // A request of another team that has events of its own (the busiest other one): the lookup is
    // its team's primary-key prefix, with the event's id, and finds nothing. (A team with no events
    // at all ties every index led by team_id; nothing to pin there.)
    const [{ team_id: teamId }] = await em.execute<{ team_id: string }[]>(
      'select team_id from recall_events where team_id <> ? group by team_id order by count(*) desc, team_id limit 1',
      [event.team_id],
    );
    const [{ id: userId }] = await em.execute<{ id: string }[]>('select id from users where team_id = ? order by id limit 1', [teamId]);
    const plan = await planOf('from recall_events e', { teamId, userId }, async () => {
      found = await new RecallEventRepository(em).findVisible({ teamId, userId: null }, event.id);
    });
    expect(found).toBeNull();
    expect(scansOf(plan, 'recall_events')).toEqual([[expect.stringMatching(/^Index (Only )?Scan$/), 'recall_events_pkey']]);
    expect(plan.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'recall_events')).toBe(false);
  });

  const searches: [string, () => string, number | null][] = [
    ['a word of one snapshot', () => searcher.token, 1],
    ['a word of one snapshot per conversation', () => 'topic7', 10],
    ['two words', () => `${searcher.token} topic7`, null],
    // The phrase is the tool name's: the output's part of the document is stripped of
    // positions, and PostgreSQL's phrase operator never matches stripped lexemes.
    ['a phrase and a word', () => `"${searcher.toolName.replace(/_/g, ' ')}" ${searcher.token}`, 1],
  ];

  it.each(searches)(
    'R-RC-8 §9 the search for %s is a Bitmap Index Scan of message_tool_results_user_search, no Seq Scan, as the request role',
    async (_what, query, hits) => {
      let rows: unknown[] = [];
      const plan = await searchPlanOf(async () => {
        rows = await toolResultRepositoryFor(em).search(scope(), search(query()), { input: true });
      });
      if (hits !== null) expect(rows).toHaveLength(hits);
      expectGinSearch(plan);
    },
  );

  it('R-RC-8 R-RC-9 §9 recallMemory’s one round trip (search and event insert) reads snapshots through the GIN index, as the request role', async () => {
    const draft: RecallEventDraft = {
      ...eventDraft(SEARCH_RANKING_VERSION, SEARCH_FRESHNESS_SYNCHRONOUS),
      spaceId: searcher.spaceId,
      spaceGeneration: 1,
      queryFingerprint: queryFingerprint('topic7'),
    };
    let rows: unknown[] = [];
    const plan = await nestedPlanOf('recall_events_search_and_record', SEARCH_STATEMENT, null, async () => {
      rows = await new RecallReadsRepository(em).searchAndRecord(scope(), search('topic7'), { input: true }, draft);
    });
    expect(rows).toHaveLength(10);
    expectGinSearch(plan);
  });

  /** The plan of recallBlock's one round trip (`recall_events_recent_and_record`) as the request role. */
  async function recentAndRecordPlan(): Promise<PlanNode[]> {
    const [{ config }] = await em.execute<{ config: string[] }[]>(
      `select proconfig as config from pg_proc where proname = 'recall_events_recent_and_record'`,
    );
    // Planned once per connection, not per call (issue 25: planning cost 3× the execution).
    expect(config).toEqual(['plan_cache_mode=force_generic_plan']);
    const draft = eventDraft(BLOCK_RANKING_VERSION, null);
    let rows: unknown[] = [];
    const plan = await nestedPlanOf('recall_events_recent_and_record', 'with conv as', null, async () => {
      rows = await new RecallReadsRepository(em).recentAndRecord(
        scope(),
        new Map(searcher.spaceIds.map((id) => [id, 1])),
        { conversationId: searcher.conversationId, limit: 5, columns: { input: true } },
        draft,
      );
    });
    expect(rows).toHaveLength(5);
    return plan;
  }

  it('R-RC-1 R-RC-9 §9 recallBlock’s one round trip (top K and event insert) walks the recency index on its kept generic plan, as the request role', async () => {
    const plan = await recentAndRecordPlan();
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
  ])('R-RC-8 §9 the search for %s never does a Seq Scan of message_tool_results, as the request role', async (_what, statement) => {
    const plan = await searchPlanOf(() => toolResultRepositoryFor(em).search(scope(), statement(), { input: true }));
    const scans = scansOf(plan, 'message_tool_results');
    expect(scans.length).toBeGreaterThan(0);
    expect(scans.filter(([type]) => type === 'Seq Scan')).toEqual([]);
  });
});
