/**
 * IDOR matrix for snapshot reads (R-TN-4, R-TN-5): situations × operations, one test per cell.
 *
 * Every situation starts from a snapshot the owner recorded through the API while its space was
 * allowed, and a positive control shows every operation returning it. Then the situation is
 * applied (space sealed, retired, owner removed from it) or another reader is used (a member of
 * the same space, a user of another team), and each read must answer exactly as for a missing
 * snapshot: toolResult null, history/prior empty, recallToolResult `[tool_memory not found: …]`,
 * recallBlock NOT_FOUND. Writes that reuse the snapshot's toolUseId (compactMessages,
 * recordToolResults) must never hand back its mem id: for the owner they are CONFLICT and write
 * nothing; for anyone else they create a snapshot of their own.
 */
import { notFoundText } from '../../../src/lookup/keyed-slice';
import { memberOfNewSpace, toolResult, type SpaceMember } from '../../support/fixtures';
import { expectErrorCode, gql, ok } from '../../support/graphql';
import { newMember, newSpace, REMOVE_MEMBER, RETIRE, SEAL } from '../../support/tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';

const OUTPUT = { items: [{ price: 1 }] };
const READ_WRITE = ['memory:read', 'memory:write'];

const RECORD = `mutation($input: [ToolResultInput!]!) {
  recordToolResults(input: $input) { createdCount duplicateCount snapshots { id memId handle { stub } } }
}`;
const COMPACT = `mutation($input: CompactMessagesInput!) { compactMessages(input: $input) { compactedCount handles { memId toolCallId stub } } }`;
const TOOL_RESULT = `query($id: ID!) { toolResult(id: $id) { id } }`;
const HISTORY = `query($c: ID) { toolResultHistory(conversationId: $c, first: 100) { edges { node { id } } } }`;
const PRIOR = `query($c: ID) { priorToolResults(conversationId: $c, limit: 100) { id } }`;
const RECALL = `query($m: String!, $f: RecallFormat, $p: String) { recallToolResult(memId: $m, format: $f, jsonPath: $p) }`;
const BLOCK = `query($c: ID!) { recallBlock(conversationId: $c) { lines { snapshotId } } }`;

interface Snap {
  id: string;
  memId: string;
  conversationId: string;
  toolUseId: string;
  stub: string;
}
/** The owner is a member of the snapshot's space and of a spare ACTIVE space of the same team. */
interface World {
  admin: TestIdentity;
  owner: SpaceMember;
  spare: string;
}
interface Read {
  ids: string;
  name: string;
  read(who: TestIdentity, s: Snap): Promise<unknown>;
  allowed(s: Snap): unknown;
  missing(s: Snap): unknown;
}
interface Situation {
  ids: string;
  name: string;
  /** The owner itself reads afterwards (its reuse of the toolUseId is a CONFLICT). */
  ownerReads: boolean;
  /** Applies the situation and returns who reads, with the space it writes to. */
  apply(w: World): Promise<SpaceMember>;
}

