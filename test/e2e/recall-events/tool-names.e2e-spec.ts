/**
 * The tool names a recall event stores (issue 23): the distinct, sorted tool names of the
 * snapshots it returned, filled by every insert path — recallMemory's and recallBlock's
 * read-and-record statements, the block's shown rows, recordRecallEvent's lookup — copied into
 * feedback at submission, and backfilled by the migration (R-RC-9, R-RC-11, R-FB-7).
 */
import { Migration20261201220000 } from '../../../migrations/Migration20261201220000';
import { toolResult } from '../../support/fixtures';
import { FEEDBACK_EVENT } from '../../support/feedback-api';
import { FEEDBACK_SCOPES, fine, newTeam, recallEvent, submitOk } from '../../support/feedback-fixtures';
import { ok } from '../../support/graphql';
import { recallOk, record, uniqueWord } from '../../support/recall-events-fixtures';
import { newMember } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const BLOCK = `query($c: ID!, $m: String) {
  recallBlock(conversationId: $c, userMessage: $m) { recallEventId lines { snapshotId toolName } droppedCount }
}`;
const EVENT_TOOLS = `query($id: ID!) { recallEvent(id: $id) { id toolNames results { type id rank } } }`;

interface Block {
  recallEventId: string;
  lines: { snapshotId: string; toolName: string }[];
  droppedCount: number;
}

/** The statements of the migration that fill `tool_names` on rows stored before it. */
async function backfillStatements(): Promise<string[]> {
  const statements: string[] = [];
  const migration = Object.create(Migration20261201220000.prototype) as Migration20261201220000;
  Object.assign(migration, { addSql: (sql: string) => statements.push(sql) });
  await migration.up();
  return statements.filter((sql) => /^\s*update\b/i.test(sql));
}

const sorted = (names: string[]) => [...new Set(names)].sort();

