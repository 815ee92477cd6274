/**
 * Links both ways between a recall event and what it touched (R-FB-8, issue 23):
 * `RecallEvent.returnedResults` (its refs, each TOOL_RESULT ref with its snapshot while still
 * readable, stub only) and `RecallEvent.feedbackEvents` (admin only), beside the existing
 * `FeedbackEvent.recallEvent`.
 */
import { toolResult } from '../../support/fixtures';
import { FEEDBACK_EVENT } from '../../support/feedback-api';
import { createFeedbackApp, FEEDBACK_SCOPES, fine, newTeam, recallEvent, submitOk } from '../../support/feedback-fixtures';
import { gql, ok } from '../../support/graphql';
import { listFeedbackEvents, listRecallEvents, RECALL_EVENT_LINKS, type ReturnedResult } from '../../support/inspection-api';
import { recallOk, record, uniqueWord } from '../../support/recall-events-fixtures';
import { BUMP, newMember, SEAL } from '../../support/tenancy';
import type { TestApp, TestIdentity } from '../../support/test-app';

interface Links {
  id: string;
  toolNames: string[];
  returnedResults: ReturnedResult[];
  feedbackEvents:
    { id: string; recallEventId: string; createdAt: string; toolNames: string[]; recallEvent: { id: string } | null }[] | null;
}

const RETURNED_ONLY = `query($id: ID!) { recallEvent(id: $id) { id returnedResults { type id rank snapshot { memId toolName stub sizeTokens createdAt } } } }`;

