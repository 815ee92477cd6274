/**
 * recallMemory search (R-RC-8): a word deep in a large output, ranking, filters and bounds; and
 * isolation: only the actor's own snapshots in an allowed space come back (R-TN-5).
 */
import { toolResult } from '../../support/fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { EVENT_ID, RECORD_EVENT, type Hit } from '../../support/recall-events-api';
import {
  createRecallEventsApp,
  eventOf,
  eventRows,
  join,
  newTeam,
  recall,
  recallOk,
  record,
  uniqueWord,
  type Team,
} from '../../support/recall-events-fixtures';
import { addMember, newSpace, SEAL } from '../../support/tenancy';
import type { TestApp } from '../../support/test-app';

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

/** Ranks from 1, consecutive, in the order the results come back. */
function expectRanked(results: Hit[]) {
  expect(results.map((r) => r.ref.rank)).toEqual(results.map((_, i) => i + 1));
  for (const r of results) expect(r.ref.type).toBe('TOOL_RESULT');
  for (let i = 1; i < results.length; i += 1) expect(results[i - 1].score).toBeGreaterThanOrEqual(results[i].score);
}

describe('Recall search and recall events (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createRecallEventsApp();
  });
  afterAll(() => t.close());

  describe('search', () => {
    let team: Team;
    beforeAll(async () => {
      team = await newTeam(t);
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
      const [big] = await record(t, member, [
        toolResult(member.spaceId, conversationId, { toolName: 'export_rows', toolInput: { table: 'rows' }, toolOutput: output }),
      ]);
      // Another snapshot of the same conversation with the filler words but not the needle.
      await record(t, member, [toolResult(member.spaceId, conversationId, { toolName: 'export_rows', toolOutput: { rows: [filler] } })]);

      const res = await recallOk(t, member, { s: member.spaceId, q: needle });
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
      const [strong] = await record(t, member, [
        toolResult(member.spaceId, c, { toolInput: { topic: word }, toolOutput: { note: word }, createdAt: daysAgo(3) }),
      ]);
      const [weak] = await record(t, member, [
        toolResult(member.spaceId, c, { toolInput: { topic: 'other' }, toolOutput: { note: word }, createdAt: daysAgo(1) }),
      ]);
      const ranked = await recallOk(t, member, { s: member.spaceId, q: word });
      expect(ranked.results.map((r) => r.ref.id)).toEqual([strong.id, weak.id]);
      expectRanked(ranked.results);
      expect(ranked.results[0].score).toBeGreaterThan(ranked.results[1].score);

      // Equal documents: the newer comes first whatever the order they were recorded in.
      const tie = uniqueWord('tie');
      const same = { toolName: 'query_site_data', toolInput: { target: 'ties' }, toolOutput: { note: tie } };
      const [newer] = await record(t, member, [toolResult(member.spaceId, c, { ...same, createdAt: daysAgo(2) })]);
      const [older] = await record(t, member, [toolResult(member.spaceId, c, { ...same, createdAt: daysAgo(4) })]);
      const [newest] = await record(t, member, [toolResult(member.spaceId, c, { ...same, createdAt: daysAgo(1) })]);
      const tied = await recallOk(t, member, { s: member.spaceId, q: tie });
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
      const [a] = await record(t, member, [toolResult(member.spaceId, c1, { toolName: 'query_site_data', ...out })]);
      const [b] = await record(t, member, [toolResult(member.spaceId, c2, { toolName: 'query_site_data', ...out })]);
      const [c] = await record(t, member, [toolResult(member.spaceId, c1, { toolName: 'query_kpi_trend', ...out })]);
      const [d] = await record(t, member, [
        toolResult(member.spaceId, c1, { toolName: 'query_site_data', ...out, createdAt: daysAgo(10) }),
      ]);
      const ids = async (vars: { c?: string; tool?: string; days?: number; limit?: number }) => {
        const res = await recallOk(t, member, { s: member.spaceId, q: word, ...vars });
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
      const before = await eventRows(t, 'team_id = $1', [member.teamId]);
      for (const [vars, field] of [
        [{ q: 'anything', limit: 51 }, 'limit'],
        [{ q: 'anything', limit: 0 }, 'limit'],
        [{ q: '' }, 'query'],
        [{ q: '   ' }, 'query'],
      ] as const) {
        const res = await recall(t, member, { s: member.spaceId, ...vars });
        expectErrorCode(res, 'BAD_USER_INPUT', { field });
      }
      expect(await eventRows(t, 'team_id = $1', [member.teamId])).toBe(before);
    });
  });

  describe('isolation', () => {
    it("R-TN-5 R-RC-8 only the actor's own snapshot in the space comes back: not another team's, another user's, or another space's", async () => {
      const { admin, member: alice } = await newTeam(t);
      const bob = await join(t, admin, alice.spaceId);
      const otherSpace = await newSpace(t, admin, 'recall-events');
      await addMember(t, admin, otherSpace, alice.userId);
      const mallory = (await newTeam(t)).member;
      const word = uniqueWord('idor');
      const out = { toolOutput: { note: word } };

      const [own] = await record(t, alice, [toolResult(alice.spaceId, crypto.randomUUID(), out)]);
      const [elsewhere] = await record(t, alice, [toolResult(otherSpace, crypto.randomUUID(), out)]);
      const [bobs] = await record(t, bob, [toolResult(alice.spaceId, crypto.randomUUID(), out)]);
      const [mallorys] = await record(t, mallory, [toolResult(mallory.spaceId, crypto.randomUUID(), out)]);

      const res = await recallOk(t, alice, { s: alice.spaceId, q: word, limit: 50 });
      expect(res.results.map((r) => r.ref.id)).toEqual([own.id]);
      const event = await eventOf(t, alice, res.recallEventId);
      expect(event!.results.map((r) => r.id)).toEqual([own.id]);
      // Each of the others finds only its own.
      expect((await recallOk(t, alice, { s: otherSpace, q: word })).results.map((r) => r.ref.id)).toEqual([elsewhere.id]);
      expect((await recallOk(t, bob, { s: alice.spaceId, q: word })).results.map((r) => r.ref.id)).toEqual([bobs.id]);
      expect((await recallOk(t, mallory, { s: mallory.spaceId, q: word })).results.map((r) => r.ref.id)).toEqual([mallorys.id]);
    });

    it("R-TN-5 recallMemory and recordRecallEvent into a space outside the allowed set are NOT_FOUND and store nothing; another team's event is null", async () => {
      const { admin, member: alice } = await newTeam(t);
      const mallory = (await newTeam(t)).member;
      const sealed = await newSpace(t, admin, 'recall-events');
      await addMember(t, admin, sealed, alice.userId);
      const word = uniqueWord('seal');
      await record(t, alice, [toolResult(sealed, crypto.randomUUID(), { toolOutput: { note: word } })]);
      await ok(t, SEAL, { s: sealed }, admin.token);
      const notMember = await newSpace(t, admin, 'recall-events');
      const before = await eventRows(t, 'team_id = any($1)', [[alice.teamId, mallory.teamId]]);

      for (const s of [mallory.spaceId, sealed, notMember, crypto.randomUUID()]) {
        const res = await recall(t, alice, { s, q: word });
        expectErrorCode(res, 'NOT_FOUND');
        const ext = await gql(
          t,
          RECORD_EVENT,
          { input: { spaceId: s, contractVersion: 'ext.v1', results: [{ type: 'ENTITY', id: 'e1', rank: 1 }] } },
          alice.token,
        );
        expectErrorCode(ext, 'NOT_FOUND');
      }
      // Mallory into Alice's space, too.
      expectErrorCode(await recall(t, mallory, { s: alice.spaceId, q: word }), 'NOT_FOUND');
      expect(await eventRows(t, 'team_id = any($1)', [[alice.teamId, mallory.teamId]])).toBe(before);

      const mallorysEvent = (await recallOk(t, mallory, { s: mallory.spaceId, q: word })).recallEventId;
      expect(await eventOf(t, alice, mallorysEvent)).toBeNull();
      expect(await eventOf(t, admin, mallorysEvent)).toBeNull();
      expect(await eventOf(t, mallory, mallorysEvent)).not.toBeNull();
    });
  });
});
