/**
 * recallMemory search (R-RC-8), the recall events every recall stores (R-RC-9), the feedback
 * suggestion and its degradation (R-RC-10), external recall events (R-RC-11), and who may read
 * an event back (R-FB-8, R-TN-5).
 */
import { createHash, randomInt } from 'node:crypto';
import request from 'supertest';
import { RECORD, toolResult, type SpaceMember, type ToolResultInputShape } from '../support/fixtures';
import { expectErrorCode, gql, ok } from '../support/graphql';
import { addMember, BUMP, newMember, newSpace, SEAL, setFlag } from '../support/tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../support/test-app';

const EVENT_ID = /^rec_[0-9A-HJKMNP-TV-Z]{26}$/;
const SNAPSHOT_UNAVAILABLE = 'recall_feedback_snapshot_unavailable';
const SUBMIT = 'submit_recall_session_feedback';

const RECALL = `query($s: ID!, $q: String!, $c: ID, $tool: String, $days: Int, $limit: Int) {
  recallMemory(spaceId: $s, query: $q, conversationId: $c, toolName: $tool, sinceDays: $days, limit: $limit) {
    recallEventId
    results { ref { type id rank } score line snapshot { id conversationId toolName createdAt } }
    suggestedActions { action recallEventId }
    degradations
  }
}`;
const BLOCK = `query($c: ID!, $m: String) {
  recallBlock(conversationId: $c, userMessage: $m) {
    text recallEventId suggestedActions { action recallEventId } degradations lines { snapshotId }
  }
}`;
const EVENT_FIELDS = `id teamId profileId spaceId spaceGeneration queryFingerprint queryText contractVersion rankingVersion fusionMode
  searchFreshness degradedBranches results { type id rank } semanticGroups authoredAlternatives clarificationOutcome source createdAt`;
const EVENT = `query($id: ID!) { recallEvent(id: $id) { ${EVENT_FIELDS} } }`;
const RECORD_EVENT = `mutation($input: RecallEventInput!) { recordRecallEvent(input: $input) { ${EVENT_FIELDS} } }`;

interface Ref {
  type: string;
  id: string;
  rank: number;
}
interface Hit {
  ref: Ref;
  score: number;
  line: string;
  snapshot: { id: string; conversationId: string; toolName: string; createdAt: string };
}
interface Suggestion {
  action: string;
  recallEventId: string;
}
interface RecallResult {
  recallEventId: string;
  results: Hit[];
  suggestedActions: Suggestion[];
  degradations: string[];
}
interface Block {
  text: string;
  recallEventId: string | null;
  suggestedActions: Suggestion[];
  degradations: string[];
  lines: { snapshotId: string }[];
}
interface RecallEvent {
  id: string;
  teamId: string;
  profileId: string;
  spaceId: string;
  spaceGeneration: number;
  queryFingerprint: string | null;
  queryText: string | null;
  contractVersion: string;
  rankingVersion: string | null;
  fusionMode: string | null;
  searchFreshness: string | null;
  degradedBranches: string[];
  results: Ref[];
  semanticGroups: unknown;
  authoredAlternatives: unknown;
  clarificationOutcome: string | null;
  source: string;
  createdAt: string;
}
/** A team: its admin and one member (memory:read + memory:write) of its one space. */
interface Team {
  admin: TestIdentity;
  member: SpaceMember;
}

/** A word no other snapshot holds: lower-case letters only, so the `simple` parser keeps it whole. */
const uniqueWord = (prefix = 'w') => prefix + Array.from({ length: 14 }, () => 'abcdefghijklmnopqrstuvwxyz'[randomInt(26)]).join('');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

