import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { captureSql, createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { newMemId } from '../mem-id';
import { buildHandle } from '../handle/build-handle';
import { ToolResultRepository } from '../tool-result.repository';

describe('ToolResultRepository (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  let repo: ToolResultRepository;
  const userId = crypto.randomUUID();
  const teamId = crypto.randomUUID();
  const spaceId = crypto.randomUUID();
  const conversationId = crypto.randomUUID();
  const messageId = crypto.randomUUID();

  beforeAll(async () => {
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork() as EntityManager;
    repo = new ToolResultRepository(em);
    await em.execute('insert into teams (id) values (?)', [teamId]);
    await em.execute('insert into users (id, team_id) values (?, ?)', [userId, teamId]);
    await em.execute(`insert into spaces (id, team_id, name) values (?, ?, 's')`, [spaceId, teamId]);
  });
  afterAll(() => db.close());

  /** Runs the work and returns the SQL statements it executed (transaction control left out). */
  async function sqlOf(work: () => Promise<unknown>): Promise<string[]> {
    statements.length = 0;
    await RequestContext.create(em, work);
    return statements.filter((s) => !/\b(begin|commit|rollback|savepoint)\b/i.test(s));
  }

  const scope = { userId, spaceIds: [spaceId] };
  const reads: [string, () => Promise<unknown>][] = [
    ['findByToolUseIds', () => repo.findByToolUseIds(scope, ['t1'])],
    ['findById', () => repo.findById(scope, crypto.randomUUID())],
    ['history', () => repo.history(scope, { conversationId }, null, 10)],
    ['recentInConversation', () => repo.recentInConversation(scope, conversationId, 5)],
    ['findByMemId', () => repo.findByMemId(scope, 'mem_aaaaaaaaaaaaaaaa')],
    ['findJsonPathValue', () => repo.findJsonPathValue(scope, 'mem_aaaaaaaaaaaaaaaa', ['items', '3'], 100)],
  ];

  it('R-TN-4 R-TN-5 every read of snapshots carries the allowed spaces in its SQL', async () => {
    for (const [name, call] of reads) {
      const sql = await sqlOf(call);
      expect(sql).toHaveLength(1);
      expect({ name, statement: sql[0] }).toEqual({ name, statement: expect.stringContaining('c.space_id = any(') });
      expect(sql[0]).toContain(`{${spaceId}}`);
    }
  });

  it('R-TR-4 R-RC-6 every statement of the write path and every read carries the user predicate', async () => {
    const calls: [string, () => Promise<unknown>][] = [
      ['insertMissingConversationsAndMessages', () => repo.insertMissingConversationsAndMessages(userId, [{ id: conversationId, spaceId }], [{ id: messageId, conversationId }])],
      ['lockOwnConversationsAndFindMessages', () => repo.inTransaction(() => repo.lockOwnConversationsAndFindMessages(userId, [conversationId], [messageId]))],
      [
        'insertSnapshots',
        () =>
          repo.insertSnapshots(userId, [
            {
              ...{ id: crypto.randomUUID(), memId: newMemId(), conversationId, messageId, toolUseId: 't1', toolName: 'x', toolInput: {}, toolOutput: 'out', toolInputJson: '{}', toolOutputJson: '"out"', sizeChars: 3 },
              handle: buildHandle({ memId: 'mem_aaaaaaaaaaaaaaaa', toolName: 'x', toolUseId: 't1', sizeChars: 3, toolInput: {}, toolOutput: 'out' }),
              compacted: false,
            },
          ]),
      ],
      ['trimConversations', () => repo.trimConversations(userId, [conversationId], 200)],
      ['setCompacted', () => repo.setCompacted(userId, [crypto.randomUUID()], true)],
      ...reads,
    ];
    for (const [name, call] of calls) {
      const sql = await sqlOf(call);
      expect(sql.length).toBeGreaterThan(0);
      for (const statement of sql) {
        // Inserts bind the user id as a column value; every other statement filters by it.
        expect({ name, statement }).toEqual({ name, statement: expect.stringMatching(/user_id = |\(id, user_id, |user_id, message_id|, user_id, role\)/) });
        expect(statement).toContain(userId);
      }
    }
  });
});
