import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import rule, { looksLikeSql } from '../../eslint-rules/no-sql-outside-repositories.mjs';

// The rule's own unit test: what reads as SQL and what is ordinary English. Where the rule applies
// (src/ less repositories, run-sql.ts and tests) is eslint.config.mjs's business.
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' } });

const ENGLISH = [
  'Select a space from the list.',
  'Select one or more spaces from which to recall; where omitted, all spaces in the token are used.',
  'Join the team on Monday.',
  '  --out <file>     where to write the JSONL (created or overwritten; required)',
  'Update the space and set its name.',
  'Delete from the list any item that is stale.',
  'Insert into the ledger the tool results of one turn, then select one from them.',
  'Create a table of results.',
  'Could not create database: permission denied.',
  'Drop this item and resubmit the items after it.',
  'The order by which results are shown, newest first.',
  'Results where the score is higher than the limit are dropped.',
  'Pick the rows from a table where value = 3.',
  'The items are grouped by team and ordered by date.',
  'Select as many as you like, or select one (or more) options.',
];

const GRAPHQL_DESCRIPTIONS = [
  `class A { @Field(() => [String], { description: 'Spaces to search; where omitted, every space the token may read.' }) spaceIds: string[]; }`,
  `class B { @Field({ description: 'Only results from this conversation; join it with recallToolResult to read one in full.' }) conversationId?: string; }`,
  `@ObjectType({ description: 'A tool result the agent fetched earlier, selected from the ledger by relevance.' }) class M {}`,
];

const SQL = [
  `const q = 'select 1 from pg_database where datname = $1';`,
  'const q = `select id, name from spaces where team_id = ? order by created_at desc, id desc`;',
  'const q = `select count(*) from users`;',
  'const q = `insert into feedback_events (id, team_id) values (?, ?)`;',
  'const q = `insert into recall_events as e ${COLUMNS} values (${PLACEHOLDERS}) returning id`;',
  "const q = 'update spaces set status = ? where id = ?';",
  "const q = 'delete from retention_leases where expires_at < now()';",
  `const q = 'create index "feedback_events_team_recency" on "feedback_events" ("team_id", "created_at" desc)';`,
  'const q = `create database ${name}`;',
  'const q = `${SELECT_VIEW} where s.team_id = ? group by s.id order by s.created_at, s.id`;',
  "const q = 'left join space_members m on m.space_id = s.id';",
  'const q = `select current_database() as "database", current_setting(\'server_encoding\') as "encoding"`;',
  "const q = 'select r.id, r.tool_name ' + 'from message_tool_results r ' + 'where r.user_id = ?';",
  'const q = sql`select * from spaces where id = ${id}`;',
  "const q = 'with recent as (select id from recall_events) select * from recent';",
  "const q = 'drop trigger if exists fail on recall_events';",
];

describe('R-house: no-sql-outside-repositories', () => {
  it('R-house: English sentences are not SQL', () => {
    for (const text of ENGLISH) expect([text, looksLikeSql(text)]).toEqual([text, false]);
  });

  it('R-house: typical SQL fragments are SQL', () => {
    const fragments = ['select 1 from pg_database where datname = $1', 'where s.team_id = ?', "alter system set max_wal_size = '8GB'"];
    for (const text of fragments) expect([text, looksLikeSql(text)]).toEqual([text, true]);
  });

  tester.run('no-sql-outside-repositories', rule, {
    valid: [
      ...ENGLISH.map((text) => ({ code: `const message = ${JSON.stringify(text)};` })),
      ...GRAPHQL_DESCRIPTIONS.map((code) => ({ code })),
      // Module names and error texts quoting a user's words are not statements.
      { code: "import { x } from './select-from-where';" },
      { code: 'throw new Error(`Unknown feature flag "${key}"; known flags: ${known.join(", ")}.`);' },
    ],
    invalid: SQL.map((code) => ({ code, errors: [{ messageId: 'sql' }] })),
  });
});
