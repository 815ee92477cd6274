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
 * the other half stays for everyone else, and freed slots go round the waiting teams. A null grant means busy: no slot and no room to wait,
 * the team's share used up, or the wait past its deadline.
 */
export class TeamFairSlots {
  private running = 0;
  private readonly queue: Waiter[] = [];
  private readonly heldByTeam = new Map<string, number>();
  private readonly runningByTeam = new Map<string, number>();
  /** When each waiting or running team last got a slot (a counter, not a clock). */
  private readonly lastStart = new Map<string, number>();
  private starts = 0;
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
    add(this.runningByTeam, team, 1);
    this.lastStart.set(team, ++this.starts);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.hold(team, -1);
      add(this.runningByTeam, team, -1);
      this.next();
    };
  }

  /**
   * Hands a freed slot to the longest waiter of the team running the fewest, and among those of
   * the team served longest ago: turns go round the waiting teams, so a team that queued late is
   * not served after every call of a team that queued first (with one thread too).
   */
  private next(): void {
    if (this.queue.length === 0) return;
    const rank = (team: string): [number, number] => [this.runningByTeam.get(team) ?? 0, this.lastStart.get(team) ?? 0];
    let chosen = 0;
    for (let index = 1; index < this.queue.length; index++) {
      const [running, served] = rank(this.queue[index].team);
      const [bestRunning, bestServed] = rank(this.queue[chosen].team);
      if (running < bestRunning || (running === bestRunning && served < bestServed)) chosen = index;
    }
    const [waiter] = this.queue.splice(chosen, 1);
    clearTimeout(waiter.timer);
    // The waiter's hold moves from waiting to running.
    this.hold(waiter.team, -1);
    waiter.grant(this.start(waiter.team));
  }

  private hold(team: string, by: number): void {
    add(this.heldByTeam, team, by);
    // A team holding nothing has no turn to remember.
    if (!this.heldByTeam.has(team)) this.lastStart.delete(team);
  }
}

/** Adds to a team's count, forgetting a team at zero (teams come and go; the maps stay small). */
function add(counts: Map<string, number>, team: string, by: number): void {
  const count = (counts.get(team) ?? 0) + by;
  if (count === 0) counts.delete(team);
  else counts.set(team, count);
}