describe('Snapshot scoping: IDOR matrix (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function newWorld(): Promise<World> {
    const admin = await identity(['admin']);
    const [space, spare] = [await newSpace(t, admin, 'scoping'), await newSpace(t, admin, 'scoping')];
    const owner = await newMember(t, admin, [space, spare], READ_WRITE);
    return { admin, owner: { ...owner, spaceId: space }, spare };
  }

  async function recordOne(owner: SpaceMember): Promise<Snap> {
    const input = toolResult(owner.spaceId, crypto.randomUUID(), { toolOutput: OUTPUT });
    type Out = { recordToolResults: { createdCount: number; snapshots: { id: string; memId: string; handle: { stub: string } }[] } };
    const out = (await ok<Out>(t, RECORD, { input: [input] }, owner.token)).recordToolResults;
    expect(out.createdCount).toBe(1);
    const [s] = out.snapshots;
    return { id: s.id, memId: s.memId, conversationId: input.conversationId, toolUseId: input.toolUseId, stub: s.handle.stub };
  }

  const compactReusing = (who: SpaceMember, toolUseId: string, conversationId: string) => {
    const messages = [
      { role: 'user', content: 'show me the prices' },
      { role: 'assistant', content: [{ type: 'tool_use', id: toolUseId, name: 'query_site_data', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: 'price list '.repeat(1000) }] },
    ];
    const input = { spaceId: who.spaceId, conversationId, messages, sizeThreshold: 10, keepLastN: 0 };
    return gql<{ compactMessages: { handles: { memId: string; toolCallId: string }[] } }>(t, COMPACT, { input }, who.token);
  };
  const recordReusing = (who: SpaceMember, toolUseId: string, conversationId: string) =>
    gql<{ recordToolResults: { createdCount: number; snapshots: { memId: string }[] } }>(
      t,
      RECORD,
      { input: [toolResult(who.spaceId, conversationId, { toolUseId })] },
      who.token,
    );
  const conversationExists = async (id: string) => (await t.sql.query('select 1 from conversations where id = $1', [id])).rowCount === 1;

  const reads: Read[] = [
    {
      ids: 'R-TR-7',
      name: 'toolResult(id)',
      read: async (who, s) =>
        (await ok<{ toolResult: { id: string } | null }>(t, TOOL_RESULT, { id: s.id }, who.token)).toolResult?.id ?? null,
      allowed: (s) => s.id,
      missing: () => null,
    },
    ...[false, true].map((byConversation): Read => ({
      ids: 'R-TR-7',
      name: `toolResultHistory(${byConversation ? 'conversationId' : ''})`,
      read: async (who, s) => {
        const data = await ok<{ toolResultHistory: { edges: { node: { id: string } }[] } }>(
          t,
          HISTORY,
          { c: byConversation ? s.conversationId : null },
          who.token,
        );
        return data.toolResultHistory.edges.map((e) => e.node.id);
      },
      allowed: (s) => [s.id],
      missing: () => [],
    })),
    ...[false, true].map((byConversation): Read => ({
      ids: 'R-RC-7',
      name: `priorToolResults(${byConversation ? 'conversationId' : ''})`,
      read: async (who, s) =>
        (
          await ok<{ priorToolResults: { id: string }[] }>(t, PRIOR, { c: byConversation ? s.conversationId : null }, who.token)
        ).priorToolResults.map((r) => r.id),
      allowed: (s) => [s.id],
      missing: () => [],
    })),
    ...(
      [
        ['format: FULL', { f: 'FULL' }, () => JSON.stringify(OUTPUT)],
        ['format: SUMMARY', { f: 'SUMMARY' }, (s: Snap) => s.stub],
        ['jsonPath: items.0.price', { p: 'items.0.price' }, () => '1'],
      ] as const
    ).map(([mode, args, allowed]): Read => ({
      ids: 'R-LG-2',
      name: `recallToolResult(${mode})`,
      read: async (who, s) => (await ok<{ recallToolResult: string }>(t, RECALL, { m: s.memId, ...args }, who.token)).recallToolResult,
      allowed,
      missing: (s) => notFoundText(s.memId),
    })),
    {
      ids: 'R-RC-6',
      name: 'recallBlock(conversationId)',
      read: async (who, s) => {
        const res = await gql<{ recallBlock: { lines: { snapshotId: string }[] } }>(t, BLOCK, { c: s.conversationId }, who.token);
        if (res.errors) return { data: res.data ?? null, code: res.errors[0].extensions?.code, message: res.errors[0].message };
        return { lines: res.data!.recallBlock.lines.map((l) => l.snapshotId) };
      },
      allowed: (s) => ({ lines: [s.id] }),
      missing: (s) => ({ data: null, code: 'NOT_FOUND', message: `Conversation ${s.conversationId} was not found.` }),
    },
  ];

  const adminDoes = (mutation: string, varsOf: (w: World) => Record<string, unknown>) => async (w: World) => {
    await ok(t, mutation, varsOf(w), w.admin.token);
    return { ...w.owner, spaceId: w.spare };
  };
  const situations: Situation[] = [
    {
      ids: 'R-TN-4 R-TN-5 R-TN-6',
      name: 'the space was sealed',
      ownerReads: true,
      apply: adminDoes(SEAL, (w) => ({ s: w.owner.spaceId })),
    },
    {
      ids: 'R-TN-4 R-TN-5 R-TN-6',
      name: 'the space was retired',
      ownerReads: true,
      apply: adminDoes(RETIRE, (w) => ({ s: w.owner.spaceId })),
    },
    {
      ids: 'R-TN-4 R-TN-5 R-TN-6',
      name: 'the owner was removed from the space',
      ownerReads: true,
      apply: adminDoes(REMOVE_MEMBER, (w) => ({ s: w.owner.spaceId, u: w.owner.userId })),
    },
    {
      ids: 'R-TN-5',
      name: 'another member of the same space reads',
      ownerReads: false,
      apply: async (w) => {
        const peer = await newMember(t, w.admin, [w.owner.spaceId], READ_WRITE);
        return { ...peer, spaceId: w.owner.spaceId };
      },
    },
    { ids: 'R-TN-5', name: 'a user of another team reads', ownerReads: false, apply: () => memberOfNewSpace(t) },
  ];

  describe('reference: what a missing snapshot reads as', () => {
    it.each(reads)('$ids R-TN-5 $name of a made-up snapshot', async (op) => {
      const { owner } = await newWorld();
      const madeUp: Snap = {
        id: crypto.randomUUID(),
        memId: 'mem_aaaaaaaaaaaaaaaa',
        conversationId: crypto.randomUUID(),
        toolUseId: 'x',
        stub: '',
      };
      expect(await op.read(owner, madeUp)).toEqual(op.missing(madeUp));
    });
  });

  describe.each(situations)('$ids when $name', (situation) => {
    let world: World;
    let snap: Snap;
    beforeAll(async () => {
      world = await newWorld();
      snap = await recordOne(world.owner);
    });

    describe('control: while allowed, the owner', () => {
      it.each(reads)('$ids reads it through $name', async (op) => {
        expect(await op.read(world.owner, snap)).toEqual(op.allowed(snap));
      });

      it('R-LG-3 R-TR-2 gets its handle back from compactMessages reusing the toolUseId in the spare space', async () => {
        const res = await compactReusing({ ...world.owner, spaceId: world.spare }, snap.toolUseId, crypto.randomUUID());
        expect(res.errors).toBeUndefined();
        expect(res.data!.compactMessages.handles.map((h) => h.memId)).toEqual([snap.memId]);
      });

      it('R-TR-2 gets it back as a duplicate from recordToolResults reusing the toolUseId', async () => {
        const res = await recordReusing(world.owner, snap.toolUseId, crypto.randomUUID());
        expect(res.errors).toBeUndefined();
        expect(res.data!.recordToolResults).toMatchObject({ createdCount: 0, snapshots: [{ memId: snap.memId }] });
      });
    });

    describe('then', () => {
      let reader: SpaceMember;
      beforeAll(async () => {
        reader = await situation.apply(world);
      });

      it.each(reads)('$ids R-TN-5 $name reads it exactly as a missing one', async (op) => {
        expect(await op.read(reader, snap)).toEqual(op.missing(snap));
      });

      it('R-TN-5 R-LG-3 compactMessages reusing the toolUseId never returns its handle', async () => {
        const conversationId = crypto.randomUUID();
        const res = await compactReusing(reader, snap.toolUseId, conversationId);
        expect(JSON.stringify(res)).not.toContain(snap.memId);
        if (situation.ownerReads) {
          const field = 'input.messages.2.content.0.tool_use_id';
          expectErrorCode(res, 'CONFLICT', { field });
          expect(res.data ?? null).toBeNull();
          expect(await conversationExists(conversationId)).toBe(false);
        } else {
          expect(res.errors).toBeUndefined();
          expect(res.data!.compactMessages.handles).toEqual([expect.objectContaining({ toolCallId: snap.toolUseId })]);
        }
      });

      it('R-TN-5 R-TR-2 recordToolResults reusing the toolUseId never returns the snapshot', async () => {
        const conversationId = crypto.randomUUID();
        const res = await recordReusing(reader, snap.toolUseId, conversationId);
        expect(JSON.stringify(res)).not.toContain(snap.memId);
        if (situation.ownerReads) {
          expectErrorCode(res, 'CONFLICT', { field: 'input.0.toolUseId' });
          expect(await conversationExists(conversationId)).toBe(false);
        } else {
          expect(res.errors).toBeUndefined();
          expect(res.data!.recordToolResults.snapshots).toEqual([expect.objectContaining({ memId: expect.stringMatching(/^mem_/) })]);
        }
      });
    });
  });
});
