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
      [
        'recordBatch',
        () =>
          repo.recordBatch(scope, [{ id: conversationId, spaceId }], [{ id: messageId, conversationId }], [
            {
              ...{ id: crypto.randomUUID(), memId: newMemId(), conversationId, messageId, toolUseId: 't1', toolName: 'x', toolInput: {}, toolOutput: 'out', toolInputJson: '{}', toolOutputJson: '"out"', sizeChars: 3 },
              handle: buildHandle({ memId: 'mem_aaaaaaaaaaaaaaaa', toolName: 'x', toolUseId: 't1', sizeChars: 3, toolInput: {}, toolOutput: 'out' }),
              compacted: false,
            },
          ], { cap: 200, compacted: false }),
      ],
      ['findOwnConversationsAndMessages', () => repo.findOwnConversationsAndMessages(userId, [conversationId], [messageId])],
      ['findOwnToolUseIds', () => repo.findOwnToolUseIds(userId, ['t1'])],
      ['setCompacted', () => repo.setCompacted(userId, [crypto.randomUUID()], true)],
      ...reads,
    ];
    for (const [name, call] of calls) {
      const sql = await sqlOf(call);
      expect(sql.length).toBeGreaterThan(0);
      for (const statement of sql) {
        // The write function takes the user id first (its own statements are checked below); every other statement filters by it.
        expect({ name, statement }).toEqual({ name, statement: expect.stringMatching(/user_id = |record_tool_results\('[0-9a-f-]{36}'/) });
        expect(statement).toContain(userId);
      }
    }
  });

  it('R-TR-4 R-RC-6 every statement of the write function that reads, locks, updates or deletes rows filters by the user', async () => {
    const [{ body }] = await em.execute<{ body: string }[]>(`select prosrc as body from pg_proc where proname = 'record_tool_results'`);
    const statements = body.split(';').filter((s) => /\b(from|join|update)\s+(conversations|messages|message_tool_results)\b/i.test(s));
    expect(statements.length).toBe(5); // lock, ownership check, trim, repeat check, compacted mark
    for (const statement of statements) {
      // An insert's own rows take p_user as a value; what it reads and the rest must filter by it.
      const reads = statement.replace(/insert into[\s\S]*?select/i, 'select');
      expect({ statement: reads.trim().slice(0, 80), filtered: /user_id = p_user|user_id = \$2[\s\S]*using v_conversation, p_user/.test(reads) || !/\b(from|join|update)\s+(conversations|messages|message_tool_results)\b/i.test(reads) }).toMatchObject({ filtered: true });
    }
  });
});
