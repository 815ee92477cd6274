import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ActorContext, Scope } from '../../tenancy';
import { captureSql, createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { lookupPoolFor, testConfig, toolResultServicesFor } from '../../../test/support/tool-results-service';
import { DatabasePathTurns } from '../json-path/database-path-turns';
import type { LookupPool } from '../lookup-pool';
import type { LookupArguments } from '../lookup-request';
import { LookupService } from '../lookup.service';

/** RFC 9535 §1.5's example document. */
const STORE = {
  store: {
    book: [
      { category: 'reference', author: 'Nigel Rees', title: 'Sayings of the Century', price: 8.95 },
      { category: 'fiction', author: 'Evelyn Waugh', title: 'Sword of Honour', price: 12.99 },
      { category: 'fiction', author: 'Herman Melville', title: 'Moby Dick', isbn: '0-553-21311-3', price: 8.99 },
      { category: 'fiction', author: 'J. R. R. Tolkien', title: 'The Lord of the Rings', isbn: '0-395-19395-8', price: 22.99 },
    ],
    bicycle: { color: 'red', price: 399 },
  },
};
const [SAYINGS, SWORD, MOBY, LORD] = STORE.store.book;
const TITLES = STORE.store.book.map((book) => book.title);

/** Where an answer comes from: a SQL/JSON path (or `#>`) in PostgreSQL, the library over the fetched payload, or no query at all. */
type EvaluatedIn = 'database' | 'library' | 'none';

/**
 * [json_path, expected answer, where it is evaluated]. A string is the exact answer text (a
 * singular query's string value, or a bracketed text by its start); anything else is compared
 * with the answer read as JSON.
 */
const TABLE: [string, unknown, EvaluatedIn][] = [
  // RFC 9535 Table 3 (§1.5), over its document.
  ['$.store.book[*].author', STORE.store.book.map((book) => book.author), 'database'],
  ['$..author', STORE.store.book.map((book) => book.author), 'database'],
  ['$.store.*', [STORE.store.book, STORE.store.bicycle], 'database'],
  ['$.store..price', [8.95, 12.99, 8.99, 22.99, 399], 'database'],
  ['$..book[2]', [MOBY], 'database'],
  ['$..book[2].author', ['Herman Melville'], 'database'],
  ['$..book[2].publisher', [], 'database'],
  ['$..book[-1]', [LORD], 'database'],
  ['$..book[0,1]', [SAYINGS, SWORD], 'library'],
  ['$..book[:2]', [SAYINGS, SWORD], 'library'],
  ['$..book[?@.isbn]', [MOBY, LORD], 'database'],
  ['$..book[?@.price<10]', [SAYINGS, MOBY], 'database'],
  // Singular queries answer the value itself, as the dotted form does.
  ['$', STORE, 'database'],
  ['$.store.bicycle.color', 'red', 'database'],
  ["$['store']['bicycle']['price']", 399, 'database'],
  ['$.store.book[0].title', 'Sayings of the Century', 'database'],
  ['$.store.book[-1].isbn', '0-395-19395-8', 'database'],
  ['store.bicycle.color', 'red', 'database'],
  ['store.book.1.price', 12.99, 'database'],
  // Filters PostgreSQL evaluates: comparisons with a literal, && and ||, existence, a descent.
  ["$.store.book[?@.category == 'fiction'].title", [SWORD.title, MOBY.title, LORD.title], 'database'],
  ['$.store.book[?(@.price > 10 && @.price < 20)].title', [SWORD.title], 'database'],
  ['$.store.book[?@.price < 9 || @.isbn].title', [SAYINGS.title, MOBY.title, LORD.title], 'database'],
  ['$.store.book[?@.price >= 22.99].title', [LORD.title], 'database'],
  ["$..book[?@.author == 'Herman Melville'].isbn", [MOBY.isbn], 'database'],
  ['$..[?@.color].price', [399], 'database'],
  ['$.store.book[?@.isbn && @.price < 10 && @.category]', [MOBY], 'database'],
  // What PostgreSQL's SQL/JSON path cannot say exactly: the library, on the fetched payload.
  ['$.store.book[?!@.isbn].title', [SAYINGS.title, SWORD.title], 'library'],
  ["$.store.book[?@.category != 'fiction'].title", [SAYINGS.title], 'library'],
  ['$.store.book[?length(@.title) > 15].title', [SAYINGS.title, LORD.title], 'library'],
  ["$.store.book[?match(@.author, 'J.*')].author", [LORD.author], 'library'],
  ["$.store.book[?search(@.title, 'Lord')].title", [LORD.title], 'library'],
  ['$.store.book[?count(@.*) == 5].title', [MOBY.title, LORD.title], 'library'],
  ['$.store.book[0:4:2].title', [TITLES[0], TITLES[2]], 'library'],
  ["$.store.bicycle['color','price']", ['red', 399], 'library'],
  ['$.store.book[?@.price == $.store.book[0].price].title', [SAYINGS.title], 'library'],
  ["$.store.book[?@.title > 'T'].title", [LORD.title], 'library'],
  // Nothing there: a singular query's not-found text, an empty node list otherwise.
  ['$.store.book[99]', '[tool_memory not found: json_path "$.store.book[99]"', 'database'],
  ['$.store.nothing', '[tool_memory not found: json_path "$.store.nothing"', 'database'],
  ['$..nothing', [], 'database'],
  // Invalid selectors: the bracketed answer names the problem and shows valid examples; no query runs.
  ['$.store.book[', '[tool_memory bad json_path: "$.store.book[": unclosed bracketed selection at character 14; write RFC 9535', 'none'],
  ['$.store.book[?foo(@)]', '[tool_memory bad json_path: "$.store.book[?foo(@)]": ', 'none'],
  ['$.store.book[?length(@.*) > 1]', '[tool_memory bad json_path: "$.store.book[?length(@.*) > 1]": ', 'none'],
  [' $.store', '[tool_memory bad json_path: ', 'none'],
];

describe('recallToolResult json_path, RFC 9535 (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  let service: LookupService;
  let pool: LookupPool;
  let memId: string;
  const team = crypto.randomUUID();
  const space = crypto.randomUUID();
  const owner = crypto.randomUUID();
  const actor = new ActorContext(owner, team, [Scope.MEMORY_READ, Scope.MEMORY_WRITE], [{ id: space, generation: 1 }]);

  const recall = (jsonPath: string, args: Partial<LookupArguments> = {}): Promise<string> =>
    RequestContext.create(em, () =>
      service.lookUp(actor, { memId, format: null, query: null, offset: null, maxChars: null, jsonPath, ...args }),
    );

  beforeAll(async () => {
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    await em.execute(
      `insert into teams (id) values (?); insert into users (id, team_id) values (?, ?); insert into spaces (id, team_id, name) values (?, ?, 's');`,
      [team, owner, team, space, team],
    );
    const toolResults = toolResultServicesFor(em);
    const recorded = await RequestContext.create(em, () =>
      toolResults.writer.record(actor, [
        {
          spaceId: space,
          conversationId: crypto.randomUUID(),
          messageId: crypto.randomUUID(),
          toolUseId: 'toolu_store',
          toolName: 'get_store',
          toolInput: {},
          toolOutput: STORE,
        },
      ]),
    );
    memId = recorded.snapshots[0].memId;
    pool = lookupPoolFor();
    service = new LookupService(toolResults.reader, toolResults.pathLookups, testConfig(), pool, new DatabasePathTurns(testConfig()));
  });
  afterAll(async () => {
    await pool.onModuleDestroy();
    await db.close();
  });

  it.each(TABLE)('R-LG-2 %s', async (path, expected, evaluatedIn) => {
    statements.length = 0;
    const answer = await recall(path);
    if (typeof expected === 'string' && expected.startsWith('[tool_memory ')) expect(answer.startsWith(expected)).toBe(true);
    else if (typeof expected === 'string') expect(answer).toBe(expected);
    else expect(JSON.parse(answer)).toEqual(expected);

    // Where it ran, from the SQL the ORM sent.
    const lookups = statements.filter(
      (sql) =>
        sql.includes('from message_tool_results r') ||
        sql.includes('from tool_results_path_value(') ||
        sql.includes('from tool_results_path_nodes('),
    );
    if (evaluatedIn === 'none') expect(lookups).toEqual([]);
    else expect(lookups).toHaveLength(1);
    if (evaluatedIn === 'database') {
      // A single value through tool_results_path_value (keys or a SQL/JSON path), a node list through tool_results_path_nodes.
      expect(lookups[0]).toMatch(
        path.startsWith('$') ? /tool_results_path_(value|nodes)\(.*'strict \$/s : /tool_results_path_value\(.*'\{"store"/s,
      );
      expect(lookups[0]).not.toContain('r.size_chars <=');
    }
    if (evaluatedIn === 'library') expect(lookups[0]).toContain('case when r.size_chars <= 2000000 then r.tool_output::text end');
  });

  it('R-LG-2 a node list is windowed like any answer, the call that reads on repeating the path', async () => {
    const answer = await recall('$..*', { maxChars: 100 });
    expect(answer).toMatch(
      /\n\[… more: continue with recall_tool_result\(mem_id='mem_[a-z2-7]{16}', json_path="\$\.\.\*", offset=100, max_chars=100\); chars 0–100 of ≈\d+ shown\]$/,
    );
  });

  describe('R-LG-2 nothing runs unbounded', () => {
    let manyMemId: string;
    let regexMemId: string;
    let slowMemId: string;
    beforeAll(async () => {
      const toolResults = toolResultServicesFor(em);
      const item = (toolUseId: string, toolOutput: unknown) => ({
        spaceId: space,
        conversationId: crypto.randomUUID(),
        messageId: crypto.randomUUID(),
        toolUseId,
        toolName: 'list',
        toolInput: {},
        toolOutput,
      });
      const recorded = await RequestContext.create(em, () =>
        toolResults.writer.record(actor, [
          item(
            'toolu_many',
            Array.from({ length: 10_001 }, (_, i) => i),
          ),
          item('toolu_regex', [`${'a'.repeat(40)}c`]),
          item(
            'toolu_slow',
            Array.from({ length: 300 }, (_, v) => ({ v })),
          ),
        ]),
      );
      [manyMemId, regexMemId, slowMemId] = recorded.snapshots.map((snapshot) => snapshot.memId);
    });

    it('R-LG-2 a node list past 10,000 nodes is refused with a hint, in PostgreSQL and in the library alike', async () => {
      const tooMany = `[tool_memory too many nodes: json_path "$[*]" selects more than 10000 in ${manyMemId}; narrow it, e.g. with a slice such as $.items[0:100] or a filter]`;
      expect(await recall('$[*]', { memId: manyMemId })).toBe(tooMany);
      expect(await recall('$[0:]', { memId: manyMemId })).toBe(tooMany.replace('"$[*]"', '"$[0:]"'));
      // Exactly the cap is listed (in windows, as any long answer).
      expect(await recall('$[1:]', { memId: manyMemId })).toMatch(
        /^\[1,2,3,.*\n\[… more: continue with recall_tool_result\(.*json_path="\$\[1:\]", offset=\d+\)/s,
      );
    });

    it('R-TN-10 a regular expression that backtracks for ages in JavaScript is answered at once on RE2', async () => {
      expect(await recall("$[?match(@, '(a|aa)+b')]", { memId: regexMemId })).toBe('[]');
      expect(await recall("$[?match(@, 'a+c')]", { memId: regexMemId })).toBe(`["${'a'.repeat(40)}c"]`);
    });

    it('R-LG-2 R-TN-10 an evaluation past its CPU budget is stopped after 1,000 ms, and the thread serves the next one', async () => {
      // Filters nested in filters: 300 × 300 × 300 nodes visited.
      const cubic = '$[?count($[?count($[*]) > 1]) > 1].v';
      expect(await recall(cubic, { memId: slowMemId })).toBe(
        `[tool_memory json_path took too long: "${cubic}" was stopped after 1000 ms; use fewer descendant segments (..) or simpler regular expressions]`,
      );
      expect(await recall('$[0,1].v', { memId: slowMemId })).toBe('[0,1]');
    });
  });
});
