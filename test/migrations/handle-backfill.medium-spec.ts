import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { countTokens } from '../../src/common/text/tokenizer';
import { ormOptions } from '../../src/database/orm-options';
import { headPreview } from '../../src/tool-results/handle/head-preview';
import { STUB_MAX_TOKENS, isToolResultStub } from '../../src/tool-results/handle/stub';
import { createEmptyTestDatabase, type TestDatabase } from '../support/test-database';

const MIGRATIONS = join(__dirname, '..', '..', 'migrations');
const BEFORE_HANDLES = 'Migration20261129201000';
const HANDLES = 'Migration20261130004344';

interface BackfilledRow {
  mem_id: string;
  summary_oneliner: string | null;
  schema_hint: string | null;
  head_preview: string | null;
  stub: string | null;
  size_tokens: number | null;
  compacted: boolean;
}

const codePoints = (text: string): number => Array.from(text).length;
const reExpandLine = (memId: string): string =>
  `re-expand: recall_tool_result(mem_id='${memId}', format="full"); slice: query=<substring> | offset=<n>, max_chars=<n> | json_path=<dotted.path>`;

describe('migrations are frozen', () => {
  it('R-LG-1 no migration imports from src/', () => {
    for (const file of readdirSync(MIGRATIONS).filter((name) => name.endsWith('.ts'))) {
      const source = readFileSync(join(MIGRATIONS, file), 'utf8');
      expect({ file, imports: source.match(/(?:from\s+|require\(\s*|import\(\s*)['"][^'"]*\bsrc\/[^'"]*['"]/g) ?? [] }).toEqual({
        file,
        imports: [],
      });
    }
  });
});

describe('Migration20261130004344 handle backfill', () => {
  const statements: string[] = [];
  let database: TestDatabase;
  let orm: MikroORM;
  let client: Client;

  beforeAll(async () => {
    // Empty, not cloned from the template: the template is already fully migrated.
    database = await createEmptyTestDatabase();
    const options = ormOptions({ url: database.url });
    orm = await MikroORM.init({
      ...options,
      // A partial schema must not overwrite the committed snapshot in migrations/.
      migrations: { ...options.migrations, snapshot: false },
      debug: ['query'],
      logger: (message: string) => statements.push(message),
    });
    client = new Client({ connectionString: database.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await orm?.close(true);
    await database?.drop();
  });

  it('R-LG-1 rows from before the handle columns get a plain handle and a v2 stub from one set-based UPDATE', async () => {
    const migrator = orm.migrator;
    const before = await migrator.up({ to: BEFORE_HANDLES });
    expect(before.map((m) => m.name)).toEqual(['Migration20261129194856', 'Migration20261129195920', BEFORE_HANDLES]);

    const team = randomUUID();
    const user = randomUUID();
    const space = randomUUID();
    const conversation = randomUUID();
    const message = randomUUID();
    await client.query(`insert into teams (id) values ($1)`, [team]);
    await client.query(`insert into users (id, team_id) values ($1, $2)`, [user, team]);
    await client.query(`insert into spaces (id, team_id, name) values ($1, $2, 'pre-handle space')`, [space, team]);
    await client.query(`insert into space_members (space_id, user_id) values ($1, $2)`, [space, user]);
    await client.query(`insert into conversations (id, user_id, space_id) values ($1, $2, $3)`, [conversation, user, space]);
    await client.query(`insert into messages (id, conversation_id, user_id) values ($1, $2, $3)`, [message, conversation, user]);

    const longText = `  First line\tof a\r\nlong  result,\u00a0with\u2028odd white space.\n\n${'word '.repeat(60)}\u0085end  `;
    const jsonOutput = { total: 2, items: [{ sku: 'A-1', title: 'Red\nshoe' }, { sku: 'B-2' }] };
    const wideText = '😀 中文字符测试 '.repeat(20);
    const rows = [
      { memId: 'mem_ak3v7q2x6m4t3p5r', toolName: 'search_products', output: jsonOutput, sizeChars: JSON.stringify(jsonOutput).length },
      { memId: 'mem_bq6w2e7r3t5y4u2i', toolName: 'read_file', output: longText, sizeChars: longText.length },
      { memId: 'mem_cz7x3c5v2b6n4m7a', toolName: 'fetch_page', output: wideText, sizeChars: wideText.length },
      { memId: 'mem_dd4f6g2h7j3k5l2p', toolName: 'noop', output: ' \n\t ', sizeChars: 4 },
    ];
    for (const [index, row] of rows.entries()) {
      await client.query(
        `insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, tool_use_id, mem_id, size_chars)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          randomUUID(),
          user,
          message,
          conversation,
          row.toolName,
          JSON.stringify({ q: 'x' }),
          JSON.stringify(row.output),
          `toolu_${index}`,
          row.memId,
          row.sizeChars,
        ],
      );
    }

    statements.length = 0;
    const handles = await migrator.up({ to: HANDLES });
    expect(handles.map((m) => m.name)).toEqual([HANDLES]);
    // Set-based: one UPDATE for all rows, not one per row.
    expect(statements.filter((s) => /\bupdate\s+"?message_tool_results"?\s/i.test(s))).toHaveLength(1);

    const { rows: stored } = await client.query<BackfilledRow>(
      `select mem_id, summary_oneliner, schema_hint, head_preview, stub, size_tokens, compacted from message_tool_results order by mem_id`,
    );
    expect(stored.map((r) => r.mem_id)).toEqual(rows.map((r) => r.memId));
    const { rows: jsonText } = await client.query<{ text: string }>(
      `select tool_output::text as text from message_tool_results where mem_id = $1`,
      [rows[0].memId],
    );

    for (const [index, row] of stored.entries()) {
      const source = rows[index];
      expect(row.summary_oneliner).toBe(`${source.toolName} result, ${source.sizeChars} chars`);
      expect(row.schema_hint).toBeNull();
      expect(row.size_tokens).toBe(Math.ceil(source.sizeChars / 4));
      expect(row.compacted).toBe(false);
      expect(row.stub).not.toBeNull();
      const stub = row.stub as string;
      expect(stub.startsWith('[recall-ledger tool_memory v2]\n')).toBe(true); // the frozen copy renders the v2 stub of its day
      expect(isToolResultStub(stub)).toBe(true);
      expect(stub).toContain(`mem_id='${source.memId}'`);
      expect(countTokens(stub)).toBeLessThanOrEqual(STUB_MAX_TOKENS);
      if (row.head_preview !== null) expect(codePoints(row.head_preview)).toBeLessThanOrEqual(120);
    }

    const [json, long, wide, blank] = stored;
    // JSON other than a string: its jsonb text (a newline inside a JSON string stays escaped).
    expect(json.head_preview).toBe(jsonText[0].text);
    expect(json.head_preview).toBe('{"items": [{"sku": "A-1", "title": "Red\\nshoe"}, {"sku": "B-2"}], "total": 2}');
    expect(json.head_preview).toBe(headPreview(jsonText[0].text)); // the same rules as head-preview.ts
    expect(json.stub).toBe(
      [
        '[recall-ledger tool_memory v2]',
        'tool=search_products',
        `size_original=${rows[0].sizeChars} chars`,
        `summary: search_products result, ${rows[0].sizeChars} chars`,
        'preview: {"items": [{"sku": "A-1", "ti…',
        reExpandLine(rows[0].memId),
      ].join('\n'),
    );

    // A long string: its text with white space and control runs collapsed, cut to 119 + `…`.
    expect(long.head_preview).toBe(headPreview(longText));
    expect(long.head_preview?.startsWith('First line of a long result, with odd white space. word word')).toBe(true);
    expect(codePoints(long.head_preview as string)).toBe(120);
    expect(long.head_preview?.endsWith('…')).toBe(true);
    expect(long.stub?.split('\n')).toEqual([
      '[recall-ledger tool_memory v2]',
      'tool=read_file',
      `size_original=${longText.length} chars`,
      `summary: read_file result, ${longText.length} chars`,
      'preview: First line of a long result,…',
      reExpandLine(rows[1].memId),
    ]);

    // Multi-byte text: the head preview counts code points (head-preview.ts counts UTF-16 units,
    // the same for text without astral characters); the stub's preview line is cut on code
    // points within its byte budget.
    expect(wide.head_preview).toBe(`${Array.from(wideText.trim()).slice(0, 119).join('').trimEnd()}…`);
    const widePreview = (wide.stub as string).split('\n')[4];
    expect(widePreview.startsWith('preview: 😀 中文字符测试')).toBe(true);
    expect(widePreview.endsWith('…')).toBe(true);
    expect(Buffer.byteLength(widePreview.slice('preview: '.length))).toBeLessThanOrEqual(32);

    // Nothing but white space: no preview, and no preview line.
    expect(blank.head_preview).toBeNull();
    expect(blank.stub?.split('\n')).toEqual([
      '[recall-ledger tool_memory v2]',
      'tool=noop',
      'size_original=4 chars',
      'summary: noop result, 4 chars',
      reExpandLine(rows[3].memId),
    ]);

    const { rows: columns } = await client.query<{ column_name: string; is_nullable: string }>(
      `select column_name, is_nullable from information_schema.columns
        where table_name = 'message_tool_results' and column_name in ('summary_oneliner', 'schema_hint', 'head_preview', 'stub', 'size_tokens')
        order by column_name`,
    );
    expect(columns).toEqual([
      { column_name: 'head_preview', is_nullable: 'YES' },
      { column_name: 'schema_hint', is_nullable: 'YES' },
      { column_name: 'size_tokens', is_nullable: 'NO' },
      { column_name: 'stub', is_nullable: 'NO' },
      { column_name: 'summary_oneliner', is_nullable: 'NO' },
    ]);

    // The later migrations still apply on top of the backfilled rows.
    const rest = await migrator.up();
    expect(rest.length).toBeGreaterThan(0);
    expect(await migrator.getPendingMigrations()).toEqual([]);
    // The team-keyed schema gave the rows that had no team their user's, in place.
    const { rows: teams } = await client.query<{ tbl: string; team_id: string; n: number }>(
      `select tbl, team_id, count(*)::int as n
         from (select 'conversations' as tbl, team_id from conversations union all select 'messages', team_id from messages
               union all select 'space_members', team_id from space_members union all select 'message_tool_results', team_id from message_tool_results) t
        group by tbl, team_id order by tbl`,
    );
    expect(teams).toEqual([
      { tbl: 'conversations', team_id: team, n: 1 },
      { tbl: 'message_tool_results', team_id: team, n: rows.length },
      { tbl: 'messages', team_id: team, n: 1 },
      { tbl: 'space_members', team_id: team, n: 1 },
    ]);
  });
});
