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

/** One key's slots and its queue. */
interface Slots {
  held: number;
  waiting: Waiter[] | undefined;
}

/**
 * Idle keys are kept rather than deleted on every release: deleting and re-adding a Map entry on
 * each acquire/release costs microseconds (measured, under async hooks); a sweep past this many
 * keys keeps the memory bounded.
 */
const IDLE_KEYS_SWEPT_AT = 4096;

/**
 * At most `limit` holders per key (a team's requests, a team's database connections). A full key's
 * callers either get `false` at once (`tryAcquire`) or wait in FIFO order for a slot of the same
 * key (`acquire`): one key's queue never holds up another key. Pure bookkeeping, no I/O.
 */
export class KeyedSemaphore {
  private readonly keys = new Map<string, Slots>();

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('a semaphore needs a limit of at least 1');
  }

  /** Takes a slot if one is free and nobody is queued before us. */
  tryAcquire(key: string): boolean {
    const slots = this.slotsOf(key);
    if (slots.held >= this.limit || slots.waiting !== undefined) return false;
    slots.held += 1;
    return true;
  }

  /**
   * Takes a slot: `undefined` when one was free (no promise, no microtask: the common case), else a
   * promise that resolves once a slot of this key is handed over, or rejects with
   * SlotWaitTimeoutError after `timeoutMs` (and then holds nothing).
   */
  acquire(key: string, timeoutMs: number): Promise<void> | undefined {
    if (this.tryAcquire(key)) return undefined;
    const slots = this.slotsOf(key);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        dropWaiter(slots, waiter);
        reject(new SlotWaitTimeoutError(timeoutMs));
      }, timeoutMs);
      (slots.waiting ??= []).push(waiter);
    });
  }

  /** Gives a slot back: straight to the key's first waiter if there is one (the count stays), else freed. */
  release(key: string): void {
    const slots = this.keys.get(key);
    if (slots === undefined || slots.held <= 0) throw new Error('KeyedSemaphore.release without a matching acquire');
    const next = slots.waiting?.shift();
    if (next) {
      if (slots.waiting!.length === 0) slots.waiting = undefined;
      next.grant();
      return;
    }
    slots.held -= 1;
  }

  /** Slots the key holds now. */
  heldBy(key: string): number {
    return this.keys.get(key)?.held ?? 0;
  }

  /** Callers queued for the key now. */
  waitingFor(key: string): number {
    return this.keys.get(key)?.waiting?.length ?? 0;
  }

  /** Keys with a record (held, queued, or idle and not yet swept). */
  get trackedKeys(): number {
    return this.keys.size;
  }

  private slotsOf(key: string): Slots {
    let slots = this.keys.get(key);
    if (slots === undefined) {
      if (this.keys.size >= IDLE_KEYS_SWEPT_AT) this.sweepIdle();
      slots = { held: 0, waiting: undefined };
      this.keys.set(key, slots);
    }
    return slots;
  }

  private sweepIdle(): void {
    for (const [key, slots] of this.keys) if (slots.held === 0 && slots.waiting === undefined) this.keys.delete(key);
  }
}

function dropWaiter(slots: Slots, waiter: Waiter): void {
  const index = slots.waiting?.indexOf(waiter) ?? -1;
  if (index >= 0) slots.waiting!.splice(index, 1);
  if (slots.waiting?.length === 0) slots.waiting = undefined;
}
