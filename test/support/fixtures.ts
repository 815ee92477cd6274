import { newMember, newSpace } from './tenancy';
import { identity, type TestApp, type TestIdentity } from './test-app';

export interface SpaceMember extends TestIdentity {
  spaceId: string;
}

/** A new team with an admin, one space, and a member of it holding the given scopes. */
export async function memberOfNewSpace(t: TestApp, scopes = ['memory:read', 'memory:write']): Promise<SpaceMember> {
  const admin = await identity(['admin']);
  const spaceId = await newSpace(t, admin);
  return { ...(await newMember(t, admin, [spaceId], scopes)), spaceId };
}

export interface ToolResultInputShape {
  spaceId: string;
  conversationId: string;
  messageId: string;
  toolUseId: string;
  toolName: string;
  toolInput: unknown;
  toolOutput: unknown;
  createdAt?: string;
}

/** A tool result for a conversation; ids are fresh unless given. */
export function toolResult(spaceId: string, conversationId: string, overrides: Partial<ToolResultInputShape> = {}): ToolResultInputShape {
  return {
    spaceId,
    conversationId,
    messageId: crypto.randomUUID(),
    toolUseId: `toolu_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`,
    toolName: 'query_site_data',
    toolInput: { target: 'recent_members' },
    toolOutput: { members: [{ name: 'Ada', registered_at: '2026-05-10' }] },
    ...overrides,
  };
}

export const RECORD = `mutation($input: [ToolResultInput!]!) {
  recordToolResults(input: $input) {
    createdCount duplicateCount
    snapshots { id memId spaceId conversationId messageId toolUseId toolName toolInput toolOutput sizeChars createdAt }
  }
}`;
