/**
 * External recall events: recordRecallEvent stores what another retriever returned (R-RC-11).
 */
import request from 'supertest';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { EVENT_ID, RECORD_EVENT, type RecallEvent } from '../../support/recall-events-api';
import { createRecallEventsApp, eventOf, eventRows, join, newTeam, sha256 } from '../../support/recall-events-fixtures';
import { setFlag } from '../../support/tenancy';
import type { TestApp } from '../../support/test-app';

describe('Recall search and recall events (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createRecallEventsApp();
  });
  afterAll(() => t.close());

  describe('recordRecallEvent', () => {
    it('R-RC-11 stores an external event with refs of every type, in order, source EXTERNAL', async () => {
      const { admin, member } = await newTeam(t);
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
      expect(await eventOf(t, member, stored.id)).toEqual(stored);
      expect(await eventOf(t, admin, stored.id)).toEqual(stored);
      expect((await t.sql.query('select source, results from recall_events where id = $1', [stored.id])).rows[0]).toEqual({
        source: 'EXTERNAL',
        results,
      });

      await setFlag(t, admin, 'recall_query_text_enabled', true);
      const withText = (await ok<{ recordRecallEvent: RecallEvent }>(t, RECORD_EVENT, { input: { ...input, results: [] } }, member.token))
        .recordRecallEvent;
      expect(withText).toMatchObject({ queryText: input.query, results: [], source: 'EXTERNAL' });

      const metrics = (await request(t.app.getHttpServer()).get('/metrics')).text;
      expect(metrics).toMatch(/^recall_events_total\{source="EXTERNAL",outcome="stored"\} [1-9]\d*$/m);
    });

    it('R-RC-11 R-OP-5 51 refs, a 257-character id, rank 0 or semanticGroups over 16 KiB are BAD_USER_INPUT and write nothing', async () => {
      const { member } = await newTeam(t);
      const base = { spaceId: member.spaceId, contractVersion: 'ext.v1', results: [{ type: 'ENTITY', id: 'e1', rank: 1 }] };
      const count = () => eventRows(t, 'team_id = $1', [member.teamId]);
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
      const okRes = (
        await ok<{ recordRecallEvent: RecallEvent }>(
          t,
          RECORD_EVENT,
          { input: { ...base, results: fifty, semanticGroups: groups } },
          member.token,
        )
      ).recordRecallEvent;
      expect(okRes.results).toEqual(fifty);
      expect(await count()).toBe(before + 1);
    });

    it('R-RC-11 needs memory:write', async () => {
      const { admin, member } = await newTeam(t);
      const reader = await join(t, admin, member.spaceId, ['memory:read']);
      const res = await gql(t, RECORD_EVENT, { input: { spaceId: member.spaceId, contractVersion: 'ext.v1', results: [] } }, reader.token);
      expectErrorCode(res, 'FORBIDDEN');
    });
  });
});
