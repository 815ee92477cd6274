/**
 * The recall events every recall stores (R-RC-9), the feedback suggestion and its degradation
 * (R-RC-10), and who may read an event back (R-FB-8, R-TN-5).
 */
import { createHash } from 'node:crypto';
import request from 'supertest';
import { toolResult } from '../../support/fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { EVENT, EVENT_ID, type Suggestion } from '../../support/recall-events-api';
import {
  createRecallEventsApp,
  eventOf,
  eventRows,
  join,
  newTeam,
  recallOk,
  record,
  sha256,
  uniqueWord,
} from '../../support/recall-events-fixtures';
import { BUMP, newSpace, SEAL, setFlag } from '../../support/tenancy';
import { identity, type TestApp } from '../../support/test-app';

const SNAPSHOT_UNAVAILABLE = 'recall_feedback_snapshot_unavailable';
const SUBMIT = 'submit_recall_session_feedback';

const BLOCK = `query($c: ID!, $m: String) {
  recallBlock(conversationId: $c, userMessage: $m) {
    text recallEventId suggestedActions { action recallEventId } degradations lines { snapshotId }
  }
}`;
interface Block {
  text: string;
  recallEventId: string | null;
  suggestedActions: Suggestion[];
  degradations: string[];
  lines: { snapshotId: string }[];
}

