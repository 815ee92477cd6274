import { TeamFairPool } from '../team-fair-pool';
import { workerModule } from '../worker-module';

type Busy = { value: number; busyMs: number };
type Answer = { value: number; threadId: number };

describe('TeamFairPool: the kill budget (R-TN-10)', () => {
  const pool = new TeamFairPool<Busy, Answer>(workerModule(__dirname, __filename, 'busy.worker'), {
    threads: 1,
    queueMax: 4,
    queueWaitMs: 60_000,
  });
  afterAll(() => pool.destroy());

  async function run(task: Busy, budgetMs: number) {
    const lease = await pool.lease('team-a');
    if (lease === null) throw new Error('the pool answered busy');
    try {
      return await lease.run(task, budgetMs);
    } finally {
      lease.release();
    }
  }

  it('R-TN-10 a task its thread cannot stop (no vm timeout reaches it) is terminated past its budget; a new thread serves the next task', async () => {
    const first = await run({ value: 1, busyMs: 0 }, 10_000);
    expect(first).toEqual({ answer: { value: 1, threadId: expect.any(Number) } });
    // Busy for a minute, with a budget of 300 ms: only the pool's kill ends it (the test's timeout would, otherwise).
    expect(await run({ value: 2, busyMs: 60_000 }, 300)).toEqual({ terminated: true });
    const next = await run({ value: 3, busyMs: 0 }, 10_000);
    expect(next).toEqual({ answer: { value: 3, threadId: expect.any(Number) } });
    // The killed thread is gone: the next task ran on another.
    if (!('answer' in first) || !('answer' in next)) throw new Error('unreachable');
    expect(next.answer.threadId).not.toBe(first.answer.threadId);
  });

  it('R-TN-10 a task within its budget is not terminated, and its thread is kept', async () => {
    const a = await run({ value: 4, busyMs: 50 }, 10_000);
    const b = await run({ value: 5, busyMs: 0 }, 10_000);
    if (!('answer' in a) || !('answer' in b)) throw new Error(`terminated: ${JSON.stringify([a, b])}`);
    expect(b.answer.threadId).toBe(a.answer.threadId);
  });
});
