/**
 * R-OP-5: list bounds are enforced before any SQL runs — the auth guard's actor lookup included:
 * a request over a bound executes no statement at all.
 */
import { Client } from 'pg';
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember } from '../../support/fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { createTestApp, type TestApp } from '../../support/test-app';

describe('list bounds before SQL (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;
  let statements: jest.SpyInstance;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await memberOfNewSpace(t, ['memory:read', 'memory:write', 'feedback:write']);
    // Every statement, em.execute's and runSql's alike, reaches PostgreSQL through pg's Client#query.
    statements = jest.spyOn(Client.prototype, 'query');
  });
  afterAll(async () => {
    statements.mockRestore();
    await t.close();
  });
  beforeEach(() => statements.mockClear());

  const FEEDBACK = `mutation($input: RecallFeedbackBatchInput!) { submitRecallFeedback(input: $input) { recordedCount } }`;
  const item = (refs = 0) => ({
    recallEventId: 'rec_x',
    used: true,
    irrelevantResultRefs: Array.from({ length: refs }, (_, i) => ({ type: 'EVIDENCE', id: `e${i}` })),
  });

  it.each([
    [
      'recordToolResults with 101 items',
      RECORD,
      () => ({ input: Array.from({ length: 101 }, () => toolResult(alice.spaceId, crypto.randomUUID())) }),
      'input',
    ],
    [
      'submitRecallFeedback with 51 items',
      FEEDBACK,
      () => ({ input: { recalls: Array.from({ length: 51 }, () => item()) } }),
      'input.recalls',
    ],
    [
      'submitRecallFeedback with an item of 51 refs',
      FEEDBACK,
      () => ({ input: { recalls: [item(), item(51)] } }),
      'input.recalls.1.irrelevantResultRefs',
    ],
  ])('R-OP-5 %s is BAD_USER_INPUT naming the list (HTTP 400), and runs no SQL statement', async (_name, query, variables, field) => {
    const res = await gql(t, query, variables(), alice.token);
    expect(res.status).toBe(400);
    expectErrorCode(res, 'BAD_USER_INPUT', { field });
    expect(statements).not.toHaveBeenCalled();
  });

  it('R-OP-5 the same requests within their bounds do run SQL (the spy sees the actor lookup and the work)', async () => {
    await ok(t, RECORD, { input: Array.from({ length: 100 }, () => toolResult(alice.spaceId, crypto.randomUUID())) }, alice.token);
    expect(statements.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('R-OP-5 a literal list over its bound is refused the same way', async () => {
    const excluded = Array.from({ length: 101 }, (_, i) => `"t${i}"`).join(', ');
    const res = await gql(
      t,
      `mutation { compactMessages(input: { spaceId: "${alice.spaceId}", conversationId: "${crypto.randomUUID()}", messages: [], excludeTools: [${excluded}] }) { compactedCount } }`,
      {},
      alice.token,
    );
    expect(res.status).toBe(400);
    expectErrorCode(res, 'BAD_USER_INPUT', { field: 'input.excludeTools' });
    expect(statements).not.toHaveBeenCalled();
  });
});
