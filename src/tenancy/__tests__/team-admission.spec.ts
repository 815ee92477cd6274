import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { RateLimitedError } from '../../common/errors/app-error';
import { loadConfig } from '../../config/load-config';
import type { FairnessMetrics, LaneOccupancy } from '../fairness.metrics';
import { requestIdMiddleware, stepAsideFromAdmission } from '../../observability/request-context';
import { TeamAdmission } from '../team-admission';

/** A request and the part of its response admission uses: `close` and `closed`. */
interface Exchange {
  req: Request;
  res: Response & EventEmitter & { closed: boolean };
  close(): void;
}

/** Every exchange a test made, closed after it: a request still waiting leaves the queue and its timer. */
const made: Exchange[] = [];
afterEach(() => {
  for (const x of made.splice(0)) if (!x.res.closed) x.close();
});

/** A request and its response; `headers` say how large its body is. */
function exchange(headers: Record<string, string> = {}): Exchange {
  const res = Object.assign(new EventEmitter(), { closed: false }) as Exchange['res'];
  const x: Exchange = {
    req: { destroyed: false, headers } as unknown as Request,
    res,
    close: () => {
      res.closed = true;
      res.emit('close');
    },
  };
  made.push(x);
  return x;
}

/** Long enough never to expire within a test. */
const NO_DEADLINE = '60000';

