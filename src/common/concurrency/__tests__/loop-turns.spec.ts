import { LoopTurns } from '../loop-turns';

describe('LoopTurns (R-TN-10: work that grows with input gives other requests a turn)', () => {
  it('R-TN-10: work under a slice goes on at once; once a slice is full, a turn of the event loop comes first', async () => {
    const turns = new LoopTurns(1_000);
    const order: string[] = [];
    const other = setImmediate(() => order.push('another request'));
    await turns.after(600);
    order.push('work 600');
    await turns.after(600);
    order.push('work 1,200');
    clearImmediate(other);
    expect(order).toEqual(['work 600', 'another request', 'work 1,200']);
  });

  it('R-TN-10: the count starts again after each turn', async () => {
    const turns = new LoopTurns(1_000);
    let ticks = 0;
    const tick = () => setImmediate(() => (ticks += 1));
    tick();
    await turns.after(1_000);
    expect(ticks).toBe(1);
    tick();
    await turns.after(999);
    expect(ticks).toBe(1);
    await turns.after(1);
    expect(ticks).toBe(2);
  });
});