describe('recall event links (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createFeedbackApp();
  });
  afterAll(() => t.close());

  const linksOf = async (who: TestIdentity, id: string) =>
    (await ok<{ recallEvent: Links | null }>(t, RECALL_EVENT_LINKS, { id }, who.token)).recallEvent;
  /** The stored snapshot as the write path stored it: what ReturnedSnapshot must show. */
  const storedSnapshot = async (id: string) => {
    const row = (
      await t.sql.query(
        `select mem_id, tool_name, stub, size_tokens,
                to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at
           from message_tool_results where id = $1`,
        [id],
      )
    ).rows[0];
    return {
      snapshot: { memId: row.mem_id, toolName: row.tool_name, stub: row.stub, sizeTokens: row.size_tokens, createdAt: row.created_at },
    };
  };

  it('R-FB-8 returnedResults: the refs in rank order, a TOOL_RESULT ref with its snapshot (stub, no payload) while it exists, is the profile’s and in the space', async () => {
    const { admin, member, spaces } = await newTeam(t, 2);
    const colleague = await newMember(t, admin, spaces, FEEDBACK_SCOPES);
    const word = uniqueWord('link');
    const c = crypto.randomUUID();
    // Past what any preview shows: the stub's preview line quotes only the payload's start.
    const secret = 'payload-text-only-the-user-sees';
    const [alpha, beta] = await record(t, member, [
      toolResult(spaces[0], c, { toolName: 'alpha_tool', toolOutput: { note: word, filler: 'lorem ipsum '.repeat(400), detail: secret } }),
      toolResult(spaces[0], c, { toolName: 'beta_tool', toolOutput: { note: `${word} ${word}` } }),
    ]);
    const [gamma] = await record(t, colleague, [toolResult(spaces[0], crypto.randomUUID(), { toolName: 'gamma_tool' })]);
    const [elsewhere] = await record(t, member, [toolResult(spaces[1], crypto.randomUUID(), { toolName: 'delta_tool' })]);

    // Our own search: its refs are the hits, in rank order.
    const search = await recallOk(t, member, { s: spaces[0], q: word });
    const searchLinks = await linksOf(admin, search.recallEventId);
    expect(searchLinks!.returnedResults.map(({ type, id, rank }) => ({ type, id, rank }))).toEqual(search.results.map((r) => r.ref));
    for (const result of searchLinks!.returnedResults) {
      const stored = await storedSnapshot(result.id);
      expect(result.snapshot).toEqual(stored.snapshot);
    }
    // The stub, never the payload: no field beyond the five, and nothing of the payload past the stub's preview.
    const fields = await ok<{ __type: { fields: { name: string }[] } }>(
      t,
      `{ __type(name: "ReturnedSnapshot") { fields { name } } }`,
      {},
      member.token,
    );
    expect(fields.__type.fields.map((f) => f.name).sort()).toEqual(['createdAt', 'memId', 'sizeTokens', 'stub', 'toolName']);
    expect(JSON.stringify(searchLinks)).not.toContain(secret);

    // An external retriever's refs, in an order of its own: a snapshot only for the profile's own, in the event's space.
    const external = await recallEvent(t, member, {
      spaceId: spaces[0],
      results: [
        { type: 'RELATIONSHIP', id: 'r_1', rank: 4 },
        { type: 'TOOL_RESULT', id: beta.id, rank: 1 },
        { type: 'TOOL_RESULT', id: gamma.id, rank: 2 },
        { type: 'TOOL_RESULT', id: 'not-a-uuid', rank: 3 },
        { type: 'TOOL_RESULT', id: alpha.id.toUpperCase(), rank: 5 },
        { type: 'TOOL_RESULT', id: elsewhere.id, rank: 6 },
      ],
    });
    const externalLinks = await linksOf(admin, external);
    expect(externalLinks!.returnedResults.map((r) => [r.type, r.id, r.rank, r.snapshot?.toolName ?? null])).toEqual([
      ['TOOL_RESULT', beta.id, 1, 'beta_tool'],
      // The colleague's snapshot: not the event's profile's.
      ['TOOL_RESULT', gamma.id, 2, null],
      ['TOOL_RESULT', 'not-a-uuid', 3, null],
      ['RELATIONSHIP', 'r_1', 4, null],
      ['TOOL_RESULT', alpha.id.toUpperCase(), 5, 'alpha_tool'],
      // In another space than the event's.
      ['TOOL_RESULT', elsewhere.id, 6, null],
    ]);
    // The member reads its own event's results too (memory:read), the same.
    const own = (await ok<{ recallEvent: Links }>(t, RETURNED_ONLY, { id: external }, member.token)).recallEvent;
    expect(own.returnedResults).toEqual(externalLinks!.returnedResults);
    // And the admin's list serves the same links.
    const listed = await ok<{ recallEvents: { edges: { node: { id: string; returnedResults: ReturnedResult[] } }[] } }>(
      t,
      `{ recallEvents(first: 1) { edges { node { id returnedResults { id snapshot { toolName } } } } } }`,
      {},
      admin.token,
    );
    expect(listed.recallEvents.edges[0].node.returnedResults.map((r) => r.snapshot?.toolName ?? null)).toEqual([
      'beta_tool',
      null,
      null,
      null,
      'alpha_tool',
      null,
    ]);

    // A deleted snapshot leaves its ref, without a snapshot; the tool names stay as stored.
    await t.sql.query('delete from message_tool_results where id = $1', [alpha.id]);
    const after = await linksOf(admin, search.recallEventId);
    expect(after!.returnedResults.find((r) => r.id === alpha.id)).toMatchObject({ type: 'TOOL_RESULT', snapshot: null });
    expect(after!.returnedResults.find((r) => r.id === beta.id)?.snapshot?.toolName).toBe('beta_tool');
    expect(after!.toolNames).toEqual(['alpha_tool', 'beta_tool']);
  });

  it('R-FB-8 returnedResults after a bump: an event of the new generation shows only snapshots of that generation; the older event is hidden', async () => {
    const { admin, member, spaces } = await newTeam(t);
    const [old] = await record(t, member, [toolResult(spaces[0], crypto.randomUUID(), { toolName: 'old_tool' })]);
    const before = await recallEvent(t, member, { spaceId: spaces[0], results: [{ type: 'TOOL_RESULT', id: old.id, rank: 1 }] });
    expect((await linksOf(admin, before))!.returnedResults[0].snapshot?.toolName).toBe('old_tool');
    expect((await submitOk(t, member, [fine(before)])).error).toBeNull();

    await ok(t, BUMP, { s: spaces[0] }, admin.token);
    expect(await linksOf(admin, before)).toBeNull();
    const [fresh] = await record(t, member, [toolResult(spaces[0], crypto.randomUUID(), { toolName: 'new_tool' })]);
    const after = await recallEvent(t, member, {
      spaceId: spaces[0],
      results: [
        { type: 'TOOL_RESULT', id: old.id, rank: 1 },
        { type: 'TOOL_RESULT', id: fresh.id, rank: 2 },
      ],
    });
    const links = await linksOf(admin, after);
    expect(links!.returnedResults.map((r) => r.snapshot?.toolName ?? null)).toEqual([null, 'new_tool']);
    // The older generation's snapshot reads as missing, so it names no tool either (R-TN-4).
    expect(links!.toolNames).toEqual(['new_tool']);
    // The hidden event's feedback is hidden with it.
    expect((await listFeedbackEvents(t, admin, { filter: { toolName: 'old_tool' } })).edges).toEqual([]);
  });

  it('R-FB-8 feedbackEvents: the visible feedback on a recall, oldest first, each linking back to it; hidden with the recall when its space is sealed', async () => {
    const { admin, member, spaces } = await newTeam(t);
    const [snapshot] = await record(t, member, [toolResult(spaces[0], crypto.randomUUID(), { toolName: 'kpi_tool' })]);
    const recall = await recallEvent(t, member, { spaceId: spaces[0], results: [{ type: 'TOOL_RESULT', id: snapshot.id, rank: 1 }] });
    const unjudged = await recallEvent(t, member, { spaceId: spaces[0] });
    const [first] = (await submitOk(t, member, [fine(recall)])).feedbackEventIds;
    // A second judgment, later, by the recall's own member (a member judges only their own recalls).
    const [second] = (await submitOk(t, member, [fine(recall, { quality: 'MEDIUM' })])).feedbackEventIds;

    const links = await linksOf(admin, recall);
    expect(links!.feedbackEvents!.map((f) => f.id)).toEqual([first, second]);
    for (const f of links!.feedbackEvents!)
      expect(f).toMatchObject({ recallEventId: recall, toolNames: ['kpi_tool'], recallEvent: { id: recall } });
    expect((await linksOf(admin, unjudged))!.feedbackEvents).toEqual([]);

    // The other way: a feedback event's recallEvent, with its links.
    const back = await ok<{ feedbackEvent: { recallEvent: { id: string } } }>(t, FEEDBACK_EVENT, { id: second }, admin.token);
    expect(back.feedbackEvent.recallEvent.id).toBe(recall);
    const deep = await ok<{ feedbackEvent: { recallEvent: { returnedResults: ReturnedResult[]; feedbackEvents: { id: string }[] } } }>(
      t,
      `query($id: ID!) { feedbackEvent(id: $id) { recallEvent { returnedResults { id snapshot { toolName } } feedbackEvents { id } } } }`,
      { id: first },
      admin.token,
    );
    expect(deep.feedbackEvent.recallEvent.returnedResults[0].snapshot?.toolName).toBe('kpi_tool');
    expect(deep.feedbackEvent.recallEvent.feedbackEvents.map((f) => f.id)).toEqual([first, second]);

    await ok(t, SEAL, { s: spaces[0] }, admin.token);
    expect(await linksOf(admin, recall)).toBeNull();
    expect((await listRecallEvents(t, admin)).edges).toEqual([]);
    expect((await listFeedbackEvents(t, admin)).edges).toEqual([]);
  });

  it('R-FB-8 R-TN-2 a memory:read reader of its own recall selecting feedbackEvents gets FORBIDDEN on that field and the rest of the answer', async () => {
    const { member, spaces } = await newTeam(t);
    const [snapshot] = await record(t, member, [toolResult(spaces[0], crypto.randomUUID(), { toolName: 'own_tool' })]);
    const recall = await recallEvent(t, member, { spaceId: spaces[0], results: [{ type: 'TOOL_RESULT', id: snapshot.id, rank: 1 }] });
    await submitOk(t, member, [fine(recall)]);

    const res = await gql<{ recallEvent: Links }>(t, RECALL_EVENT_LINKS, { id: recall }, member.token);
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({ path: ['recallEvent', 'feedbackEvents'], extensions: { code: 'FORBIDDEN' } });
    expect(res.data?.recallEvent).toMatchObject({ id: recall, toolNames: ['own_tool'], feedbackEvents: null });
    expect(res.data?.recallEvent.returnedResults.map((r) => r.snapshot?.toolName)).toEqual(['own_tool']);
  });
});