describe('TeamAdmission (R-TN-11)', () => {
  const refusals: string[] = [];
  const lanes = new Map<string, LaneOccupancy>();
  const metrics = {
    refused: (edge: string) => refusals.push(edge),
    watch: (lane: string, occupancy: LaneOccupancy) => lanes.set(lane, occupancy),
  } as unknown as FairnessMetrics;
  const admission = (env: Record<string, string> = {}) =>
    new TeamAdmission(
      loadConfig({
        AUTH_JWT_SECRET: 'x'.repeat(40),
        MAX_IN_FLIGHT: '2',
        // Alone or not, two turns: the alone turns are TeamFairSlots' own spec, and one test below.
        MAX_IN_FLIGHT_ALONE: '2',
        ADMISSION_QUEUE_MAX: '6',
        ADMISSION_QUEUE_WAIT_MS: NO_DEADLINE,
        RATE_LIMIT_RETRY_AFTER_SECONDS: '5',
        ...env,
      }),
      metrics,
    );
  /** Admits `x` for `team`, noting `name` in `order` once admitted; a refusal is noted as `name!`. */
  const admit = (gate: TeamAdmission, x: Exchange, team: string, order: string[], name: string) =>
    gate.admit(x.req, x.res, team, 'graphql').then(
      () => order.push(name),
      () => order.push(`${name}!`),
    );

  it('R-TN-11 a team alone is served on every slot, and past them its requests wait for a turn instead of being refused', async () => {
    const gate = admission();
    const order: string[] = [];
    const [a1, a2, a3] = [exchange(), exchange(), exchange()];
    await Promise.all([admit(gate, a1, 'team-a', order, 'a1'), admit(gate, a2, 'team-a', order, 'a2')]);
    const third = admit(gate, a3, 'team-a', order, 'a3');
    await Promise.resolve();
    expect(order).toEqual(['a1', 'a2']);
    // A response that closes gives its turn back: the waiting request goes on.
    a1.close();
    await third;
    expect(order).toEqual(['a1', 'a2', 'a3']);
    const ordinary = lanes.get('ordinary');
    expect([ordinary?.busySlots, ordinary?.queued]).toEqual([2, 0]);
  });

  it('R-TN-11 a team alone runs MAX_IN_FLIGHT_ALONE at once; with another team it starts more only below MAX_IN_FLIGHT, the other first', async () => {
    const gate = admission({ MAX_IN_FLIGHT_ALONE: '4' });
    const order: string[] = [];
    const running = [0, 1, 2, 3].map(() => exchange());
    await Promise.all(running.map((x, i) => admit(gate, x, 'team-a', order, `a${i}`)));
    const a4 = admit(gate, exchange(), 'team-a', order, 'a4');
    const b0 = admit(gate, exchange(), 'team-b', order, 'b0');
    await Promise.resolve();
    expect(order).toEqual(['a0', 'a1', 'a2', 'a3']);
    running[0].close();
    await b0;
    // Team b's first request took the freed turn; team a, with company, waits until fewer than two run.
    running[1].close();
    running[2].close();
    await Promise.resolve();
    expect(order).toEqual(['a0', 'a1', 'a2', 'a3', 'b0']);
    running[3].close();
    await a4;
    expect(order.at(-1)).toBe('a4');
  });

  it('R-TN-11 a freed turn goes to the waiting team with the fewest in flight, not to the flood that queued first', async () => {
    const gate = admission();
    const order: string[] = [];
    const running = [exchange(), exchange()];
    await Promise.all(running.map((x, i) => admit(gate, x, 'team-b', order, `b${i}`)));
    const waiting = [
      admit(gate, exchange(), 'team-b', order, 'b2'),
      admit(gate, exchange(), 'team-b', order, 'b3'),
      admit(gate, exchange(), 'team-a', order, 'a'),
    ];
    running[0].close();
    await Promise.race(waiting);
    expect(order).toEqual(['b0', 'b1', 'a']);
    running[1].close();
    await Promise.race([waiting[0], waiting[1]]);
    expect(order).toEqual(['b0', 'b1', 'a', 'b2']);
  });

  it('R-TN-11 a wait past ADMISSION_QUEUE_WAIT_MS is answered RATE_LIMITED naming it, with Retry-After, counted by edge', async () => {
    const gate = admission({ ADMISSION_QUEUE_WAIT_MS: '0' });
    refusals.length = 0;
    await Promise.all([exchange(), exchange()].map((x) => gate.admit(x.req, x.res, 'team-a', 'graphql')));
    const late = exchange();
    const error = await gate.admit(late.req, late.res, 'team-b', 'mcp').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterSeconds: 5,
      message: expect.stringMatching(/waited 0 ms for its team's turn \(ADMISSION_QUEUE_WAIT_MS\); retry after 5 s\.$/),
      details: { limit: 'ADMISSION_QUEUE_WAIT_MS', retryAfterSeconds: 5 },
    });
    expect(refusals).toEqual(['mcp']);
  });

  it("R-TN-11 a team past its half of ADMISSION_QUEUE_MAX is refused at once; another team's request still waits its turn", async () => {
    const gate = admission();
    const order: string[] = [];
    const running = [exchange(), exchange()];
    await Promise.all(running.map((x, i) => admit(gate, x, 'team-b', order, `b${i}`)));
    // Two running and three waiting: the team's share of a queue of six.
    const waiting = [2, 3, 4].map((i) => admit(gate, exchange(), 'team-b', order, `b${i}`));
    await admit(gate, exchange(), 'team-b', order, 'b5');
    expect(order).toEqual(['b0', 'b1', 'b5!']);
    const other = admit(gate, exchange(), 'team-a', order, 'a');
    running[0].close();
    await other;
    expect(order).toEqual(['b0', 'b1', 'b5!', 'a']);
    running[1].close();
    await Promise.race(waiting);
  });

  it('R-TN-11 a request whose client goes away while it waits leaves the queue and is not counted as refused', async () => {
    const gate = admission();
    refusals.length = 0;
    const order: string[] = [];
    const running = [exchange(), exchange()];
    await Promise.all(running.map((x, i) => admit(gate, x, 'team-a', order, `a${i}`)));
    const gone = exchange();
    const waiting = admit(gate, gone, 'team-b', order, 'b');
    gone.close();
    await waiting;
    expect(order).toEqual(['a0', 'a1', 'b!']);
    expect(refusals).toEqual([]);
    // Its place is free: a new request of the team waits and is served when a turn comes back.
    const next = admit(gate, exchange(), 'team-b', order, 'b2');
    running[0].close();
    await next;
    expect(order.at(-1)).toBe('b2');
  });

  it('R-TN-11 a response already closed when its turn comes does not keep the turn', async () => {
    const gate = admission({ MAX_IN_FLIGHT: '1' });
    const order: string[] = [];
    const gone = exchange();
    gone.res.closed = true;
    await admit(gate, gone, 'team-a', order, 'gone');
    // Had the closed response kept it, this one would wait forever (no deadline here).
    await admit(gate, exchange(), 'team-a', order, 'next');
    expect(order).toEqual(['gone', 'next']);
  });

  it('R-TN-10 requests with large bodies take turns of their own lane, two at once; small ones of the same team are not held behind them', async () => {
    const gate = admission({ MAX_LARGE_REQUESTS_IN_FLIGHT: '2', LARGE_REQUEST_FROM_BYTES: '1048576' });
    const order: string[] = [];
    const large = () => exchange({ 'content-length': String(8 * 1024 * 1024) });
    const running = [large(), large()];
    await Promise.all(running.map((x, i) => admit(gate, x, 'team-b', order, `large${i}`)));
    const third = admit(gate, large(), 'team-b', order, 'large2');
    // A body of unknown length (chunked) is large too.
    const chunked = admit(gate, exchange({ 'transfer-encoding': 'chunked' }), 'team-a', order, 'chunked');
    // Small requests, of the same team and another, go on in the ordinary lane.
    await admit(gate, exchange({ 'content-length': '100000' }), 'team-b', order, 'small-b');
    await admit(gate, exchange(), 'team-a', order, 'small-a');
    expect(order).toEqual(['large0', 'large1', 'small-b', 'small-a']);
    // A freed large turn goes to the team running none there.
    running[0].close();
    await chunked;
    expect(order.at(-1)).toBe('chunked');
    running[1].close();
    await third;
    expect(order.at(-1)).toBe('large2');
  });

  it('R-TN-11 an ordinary request parked in a pool gives its turn back; a large one keeps its turn (its event-loop work is still ahead)', async () => {
    const gate = admission({ MAX_IN_FLIGHT: '1', MAX_LARGE_REQUESTS_IN_FLIGHT: '1', LARGE_REQUEST_FROM_BYTES: '1048576' });
    const order: string[] = [];
    /** Admits `x` inside a request scope, as the edge does, and then parks it in a pool (steps aside). */
    const admitAndPark = (x: Exchange, team: string, name: string) =>
      new Promise<void>((resolve) =>
        requestIdMiddleware(x.req, Object.assign(x.res, { setHeader: () => undefined }), () => {
          void admit(gate, x, team, order, name).then(() => {
            stepAsideFromAdmission();
            resolve();
          });
        }),
      );
    const large = () => exchange({ 'content-length': String(8 * 1024 * 1024) });
    await admitAndPark(exchange(), 'team-b', 'small-b');
    await admitAndPark(large(), 'team-b', 'large-b');
    // The small one's turn is free again; the large one's is not.
    await admit(gate, exchange(), 'team-a', order, 'small-a');
    const largeA = admit(gate, large(), 'team-a', order, 'large-a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['small-b', 'large-b', 'small-a']);
    for (const x of made.slice(0, 2)) x.close();
    await largeA;
    expect(order.at(-1)).toBe('large-a');
  });
});