describe('Recall search and recall events (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ HTTP_BODY_LIMIT: '10mb' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function join(admin: TestIdentity, spaceId: string, scopes = ['memory:read', 'memory:write']): Promise<SpaceMember> {
    return { ...(await newMember(t, admin, [spaceId], scopes)), spaceId };
  }

  async function newTeam(): Promise<Team> {
    const admin = await identity(['admin']);
    const spaceId = await newSpace(t, admin, 'recall-events');
    return { admin, member: await join(admin, spaceId) };
  }

  async function record(who: TestIdentity, inputs: ToolResultInputShape[]): Promise<{ id: string }[]> {
    return (await ok<{ recordToolResults: { snapshots: { id: string }[] } }>(t, RECORD, { input: inputs }, who.token)).recordToolResults.snapshots;
  }

  const recall = (who: TestIdentity, vars: { s: string; q: string; c?: string; tool?: string; days?: number; limit?: number }) =>
    gql<{ recallMemory: RecallResult }>(t, RECALL, vars, who.token);
  async function recallOk(who: TestIdentity, vars: { s: string; q: string; c?: string; tool?: string; days?: number; limit?: number }): Promise<RecallResult> {
    return (await ok<{ recallMemory: RecallResult }>(t, RECALL, vars, who.token)).recallMemory;
  }
  async function eventOf(who: TestIdentity, id: string): Promise<RecallEvent | null> {
    return (await ok<{ recallEvent: RecallEvent | null }>(t, EVENT, { id }, who.token)).recallEvent;
  }
  const eventRows = async (where: string, params: unknown[]) => Number((await t.sql.query(`select count(*) from recall_events where ${where}`, params)).rows[0].count);
  const degradedCount = async () => {
    const text = (await request(t.app.getHttpServer()).get('/metrics')).text;
    const match = /^recall_events_total\{source="INTERNAL",outcome="degraded"\} (\d+)$/m.exec(text);
    return match === null ? 0 : Number(match[1]);
  };

  /** Ranks from 1, consecutive, in the order the results come back. */
  function expectRanked(results: Hit[]) {
    expect(results.map((r) => r.ref.rank)).toEqual(results.map((_, i) => i + 1));
    for (const r of results) expect(r.ref.type).toBe('TOOL_RESULT');
    for (let i = 1; i < results.length; i += 1) expect(results[i - 1].score).toBeGreaterThanOrEqual(results[i].score);
  }

  describe('search', () => {
    let team: Team;
    beforeAll(async () => {
      team = await newTeam();
    });

    it('R-RC-8 finds a snapshot by a word that occurs only ~200 KB deep in a ~300 KB output', async () => {
      const { member } = team;
      const needle = uniqueWord('needle');
      const filler = { kind: 'filler', note: 'lorem ipsum dolor sit amet consectetur adipiscing' };
      const rowChars = JSON.stringify(filler).length + 1;
      const before = Math.ceil(200_000 / rowChars);
      const rows: unknown[] = Array.from({ length: before }, () => filler);
      rows.push({ kind: 'marker', note: `row ${before} ${needle}` });
      while (rows.length * rowChars < 300_000) rows.push(filler);
      const output = { report: 'filler rows', rows };
      const json = JSON.stringify(output);
      const offset = json.indexOf(needle);
      expect(offset).toBeGreaterThanOrEqual(200_000);
      expect(offset).toBeLessThan(201_000);
      expect(json.lastIndexOf(needle)).toBe(offset);
      expect(json.length).toBeGreaterThanOrEqual(295_000);
      expect(json.length).toBeLessThan(310_000);

      const conversationId = crypto.randomUUID();
      const [big] = await record(member, [toolResult(member.spaceId, conversationId, { toolName: 'export_rows', toolInput: { table: 'rows' }, toolOutput: output })]);
      // Another snapshot of the same conversation with the filler words but not the needle.
      await record(member, [toolResult(member.spaceId, conversationId, { toolName: 'export_rows', toolOutput: { rows: [filler] } })]);

      const res = await recallOk(member, { s: member.spaceId, q: needle });
      expect(res.results.map((r) => r.ref)).toEqual([{ type: 'TOOL_RESULT', id: big.id, rank: 1 }]);
      expect(res.results[0].score).toBeGreaterThan(0);
      expect(res.results[0].line).toMatch(/^- \d{4}-\d{2}-\d{2} export_rows\(/);
      expect(res.results[0].snapshot).toMatchObject({ id: big.id, conversationId, toolName: 'export_rows' });
      expect(res.recallEventId).toMatch(EVENT_ID);
      expect(res.degradations).toEqual([]);
    });

    it('R-RC-8 ranks a better match above a weaker (newer) one, and recency breaks ties', async () => {
      const { member } = team;
      const word = uniqueWord('rank');
      const c = crypto.randomUUID();
      // Strong: the word in the input (weight B) and the output; weak: only in the output, and newer.
      const [strong] = await record(member, [toolResult(member.spaceId, c, { toolInput: { topic: word }, toolOutput: { note: word }, createdAt: daysAgo(3) })]);
      const [weak] = await record(member, [toolResult(member.spaceId, c, { toolInput: { topic: 'other' }, toolOutput: { note: word }, createdAt: daysAgo(1) })]);
      const ranked = await recallOk(member, { s: member.spaceId, q: word });
      expect(ranked.results.map((r) => r.ref.id)).toEqual([strong.id, weak.id]);
      expectRanked(ranked.results);
      expect(ranked.results[0].score).toBeGreaterThan(ranked.results[1].score);

      // Equal documents: the newer comes first whatever the order they were recorded in.
      const tie = uniqueWord('tie');
      const same = { toolName: 'query_site_data', toolInput: { target: 'ties' }, toolOutput: { note: tie } };
      const [newer] = await record(member, [toolResult(member.spaceId, c, { ...same, createdAt: daysAgo(2) })]);
      const [older] = await record(member, [toolResult(member.spaceId, c, { ...same, createdAt: daysAgo(4) })]);
      const [newest] = await record(member, [toolResult(member.spaceId, c, { ...same, createdAt: daysAgo(1) })]);
      const tied = await recallOk(member, { s: member.spaceId, q: tie });
      expect(tied.results.map((r) => r.ref)).toEqual([
        { type: 'TOOL_RESULT', id: newest.id, rank: 1 },
        { type: 'TOOL_RESULT', id: newer.id, rank: 2 },
        { type: 'TOOL_RESULT', id: older.id, rank: 3 },
      ]);
      expect(new Set(tied.results.map((r) => r.score)).size).toBe(1);
    });

    it('R-RC-8 conversationId, toolName, sinceDays and limit filter the results', async () => {
      const { member } = team;
      const word = uniqueWord('filter');
      const [c1, c2] = [crypto.randomUUID(), crypto.randomUUID()];
      const out = { toolOutput: { note: word } };
      const [a] = await record(member, [toolResult(member.spaceId, c1, { toolName: 'query_site_data', ...out })]);
      const [b] = await record(member, [toolResult(member.spaceId, c2, { toolName: 'query_site_data', ...out })]);
      const [c] = await record(member, [toolResult(member.spaceId, c1, { toolName: 'query_kpi_trend', ...out })]);
      const [d] = await record(member, [toolResult(member.spaceId, c1, { toolName: 'query_site_data', ...out, createdAt: daysAgo(10) })]);
      const ids = async (vars: { c?: string; tool?: string; days?: number; limit?: number }) => {
        const res = await recallOk(member, { s: member.spaceId, q: word, ...vars });
        expectRanked(res.results);
        return res.results.map((r) => r.ref.id).sort();
      };
      const sorted = (...xs: { id: string }[]) => xs.map((x) => x.id).sort();

      expect(await ids({})).toEqual(sorted(a, b, c, d));
      expect(await ids({ c: c1 })).toEqual(sorted(a, c, d));
      expect(await ids({ tool: 'query_kpi_trend' })).toEqual(sorted(c));
      expect(await ids({ days: 5 })).toEqual(sorted(a, b, c));
      expect(await ids({ c: c1, tool: 'query_site_data', days: 5 })).toEqual(sorted(a));
      expect(await ids({ limit: 2 })).toHaveLength(2);
      expect(await ids({ limit: 50 })).toHaveLength(4);
    });

    it('R-RC-8 R-OP-5 limit 51, limit 0 or an empty query is BAD_USER_INPUT', async () => {
      const { member } = team;
      const before = await eventRows('team_id = $1', [member.teamId]);
      for (const [vars, field] of [
        [{ q: 'anything', limit: 51 }, 'limit'],
        [{ q: 'anything', limit: 0 }, 'limit'],
        [{ q: '' }, 'query'],
        [{ q: '   ' }, 'query'],
      ] as const) {
        const res = await recall(member, { s: member.spaceId, ...vars });
        expectErrorCode(res, 'BAD_USER_INPUT', { field });
      }
      expect(await eventRows('team_id = $1', [member.teamId])).toBe(before);
    });
  });

  describe('events and generations', () => {
    it('R-RC-9 R-FB-8 a recall at generation 3 stores generation 3 and its refs; a bump hides it, and so does a seal', async () => {
      const { admin, member } = await newTeam();
      for (const expected of [2, 3]) expect((await ok<{ bumpSpaceGeneration: { generation: number } }>(t, BUMP, { s: member.spaceId }, admin.token)).bumpSpaceGeneration.generation).toBe(expected);
      const word = uniqueWord('gen');
      const c = crypto.randomUUID();
      await record(member, [0, 1, 2].map(() => toolResult(member.spaceId, c, { toolOutput: { note: word } })));

      const res = await recallOk(member, { s: member.spaceId, q: word });
      expect(res.results).toHaveLength(3);
      const event = await eventOf(member, res.recallEventId);
      expect(event).toMatchObject({
        id: res.recallEventId,
        teamId: member.teamId,
        profileId: member.userId,
        spaceId: member.spaceId,
        spaceGeneration: 3,
        source: 'INTERNAL',
        contractVersion: expect.any(String),
        rankingVersion: expect.any(String),
        degradedBranches: [],
      });
      expect(event!.results).toEqual(res.results.map((r) => r.ref));
      const row = (await t.sql.query('select space_generation, results from recall_events where id = $1', [res.recallEventId])).rows[0];
      expect(row.space_generation).toBe(3);
      expect(row.results).toEqual(res.results.map((r) => r.ref));

      await ok(t, BUMP, { s: member.spaceId }, admin.token);
      expect(await eventOf(member, res.recallEventId)).toBeNull();
      expect(await eventOf(admin, res.recallEventId)).toBeNull();

      const fresh = await recallOk(member, { s: member.spaceId, q: word });
      expect((await eventOf(member, fresh.recallEventId))?.spaceGeneration).toBe(4);
      await ok(t, SEAL, { s: member.spaceId }, admin.token);
      expect(await eventOf(member, fresh.recallEventId)).toBeNull();
      expect(await eventOf(admin, fresh.recallEventId)).toBeNull();
      // Still stored: hidden, not deleted.
      expect(await eventRows('id = any($1)', [[res.recallEventId, fresh.recallEventId]])).toBe(2);
    });

    it('R-FB-8 R-TN-5 the team admin sees a member\'s event; another member, another team\'s admin do not; feedback:write alone is FORBIDDEN', async () => {
      const { admin, member } = await newTeam();
      const word = uniqueWord('who');
      await record(member, [toolResult(member.spaceId, crypto.randomUUID(), { toolOutput: { note: word } })]);
      const res = await recallOk(member, { s: member.spaceId, q: word });

      expect((await eventOf(member, res.recallEventId))?.id).toBe(res.recallEventId);
      expect((await eventOf(admin, res.recallEventId))?.profileId).toBe(member.userId);
      const colleague = await join(admin, member.spaceId, ['memory:read']);
      expect(await eventOf(colleague, res.recallEventId)).toBeNull();
      const otherAdmin = await identity(['admin']);
      await newSpace(t, otherAdmin, 'recall-events');
      expect(await eventOf(otherAdmin, res.recallEventId)).toBeNull();
      const otherReader = (await newTeam()).member;
      expect(await eventOf(otherReader, res.recallEventId)).toBeNull();

      const feedbackOnly = await identity(['feedback:write'], { teamId: admin.teamId, userId: member.userId });
      const forbidden = await gql(t, EVENT, { id: res.recallEventId }, feedbackOnly.token);
      expectErrorCode(forbidden, 'FORBIDDEN');
      expect(forbidden.data?.recallEvent ?? null).toBeNull();
      // An unknown id is null, not an error.
      expect(await eventOf(member, `rec_${'0'.repeat(26)}`)).toBeNull();
    });
  });

  describe('feedback suggestion, query text and fingerprint', () => {
    it('R-RC-10 the suggestion appears only while recall_feedback_enabled is on, naming the event (recallMemory and recallBlock)', async () => {
      const { admin, member } = await newTeam();
      const word = uniqueWord('fb');
      const c = crypto.randomUUID();
      await record(member, [toolResult(member.spaceId, c, { toolOutput: { note: word } }), toolResult(member.spaceId, c, { toolName: 'query_kpi_trend' })]);

      await setFlag(t, admin, 'recall_feedback_enabled', false);
      const off = await recallOk(member, { s: member.spaceId, q: word });
      expect(off).toMatchObject({ suggestedActions: [], degradations: [] });
      const offBlock = (await ok<{ recallBlock: Block }>(t, BLOCK, { c }, member.token)).recallBlock;
      expect(offBlock).toMatchObject({ recallEventId: expect.stringMatching(EVENT_ID), suggestedActions: [], degradations: [] });

      await setFlag(t, admin, 'recall_feedback_enabled', true);
      const on = await recallOk(member, { s: member.spaceId, q: word });
      expect(on.recallEventId).toMatch(EVENT_ID);
      expect(on.suggestedActions).toEqual([{ action: SUBMIT, recallEventId: on.recallEventId }]);
      expect(on.degradations).toEqual([]);
      expect(await eventOf(member, on.recallEventId)).not.toBeNull();

      const block = (await ok<{ recallBlock: Block }>(t, BLOCK, { c, m: 'what did we fetch before?' }, member.token)).recallBlock;
      expect(block.recallEventId).toMatch(EVENT_ID);
      expect(block.suggestedActions).toEqual([{ action: SUBMIT, recallEventId: block.recallEventId }]);
      expect(block.degradations).toEqual([]);
      expect(block.lines).toHaveLength(2);
      const blockEvent = await eventOf(member, block.recallEventId!);
      expect(blockEvent).toMatchObject({ spaceId: member.spaceId, spaceGeneration: 1, source: 'INTERNAL', queryFingerprint: sha256('what did we fetch before?'), queryText: null });
      expect(blockEvent!.results).toEqual(block.lines.map((l, i) => ({ type: 'TOOL_RESULT', id: l.snapshotId, rank: i + 1 })));

      // Another team's flag is its own.
      const other = await newTeam();
      await record(other.member, [toolResult(other.member.spaceId, crypto.randomUUID(), { toolOutput: { note: word } })]);
      expect((await recallOk(other.member, { s: other.member.spaceId, q: word })).suggestedActions).toEqual([]);
    });

    it('R-RC-9 queryText is null by default and stored (bounded) with recall_query_text_enabled; the fingerprint is SHA-256 of the normalized query', async () => {
      const { admin, member } = await newTeam();
      const word = uniqueWord('qt');
      await record(member, [toolResult(member.spaceId, crypto.randomUUID(), { toolOutput: { note: word } })]);
      const queryText = async (id: string) => (await t.sql.query('select query_text, query_fingerprint from recall_events where id = $1', [id])).rows[0];

      const plain = await recallOk(member, { s: member.spaceId, q: `${word} Report` });
      expect(await queryText(plain.recallEventId)).toEqual({ query_text: null, query_fingerprint: sha256(`${word} report`) });
      expect(await eventOf(member, plain.recallEventId)).toMatchObject({ queryText: null, queryFingerprint: sha256(`${word} report`) });

      await setFlag(t, admin, 'recall_query_text_enabled', true);
      const opted = await recallOk(member, { s: member.spaceId, q: `${word} Report` });
      expect(await queryText(opted.recallEventId)).toEqual({ query_text: `${word} Report`, query_fingerprint: sha256(`${word} report`) });
      expect(await eventOf(member, opted.recallEventId)).toMatchObject({ queryText: `${word} Report` });

      // Bounded: the first 500 characters.
      const long = `${word} ${'lorem '.repeat(150)}`.trim();
      expect(long.length).toBeGreaterThan(500);
      const bounded = await recallOk(member, { s: member.spaceId, q: long });
      expect((await queryText(bounded.recallEventId)).query_text).toBe(long.slice(0, 500));

      // Case, tabs, repeated and surrounding white space, and NFKC forms fingerprint alike.
      const expected = sha256('hello world');
      for (const q of ['  HELLO\tWorld ', 'hello world', 'Ｈｅｌｌｏ \n WORLD']) {
        const res = await recallOk(member, { s: member.spaceId, q });
        expect((await eventOf(member, res.recallEventId))?.queryFingerprint).toBe(expected);
      }
      expect(expected).toBe(createHash('sha256').update('hello world', 'utf8').digest('hex'));
    });
  });

  describe('when recall events cannot be stored', () => {
    it('R-RC-10 recallMemory and recallBlock answer degraded, without a suggestion; once storing works again events are stored', async () => {
      const { admin, member } = await newTeam();
      await setFlag(t, admin, 'recall_feedback_enabled', true);
      const word = uniqueWord('down');
      const c = crypto.randomUUID();
      const [snap] = await record(member, [toolResult(member.spaceId, c, { toolOutput: { note: word } })]);
      const degradedBefore = await degradedCount();

      await t.sql.query(`create function fail_recall_events() returns trigger language plpgsql as $$ begin raise exception 'recall events are down'; end $$`);
      await t.sql.query(`create trigger fail before insert on recall_events for each row execute function fail_recall_events()`);
      try {
        const before = await eventRows('team_id = $1', [member.teamId]);
        const res = await recallOk(member, { s: member.spaceId, q: word });
        expect(res.results.map((r) => r.ref)).toEqual([{ type: 'TOOL_RESULT', id: snap.id, rank: 1 }]);
        expect(res.degradations).toContain(SNAPSHOT_UNAVAILABLE);
        expect(res.suggestedActions).toEqual([]);
        expect(res.recallEventId).toMatch(EVENT_ID);
        expect(await eventOf(member, res.recallEventId)).toBeNull();
        expect(await eventOf(admin, res.recallEventId)).toBeNull();

        const block = (await ok<{ recallBlock: Block }>(t, BLOCK, { c }, member.token)).recallBlock;
        expect(block.lines.map((l) => l.snapshotId)).toEqual([snap.id]);
        expect(block.text).toContain('Previously fetched');
        expect(block).toMatchObject({ recallEventId: null, suggestedActions: [] });
        expect(block.degradations).toContain(SNAPSHOT_UNAVAILABLE);

        expect(await eventRows('team_id = $1', [member.teamId])).toBe(before);
        expect(await degradedCount()).toBeGreaterThanOrEqual(degradedBefore + 2);
        expect(await degradedCount()).toBeGreaterThanOrEqual(1);
      } finally {
        await t.sql.query('drop trigger if exists fail on recall_events');
        await t.sql.query('drop function if exists fail_recall_events()');
      }

      const again = await recallOk(member, { s: member.spaceId, q: word });
      expect(again).toMatchObject({ degradations: [], suggestedActions: [{ action: SUBMIT, recallEventId: again.recallEventId }] });
      expect((await eventOf(member, again.recallEventId))?.results).toEqual([{ type: 'TOOL_RESULT', id: snap.id, rank: 1 }]);
      const block = (await ok<{ recallBlock: Block }>(t, BLOCK, { c }, member.token)).recallBlock;
      expect(block).toMatchObject({ recallEventId: expect.stringMatching(EVENT_ID), degradations: [] });
      expect(await eventOf(member, block.recallEventId!)).not.toBeNull();
    });
  });

  describe('isolation', () => {
    it('R-TN-5 R-RC-8 only the actor\'s own snapshot in the space comes back: not another team\'s, another user\'s, or another space\'s', async () => {
      const { admin, member: alice } = await newTeam();
      const bob = await join(admin, alice.spaceId);
      const otherSpace = await newSpace(t, admin, 'recall-events');
      await addMember(t, admin, otherSpace, alice.userId);
      const mallory = (await newTeam()).member;
      const word = uniqueWord('idor');
      const out = { toolOutput: { note: word } };

      const [own] = await record(alice, [toolResult(alice.spaceId, crypto.randomUUID(), out)]);
      const [elsewhere] = await record(alice, [toolResult(otherSpace, crypto.randomUUID(), out)]);
      const [bobs] = await record(bob, [toolResult(alice.spaceId, crypto.randomUUID(), out)]);
      const [mallorys] = await record(mallory, [toolResult(mallory.spaceId, crypto.randomUUID(), out)]);

      const res = await recallOk(alice, { s: alice.spaceId, q: word, limit: 50 });
      expect(res.results.map((r) => r.ref.id)).toEqual([own.id]);
      const event = await eventOf(alice, res.recallEventId);
      expect(event!.results.map((r) => r.id)).toEqual([own.id]);
      // Each of the others finds only its own.
      expect((await recallOk(alice, { s: otherSpace, q: word })).results.map((r) => r.ref.id)).toEqual([elsewhere.id]);
      expect((await recallOk(bob, { s: alice.spaceId, q: word })).results.map((r) => r.ref.id)).toEqual([bobs.id]);
      expect((await recallOk(mallory, { s: mallory.spaceId, q: word })).results.map((r) => r.ref.id)).toEqual([mallorys.id]);
    });

    it('R-TN-5 recallMemory and recordRecallEvent into a space outside the allowed set are NOT_FOUND and store nothing; another team\'s event is null', async () => {
      const { admin, member: alice } = await newTeam();
      const mallory = (await newTeam()).member;
      const sealed = await newSpace(t, admin, 'recall-events');
      await addMember(t, admin, sealed, alice.userId);
      const word = uniqueWord('seal');
      await record(alice, [toolResult(sealed, crypto.randomUUID(), { toolOutput: { note: word } })]);
      await ok(t, SEAL, { s: sealed }, admin.token);
      const notMember = await newSpace(t, admin, 'recall-events');
      const before = await eventRows('team_id = any($1)', [[alice.teamId, mallory.teamId]]);

      for (const s of [mallory.spaceId, sealed, notMember, crypto.randomUUID()]) {
        const res = await recall(alice, { s, q: word });
        expectErrorCode(res, 'NOT_FOUND');
        const ext = await gql(t, RECORD_EVENT, { input: { spaceId: s, contractVersion: 'ext.v1', results: [{ type: 'ENTITY', id: 'e1', rank: 1 }] } }, alice.token);
        expectErrorCode(ext, 'NOT_FOUND');
      }
      // Mallory into Alice's space, too.
      expectErrorCode(await recall(mallory, { s: alice.spaceId, q: word }), 'NOT_FOUND');
      expect(await eventRows('team_id = any($1)', [[alice.teamId, mallory.teamId]])).toBe(before);

      const mallorysEvent = (await recallOk(mallory, { s: mallory.spaceId, q: word })).recallEventId;
      expect(await eventOf(alice, mallorysEvent)).toBeNull();
      expect(await eventOf(admin, mallorysEvent)).toBeNull();
      expect(await eventOf(mallory, mallorysEvent)).not.toBeNull();
    });
  });

  describe('recordRecallEvent', () => {
    it('R-RC-11 stores an external event with refs of every type, in order, source EXTERNAL', async () => {
      const { admin, member } = await newTeam();
      const results = [
        { type: 'RELATIONSHIP', id: 'rel_42', rank: 1 },
        { type: 'EVIDENCE', id: 'ev:doc-7#p3', rank: 2 },
        { type: 'COMMUNITY', id: 'community-9', rank: 3 },
        { type: 'HYPOTHESIS', id: 'hyp_1', rank: 4 },
        { type: 'ENTITY', id: 'ent_ada', rank: 5 },
        { type: 'TOOL_RESULT', id: crypto.randomUUID(), rank: 6 },
        { type: 'ENTITY', id: 'x'.repeat(256), rank: 7 },
      ];
      const input = {
        spaceId: member.spaceId,
        query: '  Who  REGISTERED last? ',
        contractVersion: 'graph-retriever.v2',
        rankingVersion: 'hybrid-rrf-3',
        fusionMode: 'rrf',
        searchFreshness: 'eventual',
        degradedBranches: ['community_summaries'],
        results,
        semanticGroups: [{ label: 'members', refs: ['ent_ada'] }],
        authoredAlternatives: { rephrased: ['latest member'] },
        clarificationOutcome: 'not_needed',
      };
      const stored = (await ok<{ recordRecallEvent: RecallEvent }>(t, RECORD_EVENT, { input }, member.token)).recordRecallEvent;
      expect(stored).toMatchObject({
        teamId: member.teamId,
        profileId: member.userId,
        spaceId: member.spaceId,
        spaceGeneration: 1,
        queryFingerprint: sha256('who registered last?'),
        queryText: null,
        contractVersion: 'graph-retriever.v2',
        rankingVersion: 'hybrid-rrf-3',
        fusionMode: 'rrf',
        searchFreshness: 'eventual',
        degradedBranches: ['community_summaries'],
        results,
        semanticGroups: input.semanticGroups,
        authoredAlternatives: input.authoredAlternatives,
        clarificationOutcome: 'not_needed',
        source: 'EXTERNAL',
      });
      expect(stored.id).toMatch(EVENT_ID);
      expect(await eventOf(member, stored.id)).toEqual(stored);
      expect(await eventOf(admin, stored.id)).toEqual(stored);
      expect((await t.sql.query('select source, results from recall_events where id = $1', [stored.id])).rows[0]).toEqual({ source: 'EXTERNAL', results });

      await setFlag(t, admin, 'recall_query_text_enabled', true);
      const withText = (await ok<{ recordRecallEvent: RecallEvent }>(t, RECORD_EVENT, { input: { ...input, results: [] } }, member.token)).recordRecallEvent;
      expect(withText).toMatchObject({ queryText: input.query, results: [], source: 'EXTERNAL' });

      const metrics = (await request(t.app.getHttpServer()).get('/metrics')).text;
      expect(metrics).toMatch(/^recall_events_total\{source="EXTERNAL",outcome="stored"\} [1-9]\d*$/m);
    });

    it('R-RC-11 R-OP-5 51 refs, a 257-character id, rank 0 or semanticGroups over 16 KiB are BAD_USER_INPUT and write nothing', async () => {
      const { member } = await newTeam();
      const base = { spaceId: member.spaceId, contractVersion: 'ext.v1', results: [{ type: 'ENTITY', id: 'e1', rank: 1 }] };
      const count = () => eventRows('team_id = $1', [member.teamId]);
      const before = await count();
      const cases: [Record<string, unknown>, string | null][] = [
        [{ results: Array.from({ length: 51 }, (_, i) => ({ type: 'ENTITY', id: `e${i}`, rank: i + 1 })) }, 'input.results'],
        [{ results: [{ type: 'ENTITY', id: 'x'.repeat(257), rank: 1 }] }, 'input.results.0.id'],
        [{ semanticGroups: { blob: 'g'.repeat(16 * 1024) } }, 'input.semanticGroups'],
        [{ authoredAlternatives: ['a'.repeat(16 * 1024)] }, 'input.authoredAlternatives'],
        [{ results: [{ type: 'ENTITY', id: 'e1', rank: 0 }] }, null],
      ];
      for (const [override, field] of cases) {
        const res = await gql(t, RECORD_EVENT, { input: { ...base, ...override } }, member.token);
        expectErrorCode(res, 'BAD_USER_INPUT', field === null ? {} : { field });
      }
      expect(await count()).toBe(before);
      // The bounds themselves are allowed: 50 refs and semanticGroups just under 16 KiB.
      const fifty = Array.from({ length: 50 }, (_, i) => ({ type: 'EVIDENCE', id: `ev${i}`, rank: i + 1 }));
      const groups = { blob: 'g'.repeat(16 * 1024 - 20) };
      expect(Buffer.byteLength(JSON.stringify(groups))).toBeLessThanOrEqual(16 * 1024);
      const okRes = (await ok<{ recordRecallEvent: RecallEvent }>(t, RECORD_EVENT, { input: { ...base, results: fifty, semanticGroups: groups } }, member.token)).recordRecallEvent;
      expect(okRes.results).toEqual(fifty);
      expect(await count()).toBe(before + 1);
    });

    it('R-RC-11 needs memory:write', async () => {
      const { admin, member } = await newTeam();
      const reader = await join(admin, member.spaceId, ['memory:read']);
      const res = await gql(t, RECORD_EVENT, { input: { spaceId: member.spaceId, contractVersion: 'ext.v1', results: [] } }, reader.token);
      expectErrorCode(res, 'FORBIDDEN');
    });
  });
});
