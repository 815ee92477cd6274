/** A wait for a key's slot that outlasted its deadline; nothing was acquired. */
export class SlotWaitTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`No slot came free within ${timeoutMs} ms.`);
    this.name = new.target.name;
  }
}

interface Waiter {
  grant(): void;
}

/**
 * At most `limit` holders per key (a team's requests, a team's database connections). A full key's
 * callers either get `false` at once (`tryAcquire`) or wait in FIFO order for a slot of the same
 * key (`acquire`): one key's queue never holds up another key. Pure bookkeeping, no I/O; a key
 * with nothing held and nobody waiting takes no memory.
 */
export class KeyedSemaphore {
  private readonly held = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('a semaphore needs a limit of at least 1');
  }

  /** Takes a slot if one is free and nobody is queued before us. */
  tryAcquire(key: string): boolean {
    const count = this.held.get(key) ?? 0;
    if (count >= this.limit || this.waiting.has(key)) return false;
    this.held.set(key, count + 1);
    return true;
  }

  /**
   * Takes a slot: `undefined` when one was free (no promise, no microtask: the common case), else a
   * promise that resolves once a slot of this key is handed over, or rejects with
   * SlotWaitTimeoutError after `timeoutMs` (and then holds nothing).
   */
  acquire(key: string, timeoutMs: number): Promise<void> | undefined {
    if (this.tryAcquire(key)) return undefined;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.dropWaiter(key, waiter);
        reject(new SlotWaitTimeoutError(timeoutMs));
      }, timeoutMs);
      const queue = this.waiting.get(key);
      if (queue) queue.push(waiter);
      else this.waiting.set(key, [waiter]);
    });
  }

  /** Gives a slot back: straight to the key's first waiter if there is one (the count stays), else freed. */
  release(key: string): void {
    const queue = this.waiting.get(key);
    const next = queue?.shift();
    if (next) {
      if (queue!.length === 0) this.waiting.delete(key);
      next.grant();
      return;
    }
    const count = this.held.get(key) ?? 0;
    if (count <= 0) throw new Error('KeyedSemaphore.release without a matching acquire');
    if (count === 1) this.held.delete(key);
    else this.held.set(key, count - 1);
  }

  /** Slots the key holds now. */
  heldBy(key: string): number {
    return this.held.get(key) ?? 0;
  }

  /** Callers queued for the key now. */
  waitingFor(key: string): number {
    return this.waiting.get(key)?.length ?? 0;
  }

  private dropWaiter(key: string, waiter: Waiter): void {
    const queue = this.waiting.get(key);
    if (!queue) return;
    const index = queue.indexOf(waiter);
    if (index >= 0) queue.splice(index, 1);
    if (queue.length === 0) this.waiting.delete(key);
  }
}
