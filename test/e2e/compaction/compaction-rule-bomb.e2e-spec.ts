/**
 * R-TN-10, R-LG-3, R-RC-3: compaction of a long history whose results a team admin's rule bomb
 * applies to. Every result is recorded with a handle whose rules stop at their row budget, read on
 * the handle pool's threads rather than the event loop: another team is answered meanwhile, and
 * the compaction answers within its caps.
 */
import { memberOfNewSpace, type SpaceMember } from '../../support/fixtures';
import { gql } from '../../support/graphql';
import { handlePoolBusyDuring, metricValue, OVER_BUDGET_FALLBACKS, ruleBomb } from '../../support/handle-pool';
import { setSummaryRule } from '../../support/summary-rules';
import { identity, createTestApp, type TestApp } from '../../support/test-app';
import { newMember, newSpace } from '../../support/tenancy';

const COMPACT = `mutation($input: CompactMessagesInput!) {
  compactMessages(input: $input) { compactedCount handles { toolCallId summaryOneliner } }
}`;

const RESULTS = 200;
/** Eight rules of seven scans of 1,900 rows pass the 100,000 row visits of the budget. */
const ROWS = 1_900;

/** An Anthropic history of `RESULTS` calls of `list_rows`, each result the JSON text of `{ rows: [{ x_at }] }`. */
function bombHistory(): object[] {
  const messages: object[] = [{ role: 'user', content: 'List the rows of every shard.' }];
  for (let call = 0; call < RESULTS; call++) {
    const rows = Array.from({ length: ROWS }, (_, row) => ({ x_at: 1_767_225_600 + call * ROWS + row }));
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_shard_${call}`, name: 'list_rows', input: { shard: call } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_shard_${call}`, content: JSON.stringify({ rows }) }],
    });
  }
  return messages;
}

describe('compactMessages of a history a rule bomb applies to (e2e)', () => {
  let t: TestApp;
  let bystander: SpaceMember;

  beforeAll(async () => {
    t = await createTestApp();
    bystander = await memberOfNewSpace(t);
  });
  afterAll(() => t?.close());

  it("R-TN-10 R-LG-3 R-RC-3 200 results under a team admin's rule bomb: each handle read off the event loop within the row budget, the generic lines, every fallback counted, another team's { me } answered first", async () => {
    const admin = await identity(['admin']);
    const spaceId = await newSpace(t, admin);
    const member = await newMember(t, admin, [spaceId], ['memory:read', 'memory:write']);
    await setSummaryRule(t, admin, 'list_rows', ruleBomb('x_at'));
    const messages = bombHistory();
    const fallbacks = await metricValue(t, OVER_BUDGET_FALLBACKS);

    const answered: string[] = [];
    const compaction = gql<{ compactMessages: { compactedCount: number; handles: { toolCallId: string; summaryOneliner: string }[] } }>(
      t,
      COMPACT,
      { input: { spaceId, conversationId: crypto.randomUUID(), messages, keepLastN: 0 } },
      member.token,
    );
    void compaction.then(() => answered.push('compaction'));
    await handlePoolBusyDuring(t, compaction);
    const me = await gql<{ me: { userId: string } }>(t, '{ me { userId } }', {}, bystander.token);
    answered.push('me');
    const compacted = await compaction;

    expect(answered).toEqual(['me', 'compaction']);
    expect(me.data?.me.userId).toBe(bystander.userId);
    expect(compacted.status).toBe(200);
    expect(compacted.errors).toBeUndefined();
    const { compactedCount, handles } = compacted.data!.compactMessages;
    expect(compactedCount).toBe(RESULTS);
    expect(handles.map((handle) => handle.toolCallId)).toEqual(Array.from({ length: RESULTS }, (_, call) => `toolu_shard_${call}`));
    for (const handle of handles) expect(handle.summaryOneliner).toMatch(/^1 key: rows\[1900\]; newest 20\d\d-\d\d-\d\d$/);
    expect(await metricValue(t, OVER_BUDGET_FALLBACKS)).toBe(fallbacks + RESULTS);
  }, 120_000);
});