describe('recall event tool names (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // A small block budget, so a block drops rows; the search and the events are unaffected.
    t = await createTestApp({ RECALL_BLOCK_TOKEN_BUDGET: '120', RECALL_BLOCK_ROWS: '3' });
  });
  afterAll(() => t.close());

  const toolNamesOf = async (admin: { token: string }, id: string) =>
    (await ok<{ recallEvent: { toolNames: string[] } | null }>(t, EVENT_TOOLS, { id }, admin.token)).recallEvent?.toolNames;
  const storedToolNames = async (table: 'recall_events' | 'feedback_events', id: string) =>
    (await t.sql.query(`select tool_names from ${table} where id = $1`, [id])).rows[0].tool_names as string[];

  it('R-RC-9 recallMemory stores the distinct tool names of its hits, sorted; none when nothing is found', async () => {
    const { admin, member, spaces } = await newTeam(t);
    const word = uniqueWord('tn');
    const c = crypto.randomUUID();
    await record(t, member, [
      toolResult(spaces[0], c, { toolName: 'zeta_report', toolOutput: { note: word } }),
      toolResult(spaces[0], c, { toolName: 'alpha_lookup', toolOutput: { note: word } }),
      toolResult(spaces[0], c, { toolName: 'zeta_report', toolOutput: { note: `${word} again` } }),
      toolResult(spaces[0], c, { toolName: 'unrelated_tool' }),
    ]);
    const res = await recallOk(t, member, { s: spaces[0], q: word });
    expect(res.results).toHaveLength(3);
    expect(await toolNamesOf(admin, res.recallEventId)).toEqual(['alpha_lookup', 'zeta_report']);
    expect(await storedToolNames('recall_events', res.recallEventId)).toEqual(['alpha_lookup', 'zeta_report']);
    // The search's toolName filter narrows the hits, and so the names.
    const narrowed = await recallOk(t, member, { s: spaces[0], q: word, tool: 'zeta_report' });
    expect(await toolNamesOf(admin, narrowed.recallEventId)).toEqual(['zeta_report']);
    const nothing = await recallOk(t, member, { s: spaces[0], q: uniqueWord('none') });
    expect(await toolNamesOf(admin, nothing.recallEventId)).toEqual([]);
  });

  it("R-RC-9 recallBlock stores the tool names of the rows it shows: all rows read, or the budget's survivors only", async () => {
    const { admin, member, spaces } = await newTeam(t);
    const short = crypto.randomUUID();
    await record(t, member, [
      toolResult(spaces[0], short, { toolName: 'b_tool', toolInput: {}, toolOutput: 'x' }),
      toolResult(spaces[0], short, { toolName: 'a_tool', toolInput: {}, toolOutput: 'y' }),
    ]);
    const all = (await ok<{ recallBlock: Block }>(t, BLOCK, { c: short, m: 'what did we fetch before?' }, member.token)).recallBlock;
    expect(all.lines).toHaveLength(2);
    expect(await toolNamesOf(admin, all.recallEventId)).toEqual(['a_tool', 'b_tool']);

    const long = crypto.randomUUID();
    const wordy = { target: 'members who registered in the last thirty days, with their plans and regions '.repeat(2) };
    await record(t, member, [
      toolResult(spaces[0], long, { toolName: 'oldest_tool', toolInput: wordy }),
      toolResult(spaces[0], long, { toolName: 'middle_tool', toolInput: wordy }),
      toolResult(spaces[0], long, { toolName: 'newest_tool', toolInput: { target: 'x' }, toolOutput: 'z' }),
    ]);
    const cut = (await ok<{ recallBlock: Block }>(t, BLOCK, { c: long, m: 'what did we fetch before?' }, member.token)).recallBlock;
    expect(cut.droppedCount).toBeGreaterThan(0);
    expect(cut.lines.length).toBeGreaterThan(0);
    const shown = sorted(cut.lines.map((l) => l.toolName));
    expect(shown).not.toContain('oldest_tool');
    expect(await toolNamesOf(admin, cut.recallEventId)).toEqual(shown);
  });

  it("R-RC-11 R-TN-5 recordRecallEvent stores the tool names of the recording user's own snapshots among its TOOL_RESULT refs; a teammate's, other teams' and other refs give none", async () => {
    const { admin, member, spaces } = await newTeam(t);
    const colleague = await newMember(t, admin, spaces, FEEDBACK_SCOPES);
    const [own] = await record(t, member, [toolResult(spaces[0], crypto.randomUUID(), { toolName: 'own_tool' })]);
    const [theirs] = await record(t, colleague, [toolResult(spaces[0], crypto.randomUUID(), { toolName: 'colleague_tool' })]);
    const stranger = await newTeam(t);
    const [foreign] = await record(t, stranger.member, [toolResult(stranger.spaces[0], crypto.randomUUID(), { toolName: 'foreign_tool' })]);

    const id = await recallEvent(t, member, {
      spaceId: spaces[0],
      results: [
        { type: 'TOOL_RESULT', id: own.id.toUpperCase(), rank: 1 },
        { type: 'TOOL_RESULT', id: theirs.id, rank: 2 },
        { type: 'TOOL_RESULT', id: foreign.id, rank: 3 },
        { type: 'TOOL_RESULT', id: 'tr_not_a_uuid', rank: 4 },
        { type: 'TOOL_RESULT', id: crypto.randomUUID(), rank: 5 },
        // An id that is a snapshot's, under another type: not a snapshot ref.
        { type: 'EVIDENCE', id: own.id, rank: 6 },
      ],
    });
    // The colleague's snapshot is the team's but not the recording user's: it names nothing (issue 36).
    expect(await toolNamesOf(admin, id)).toEqual(['own_tool']);
    expect(
      (
        await ok<{ recordRecallEvent: { toolNames: string[] } }>(
          t,
          `mutation($input: RecallEventInput!) { recordRecallEvent(input: $input) { toolNames } }`,
          { input: { spaceId: spaces[0], contractVersion: 'x.v1', results: [{ type: 'RELATIONSHIP', id: 'r_1', rank: 1 }] } },
          member.token,
        )
      ).recordRecallEvent.toolNames,
    ).toEqual([]);
  });

  it('R-FB-7 a feedback event copies its recall’s tool names at submission; they stay when the snapshots go', async () => {
    const { admin, member, spaces } = await newTeam(t);
    const word = uniqueWord('fbtn');
    const c = crypto.randomUUID();
    const snapshots = await record(t, member, [
      toolResult(spaces[0], c, { toolName: 'kpi_trend', toolOutput: { note: word } }),
      toolResult(spaces[0], c, { toolName: 'site_data', toolOutput: { note: word } }),
    ]);
    const recall = (await recallOk(t, member, { s: spaces[0], q: word })).recallEventId;
    await t.sql.query('delete from message_tool_results where id = any($1)', [snapshots.map((s) => s.id)]);
    const [feedbackId] = (await submitOk(t, member, [fine(recall)])).feedbackEventIds;
    const event = (
      await ok<{ feedbackEvent: { toolNames: string[] } }>(
        t,
        FEEDBACK_EVENT.replace('clientFeedbackId', 'clientFeedbackId toolNames'),
        { id: feedbackId },
        admin.token,
      )
    ).feedbackEvent;
    expect(event.toolNames).toEqual(['kpi_trend', 'site_data']);
    expect(await storedToolNames('feedback_events', feedbackId)).toEqual(['kpi_trend', 'site_data']);
  });

  it('R-RC-9 R-FB-7 the migration backfills both columns: recall events from the snapshots still present, feedback from its recall event', async () => {
    const { member, spaces } = await newTeam(t);
    const word = uniqueWord('bf');
    const c = crypto.randomUUID();
    const [kept, gone, other] = await record(t, member, [
      toolResult(spaces[0], c, { toolName: 'kept_tool', toolOutput: { note: word } }),
      toolResult(spaces[0], c, { toolName: 'gone_tool', toolOutput: { note: word } }),
      toolResult(spaces[0], c, { toolName: 'other_tool' }),
    ]);
    const stranger = await newTeam(t);
    const [foreign] = await record(t, stranger.member, [toolResult(stranger.spaces[0], crypto.randomUUID(), { toolName: 'foreign_tool' })]);
    const search = (await recallOk(t, member, { s: spaces[0], q: word })).recallEventId;
    const external = await recallEvent(t, member, {
      spaceId: spaces[0],
      results: [
        { type: 'TOOL_RESULT', id: other.id, rank: 1 },
        { type: 'TOOL_RESULT', id: 'tr_not_a_uuid', rank: 2 },
        { type: 'TOOL_RESULT', id: foreign.id, rank: 3 },
        { type: 'RELATIONSHIP', id: kept.id, rank: 4 },
      ],
    });
    const unrelated = await recallEvent(t, member, { spaceId: spaces[0] });
    const feedback = (await submitOk(t, member, [fine(search), fine(external), fine(unrelated)])).feedbackEventIds;

    // As stored before the migration: no tool names anywhere; one snapshot has gone since.
    const recalls = [search, external, unrelated];
    await t.sql.query(`update recall_events set tool_names = '{}' where id = any($1)`, [recalls]);
    await t.sql.query(`update feedback_events set tool_names = '{}' where id = any($1)`, [feedback]);
    await t.sql.query('delete from message_tool_results where id = $1', [gone.id]);

    const statements = await backfillStatements();
    expect(statements).toHaveLength(2);
    for (const sql of statements) await t.sql.query(sql);

    expect(await storedToolNames('recall_events', search)).toEqual(['kept_tool']);
    expect(await storedToolNames('recall_events', external)).toEqual(['other_tool']);
    expect(await storedToolNames('recall_events', unrelated)).toEqual([]);
    expect(await Promise.all(feedback.map((id) => storedToolNames('feedback_events', id)))).toEqual([['kept_tool'], ['other_tool'], []]);
  });
});
