/** Gives a slot back; safe to call once only. */
export type ReleaseSlot = () => void;

interface Waiter {
  team: string;
  grant: (release: ReleaseSlot | null) => void;
  timer: NodeJS.Timeout;
}

/**
 * A fixed number of slots with a bounded FIFO queue, where one team may hold (running plus
 * waiting) at most half of slots plus queue: one team's flood fills its half and gets "busy",
 * the other half stays for everyone else. A null grant means busy: no slot and no room to wait,
 * the team's share used up, or the wait past its deadline.
 */
export class TeamFairSlots {
  private running = 0;
  private readonly queue: Waiter[] = [];
  private readonly heldByTeam = new Map<string, number>();
  readonly teamShare: number;

  constructor(
    private readonly slots: number,
    private readonly queueMax: number,
  ) {
    this.teamShare = Math.max(1, Math.floor((slots + queueMax) / 2));
  }

  get busySlots(): number {
    return this.running;
  }

  get queued(): number {
    return this.queue.length;
  }

  acquire(team: string, waitMs: number): Promise<ReleaseSlot | null> {
    if ((this.heldByTeam.get(team) ?? 0) >= this.teamShare) return Promise.resolve(null);
    if (this.running < this.slots) return Promise.resolve(this.start(team));
    if (this.queue.length >= this.queueMax) return Promise.resolve(null);
    this.hold(team, 1);
    return new Promise((grant) => {
      const waiter: Waiter = {
        team,
        grant,
        timer: setTimeout(() => {
          this.queue.splice(this.queue.indexOf(waiter), 1);
          this.hold(team, -1);
          grant(null);
        }, waitMs),
      };
      this.queue.push(waiter);
    });
  }

  private start(team: string): ReleaseSlot {
    this.running++;
    this.hold(team, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.hold(team, -1);
      this.next();
    };
  }

  /** Hands a freed slot to the longest waiter. */
  private next(): void {
    const waiter = this.queue.shift();
    if (waiter === undefined) return;
    clearTimeout(waiter.timer);
    // The waiter's hold moves from waiting to running.
    this.hold(waiter.team, -1);
    waiter.grant(this.start(waiter.team));
  }

  private hold(team: string, by: number): void {
    const held = (this.heldByTeam.get(team) ?? 0) + by;
    if (held === 0) this.heldByTeam.delete(team);
    else this.heldByTeam.set(team, held);
  }
}
