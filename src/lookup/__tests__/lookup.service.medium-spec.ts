import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ActorContext, Scope } from '../../tenancy';
import type { ToolResultInput } from '../../tool-results';
import { captureSql, createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { lookupPoolFor, testConfig, toolResultServicesFor } from '../../../test/support/tool-results-service';
import { DatabasePathTurns } from '../json-path/database-path-turns';
import type { LookupPool } from '../lookup-pool';
import { countTokens } from '../../common/text/tokenizer';
import type { LookupArguments } from '../lookup-request';
import { LookupService } from '../lookup.service';
import { sliceBySubstring } from '../keyed-slice';
import { SUBSTRING_OFF_THREAD_FROM_CHARS } from '../substring/substring-search';

/**
 * The real config's ceiling is at least 1000 chars, so the payload is ten times the size the
 * 50-char ceiling of the in-memory version used: 1000 digits, a 600-char needle, 1000 x's.
 */
const CEILING = 1000;
const NEEDLE = 'needle'.repeat(100);
const TEXT = `${'0123456789'.repeat(100)}${NEEDLE}${'x'.repeat(1000)}`;
/** Well-formed, never issued: a mem id the database has no row for. */
const MISSING = 'mem_aaaaaaaaaaaaaaaa';

describe('LookupService (medium, real PostgreSQL)', () => {
  const statements: string[] = [];
  let db: TestOrm;
  let em: EntityManager;
  const team = crypto.randomUUID();
  const space = crypto.randomUUID();
  const owner = crypto.randomUUID();
  const stranger = crypto.randomUUID();
  const conversation = crypto.randomUUID();
  const actor = new ActorContext(owner, team, [Scope.MEMORY_READ, Scope.MEMORY_WRITE], [{ id: space, generation: 1 }]);
  /** The text snapshot, and one whose output is JSON. */
  let MEM: string;
  let JSON_MEM: string;

  const pools: LookupPool[] = [];

  function lookupService(ceiling: number, env: Record<string, string> = {}): LookupService {
    return ledgerWithPool(ceiling, env).service;
  }

  function ledgerWithPool(ceiling: number, env: Record<string, string> = {}): { service: LookupService; pool: LookupPool } {
    const config = testConfig({ LOOKUP_MAX_RETURN_CHARS: String(ceiling), ...env });
    const pool = lookupPoolFor(config);
    pools.push(pool);
    const toolResults = toolResultServicesFor(em);
    return { service: new LookupService(toolResults.reader, toolResults.pathLookups, config, pool, new DatabasePathTurns(config)), pool };
  }

  function recallWith(service: LookupService, who: ActorContext, args: Partial<LookupArguments>): Promise<string> {
    const full: LookupArguments = { memId: MEM, format: null, query: null, offset: null, maxChars: null, jsonPath: null, ...args };
    return RequestContext.create(em, () => service.lookUp(who, full));
  }

  beforeAll(async () => {
    db = await createTestOrm(captureSql(statements));
    em = db.orm.em.fork();
    await em.execute(
      `insert into teams (id) values (?);
       insert into users (id, team_id) values (?, ?), (?, ?);
       insert into spaces (id, team_id, name) values (?, ?, 's');`,
      [team, owner, team, stranger, team, space, team],
    );

    // Stored through the real write path.
    const toolResults = toolResultServicesFor(em);
    const item = (toolUseId: string, toolOutput: unknown): ToolResultInput => ({
      spaceId: space,
      conversationId: conversation,
      messageId: crypto.randomUUID(),
      toolUseId,
      toolName: 'fetch',
      toolInput: {},
      toolOutput,
    });
    const outcome = await RequestContext.create(em, () =>
      toolResults.writer.record(actor, [item('tu_text', TEXT), item('tu_json', { a: { b: [1, 2] } })]),
    );
    [MEM, JSON_MEM] = outcome.snapshots.map((s) => s.memId);
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.onModuleDestroy()));
    await db.close();
  });

  it('R-LG-2 answers bad arguments and malformed mem ids without touching the database', async () => {
    const service = lookupService(CEILING);
    statements.length = 0;
    expect(await recallWith(service, actor, { offset: -1 })).toMatch(/^\[tool_memory bad range/);
    expect(await recallWith(service, actor, { memId: 'nope', format: 'FULL' })).toBe('[tool_memory not found: nope]');
    expect(statements).toEqual([]);
    // The capture does see a lookup: the empty list above is no blind spot.
    await recallWith(service, actor, { format: 'SUMMARY' });
    expect(statements).toEqual([
      expect.stringContaining(`r.user_id = '${owner}' and c.space_id = any('{${space}}'::uuid[]) and r.mem_id = '${MEM}'`),
    ]);
  });

  it('R-LG-2 holds every answer to the char ceiling and the token bound, with a marker naming the next call', async () => {
    const service = lookupService(CEILING);
    expect(await recallWith(service, actor, { format: 'FULL' })).toBe(
      `${TEXT.slice(0, 1000)}\n[… more: continue with recall_tool_result(mem_id='${MEM}', offset=1000); chars 0–1000 of ${TEXT.length} shown]`,
    );
    expect(await recallWith(service, actor, { offset: 10, maxChars: 10_000 })).toBe(
      `${TEXT.slice(10, 1010)}\n[… more: continue with recall_tool_result(mem_id='${MEM}', offset=1010, max_chars=10000); chars 10–1010 of ${TEXT.length} shown]`,
    );
    // A single match's context is at most 2 × 200 chars around it, so only a long query overflows a 1000-char ceiling.
    const query = await recallWith(service, actor, { query: NEEDLE.toUpperCase() });
    expect(query).toMatch(
      /^\[match 1 of 1 at offset 1000\]\n.{970}\n\[… more: continue with recall_tool_result\(mem_id='mem_[a-z2-7]{16}', query="NEEDLE.*", offset=1000\); chars 0–1000 of 1032 shown\]$/su,
    );
    const tokenBound = await recallWith(service, actor, { format: 'FULL', maxTokens: 100 });
    expect(countTokens(tokenBound)).toBeLessThanOrEqual(100);
    expect(tokenBound).toContain(', max_tokens=100); chars 0–');
  });

  it('R-LG-2 answers a json_path from what the database hands over', async () => {
    const service = lookupService(CEILING);
    // No row of the user's with that mem id (the in-memory version made its repository answer null).
    expect(await recallWith(service, actor, { memId: MISSING, jsonPath: 'a.b' })).toBe(`[tool_memory not found: ${MISSING}]`);
    // The row is there, the value is not: plain text is no JSON, and a JSON output may lack the path.
    expect(await recallWith(service, actor, { jsonPath: 'a.b' })).toBe(`[tool_memory not found: json_path "a.b" in ${MEM}]`);
    expect(await recallWith(service, actor, { memId: JSON_MEM, jsonPath: 'a.c' })).toBe(
      `[tool_memory not found: json_path "a.c" in ${JSON_MEM}]`,
    );
    // PostgreSQL's jsonb text is `[1, 2]`; the answer is compact JSON.
    expect(await recallWith(service, actor, { memId: JSON_MEM, jsonPath: 'a.b' })).toBe('[1,2]');
  });

  it("R-LG-2 another user's mem id reads exactly as a missing one", async () => {
    const service = lookupService(10_000);
    expect(await recallWith(service, actor, { format: 'FULL' })).toBe(TEXT);
    const other = new ActorContext(stranger, team, [Scope.MEMORY_READ], [{ id: space, generation: 1 }]);
    expect(await recallWith(service, other, { format: 'FULL' })).toBe(`[tool_memory not found: ${MEM}]`);
    expect(await recallWith(service, other, { memId: JSON_MEM, jsonPath: 'a.b' })).toBe(`[tool_memory not found: ${JSON_MEM}]`);
  });

  it('R-LG-2 R-RT-4 a walk reads the payload once; the row is still looked up on every call, so a deleted one is gone', async () => {
    const service = lookupService(CEILING);
    const toolResults = toolResultServicesFor(em);
    const recorded = await RequestContext.create(em, () =>
      toolResults.writer.record(actor, [
        {
          spaceId: space,
          conversationId: conversation,
          messageId: crypto.randomUUID(),
          toolUseId: 'tu_walk',
          toolName: 'fetch',
          toolInput: {},
          toolOutput: TEXT,
        },
      ]),
    );
    const memId = recorded.snapshots[0].memId;
    statements.length = 0;
    const first = await recallWith(service, actor, { memId, format: 'FULL' });
    expect(statements.filter((sql) => sql.includes('r.tool_output'))).toHaveLength(1);
    statements.length = 0;
    expect(await recallWith(service, actor, { memId, offset: 1000 })).toBe(
      `${TEXT.slice(1000, 2000)}\n[… more: continue with recall_tool_result(mem_id='${memId}', offset=2000); chars 1000–2000 of ${TEXT.length} shown]`,
    );
    expect(await recallWith(service, actor, { memId, format: 'FULL' })).toBe(first);
    // Two lookups of the row, neither reading the payload.
    expect(statements.filter((sql) => sql.includes(`r.mem_id = '${memId}'`))).toHaveLength(2);
    expect(statements.filter((sql) => sql.includes('r.tool_output'))).toEqual([]);

    await em.execute('delete from message_tool_results where mem_id = ?', [memId]);
    expect(await recallWith(service, actor, { memId, format: 'FULL' })).toBe(`[tool_memory not found: ${memId}]`);
  });

  // The two tests below start a worker thread, which compiles its TypeScript first: slow on a loaded machine.
  it('R-TN-10 a query over a large payload is searched in a worker thread and read only once the thread is held; a short one where it is', async () => {
    const large = `${'lorem ipsum '.repeat(SUBSTRING_OFF_THREAD_FROM_CHARS / 12)}Needle ſtraße NEEDLE${' dolor'.repeat(100)}`;
    const toolResults = toolResultServicesFor(em);
    const recorded = await RequestContext.create(em, () =>
      toolResults.writer.record(actor, [
        {
          spaceId: space,
          conversationId: conversation,
          messageId: crypto.randomUUID(),
          toolUseId: 'tu_large',
          toolName: 'fetch',
          toolInput: {},
          toolOutput: large,
        },
      ]),
    );
    const memId = recorded.snapshots[0].memId;
    const { service, pool } = ledgerWithPool(10_000);
    const searches = jest.spyOn(pool, 'searchText');

    expect(await recallWith(service, actor, { query: 'needle' })).toBe(sliceBySubstring(TEXT, 'needle', MEM));
    expect(searches).not.toHaveBeenCalled();
    statements.length = 0;
    const answer = await recallWith(service, actor, { memId, query: 'NEEDLE STRASSE' });
    expect(answer).toBe(`[tool_memory no match for "NEEDLE STRASSE" in ${memId}]`);
    expect(await recallWith(service, actor, { memId, query: 'needle' })).toBe(sliceBySubstring(large, 'needle', memId));
    expect(searches).toHaveBeenCalledTimes(2);
    // Each asked for the output only up to the limit first; the full read came once a thread was held, then the text was kept.
    expect(statements.filter((sql) => sql.includes(`case when r.size_chars <= ${SUBSTRING_OFF_THREAD_FROM_CHARS - 1} then`))).toHaveLength(
      1,
    );
    // The whole read loads a string output with its row (its text is read in place).
    expect(statements.filter((sql) => sql.includes("or jsonb_typeof(r.tool_output) = 'string' then r.tool_output end"))).toHaveLength(1);
  }, 120_000);

  it('R-TN-10 a large payload whose search is told "busy" is never loaded', async () => {
    const { service, pool } = ledgerWithPool(10_000, { JSON_PATH_WORKERS: '1', JSON_PATH_QUEUE_MAX: '0' });
    const large = 'x'.repeat(SUBSTRING_OFF_THREAD_FROM_CHARS);
    const toolResults = toolResultServicesFor(em);
    const recorded = await RequestContext.create(em, () =>
      toolResults.writer.record(actor, [
        {
          spaceId: space,
          conversationId: conversation,
          messageId: crypto.randomUUID(),
          toolUseId: 'tu_busy',
          toolName: 'fetch',
          toolInput: {},
          toolOutput: large,
        },
      ]),
    );
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = pool.evaluate('another-team', async () => {
      await held;
      return '[held]';
    });
    statements.length = 0;
    expect(await recallWith(service, actor, { memId: recorded.snapshots[0].memId, query: 'x' })).toBe(
      '[tool_memory query not searched: the service is busy with other searches; retry in a moment]',
    );
    release();
    expect(await holding).toBe('[held]');
    expect(statements.filter((sql) => sql.includes('tool_output'))).toEqual([expect.stringContaining('case when r.size_chars <=')]);
  }, 120_000);
});
