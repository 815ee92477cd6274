/** Set-up the recall search and recall event e2e files share: teams, snapshots, recalls, events read back. */
import { createHash, randomInt } from 'node:crypto';
import { RECORD, type SpaceMember, type ToolResultInputShape } from './fixtures';
import { gql, ok } from './graphql';
import { EVENT, RECALL, type RecallEvent, type RecallResult } from './recall-events-api';
import { newMember, newSpace } from './tenancy';
import { createTestApp, identity, type TestApp, type TestIdentity } from './test-app';

/** The app every recall events e2e file runs against, on a database of its own; search records a ~300 KB output. */
export function createRecallEventsApp(): Promise<TestApp> {
  return createTestApp({ HTTP_BODY_LIMIT: '10mb' });
}

/** A team: its admin and one member (memory:read + memory:write) of its one space. */
export interface Team {
  admin: TestIdentity;
  member: SpaceMember;
}

export async function join(
  t: TestApp,
  admin: TestIdentity,
  spaceId: string,
  scopes = ['memory:read', 'memory:write'],
): Promise<SpaceMember> {
  return { ...(await newMember(t, admin, [spaceId], scopes)), spaceId };
}

export async function newTeam(t: TestApp): Promise<Team> {
  const admin = await identity(['admin']);
  const spaceId = await newSpace(t, admin, 'recall-events');
  return { admin, member: await join(t, admin, spaceId) };
}

export async function record(t: TestApp, who: TestIdentity, inputs: ToolResultInputShape[]): Promise<{ id: string }[]> {
  return (await ok<{ recordToolResults: { snapshots: { id: string }[] } }>(t, RECORD, { input: inputs }, who.token)).recordToolResults
    .snapshots;
}

type RecallVariables = { s: string; q: string; c?: string; tool?: string; days?: number; limit?: number };
export const recall = (t: TestApp, who: TestIdentity, vars: RecallVariables) =>
  gql<{ recallMemory: RecallResult }>(t, RECALL, vars, who.token);
export async function recallOk(t: TestApp, who: TestIdentity, vars: RecallVariables): Promise<RecallResult> {
  return (await ok<{ recallMemory: RecallResult }>(t, RECALL, vars, who.token)).recallMemory;
}

/** The event as `who` may read it back: null where it is not theirs to see. */
export async function eventOf(t: TestApp, who: TestIdentity, id: string): Promise<RecallEvent | null> {
  return (await ok<{ recallEvent: RecallEvent | null }>(t, EVENT, { id }, who.token)).recallEvent;
}

/** Stored recall events matching a SQL condition on recall_events. */
export const eventRows = async (t: TestApp, where: string, params: unknown[]) =>
  Number((await t.sql.query(`select count(*) from recall_events where ${where}`, params)).rows[0].count);

/** A word no other snapshot holds: lower-case letters only, so the `simple` parser keeps it whole. */
export const uniqueWord = (prefix = 'w') => prefix + Array.from({ length: 14 }, () => 'abcdefghijklmnopqrstuvwxyz'[randomInt(26)]).join('');
export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
