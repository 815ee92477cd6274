import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import { testConfig } from '../../../../test/support/tool-results-service';
import { requestIdMiddleware } from '../../../observability/request-context';
import { TeamAdmission } from '../../../tenancy';
import { DatabasePathTurns } from '../database-path-turns';

/** A promise with its resolve, to hold a turn until the test lets go. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const turnsOf = (env: Record<string, string>) =>
  new DatabasePathTurns(testConfig({ JSON_PATH_QUEUE_WAIT_MS: '600000', JSON_PATH_QUEUE_MAX: '6', ...env }));

describe('DatabasePathTurns: node lists PostgreSQL evaluates, in turns between teams (R-TN-10)', () => {
  it("R-TN-10 team A's evaluation starts before team B's later-queued ones", async () => {
    const turns = turnsOf({ JSON_PATH_DATABASE_CONCURRENCY: '1' });
    const started: string[] = [];
    const holding = gate();
    const evaluate = (name: string, wait?: Promise<void>) => async () => {
      started.push(name);
      await wait;
      return name;
    };
    const calls = [
      turns.run('team-b', evaluate('b1', holding.opened)),
      turns.run('team-b', evaluate('b2')),
      turns.run('team-b', evaluate('b3')),
      turns.run('team-a', evaluate('a')),
    ];
    holding.open();
    expect(await Promise.all(calls)).toEqual(['b1', 'b2', 'b3', 'a']);
    expect(started).toEqual(['b1', 'a', 'b2', 'b3']);
  });

  it('R-TN-10 a team alone runs on every turn; past its half of the queue it is told busy (null) without evaluating', async () => {
    const turns = turnsOf({ JSON_PATH_DATABASE_CONCURRENCY: '2' });
    const holding = gate();
    let evaluated = 0;
    const evaluate = async () => {
      evaluated++;
      await holding.opened;
      return 'done';
    };
    // Two running and three waiting: the team's share (two turns plus half of a queue of six).
    const admitted = [1, 2, 3, 4, 5].map(() => turns.run('team-b', evaluate));
    while (evaluated < 2) await Promise.resolve();
    expect(await turns.run('team-b', evaluate)).toBeNull();
    expect(evaluated).toBe(2);
    holding.open();
    expect(await Promise.all(admitted)).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(evaluated).toBe(5);
  });

  it('R-TN-10 a turn is given back when the evaluation fails', async () => {
    const turns = turnsOf({ JSON_PATH_DATABASE_CONCURRENCY: '1' });
    await expect(turns.run('team-a', () => Promise.reject(new Error('statement failed')))).rejects.toThrow('statement failed');
    expect(await turns.run('team-a', () => Promise.resolve('next'))).toBe('next');
  });

  it("R-TN-11 a request waiting here gives its admission turn back: another team's request is admitted while it waits", async () => {
    const turns = turnsOf({ JSON_PATH_DATABASE_CONCURRENCY: '1' });
    const metrics = { refused: () => undefined, watch: () => undefined } as unknown as ConstructorParameters<typeof TeamAdmission>[1];
    const admission = new TeamAdmission(
      testConfig({ MAX_IN_FLIGHT: '1', MAX_IN_FLIGHT_ALONE: '1', ADMISSION_QUEUE_WAIT_MS: '2000' }),
      metrics,
    );
    const exchange = () => ({
      req: { destroyed: false, headers: {} } as unknown as Request,
      res: Object.assign(new EventEmitter(), { closed: false, setHeader: () => undefined }) as unknown as Response,
    });
    /** Runs `work` as a request does: inside its request scope, whose budget admission marks. */
    const inRequest = <T>(x: ReturnType<typeof exchange>, work: () => Promise<T>) =>
      new Promise<T>((resolve, reject) => requestIdMiddleware(x.req, x.res, (() => void work().then(resolve, reject)) as NextFunction));
    const order: string[] = [];
    const holding = gate();
    // Another caller holds the one database turn.
    const held = turns.run('team-c', async () => {
      await holding.opened;
      return 'c';
    });
    const b = exchange();
    const teamB = inRequest(b, async () => {
      await admission.admit(b.req, b.res, 'team-b', 'graphql');
      order.push('b admitted');
      return turns.run('team-b', async () => {
        order.push('b evaluates');
        return 'b';
      });
    });
    while (order.length === 0) await Promise.resolve();
    const a = exchange();
    await inRequest(a, () => admission.admit(a.req, a.res, 'team-a', 'graphql'));
    order.push('a admitted');
    expect(order).toEqual(['b admitted', 'a admitted']);
    holding.open();
    expect(await Promise.all([held, teamB])).toEqual(['c', 'b']);
    expect(order).toEqual(['b admitted', 'a admitted', 'b evaluates']);
    // B's turn, given back once, is not given back again when its response closes: A's is the one in flight.
    b.res.emit('close');
    const late = exchange();
    let lateAdmitted = false;
    void admission.admit(late.req, late.res, 'team-d', 'graphql').then(() => (lateAdmitted = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(lateAdmitted).toBe(false);
    a.res.emit('close');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lateAdmitted).toBe(true);
    late.res.emit('close');
  });
});
