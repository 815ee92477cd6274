import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { KeyedSemaphore } from '../common/concurrency/keyed-semaphore';
import { RateLimitedError } from '../common/errors/app-error';
import { AppConfig } from '../config/app-config';
import { type AdmissionEdge, FairnessMetrics } from './fairness.metrics';

/** What admission decided for a request; kept on it, so a document's aliases are counted once. */
const ADMISSION = Symbol('teamAdmission');
type AdmittedRequest = Request & { [ADMISSION]?: 'admitted' | 'refused' };

/**
 * The per-team in-flight limit of one replica (R-TN-10). Invariant: a team holds at most
 * TEAM_MAX_IN_FLIGHT of this process's HTTP requests at once, counted from the verified token's
 * team before any SQL runs, once per HTTP request (the guard runs per operation), and given back
 * when the response closes — finished, failed or abandoned by the client.
 */
@Injectable()
export class TeamAdmission {
  private readonly inFlight: KeyedSemaphore;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: FairnessMetrics,
  ) {
    this.inFlight = new KeyedSemaphore(config.fairness.maxInFlightPerTeam);
  }

  /** Admits the request for `teamId`, or throws RateLimitedError (again for each of its operations once refused). */
  admit(req: Request, teamId: string, edge: AdmissionEdge): void {
    const request = req as AdmittedRequest;
    const decided = request[ADMISSION];
    if (decided === 'admitted') return;
    if (decided === undefined) {
      if (this.inFlight.tryAcquire(teamId)) {
        request[ADMISSION] = 'admitted';
        const res = req.res!;
        // `close` comes once per response, also when the client goes away first; if it already came, it will not again.
        if (res.closed) this.inFlight.release(teamId);
        else res.once('close', () => this.inFlight.release(teamId));
        return;
      }
      request[ADMISSION] = 'refused';
      this.metrics.refused(edge);
    }
    throw new RateLimitedError('TEAM_MAX_IN_FLIGHT', this.inFlight.limit, this.config.fairness.retryAfterSeconds);
  }

  /** Requests the team has in flight on this replica. */
  inFlightFor(teamId: string): number {
    return this.inFlight.heldBy(teamId);
  }
}
