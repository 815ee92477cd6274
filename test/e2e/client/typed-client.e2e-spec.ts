import type { AddressInfo } from 'node:net';
import {
  CreateSpaceDocument,
  MeDocument,
  RecallToolResultDocument,
  RecordToolResultsDocument,
  SpacesDocument,
  createRecallLedgerClient,
  type RecallLedgerClient,
} from '../../../clients/typescript/src';
import { toolResult } from '../../support/fixtures';
import { rejection } from '../../support/typed-client';
import { addMember } from '../../support/tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from '../../support/test-app';

// The generated client over real HTTP: the service listens on a port and the client calls it with fetch.
describe('typed client against the service (e2e, issue 23)', () => {
  let t: TestApp;
  let url: string;
  let admin: TestIdentity;
  let member: TestIdentity;
  let adminClient: RecallLedgerClient;
  let memberClient: RecallLedgerClient;
  let spaceId: string;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}/graphql`;
    admin = await identity(['admin']);
    member = await identity(['memory:read', 'memory:write'], { teamId: admin.teamId });
    adminClient = createRecallLedgerClient({ url, token: admin.token });
    // A function, as a web page holding the token in memory passes it.
    memberClient = createRecallLedgerClient({ url, token: () => member.token });
    spaceId = (await adminClient.request(CreateSpaceDocument, { name: 'shared' })).createSpace.id;
    await addMember(t, admin, spaceId, member.userId);
  });
  afterAll(async () => {
    await t.close();
  });

  it('R-TN-3 me provisions the caller from its token and answers its identity', async () => {
    const fresh = await identity(['memory:read']);
    const { me } = await createRecallLedgerClient({ url, token: fresh.token }).request(MeDocument);
    expect(me).toEqual({ userId: fresh.userId, teamId: fresh.teamId, scopes: ['memory:read'], spaces: [] });
  });

  it("R-TN-6 R-TN-4 createSpace gives an ACTIVE space at generation 1, listed by spaces and in its members' me", async () => {
    const { createSpace } = await adminClient.request(CreateSpaceDocument, { name: 'research' });
    expect(createSpace).toMatchObject({ name: 'research', status: 'ACTIVE', generation: 1, memberIds: [admin.userId] });

    const { spaces } = await adminClient.request(SpacesDocument);
    expect(spaces.map((space) => space.id)).toEqual(expect.arrayContaining([createSpace.id, spaceId]));
    const { me } = await adminClient.request(MeDocument);
    expect(me.spaces).toContainEqual({ id: createSpace.id, name: 'research', generation: 1 });
    // The member was added to the space of beforeAll only.
    expect((await memberClient.request(MeDocument)).me.spaces).toEqual([{ id: spaceId, name: 'shared', generation: 1 }]);
  });

  it('R-TR-1 R-TR-2 R-LG-1 R-LG-2 a saved tool result is recalled by its mem id, whole and as its stub', async () => {
    const input = toolResult(spaceId, crypto.randomUUID(), { toolName: 'lookup_rows', toolOutput: { rows: [{ id: 1, name: 'alpha' }] } });
    const saved = await memberClient.request(RecordToolResultsDocument, { input: [input] });
    expect(saved.recordToolResults).toMatchObject({ createdCount: 1, duplicateCount: 0 });
    const [snapshot] = saved.recordToolResults.snapshots;
    expect(snapshot).toMatchObject({ toolUseId: input.toolUseId, toolName: 'lookup_rows', spaceId, conversationId: input.conversationId });
    expect(snapshot.memId).toMatch(/^mem_[a-z2-7]{16}$/);
    expect(snapshot.handle.stub).toContain(`recall_tool_result(mem_id='${snapshot.memId}'`);

    const again = await memberClient.request(RecordToolResultsDocument, { input: [input] });
    expect(again.recordToolResults).toMatchObject({ createdCount: 0, duplicateCount: 1, snapshots: [{ id: snapshot.id }] });

    const full = await memberClient.request(RecallToolResultDocument, { memId: snapshot.memId, format: 'FULL' });
    expect(full.recallToolResult).toContain('"name":"alpha"');
    const summary = await memberClient.request(RecallToolResultDocument, { memId: snapshot.memId });
    expect(summary.recallToolResult).toBe(snapshot.handle.stub);
  });

  it('R-OP-4 a bad argument is a RecallLedgerError BAD_USER_INPUT naming the field, with the request id', async () => {
    const error = await rejection(adminClient.request(CreateSpaceDocument, { name: '   ' }));
    expect(error).toMatchObject({ code: 'BAD_USER_INPUT', field: 'name', data: null });
    expect(error.message).toContain('space name');
    expect(error.requestId).toEqual(expect.any(String));
    expect(error.errors).toEqual([{ message: error.message, code: 'BAD_USER_INPUT', field: 'name', path: ['createSpace'] }]);
  });

  it('R-TN-2 R-OP-4 a memory:read token calling an admin query is FORBIDDEN', async () => {
    const reader = await identity(['memory:read'], { teamId: admin.teamId });
    const client = createRecallLedgerClient({ url, token: reader.token });
    const error = await rejection(client.request(SpacesDocument));
    expect(error).toMatchObject({ code: 'FORBIDDEN', field: null });
    expect(error.errors.map((e) => e.code)).toEqual(['FORBIDDEN']);
  });

  it('R-TN-1 R-OP-4 an invalid token is UNAUTHENTICATED', async () => {
    const client = createRecallLedgerClient({ url, token: 'not-a-jwt' });
    const error = await rejection(client.request(MeDocument));
    expect(error.code).toBe('UNAUTHENTICATED');
  });

  it("R-OP-4 a path that is not GraphQL is the edge's coded NOT_FOUND naming it, and a closed port NETWORK_ERROR", async () => {
    const notGraphql = await rejection(
      createRecallLedgerClient({ url: url.replace(/graphql$/, 'nope'), token: admin.token }).request(MeDocument),
    );
    expect(notGraphql.code).toBe('NOT_FOUND');
    expect(notGraphql.message).toContain('Nothing answers POST /nope');

    const closed = await rejection(createRecallLedgerClient({ url: 'http://127.0.0.1:9/graphql', token: admin.token }).request(MeDocument));
    expect(closed.code).toBe('NETWORK_ERROR');
    expect(closed.message).toContain('POST http://127.0.0.1:9/graphql failed');
  });
});
