import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { captureSql, createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { newMemId } from '../mem-id';
import { buildHandle } from '../handle/build-handle';
import { ConversationRepository } from '../conversation.repository';
import { ToolResultJsonPathRepository } from '../tool-result-json-path.repository';
import { ToolResultWriteRepository } from '../tool-result-write.repository';
import { ToolResultRepository } from '../tool-result.repository';

describe('snapshot repositories: reads, writes, JSON-path values (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  let repo: ToolResultRepository;
  let writes: ToolResultWriteRepository;
  let jsonPaths: ToolResultJsonPathRepository;
  const userId = crypto.randomUUID();
  const teamId = crypto.randomUUID();
  const spaceId = crypto.randomUUID();
  const conversationId = crypto.randomUUID();
  const messageId = crypto.randomUUID();

  beforeAll(async () => {
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    repo = new ToolResultRepository(em);
    writes = new ToolResultWriteRepository(em);
    jsonPaths = new ToolResultJsonPathRepository(em);
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

  const scope = { userId, teamId, spaceIds: [spaceId] };
  const reads: [string, () => Promise<unknown>][] = [
    ['findByToolUseIds', () => repo.findByToolUseIds(scope, ['t1'])],
    ['findById', () => repo.findById(scope, crypto.randomUUID())],
    ['history', () => repo.history(scope, { conversationId }, null, 10)],
    ['recentInConversation', () => repo.recentInConversation(scope, conversationId, 5)],
    ['search', () => repo.search(scope, { spaceId, query: 'weather', limit: 5 })],
    ['findByMemId', () => repo.findByMemId(scope, 'mem_aaaaaaaaaaaaaaaa')],
    ['findJsonPathValue', () => jsonPaths.findJsonPathValue(scope, 'mem_aaaaaaaaaaaaaaaa', { kind: 'keys', keys: ['items', '3'] }, 100)],
  ];

  it('R-TN-4 R-TN-5 every read of snapshots carries the allowed spaces in its SQL', async () => {
    for (const [name, call] of reads) {
      const sql = await sqlOf(call);
      expect(sql).toHaveLength(1);
      // In the statement itself, or as the argument of a read function of this module (checked below).
      expect({ name, statement: sql[0] }).toEqual({
        name,
        statement: expect.stringMatching(
          /c\.space_id = any\(|tool_results_\w+\(('[0-9a-f-]{36}'::uuid, )?'[0-9a-f-]{36}'(::uuid)?, '\{[0-9a-f-]{36}\}'::uuid\[\]/,
        ),
      });
      expect(sql[0]).toContain(`{${spaceId}}`);
    }
  });

  it('R-TN-4 R-TN-5 R-RC-6 every read function other modules call filters by the team, the user and the allowed spaces', async () => {
    const functions = await em.execute<{ name: string; body: string }[]>(
      `select proname as name, prosrc as body from pg_proc where proname in ('tool_results_recent', 'tool_results_search', 'tool_results_conversation_space', 'tool_results_path_value') order by 1`,
    );
    expect(functions.map((f) => f.name)).toEqual([
      'tool_results_conversation_space',
      'tool_results_path_value',
      'tool_results_recent',
      'tool_results_search',
    ]);
    for (const { name, body } of functions) {
      expect({
        name,
        team: /\b[rc]\.team_id = p_team\b/.test(body),
        user: /\b[rc]\.user_id = p_user_id\b/.test(body),
        spaces: /\b(c\.space_id|p_space_id) = any\(p_space_ids\)/.test(body),
      }).toEqual({ name, team: true, user: true, spaces: true });
    }
  });

  it('R-TR-4 R-RC-6 every statement of the write path and every read carries the team and the user predicate', async () => {
    const calls: [string, () => Promise<unknown>][] = [
      [
        'recordBatch',
        () =>
          writes.recordBatch(
            { ...scope, teamId },
            [{ id: conversationId, spaceId }],
            [{ id: messageId, conversationId }],
            [
              {
                ...{
                  id: crypto.randomUUID(),
                  memId: newMemId(),
                  conversationId,
                  messageId,
                  toolUseId: 't1',
                  toolName: 'x',
                  toolInput: {},
                  toolOutput: 'out',
                  toolInputJson: '{}',
                  toolOutputJson: '"out"',
                  sizeChars: 3,
                },
                handle: buildHandle({
                  memId: 'mem_aaaaaaaaaaaaaaaa',
                  toolName: 'x',
                  toolUseId: 't1',
                  sizeChars: 3,
                  toolInput: {},
                  toolOutput: 'out',
                }),
                compacted: false,
              },
            ],
            { cap: 200, compacted: false },
          ),
      ],
      ['findOwnConversation', () => new ConversationRepository(em).findOwnConversation({ teamId, userId }, conversationId)],
      ['setCompacted', () => writes.setCompacted(scope, [crypto.randomUUID()], true)],
      ...reads,
    ];
    for (const [name, call] of calls) {
      const sql = await sqlOf(call);
      expect(sql.length).toBeGreaterThan(0);
      for (const statement of sql) {
        // The write and read functions take the user id first (their own statements are checked below); every other statement filters by it.
        expect({ name, statement }).toEqual({
          name,
          statement: expect.stringMatching(/user_id = |(record_tool_results|tool_results_\w+)\('[0-9a-f-]{36}'/),
        });
        expect(statement).toContain(userId);
        expect(statement).toContain(teamId);
      }
    }
  });

  it('R-TR-4 R-RC-6 every statement of the write function that reads, locks, updates or deletes rows filters by the team and the user', async () => {
    const [{ body }] = await em.execute<{ body: string }[]>(`select prosrc as body from pg_proc where proname = 'record_tool_results'`);
    const statements = body.split(';').filter((s) => /\b(from|join|update)\s+(conversations|messages|message_tool_results)\b/i.test(s));
    // insert (it reads the conversations' spaces), lock, ownership checks (conversations, messages), trim, repeat check, compacted mark
    expect(statements.length).toBe(7);
    for (const statement of statements) {
      // An insert's own rows take p_team and p_user as values; what it reads and the rest must filter by them.
      const reads = statement.replace(/insert into[\s\S]*?select/i, 'select');
      const readsNothing = !/\b(from|join|update)\s+(conversations|messages|message_tool_results)\b/i.test(reads);
      expect({
        statement: reads.trim().slice(0, 80),
        team: /team_id = p_team|team_id = \$4[\s\S]*using v_conversation, p_user, p_cap, p_team/.test(reads) || readsNothing,
        user: /user_id = p_user|user_id = \$2[\s\S]*using v_conversation, p_user/.test(reads) || readsNothing,
      }).toMatchObject({ team: true, user: true });
    }
  });
});
