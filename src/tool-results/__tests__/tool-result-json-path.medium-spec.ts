import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createTestOrm, type TestOrm } from '../../../test/support/test-orm';
import { newMemId } from '../mem-id';
import { buildHandle } from '../handle/build-handle';
import type { JsonSelection, PathLookup } from '../path-value';
import { ToolResultJsonPathRepository } from '../tool-result-json-path.repository';
import { ToolResultWriteRepository } from '../tool-result-write.repository';
import { ToolResultRepository } from '../tool-result.repository';
import { StoredJson } from '../../common/json/stored-json';

describe('ToolResultJsonPathRepository.findJsonPathValue (medium, real PostgreSQL)', () => {
  let db: TestOrm;
  let em: EntityManager;
  let repo: ToolResultJsonPathRepository;
  const userId = crypto.randomUUID();
  const otherUserId = crypto.randomUUID();
  const teamId = crypto.randomUUID();
  const conversationId = crypto.randomUUID();
  const messageId = crypto.randomUUID();
  const memIds: Record<string, string> = {};
  let spaceId: string;
  const scopeOf = (user: string) => ({ userId: user, teamId, spaceIds: [spaceId] });

  const outputs: Record<string, unknown> = {
    json: { items: [{ price: 68.44, id: 12345678901234567890n.toString(), tags: ['a', 'b'] }], note: null, ok: true },
    jsonText: '  {"items": [{"price": 68.44, "name": "K75 \\"pro\\""}], "big": 123456789012345678901234567890}',
    plainText: 'Error 429: throttled',
    bracedText: '{not json at all',
    nulText: '{"a": "\\u0000"}',
    astral: { s: '😀'.repeat(300) },
    longText: JSON.stringify({ long: 'x'.repeat(500), list: Array.from({ length: 300 }, (_, i) => i) }),
    // 100,000 leaves: every node's descendants from every node is 304,001 nodes, seconds of work (the node cap stops it early).
    wide: Array.from({ length: 2000 }, () => Array.from({ length: 50 }, (_, j) => j)),
  };

  beforeAll(async () => {
    db = await createTestOrm();
    em = db.orm.em.fork();
    repo = new ToolResultJsonPathRepository(em);
    await em.execute('insert into teams (id) values (?)', [teamId]);
    await em.execute('insert into users (id, team_id) values (?, ?), (?, ?)', [userId, teamId, otherUserId, teamId]);
    spaceId = crypto.randomUUID();
    await em.execute(`insert into spaces (id, team_id, name) values (?, ?, 's')`, [spaceId, teamId]);
    const snapshots = Object.entries(outputs).map(([name, toolOutput], index) => {
      memIds[name] = newMemId();
      const source = { memId: memIds[name], toolUseId: `t${index}`, toolName: 'x', toolInput: {}, toolOutput, sizeChars: 1 };
      return {
        ...source,
        id: crypto.randomUUID(),
        conversationId,
        messageId,
        toolInputJson: '{}',
        toolOutputJson: JSON.stringify(toolOutput),
        handle: buildHandle(source),
        compacted: false,
      };
    });
    await new ToolResultWriteRepository(em).recordBatch(
      { userId, teamId, spaceIds: [spaceId] },
      [{ id: conversationId, spaceId }],
      [{ id: messageId, conversationId }],
      snapshots,
      { cap: 200, compacted: false },
    );
  });
  afterAll(() => db.close());

  const value = (name: string, path: string[] | JsonSelection, maxChars = 1000, user = userId) =>
    RequestContext.create(em, () =>
      repo.findJsonPathValue(scopeOf(user), memIds[name], Array.isArray(path) ? { kind: 'keys', keys: path } : path, maxChars),
    );
  const found = (lookup: PathLookup | null) => (lookup !== null && 'value' in lookup ? lookup.value : undefined);

  it('R-LG-2 reads a JSON output with #>: leaves, sub-structures, JSON null, array indexes', async () => {
    expect(await value('json', ['items', '0', 'price'])).toEqual({
      value: { kind: 'number', body: '68.44', bodyLength: 5, complete: true },
    });
    expect(await value('json', ['items', '0', 'id'])).toEqual({
      value: { kind: 'string', body: '12345678901234567890', bodyLength: 20, complete: true },
    });
    expect(await value('json', ['items', '0', 'tags'])).toEqual({
      value: { kind: 'array', body: '["a", "b"]', bodyLength: 10, complete: true },
    });
    expect(await value('json', ['note'])).toEqual({ value: { kind: 'null', body: 'null', bodyLength: 4, complete: true } });
    expect(await value('json', ['ok'])).toEqual({ value: { kind: 'boolean', body: 'true', bodyLength: 4, complete: true } });
    expect(await value('json', ['items', '1'])).toEqual({ value: null });
    expect(await value('json', ['nope', 'deeper'])).toEqual({ value: null });
  });

  it('R-LG-2 reads a text output that holds JSON as JSON, numbers exact', async () => {
    expect(await value('jsonText', ['items', '0', 'price'])).toEqual({
      value: { kind: 'number', body: '68.44', bodyLength: 5, complete: true },
    });
    expect(await value('jsonText', ['items', '0', 'name'])).toEqual({
      value: { kind: 'string', body: 'K75 "pro"', bodyLength: 9, complete: true },
    });
    expect(await value('jsonText', ['big'])).toEqual({
      value: { kind: 'number', body: '123456789012345678901234567890', bodyLength: 30, complete: true },
    });
  });

  it('R-LG-2 a node list reads a JSON output and a text output that holds JSON alike; a text that is not JSON has no nodes; one node past the cap is too many', async () => {
    // jsonb orders an object's keys shorter first. The translations of `$.items[*].price`, `$.*` and `$.list[*]`: every step guarded, as sql-json-path.ts writes them.
    const prices = 'strict $? (exists(@."items"))."items".**{1}? (exists(@."price"))."price"';
    const all = 'strict $.**{1}';
    const list = 'strict $? (exists(@."list"))."list".**{1}';
    const nodes = (sqlPath: string, maxNodes = 10): JsonSelection => ({ kind: 'nodes', sqlPath, maxNodes, timeoutMs: 5000 });
    const array = (body: string) => ({ value: { kind: 'array', body, bodyLength: [...body].length, complete: true } });
    expect(await value('json', nodes(prices))).toEqual(array('[68.44]'));
    expect(await value('jsonText', nodes(prices))).toEqual(array('[68.44]'));
    expect(await value('jsonText', nodes(all))).toEqual(
      array('[123456789012345678901234567890, [{"name": "K75 \\"pro\\"", "price": 68.44}]]'),
    );
    expect(await value('json', nodes('strict $? (exists(@."nope"))."nope".**{1}'))).toEqual(array('[]'));
    expect(await value('plainText', nodes(all))).toEqual(array('[]'));
    expect(await value('bracedText', nodes(all))).toEqual({ value: null });
    expect(await value('longText', nodes(list, 300), 5000)).toMatchObject({ value: { kind: 'array', bodyLength: 1390, complete: true } });
    expect(await value('longText', nodes(list, 299))).toEqual({ tooMany: true });
  });

  it('R-LG-2 a text output that is not JSON has no paths, whether or not it looks like JSON', async () => {
    expect(await value('plainText', ['items'])).toEqual({ value: null });
    expect(await value('bracedText', ['items'])).toEqual({ value: null });
    expect(await value('nulText', ['a'])).toEqual({ value: null });
  });

  it('R-LG-2 hands over only the first maxChars of a value, with its whole length, counted in code points', async () => {
    // 300 emoji are 600 UTF-16 units but 300 characters to PostgreSQL: all of them fit a 300-char cut.
    expect(found(await value('astral', ['s'], 300))).toMatchObject({ bodyLength: 300, complete: true });
    expect(found(await value('astral', ['s'], 299))).toMatchObject({ bodyLength: 300, complete: false });
    const long = await value('longText', ['long'], 100);
    expect(long).toEqual({ value: { kind: 'string', body: 'x'.repeat(100), bodyLength: 500, complete: false } });
    const list = await value('longText', ['list'], 50);
    expect(found(list)?.body).toBe(`[${Array.from({ length: 300 }, (_, i) => i).join(', ')}]`.slice(0, 50));
  });

  it("R-LG-2 R-TN-5 a missing mem id, another user's and one outside the allowed spaces read alike: no row at all", async () => {
    expect(
      await RequestContext.create(em, () =>
        repo.findJsonPathValue({ userId, teamId, spaceIds: [] }, memIds.json, { kind: 'keys', keys: ['items'] }, 10),
      ),
    ).toBeNull();
    expect(
      await RequestContext.create(em, () =>
        new ToolResultRepository(em).findByMemId({ userId, teamId, spaceIds: [crypto.randomUUID()] }, memIds.json),
      ),
    ).toBeNull();
    expect(await value('json', ['items'], 1000, otherUserId)).toBeNull();
    expect(
      await RequestContext.create(em, () =>
        repo.findJsonPathValue(scopeOf(userId), 'mem_aaaaaaaaaaaaaaaa', { kind: 'keys', keys: ['items'] }, 10),
      ),
    ).toBeNull();
    expect(await RequestContext.create(em, () => new ToolResultRepository(em).findByMemId(scopeOf(otherUserId), memIds.json))).toBeNull();
    // The output comes as its stored text (R-TN-10), which holds the value written.
    const own = await RequestContext.create(em, () =>
      new ToolResultRepository(em).findByMemId(scopeOf(userId), memIds.json, { output: true }),
    );
    expect(own?.toolOutput).toBeInstanceOf(StoredJson);
    expect((own?.toolOutput as StoredJson).value()).toEqual(outputs.json);
  });

  it('R-LG-2 a node-list statement is stopped at its time bound; a payload above a size bound is not handed over', async () => {
    const scope = scopeOf(userId);
    const nodes = await RequestContext.create(em, () =>
      repo.findJsonPathValue(scope, memIds.wide, { kind: 'nodes', sqlPath: 'strict $.**.**', maxNodes: 1_000_000, timeoutMs: 50 }, 100),
    );
    expect(nodes).toEqual({ timedOut: true });
    // This fixture's rows all say sizeChars 1.
    expect(await RequestContext.create(em, () => repo.findJsonDocument(scope, memIds.json, 0))).toEqual({ sizeChars: 1 });
    // Handed over as PostgreSQL's JSON text, parsed by the worker that evaluates it.
    const found = await RequestContext.create(em, () => repo.findJsonDocument(scope, memIds.json, 1_000_000));
    expect(JSON.parse(found?.documentText ?? 'null')).toEqual(outputs.json);
  });
});
