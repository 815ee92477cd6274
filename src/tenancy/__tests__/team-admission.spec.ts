import { EventEmitter } from 'node:events';
import type { Request } from 'express';
import { RateLimitedError } from '../../common/errors/app-error';
import { loadConfig } from '../../config/load-config';
import type { FairnessMetrics } from '../fairness.metrics';
import { TeamAdmission } from '../team-admission';

/** A request with the part of its response admission uses: `close` and `closed`. */
function request(): Request & { res: EventEmitter & { closed: boolean } } {
  const res = Object.assign(new EventEmitter(), { closed: false });
  return { res } as unknown as Request & { res: EventEmitter & { closed: boolean } };
}

function close(req: ReturnType<typeof request>): void {
  req.res.closed = true;
  req.res.emit('close');
}

describe('TeamAdmission (R-TN-10)', () => {
  const refusals: string[] = [];
  const metrics = { refused: (edge: string) => refusals.push(edge) } as unknown as FairnessMetrics;
  const admission = () =>
    new TeamAdmission(
      loadConfig({ AUTH_JWT_SECRET: 'x'.repeat(40), TEAM_MAX_IN_FLIGHT: '2', RATE_LIMIT_RETRY_AFTER_SECONDS: '5' }),
      metrics,
    );

  it('R-TN-10 counts a request once however many operations ask, and gives its slot back when the response closes', () => {
    const gate = admission();
    const [first, second, third] = [request(), request(), request()];
    for (let i = 0; i < 5; i += 1) gate.admit(first, 'team-a', 'graphql');
    gate.admit(second, 'team-a', 'mcp');
    expect(gate.inFlightFor('team-a')).toBe(2);
    expect(() => gate.admit(third, 'team-a', 'graphql')).toThrow(RateLimitedError);
    // Another team is not affected.
    gate.admit(request(), 'team-b', 'graphql');
    close(first);
    expect(gate.inFlightFor('team-a')).toBe(1);
    gate.admit(request(), 'team-a', 'graphql');
    expect(gate.inFlightFor('team-a')).toBe(2);
  });

  it('R-TN-10 a refused request stays refused for its other operations and is counted once, by edge', () => {
    const gate = admission();
    refusals.length = 0;
    gate.admit(request(), 'team-a', 'graphql');
    gate.admit(request(), 'team-a', 'graphql');
    const refused = request();
    const error = (() => {
      try {
        gate.admit(refused, 'team-a', 'graphql');
      } catch (e) {
        return e as RateLimitedError;
      }
    })();
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfterSeconds: 5,
      details: { limit: 'TEAM_MAX_IN_FLIGHT', retryAfterSeconds: 5 },
    });
    expect(() => gate.admit(refused, 'team-a', 'graphql')).toThrow(RateLimitedError);
    expect(refusals).toEqual(['graphql']);
  });

  it('R-TN-10 a response already closed (the client left during the token check) does not keep its slot', () => {
    const gate = admission();
    const gone = request();
    gone.res.closed = true;
    gate.admit(gone, 'team-a', 'graphql');
    expect(gate.inFlightFor('team-a')).toBe(0);
  });
});
