import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type SlotRefusal, TeamFairSlots } from '../common/concurrency/team-fair-slots';
import { RateLimitedError } from '../common/errors/app-error';
import { AppConfig } from '../config/app-config';
import { type AdmissionEdge, FairnessMetrics } from './fairness.metrics';

/**
 * Fair, work-conserving admission of one replica's HTTP requests (R-TN-11). Invariant: at most
 * MAX_IN_FLIGHT requests of all teams are served at once, counted from the verified token's team
 * before the body is read or any SQL runs, and given back when the response closes — finished,
 * failed or abandoned by the client. A team alone may use them all; when teams want more than
 * there is, a freed turn goes to the waiting team with the fewest in flight (then the one served
 * longest ago), so each keeps about an equal share and a team that floods waits behind its own
 * requests, not in front of others'. A request waits at most ADMISSION_QUEUE_WAIT_MS, and one
 * team at most half of ADMISSION_QUEUE_MAX requests wait; past either, RATE_LIMITED (HTTP 429).
 */
@Injectable()
export class TeamAdmission {
  private readonly turns: TeamFairSlots;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: FairnessMetrics,
  ) {
    const { maxInFlight, queueMax } = config.admission;
    // A team may run on every slot and wait in half the queue: the share bites only under contention.
    this.turns = new TeamFairSlots(maxInFlight, queueMax, maxInFlight + Math.max(1, Math.floor(queueMax / 2)));
  }

  /**
   * Resolves once the request is admitted for `teamId`; its turn is given back when `res` closes.
   * Throws RateLimitedError when the team has no room to wait or the wait passed its bound.
   */
  async admit(req: Request, res: Response, teamId: string, edge: AdmissionEdge): Promise<void> {
    const gone = new AbortController();
    const leave = (): void => gone.abort();
    // `close` comes once, also when the client goes away first: a waiting request leaves the queue.
    res.once('close', leave);
    const granted = this.turns.acquire(teamId, this.config.admission.queueWaitMs, gone.signal);
    this.metrics.occupancy(this.turns.busySlots, this.turns.queued);
    const turn = await granted;
    res.off('close', leave);
    this.metrics.occupancy(this.turns.busySlots, this.turns.queued);
    if (typeof turn !== 'function') {
      if (turn.refused !== 'abandoned') this.metrics.refused(edge);
      throw this.refusal(turn);
    }
    const release = (): void => {
      turn();
      this.metrics.occupancy(this.turns.busySlots, this.turns.queued);
    };
    if (res.closed || req.destroyed) release();
    else res.once('close', release);
  }

  private refusal({ refused }: SlotRefusal): RateLimitedError {
    const { queueMax, queueWaitMs, retryAfterSeconds } = this.config.admission;
    if (refused === 'deadline') {
      return new RateLimitedError(
        'ADMISSION_QUEUE_WAIT_MS',
        `This server is busy: the request waited ${queueWaitMs} ms for its team's turn (ADMISSION_QUEUE_WAIT_MS)`,
        retryAfterSeconds,
      );
    }
    return new RateLimitedError(
      'ADMISSION_QUEUE_MAX',
      `Your team already has its share of the ${queueMax} requests that may wait on this server (ADMISSION_QUEUE_MAX); send fewer at once`,
      retryAfterSeconds,
    );
  }
}
