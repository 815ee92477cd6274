import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ActorContext, Scope } from '../../tenancy';
import { captureSql, createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { recallEventServiceFor, recallMetricsFor, recallReadsFor } from '../../../test/support/recall-services';
import { HANDLE_COLUMNS, handleColumns, testConfig, toolResultServicesFor } from '../../../test/support/tool-results-service';
import { RecallBlockService } from '../recall-block.service';

/**
 * Release eval 4 (cross-tenant leak, R-RC-6): user B's rows carry user A's conversation id,
 * inserted straight into the table as a malformed join would see them. A's block must never
 * contain them, and the helper's SQL must carry the user predicate.
 */
describe('cross-tenant eval (R-RC-6, medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  let service: RecallBlockService;
  const team = crypto.randomUUID();
  const space = crypto.randomUUID();
  const userA = crypto.randomUUID();
  const userB = crypto.randomUUID();
  const conversationA = crypto.randomUUID();
  const actorA = new ActorContext(userA, team, [Scope.MEMORY_READ], [{ id: space, generation: 1 }]);

  beforeAll(async () => {
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    const config = testConfig();
    const metrics = recallMetricsFor();
    service = new RecallBlockService(
      toolResultServicesFor(em, config).reader,
      config,
      metrics,
      recallEventServiceFor(em),
      recallReadsFor(em),
    );

    const messageA = crypto.randomUUID();
    const messageB = crypto.randomUUID();
    await em.execute(
      `insert into teams (id) values (?);
       insert into users (id, team_id) values (?, ?), (?, ?);
       insert into spaces (id, team_id, name) values (?, ?, 's');
       insert into conversations (team_id, id, user_id, space_id) values (?, ?, ?, ?);
       insert into messages (team_id, id, conversation_id, user_id) values (?, ?, ?, ?), (?, ?, ?, ?);`,
      [
        team,
        userA,
        team,
        userB,
        team,
        space,
        team,
        team,
        conversationA,
        userA,
        space,
        team,
        messageA,
        conversationA,
        userA,
        team,
        messageB,
        conversationA,
        userB,
      ],
    );
    const row = (user: string, message: string, useId: string, target: string, minutesAgo: number) => {
      const snapshot = {
        memId: `mem_${useId.padEnd(16, 'a').slice(0, 16)}`,
        toolName: 'query_site_data',
        toolUseId: useId,
        sizeChars: 10,
        toolInput: { target },
        toolOutput: { members: [{ name: 'x', registered_at: '2026-05-10' }] },
      };
      return [
        crypto.randomUUID(),
        user,
        message,
        conversationA,
        snapshot.toolName,
        JSON.stringify(snapshot.toolInput),
        JSON.stringify(snapshot.toolOutput),
        minutesAgo,
        useId,
        snapshot.memId,
        snapshot.sizeChars,
        ...handleColumns(snapshot),
        team,
        team,
        conversationA,
      ];
    };
    const insert = `insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
                                                      ${HANDLE_COLUMNS}, team_id, space_generation)
      values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, now() - make_interval(mins => ?), ?, ?, ?, ?, ?, ?, ?, ?,
              ?, (select s.generation from conversations c join spaces s on s.team_id = c.team_id and s.id = c.space_id where c.team_id = ? and c.id = ?))`;
    await em.execute(insert, row(userA, messageA, 'aownrow', 'a_own_target', 30));
    // B's rows are the newest in A's conversation: a query without the user predicate would show them first.
    for (let i = 0; i < 5; i += 1) await em.execute(insert, row(userB, messageB, `bleak${i}`, `b_secret_${i}`, i));
  });
  afterAll(() => db.close());

  it("R-RC-6 A's block never contains B's rows, and the SQL carries the user predicate", async () => {
    statements.length = 0;
    const block = await RequestContext.create(em, () => service.build(actorA, conversationA, 'what did you show me?'));
    expect(block.lines).toHaveLength(1);
    expect(block.text).toContain('a_own_target');
    expect(block.text).not.toContain('b_secret');

    // The block's one statement reads through recall_events_recent_and_record, which hands its team and
    // user to ToolResults' read functions, and those filter by them (proven in their repository test): A's.
    const topK = statements.filter((s) => s.includes('from recall_events_recent_and_record('));
    expect(topK).toHaveLength(1);
    expect(readFunctionScopes(topK[0])).toEqual([`${team}/${userA}`]);
    // A's rows were found, so no separate look at the conversation was needed.
    expect(statements.filter((s) => s.includes('from conversations where'))).toEqual([]);
  });

  it("R-RC-6 B asking for A's conversation gets NOT_FOUND, not B's rows, with the user predicate in every statement", async () => {
    const actorB = new ActorContext(userB, team, [Scope.MEMORY_READ], [{ id: space, generation: 1 }]);
    statements.length = 0;
    await expect(RequestContext.create(em, () => service.build(actorB, conversationA, null))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // B's own rows in A's conversation are found by B's predicate, but the conversation is A's: refused.
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      if (/tool_results_\w+\(|recall_events_\w+_and_record\(/.test(statement))
        expect(new Set(readFunctionScopes(statement))).toEqual(new Set([`${team}/${userB}`]));
      else expect(statement).toContain(`user_id = '${userB}'`);
    }
  });
});

/**
 * The team and user (`team/user`) each read function in the statement is called for: ToolResults'
 * first two arguments, the block's read-and-record's p_team and p_user_id (its third and fourth).
 */
function readFunctionScopes(statement: string): string[] {
  const reads = /tool_results_\w+\('([0-9a-f-]{36})'::uuid, '([0-9a-f-]{36})'/g;
  const readAndRecord =
    /recall_events_recent_and_record\('(?:[^']|'')*'::jsonb, '(?:[^']|'')*'::jsonb, '([0-9a-f-]{36})'::uuid, '([0-9a-f-]{36})'::uuid/g;
  return [...statement.matchAll(reads), ...statement.matchAll(readAndRecord)].map((m) => `${m[1]}/${m[2]}`);
}
