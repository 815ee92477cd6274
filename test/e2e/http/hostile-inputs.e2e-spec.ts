/**
 * Inputs the property tests found (R-OP-4): each parser accepted a value PostgreSQL then refused,
 * so a client's malformed argument reached it as a masked INTERNAL_SERVER_ERROR. Through the
 * whole stack, each must get the documented answer instead.
 */
import { memberOfNewSpace, RECORD, toolResult, type SpaceMember } from '../../support/fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { createTestApp, type TestApp } from '../../support/test-app';

const HISTORY = `query($after: String) { toolResultHistory(first: 10, after: $after) { edges { node { id } } } }`;
const RECALL = `query($m: String!, $p: String) { recallToolResult(memId: $m, jsonPath: $p) }`;

describe('hostile inputs the property tests found (e2e)', () => {
  let t: TestApp;
  let alice: SpaceMember;
  let memId: string;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await memberOfNewSpace(t);
    type Out = { recordToolResults: { snapshots: { memId: string }[] } };
    const input = [toolResult(alice.spaceId, crypto.randomUUID(), { toolOutput: { items: [{ price: 1 }] } })];
    memId = (await ok<Out>(t, RECORD, { input }, alice.token)).recordToolResults.snapshots[0].memId;
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['0000-00-00T00:00:00.000000Z', '2026-02-30T10:00:00.000000Z', '2026-01-01T24:00:00.000000Z'])(
    'R-TR-7 R-OP-4 a cursor of the right shape naming no real instant (%s) is BAD_USER_INPUT on after',
    async (createdAt) => {
      const after = Buffer.from(JSON.stringify([createdAt, crypto.randomUUID()])).toString('base64url');
      expectErrorCode(await gql(t, HISTORY, { after }, alice.token), 'BAD_USER_INPUT', { field: 'after' });
    },
  );

  it('R-TR-7 control: a real instant in a cursor pages as usual', async () => {
    const after = Buffer.from(JSON.stringify(['2999-01-01T00:00:00.000000Z', crypto.randomUUID()])).toString('base64url');
    const res = await gql<{ toolResultHistory: { edges: unknown[] } }>(t, HISTORY, { after }, alice.token);
    expect(res.errors).toBeUndefined();
    expect(res.data!.toolResultHistory.edges).toHaveLength(1);
  });

  it.each(['items.\u0000', '\u0000'])(
    'R-LG-2 R-OP-4 a json_path holding a NUL (%j) is answered with a text, not an error',
    async (jsonPath) => {
      const res = await gql<{ recallToolResult: string }>(t, RECALL, { m: memId, p: jsonPath }, alice.token);
      expect(res.errors).toBeUndefined();
      expect(res.data!.recallToolResult).toMatch(/^\[tool_memory bad json_path: /);
    },
  );

  it('R-LG-2 control: the same path without the NUL reads the value', async () => {
    expect((await ok<{ recallToolResult: string }>(t, RECALL, { m: memId, p: 'items.0.price' }, alice.token)).recallToolResult).toBe('1');
  });
});