describe('Recall search and recall events (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createRecallEventsApp();
  });
  afterAll(() => t.close());

  const degradedCount = async () => {
    const text = (await request(t.app.getHttpServer()).get('/metrics')).text;
    const match = /^recall_events_total\{source="INTERNAL",outcome="degraded"\} (\d+)$/m.exec(text);
    return match === null ? 0 : Number(match[1]);
  };

  describe('events and generations', () => {
    it('R-RC-9 R-FB-8 a recall at generation 3 stores generation 3 and its refs; a bump hides it, and so does a seal', async () => {
      const { admin, member } = await newTeam(t);
      for (const expected of [2, 3])
        expect(
          (await ok<{ bumpSpaceGeneration: { generation: number } }>(t, BUMP, { s: member.spaceId }, admin.token)).bumpSpaceGeneration
            .generation,
        ).toBe(expected);
      const word = uniqueWord('gen');
      const c = crypto.randomUUID();
      await record(
        t,
        member,
        [0, 1, 2].map(() => toolResult(member.spaceId, c, { toolOutput: { note: word } })),
      );

      const res = await recallOk(t, member, { s: member.spaceId, q: word });
      expect(res.results).toHaveLength(3);
      const event = await eventOf(t, member, res.recallEventId);
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
      expect(await eventOf(t, member, res.recallEventId)).toBeNull();
      expect(await eventOf(t, admin, res.recallEventId)).toBeNull();

      const fresh = await recallOk(t, member, { s: member.spaceId, q: word });
      expect((await eventOf(t, member, fresh.recallEventId))?.spaceGeneration).toBe(4);
      await ok(t, SEAL, { s: member.spaceId }, admin.token);
      expect(await eventOf(t, member, fresh.recallEventId)).toBeNull();
      expect(await eventOf(t, admin, fresh.recallEventId)).toBeNull();
      // Still stored: hidden, not deleted.
      expect(await eventRows(t, 'id = any($1)', [[res.recallEventId, fresh.recallEventId]])).toBe(2);
    });

    it("R-FB-8 R-TN-5 the team admin sees a member's event; another member, another team's admin do not; feedback:write alone is FORBIDDEN", async () => {
      const { admin, member } = await newTeam(t);
      const word = uniqueWord('who');
      await record(t, member, [toolResult(member.spaceId, crypto.randomUUID(), { toolOutput: { note: word } })]);
      const res = await recallOk(t, member, { s: member.spaceId, q: word });

      expect((await eventOf(t, member, res.recallEventId))?.id).toBe(res.recallEventId);
      expect((await eventOf(t, admin, res.recallEventId))?.profileId).toBe(member.userId);
      const colleague = await join(t, admin, member.spaceId, ['memory:read']);
      expect(await eventOf(t, colleague, res.recallEventId)).toBeNull();
      const otherAdmin = await identity(['admin']);
      await newSpace(t, otherAdmin, 'recall-events');
      expect(await eventOf(t, otherAdmin, res.recallEventId)).toBeNull();
      const otherReader = (await newTeam(t)).member;
      expect(await eventOf(t, otherReader, res.recallEventId)).toBeNull();

      const feedbackOnly = await identity(['feedback:write'], { teamId: admin.teamId, userId: member.userId });
      const forbidden = await gql(t, EVENT, { id: res.recallEventId }, feedbackOnly.token);
      expectErrorCode(forbidden, 'FORBIDDEN');
      expect(forbidden.data?.recallEvent ?? null).toBeNull();
      // An unknown id is null, not an error.
      expect(await eventOf(t, member, `rec_${'0'.repeat(26)}`)).toBeNull();
    });
  });

  describe('feedback suggestion, query text and fingerprint', () => {
    it('R-RC-10 the suggestion appears only while recall_feedback_enabled is on, naming the event (recallMemory and recallBlock)', async () => {
      const { admin, member } = await newTeam(t);
      const word = uniqueWord('fb');
      const c = crypto.randomUUID();
      await record(t, member, [
        toolResult(member.spaceId, c, { toolOutput: { note: word } }),
        toolResult(member.spaceId, c, { toolName: 'query_kpi_trend' }),
      ]);

      await setFlag(t, admin, 'recall_feedback_enabled', false);
      const off = await recallOk(t, member, { s: member.spaceId, q: word });
      expect(off).toMatchObject({ suggestedActions: [], degradations: [] });
      const offBlock = (await ok<{ recallBlock: Block }>(t, BLOCK, { c }, member.token)).recallBlock;
      expect(offBlock).toMatchObject({ recallEventId: expect.stringMatching(EVENT_ID), suggestedActions: [], degradations: [] });

      await setFlag(t, admin, 'recall_feedback_enabled', true);
      const on = await recallOk(t, member, { s: member.spaceId, q: word });
      expect(on.recallEventId).toMatch(EVENT_ID);
      expect(on.suggestedActions).toEqual([{ action: SUBMIT, recallEventId: on.recallEventId }]);
      expect(on.degradations).toEqual([]);
      expect(await eventOf(t, member, on.recallEventId)).not.toBeNull();

      const block = (await ok<{ recallBlock: Block }>(t, BLOCK, { c, m: 'what did we fetch before?' }, member.token)).recallBlock;
      expect(block.recallEventId).toMatch(EVENT_ID);
      expect(block.suggestedActions).toEqual([{ action: SUBMIT, recallEventId: block.recallEventId }]);
      expect(block.degradations).toEqual([]);
      expect(block.lines).toHaveLength(2);
      const blockEvent = await eventOf(t, member, block.recallEventId!);
      expect(blockEvent).toMatchObject({
        spaceId: member.spaceId,
        spaceGeneration: 1,
        source: 'INTERNAL',
        queryFingerprint: sha256('what did we fetch before?'),
        queryText: null,
      });
      expect(blockEvent!.results).toEqual(block.lines.map((l, i) => ({ type: 'TOOL_RESULT', id: l.snapshotId, rank: i + 1 })));

      // Another team's flag is its own.
      const other = await newTeam(t);
      await record(t, other.member, [toolResult(other.member.spaceId, crypto.randomUUID(), { toolOutput: { note: word } })]);
      expect((await recallOk(t, other.member, { s: other.member.spaceId, q: word })).suggestedActions).toEqual([]);
    });

    it('R-RC-9 queryText is null by default and stored (bounded) with recall_query_text_enabled; the fingerprint is SHA-256 of the normalized query', async () => {
      const { admin, member } = await newTeam(t);
      const word = uniqueWord('qt');
      await record(t, member, [toolResult(member.spaceId, crypto.randomUUID(), { toolOutput: { note: word } })]);
      const queryText = async (id: string) =>
        (await t.sql.query('select query_text, query_fingerprint from recall_events where id = $1', [id])).rows[0];

      const plain = await recallOk(t, member, { s: member.spaceId, q: `${word} Report` });
      expect(await queryText(plain.recallEventId)).toEqual({ query_text: null, query_fingerprint: sha256(`${word} report`) });
      expect(await eventOf(t, member, plain.recallEventId)).toMatchObject({ queryText: null, queryFingerprint: sha256(`${word} report`) });

      await setFlag(t, admin, 'recall_query_text_enabled', true);
      const opted = await recallOk(t, member, { s: member.spaceId, q: `${word} Report` });
      expect(await queryText(opted.recallEventId)).toEqual({ query_text: `${word} Report`, query_fingerprint: sha256(`${word} report`) });
      expect(await eventOf(t, member, opted.recallEventId)).toMatchObject({ queryText: `${word} Report` });

      // Bounded: the first 500 characters.
      const long = `${word} ${'lorem '.repeat(150)}`.trim();
      expect(long.length).toBeGreaterThan(500);
      const bounded = await recallOk(t, member, { s: member.spaceId, q: long });
      expect((await queryText(bounded.recallEventId)).query_text).toBe(long.slice(0, 500));

      // Case, tabs, repeated and surrounding white space, and NFKC forms fingerprint alike.
      const expected = sha256('hello world');
      for (const q of ['  HELLO\tWorld ', 'hello world', 'Ｈｅｌｌｏ \n WORLD']) {
        const res = await recallOk(t, member, { s: member.spaceId, q });
        expect((await eventOf(t, member, res.recallEventId))?.queryFingerprint).toBe(expected);
      }
      expect(expected).toBe(createHash('sha256').update('hello world', 'utf8').digest('hex'));
    });
  });

  describe('when recall events cannot be stored', () => {
    it('R-RC-10 recallMemory and recallBlock answer degraded, without a suggestion; once storing works again events are stored', async () => {
      const { admin, member } = await newTeam(t);
      await setFlag(t, admin, 'recall_feedback_enabled', true);
      const word = uniqueWord('down');
      const c = crypto.randomUUID();
      const [snap] = await record(t, member, [toolResult(member.spaceId, c, { toolOutput: { note: word } })]);
      const degradedBefore = await degradedCount();

      await t.sql.query(
        `create function fail_recall_events() returns trigger language plpgsql as $$ begin raise exception 'recall events are down'; end $$`,
      );
      await t.sql.query(`create trigger fail before insert on recall_events for each row execute function fail_recall_events()`);
      try {
        const before = await eventRows(t, 'team_id = $1', [member.teamId]);
        const res = await recallOk(t, member, { s: member.spaceId, q: word });
        expect(res.results.map((r) => r.ref)).toEqual([{ type: 'TOOL_RESULT', id: snap.id, rank: 1 }]);
        expect(res.degradations).toContain(SNAPSHOT_UNAVAILABLE);
        expect(res.suggestedActions).toEqual([]);
        expect(res.recallEventId).toMatch(EVENT_ID);
        expect(await eventOf(t, member, res.recallEventId)).toBeNull();
        expect(await eventOf(t, admin, res.recallEventId)).toBeNull();

        const block = (await ok<{ recallBlock: Block }>(t, BLOCK, { c }, member.token)).recallBlock;
        expect(block.lines.map((l) => l.snapshotId)).toEqual([snap.id]);
        expect(block.text).toContain('Previously fetched');
        expect(block).toMatchObject({ recallEventId: null, suggestedActions: [] });
        expect(block.degradations).toContain(SNAPSHOT_UNAVAILABLE);

        expect(await eventRows(t, 'team_id = $1', [member.teamId])).toBe(before);
        expect(await degradedCount()).toBeGreaterThanOrEqual(degradedBefore + 2);
        expect(await degradedCount()).toBeGreaterThanOrEqual(1);
      } finally {
        await t.sql.query('drop trigger if exists fail on recall_events');
        await t.sql.query('drop function if exists fail_recall_events()');
      }

      const again = await recallOk(t, member, { s: member.spaceId, q: word });
      expect(again).toMatchObject({ degradations: [], suggestedActions: [{ action: SUBMIT, recallEventId: again.recallEventId }] });
      expect((await eventOf(t, member, again.recallEventId))?.results).toEqual([{ type: 'TOOL_RESULT', id: snap.id, rank: 1 }]);
      const block = (await ok<{ recallBlock: Block }>(t, BLOCK, { c }, member.token)).recallBlock;
      expect(block).toMatchObject({ recallEventId: expect.stringMatching(EVENT_ID), degradations: [] });
      expect(await eventOf(t, member, block.recallEventId!)).not.toBeNull();
    });
  });
});
