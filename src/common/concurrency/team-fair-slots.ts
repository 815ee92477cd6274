/** Gives a slot back; safe to call once only. */
export type ReleaseSlot = () => void;

/** Why no slot was granted: the team's share used up, no room to wait, the wait past its deadline, or the caller gone. */
export type SlotRefusal = { refused: 'team_share' | 'queue_full' | 'deadline' | 'abandoned' };

interface Waiter {
  team: string;
  grant: (outcome: ReleaseSlot | SlotRefusal) => void;
  timer: NodeJS.Timeout;
}

/** Slots a team may use while no other team wants any, and for how long another team still counts as wanting. */
export interface AloneSlots {
  /** Slots for a team alone: at least `slots`. */
  readonly slots: number;
  /** Another team counts as wanting slots until this long after it last held one. */
  readonly contentionWindowMs: number;
}

/**
 * A fixed number of slots with a bounded queue, shared between teams: one team may hold (running
 * plus waiting) at most `teamShare` — by default half of slots plus queue, so one team's flood
 * fills its half and the other half stays for everyone else — and a freed slot goes to the waiting
 * team that runs the fewest, then to the one served longest ago: turns go round the waiting teams.
 * A team alone may use every slot its share allows — and, with `alone`, more slots than teams
 * share: while no other team held a slot within the contention window, up to `alone.slots` run;
 * with others, a team starts another only below `slots`, and a team's first only below `alone.slots`.
 * Every wait has a deadline.
 */
export class TeamFairSlots {
  private running = 0;
  private readonly queue: Waiter[] = [];
  private readonly heldByTeam = new Map<string, number>();
  private readonly runningByTeam = new Map<string, number>();
  /** When each waiting or running team last got a slot (a counter, not a clock). */
  private readonly lastStart = new Map<string, number>();
  private starts = 0;
  /** When the last team to give back its last slot did (Date.now()), and the team before it: who wanted slots lately. */
  private latestTeam = '';
  private latestAt = -Infinity;
  private beforeAt = -Infinity;
  private readonly aloneSlots: number;
  private readonly contentionWindowMs: number;
  readonly teamShare: number;

  constructor(
    private readonly slots: number,
    private readonly queueMax: number,
    teamShare?: number,
    alone?: AloneSlots,
  ) {
    this.aloneSlots = Math.max(slots, alone?.slots ?? slots);
    this.contentionWindowMs = alone?.contentionWindowMs ?? 0;
    this.teamShare = teamShare ?? Math.max(1, Math.floor((this.aloneSlots + queueMax) / 2));
  }

  get busySlots(): number {
    return this.running;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** A slot for `team`, at once or after waiting its turn at most `waitMs`; `signal` withdraws a waiting caller. */
  acquire(team: string, waitMs: number, signal?: AbortSignal): Promise<ReleaseSlot | SlotRefusal> {
    const now = this.tryAcquire(team);
    if (now !== undefined) return Promise.resolve(now);
    if (signal?.aborted) return Promise.resolve({ refused: 'abandoned' });
    this.hold(team, 1);
    return new Promise((grant) => {
      const leave = (refused: SlotRefusal['refused']): void => {
        clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', onAbort);
        this.queue.splice(this.queue.indexOf(waiter), 1);
        this.hold(team, -1);
        grant({ refused });
      };
      const onAbort = (): void => leave('abandoned');
      const waiter: Waiter = {
        team,
        grant: (outcome) => {
          signal?.removeEventListener('abort', onAbort);
          grant(outcome);
        },
        timer: setTimeout(() => leave('deadline'), waitMs),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /**
   * Without waiting: a slot, or the refusal of a team over its share or of a full queue;
   * undefined when the caller would have to wait its turn (then `acquire`).
   */
  tryAcquire(team: string): ReleaseSlot | SlotRefusal | undefined {
    if ((this.heldByTeam.get(team) ?? 0) >= this.teamShare) return { refused: 'team_share' };
    if (this.running < this.slotsFor(team)) return this.start(team);
    if (this.queue.length >= this.queueMax) return { refused: 'queue_full' };
    return undefined;
  }

  /**
   * How many may be running for `team` to start one more: every alone slot while no other team
   * holds one or did lately; with others, `slots` — except for a team running none, whose first
   * call starts within the alone slots, so it waits for one slot coming back and not for a
   * flood's alone slots to drain down to `slots`.
   */
  private slotsFor(team: string): number {
    if (this.aloneSlots === this.slots || !this.runningByTeam.has(team)) return this.aloneSlots;
    const others = this.heldByTeam.size - (this.heldByTeam.has(team) ? 1 : 0);
    if (others > 0) return this.slots;
    const lately = Date.now() - this.contentionWindowMs;
    const otherAt = this.latestTeam !== team ? this.latestAt : this.beforeAt;
    return otherAt > lately ? this.slots : this.aloneSlots;
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
   * not served after every call of a team that queued first (with one slot too).
   */
  private next(): void {
    // Several may start at once: a team left alone gets its alone slots back.
    while (this.queue.length > 0 && this.startNext());
  }

  private startNext(): boolean {
    const rank = (team: string): [number, number] => [this.runningByTeam.get(team) ?? 0, this.lastStart.get(team) ?? 0];
    let chosen = 0;
    for (let index = 1; index < this.queue.length; index++) {
      const [running, served] = rank(this.queue[index].team);
      const [bestRunning, bestServed] = rank(this.queue[chosen].team);
      if (running < bestRunning || (running === bestRunning && served < bestServed)) chosen = index;
    }
    if (this.running >= this.slotsFor(this.queue[chosen].team)) return false;
    const [waiter] = this.queue.splice(chosen, 1);
    clearTimeout(waiter.timer);
    // The waiter's hold moves from waiting to running (never through zero).
    const release = this.start(waiter.team);
    this.hold(waiter.team, -1);
    waiter.grant(release);
    return true;
  }

  private hold(team: string, by: number): void {
    add(this.heldByTeam, team, by);
    if (this.heldByTeam.has(team)) return;
    // A team holding nothing has no turn to remember; with alone slots, when it last wanted one.
    this.lastStart.delete(team);
    if (this.aloneSlots === this.slots) return;
    if (this.latestTeam !== team) this.beforeAt = this.latestAt;
    this.latestTeam = team;
    this.latestAt = Date.now();
  }
}

/** Adds to a team's count, forgetting a team at zero (teams come and go; the maps stay small). */
function add(counts: Map<string, number>, team: string, by: number): void {
  const count = (counts.get(team) ?? 0) + by;
  if (count === 0) counts.delete(team);
  else counts.set(team, count);
}
