import { lookupPoolFor, testConfig } from '../../../test/support/tool-results-service';
import type { LookupPool } from '../lookup-pool';
import type { LibraryTask } from '../json-path/library-evaluation';

/** A library task that answers at once: what matters here is when each call's turn comes. */
const TASK: LibraryTask = { pathText: '$.a', documentText: '{"a":[1]}', list: true, timeoutMs: 1_000, maxNodes: 10 };

/** A promise with its resolve, to hold a thread until the test lets go. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('LookupPool: turns between teams (R-TN-10)', () => {
  const pools: LookupPool[] = [];
  const poolOf = (threads: number, queue: number): LookupPool => {
    // A wait that never expires here: under load a thread's start-up alone can take seconds.
    const pool = lookupPoolFor(
      testConfig({ JSON_PATH_WORKERS: String(threads), JSON_PATH_QUEUE_MAX: String(queue), JSON_PATH_QUEUE_WAIT_MS: '600000' }),
    );
    pools.push(pool);
    return pool;
  };
  afterAll(() => Promise.all(pools.map((pool) => pool.onModuleDestroy())));

  it("R-TN-10 team A's task starts before team B's later-queued ones", async () => {
    const pool = poolOf(1, 6);
    const started: string[] = [];
    const holding = gate();
    const call = (team: string, name: string, wait?: Promise<void>) =>
      pool.evaluate(team, async () => {
        started.push(name);
        await wait;
        return TASK;
      });
    const calls = [call('team-b', 'b1', holding.opened), call('team-b', 'b2'), call('team-b', 'b3'), call('team-a', 'a')];
    holding.open();
    const answers = await Promise.all(calls);
    expect(started).toEqual(['b1', 'a', 'b2', 'b3']);
    expect(answers).toEqual(Array.from({ length: 4 }, () => ({ text: '[[1]]' })));
  });

  it('R-TN-10 the document is read only once a thread is held: a call answered "busy" read nothing', async () => {
    const pool = poolOf(1, 0);
    const holding = gate();
    const reads: string[] = [];
    const running = pool.evaluate('team-b', async () => {
      reads.push('b');
      await holding.opened;
      return TASK;
    });
    const refused = await pool.evaluate('team-a', () => {
      reads.push('a');
      return Promise.resolve(TASK);
    });
    expect(refused).toEqual({ busy: true });
    holding.open();
    expect(await running).toEqual({ text: '[[1]]' });
    expect(reads).toEqual(['b']);
  });

  it('R-TN-10 a stored document is read only once a thread is held, and comes back as the text a lookup serves', async () => {
    const pool = poolOf(1, 0);
    const holding = gate();
    const reads: string[] = [];
    const stored = '{"b": [1, 2.50], "aa": {"c": "x"}}';
    const running = pool.payloadText('team-b', async () => {
      reads.push('b');
      await holding.opened;
      return stored;
    });
    const refused = await pool.payloadText('team-a', () => {
      reads.push('a');
      return Promise.resolve(stored);
    });
    expect(refused).toEqual({ busy: true });
    holding.open();
    expect(await running).toEqual({ text: '{"b":[1,2.5],"aa":{"c":"x"}}' });
    expect(reads).toEqual(['b']);
    // A row deleted between the lookup and the read: nothing to serve, and the thread is free again.
    expect(await pool.payloadText('team-a', () => Promise.resolve(null))).toEqual({ missing: true });
    expect(await pool.payloadText('team-a', () => Promise.resolve('"a string"'))).toEqual({ text: 'a string' });
  });

  it('R-TN-10 a text the preparation answers with is the answer, and the thread is free again', async () => {
    const pool = poolOf(1, 0);
    expect(await pool.evaluate('team-a', () => Promise.resolve('[tool_memory not found: mem_x]'))).toBe('[tool_memory not found: mem_x]');
    expect(await pool.evaluate('team-a', () => Promise.resolve(TASK))).toEqual({ text: '[[1]]' });
  });
});
