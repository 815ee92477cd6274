import type { ConcreteFormat, MessageFormat } from '../../src/compaction/history/history.types';
import { signToken } from '../../src/tenancy/token-signer';
import { GraphqlClient } from '../../bench/graphql-client';
import { BENCH_JWT_SECRET, startDatabase, startService, type Teardown } from '../../bench/harness';
import { seededUuid } from '../../bench/seeded';
import type { LedgerPort } from './replay';
import { compactionInput, type CompactionSettings } from './strategies';

const COMPACT = `mutation($input: CompactMessagesInput!) { compactMessages(input: $input) { messages messageFormat } }`;
const RECALL = `query($m: String!, $f: RecallFormat, $q: String) { recallToolResult(memId: $m, format: $f, query: $q) }`;
const CREATE_SPACE = `mutation($name: String!) { createSpace(name: $name) { id } }`;
const ADD_MEMBER = `mutation($s: ID!, $u: ID!) { addSpaceMember(spaceId: $s, userId: $u) { id } }`;

/** The real service, started as `npm start` starts it (its own process) on a fresh embedded PostgreSQL. */
export interface LedgerService {
  /** A port for one run: a team of its own (so no run reuses another's snapshots), one space, one conversation. */
  portFor(runKey: string): Promise<LedgerPort>;
}

export async function startLedgerService(teardown: Teardown): Promise<LedgerService> {
  const database = await startDatabase(teardown, false);
  // Histories near a megabyte, sent whole on every call.
  const service = await startService(teardown, database.url, database.folder, { HTTP_BODY_LIMIT: '20mb', LOG_LEVEL: 'error' });
  const client = new GraphqlClient(service.baseUrl, 4);
  teardown.add('close the HTTP agent', () => client.close());
  return {
    portFor: async (runKey) => {
      const teamId = seededUuid(`cost-eval team ${runKey}`);
      const admin = await signToken({
        userId: seededUuid(`cost-eval admin ${runKey}`),
        teamId,
        scopes: ['admin'],
        secret: BENCH_JWT_SECRET,
      });
      const userId = seededUuid(`cost-eval member ${runKey}`);
      const token = await signToken({ userId, teamId, scopes: ['memory:read', 'memory:write'], secret: BENCH_JWT_SECRET });
      const { createSpace } = await client.call<{ createSpace: { id: string } }>(CREATE_SPACE, { name: runKey }, admin);
      await client.call(ADD_MEMBER, { s: createSpace.id, u: userId }, admin);
      return ledgerPort(client, token, createSpace.id, seededUuid(`cost-eval conversation ${runKey}`));
    },
  };
}

function ledgerPort(client: GraphqlClient, token: string, spaceId: string, conversationId: string): LedgerPort {
  return {
    compact: async (messages: object[], format: ConcreteFormat, settings: CompactionSettings) => {
      const input = { spaceId, conversationId, messages, messageFormat: format, ...compactionInput(settings) };
      const { compactMessages } = await client.call<{ compactMessages: { messages: object[]; messageFormat: MessageFormat } }>(
        COMPACT,
        { input },
        token,
      );
      if (compactMessages.messageFormat !== format) throw new Error(`the service read ${format} as ${compactMessages.messageFormat}`);
      return compactMessages.messages;
    },
    recall: async (memId: string, query: string | null) => {
      const variables = query === null ? { m: memId, f: 'FULL' } : { m: memId, q: query };
      return (await client.call<{ recallToolResult: string }>(RECALL, variables, token)).recallToolResult;
    },
  };
}
