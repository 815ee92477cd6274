import { type ReleaseSlot, type SlotRefusal, TeamFairSlots } from '../team-fair-slots';

/** The release of a granted slot; a refusal fails the test. */
function slotOf(outcome: ReleaseSlot | SlotRefusal): ReleaseSlot {
  if (typeof outcome !== 'function') throw new Error(`refused: ${outcome.refused}`);
  return outcome;
}

/** Long enough never to expire within a test; expiry is asked for with 0. */
const NO_DEADLINE = 60_000;

describe('TeamFairSlots', () => {
  it('R-TN-10 runs up to the slots, queues up to the bound, then answers busy', async () => {
    const slots = new TeamFairSlots(1, 2);
    const teams = ['a', 'b', 'c', 'd'];
    const grants = teams.map((team) => slots.acquire(team, NO_DEADLINE));
    const first = await grants[0];
    expect(typeof first).toBe('function');
    expect(await grants[3]).toEqual({ refused: 'queue_full' });
    expect([slots.busySlots, slots.queued]).toEqual([1, 2]);
    // Released slots go to the waiters in order.
    slotOf(first)();
    const second = await grants[1];
    expect([slots.busySlots, slots.queued]).toEqual([1, 1]);
    slotOf(second)();
    slotOf(await grants[2])();
    expect([slots.busySlots, slots.queued]).toEqual([0, 0]);
  });

  it("R-TN-10 one team holds at most half of slots plus queue; another team's call still gets in", async () => {
    const slots = new TeamFairSlots(1, 3);
    expect(slots.teamShare).toBe(2);
    const flood = [1, 2, 3].map(() => slots.acquire('b', NO_DEADLINE));
    expect(await flood[2]).toEqual({ refused: 'team_share' });
    const other = slots.acquire('a', NO_DEADLINE);
    expect(slots.queued).toBe(2);
    slotOf(await flood[0])();
    // The other team's turn comes before the flood's second call.
    const granted = await other;
    expect(typeof granted).toBe('function');
    slotOf(granted)();
    slotOf(await flood[1])();
    // Released holds count no more: team b may take its share again.
    const again = await slots.acquire('b', NO_DEADLINE);
    expect(typeof again).toBe('function');
    slotOf(again)();
  });

  it('R-TN-10 a freed slot goes to the waiting team that runs the fewest, not to the flood queued first', async () => {
    const slots = new TeamFairSlots(2, 6);
    const [b1, b2] = await Promise.all([slots.acquire('b', NO_DEADLINE), slots.acquire('b', NO_DEADLINE)]);
    let served = '';
    const waiting = ['b', 'b', 'a'].map((team) => slots.acquire(team, NO_DEADLINE).then((release) => ((served += team), release)));
    slotOf(b1)();
    await Promise.race(waiting);
    expect(served).toBe('a');
    slotOf(await waiting[2])();
    slotOf(b2)();
    for (const release of await Promise.all(waiting.slice(0, 2))) slotOf(release)();
    expect([slots.busySlots, slots.queued]).toEqual([0, 0]);
  });

  it('R-TN-10 with one slot, turns alternate between waiting teams instead of following the queue', async () => {
    const slots = new TeamFairSlots(1, 6);
    const running = await slots.acquire('b', NO_DEADLINE);
    const served: string[] = [];
    const waiting = ['b', 'b', 'a', 'a'].map((team) =>
      slots.acquire(team, NO_DEADLINE).then((release) => {
        served.push(team);
        // Each one finishes at once, handing the slot on.
        slotOf(release)();
      }),
    );
    slotOf(running)();
    await Promise.all(waiting);
    expect(served).toEqual(['a', 'b', 'a', 'b']);
  });

  it('R-TN-10 a wait past its deadline answers busy and leaves the queue', async () => {
    const slots = new TeamFairSlots(1, 4);
    const running = await slots.acquire('a', NO_DEADLINE);
    expect(await slots.acquire('b', 0)).toEqual({ refused: 'deadline' });
    expect(slots.queued).toBe(0);
    slotOf(running)();
    slotOf(running)();
    expect(slots.busySlots).toBe(0);
  });

  it('R-TN-11 with a share of every slot, a team alone runs on all of them; a second team still gets the next turn', async () => {
    const slots = new TeamFairSlots(3, 6, 3 + 3);
    const alone = await Promise.all([1, 2, 3].map(() => slots.acquire('b', NO_DEADLINE)));
    expect(slots.busySlots).toBe(3);
    const order: string[] = [];
    const waiting = ['b', 'b', 'a'].map((team) => slots.acquire(team, NO_DEADLINE).then((release) => (order.push(team), release)));
    slotOf(alone[0])();
    await Promise.race(waiting);
    expect(order).toEqual(['a']);
    for (const release of alone.slice(1)) slotOf(release)();
    for (const release of await Promise.all(waiting)) slotOf(release)();
    expect([slots.busySlots, slots.queued]).toEqual([0, 0]);
  });

  it('R-TN-11 a waiting caller that goes away leaves the queue and holds nothing', async () => {
    const slots = new TeamFairSlots(1, 4);
    const running = await slots.acquire('a', NO_DEADLINE);
    const gone = new AbortController();
    const waiting = slots.acquire('b', NO_DEADLINE, gone.signal);
    expect(slots.queued).toBe(1);
    gone.abort();
    expect(await waiting).toEqual({ refused: 'abandoned' });
    expect(slots.queued).toBe(0);
    slotOf(running)();
    expect(slots.busySlots).toBe(0);
  });

  describe('with alone slots', () => {
    afterEach(() => jest.useRealTimers());

    it('R-TN-11 a team alone runs the alone slots; once another team holds one, it starts more only below the shared slots', async () => {
      const slots = new TeamFairSlots(2, 8, undefined, { slots: 4, contentionWindowMs: 1000 });
      const a = await Promise.all([1, 2, 3, 4].map(() => slots.acquire('a', NO_DEADLINE)));
      expect(slots.busySlots).toBe(4);
      let served = '';
      const a5 = slots.acquire('a', NO_DEADLINE).then((release) => ((served += 'a'), release));
      // Team b's first call waits for one slot back, not for team a to drain to two.
      const b = slots.acquire('b', NO_DEADLINE).then((release) => ((served += 'b'), release));
      slotOf(a[0])();
      await b;
      expect(served).toBe('b');
      slotOf(a[1])();
      slotOf(a[2])();
      await Promise.resolve();
      expect([served, slots.busySlots]).toEqual(['b', 2]);
      slotOf(a[3])();
      slotOf(await a5)();
      slotOf(await b)();
      expect([served, slots.busySlots, slots.queued]).toEqual(['ba', 0, 0]);
    });

    it('R-TN-11 another team counts for the contention window after its last slot, then the team alone has the alone slots back', async () => {
      jest.useFakeTimers({ now: 1_000_000 });
      const slots = new TeamFairSlots(1, 8, undefined, { slots: 3, contentionWindowMs: 1000 });
      slotOf(await slots.acquire('b', NO_DEADLINE))();
      const first = slotOf(await slots.acquire('a', NO_DEADLINE));
      // Team b was here 0 ms ago: team a's second call waits.
      const second = slots.acquire('a', NO_DEADLINE);
      expect(slots.queued).toBe(1);
      jest.advanceTimersByTime(1000);
      // Past the window, team a is alone: its next call starts at once, and a released slot lets the waiting one start too.
      const third = slotOf(await slots.acquire('a', NO_DEADLINE));
      expect([slots.busySlots, slots.queued]).toEqual([2, 1]);
      third();
      slotOf(await second)();
      first();
      expect([slots.busySlots, slots.queued]).toEqual([0, 0]);
    });
  });
});
