import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/**
 * `tool_results_search` runs as the owner (issue 40: under row-level security `@@` could not use
 * the GIN index), so row-level security no longer filters its rows: the function must. Called as
 * the request role, as a request calls it, it answers only its own team and user, in an allowed
 * space at its current generation, and refuses arguments that leave the transaction's tenant scope
 * (a scope set by the request, or entered by an earlier function of the same transaction).
 */
describe('the owner-run full-text search keeps the tenant scope (medium, real PostgreSQL)', () => {
  let database: TestDatabase;
  let owner: Client;
  const WORD = 'zebracorn';
  const ids = {
    teamA: crypto.randomUUID(),
    teamB: crypto.randomUUID(),
    spaceA: crypto.randomUUID(),
    spaceA2: crypto.randomUUID(),
    spaceB: crypto.randomUUID(),
    userA: crypto.randomUUID(),
    teammate: crypto.randomUUID(),
    userB: crypto.randomUUID(),
  };

  /**
   * A conversation of `conversationUser` in `space` with one snapshot of `user` mentioning WORD,
   * tagged `tag`, at `generation`. (The service writes a snapshot only into its user's own
   * conversation; the owner can write the odd row a policy would hide.)
   */
  async function snapshot(team: string, user: string, space: string, tag: string, generation = 1, conversationUser = user): Promise<void> {
    const conversation = crypto.randomUUID();
    const message = crypto.randomUUID();
    await owner.query('insert into conversations (team_id, id, user_id, space_id) values ($1, $2, $3, $4)', [
      team,
      conversation,
      conversationUser,
      space,
    ]);
    await owner.query('insert into messages (team_id, id, conversation_id, user_id) values ($1, $2, $3, $4)', [
      team,
      message,
      conversation,
      user,
    ]);
    await owner.query(
      `insert into message_tool_results (id, team_id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, tool_use_id,
                                         mem_id, size_chars, summary_oneliner, stub, size_tokens, space_generation)
       values (gen_random_uuid(), $1, $2, $3, $4, 'search_docs', '{}', $5, $6, $7, 40, 'text', 'stub', 10, $8)`,
      [team, user, message, conversation, JSON.stringify({ text: `${WORD} ${tag}` }), `toolu_${tag}`, `mem_${tag}`, generation],
    );
  }

  /** Calls the search as the request role after `settings` (a request's team and user), returning the tags found. */
  async function searchAs(
    settings: { team: string; user: string } | null,
    args: { team: string; user: string; spaceIds: string[]; space: string },
  ): Promise<string[]> {
    const client = new Client({ connectionString: database.appUrl });
    await client.connect();
    try {
      await client.query('begin');
      if (settings) {
        await client.query(`select set_config('app.team_id', $1, true), set_config('app.user_id', $2, true)`, [
          settings.team,
          settings.user,
        ]);
      }
      const { rows } = await client.query<{ mem_id: string }>(
        `select mem_id from tool_results_search($1, $2, $3, $4, $5, null, null, null, 50, false, false) order by rank`,
        [args.team, args.user, args.spaceIds, args.space, WORD],
      );
      return rows.map((r) => r.mem_id.replace(/^mem_/, '')).sort();
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    owner = new Client({ connectionString: database.url });
    await owner.connect();
    const { teamA, teamB, spaceA, spaceA2, spaceB, userA, teammate, userB } = ids;
    await owner.query(`insert into teams (id) values ('${teamA}'), ('${teamB}')`);
    await owner.query(
      `insert into spaces (id, team_id, name, generation) values ('${spaceA}', '${teamA}', 'a', 2), ('${spaceA2}', '${teamA}', 'a2', 1),
                                                                ('${spaceB}', '${teamB}', 'b', 1)`,
    );
    await owner.query(
      `insert into users (id, team_id) values ('${userA}', '${teamA}'), ('${teammate}', '${teamA}'), ('${userB}', '${teamB}')`,
    );
    await snapshot(teamA, userA, spaceA, 'mine', 2);
    await snapshot(teamA, userA, spaceA, 'old', 1);
    await snapshot(teamA, userA, spaceA2, 'space2');
    await snapshot(teamA, teammate, spaceA, 'mate', 2);
    await snapshot(teamA, userA, spaceA, 'in_mates', 2, teammate);
    await snapshot(teamB, userB, spaceB, 'teamb');
    await owner.query('analyze');
  });
  afterAll(async () => {
    await owner?.end();
    await database?.drop();
  });

  const mine = () => ({ team: ids.teamA, user: ids.userA });

  it('R-TN-4 R-TN-8 R-RC-8 finds the user’s own snapshot of the space at its current generation, nothing of a teammate (or in a teammate’s conversation), another team or space', async () => {
    expect(await searchAs(mine(), { ...mine(), spaceIds: [ids.spaceA, ids.spaceA2], space: ids.spaceA })).toEqual(['mine']);
    expect(await searchAs(mine(), { ...mine(), spaceIds: [ids.spaceA, ids.spaceA2], space: ids.spaceA2 })).toEqual(['space2']);
  });

  it('R-TN-5 R-RC-6 a space outside the allowed set, or another team’s space, answers nothing', async () => {
    expect(await searchAs(mine(), { ...mine(), spaceIds: [ids.spaceA2], space: ids.spaceA })).toEqual([]);
    expect(await searchAs(mine(), { ...mine(), spaceIds: [ids.spaceB], space: ids.spaceB })).toEqual([]);
  });

  it.each([
    ['another team', () => ({ team: ids.teamB, user: ids.userB }), () => ids.spaceB],
    ['a teammate', () => ({ team: ids.teamA, user: ids.teammate }), () => ids.spaceA],
    ['another team with the same user', () => ({ team: ids.teamB, user: ids.userA }), () => ids.spaceB],
  ])('R-TN-4 R-TN-8 arguments naming %s outside the request’s own scope are refused (RL003)', async (_who, args, space) => {
    await expect(searchAs(mine(), { ...args(), spaceIds: [space()], space: space() })).rejects.toMatchObject({ code: 'RL003' });
  });

  it('R-TN-8 a lone call enters the scope its arguments name (rl_enter, as every read function does) and answers only that scope', async () => {
    expect(await searchAs(null, { ...mine(), spaceIds: [ids.spaceA], space: ids.spaceA })).toEqual(['mine']);
    expect(await searchAs(null, { team: ids.teamA, user: ids.teammate, spaceIds: [ids.spaceA], space: ids.spaceA })).toEqual(['mate']);
  });

  it('R-TN-8 only the request role may call it: PUBLIC has no EXECUTE, and it pins its search_path', async () => {
    const { rows } = await owner.query<{ definer: boolean; config: string[]; public_execute: boolean; app_execute: boolean }>(
      `select p.prosecdef as definer, p.proconfig as config,
              exists (select 1 from aclexplode(p.proacl) a where a.grantee = 0 and a.privilege_type = 'EXECUTE') as public_execute,
              has_function_privilege('recall_ledger_app', p.oid, 'EXECUTE') as app_execute
         from pg_proc p where p.proname = 'tool_results_search'`,
    );
    expect(rows).toEqual([
      {
        definer: true,
        config: expect.arrayContaining(['search_path=public, pg_temp']) as unknown,
        public_execute: false,
        app_execute: true,
      },
    ]);
  });
});
