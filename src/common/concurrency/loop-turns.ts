import { setImmediate as nextTurn } from 'node:timers/promises';

/** The characters of work (serializing, hashing) done between two turns of the event loop: a few milliseconds. */
const CHARS_PER_TURN = 262_144;

/**
 * Work on the event loop that grows with its input (a history's messages, a batch's payloads),
 * done a slice at a time: once CHARS_PER_TURN characters of it are done, other requests get a turn
 * before it goes on (R-TN-10).
 */
export class LoopTurns {
  private done = 0;

  constructor(private readonly charsPerTurn = CHARS_PER_TURN) {}

  /** Counts `chars` more of work; when a slice is full, resolves only after a turn of the event loop. */
  async after(chars: number): Promise<void> {
    this.done += chars;
    if (this.done < this.charsPerTurn) return;
    this.done = 0;
    await nextTurn();
  }
}
