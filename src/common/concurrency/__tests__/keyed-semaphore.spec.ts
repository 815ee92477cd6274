import { KeyedSemaphore, SlotWaitTimeoutError } from '../keyed-semaphore';

describe('KeyedSemaphore (R-TN-10)', () => {
  it('R-TN-10 admits up to the limit per key and refuses the next, whatever other keys hold', () => {
    const slots = new KeyedSemaphore(2);
    expect(slots.tryAcquire('a')).toBe(true);
    expect(slots.tryAcquire('a')).toBe(true);
    expect(slots.tryAcquire('a')).toBe(false);
    expect(slots.tryAcquire('b')).toBe(true);
    slots.release('a');
    expect(slots.tryAcquire('a')).toBe(true);
    expect(slots.heldBy('a')).toBe(2);
  });

  it('R-TN-10 idle keys are swept once many have been seen: memory stays bounded by the keys in use', () => {
    const slots = new KeyedSemaphore(1);
    slots.tryAcquire('busy');
    for (let i = 0; i < 10_000; i += 1) {
      slots.tryAcquire(`team-${i}`);
      slots.release(`team-${i}`);
    }
    expect(slots.trackedKeys).toBeLessThanOrEqual(4096);
    expect(slots.heldBy('busy')).toBe(1);
  });

  it('R-TN-10 a free slot is taken synchronously, without a promise', () => {
    expect(new KeyedSemaphore(1).acquire('a', 1000)).toBeUndefined();
  });

  it('R-TN-10 waiters of a full key are served in FIFO order by that key’s releases only', async () => {
    const slots = new KeyedSemaphore(1);
    void slots.acquire('a', 60_000);
    void slots.acquire('b', 60_000);
    const order: string[] = [];
    const first = slots.acquire('a', 60_000)!.then(() => order.push('first'));
    const second = slots.acquire('a', 60_000)!.then(() => order.push('second'));
    // Another key's release hands nothing to team a's queue.
    slots.release('b');
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(slots.waitingFor('a')).toBe(2);
    // A queued key refuses a newcomer even when asked without waiting: no overtaking.
    expect(slots.tryAcquire('a')).toBe(false);
    slots.release('a');
    await first;
    expect(order).toEqual(['first']);
    expect(slots.heldBy('a')).toBe(1);
    slots.release('a');
    await second;
    expect(order).toEqual(['first', 'second']);
    slots.release('a');
    expect(slots.heldBy('a')).toBe(0);
  });

  it('R-TN-10 a wait past its deadline rejects, leaves the queue and holds nothing', async () => {
    jest.useFakeTimers();
    try {
      const slots = new KeyedSemaphore(1);
      void slots.acquire('a', 1000);
      const waiting = slots.acquire('a', 1000)!;
      jest.advanceTimersByTime(1000);
      await expect(waiting).rejects.toBeInstanceOf(SlotWaitTimeoutError);
      expect(slots.waitingFor('a')).toBe(0);
      slots.release('a');
      expect(slots.heldBy('a')).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('R-TN-10 a release without an acquire is a bug, not a silent negative count', () => {
    expect(() => new KeyedSemaphore(1).release('a')).toThrow(/without a matching acquire/);
  });
});
