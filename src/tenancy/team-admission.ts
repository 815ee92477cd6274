import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type ReleaseSlot, type SlotRefusal, TeamFairSlots } from '../common/concurrency/team-fair-slots';
import { RateLimitedError } from '../common/errors/app-error';
import { AppConfig } from '../config/app-config';
import { currentRequestBudget } from '../observability/request-context';
import { type AdmissionEdge, type AdmissionLane, FairnessMetrics } from './fairness.metrics';

/** One lane of admission: its turns, how long a request may wait for one, and the settings that bound it. */
interface Lane {
  readonly name: AdmissionLane;
  readonly turns: TeamFairSlots;
  readonly waitMs: number;
  readonly queueSetting: string;
  readonly waitSetting: string;
}

/**
 * Another team counts as wanting turns until this long after its last request: a team that sends
 * one request at a time is between two of them for a moment only, and must not find every alone
 * turn taken by a flood when its next one comes.
 */
const CONTENTION_WINDOW_MS = 1000;

/**
 * Fair, work-conserving admission of one replica's HTTP requests (R-TN-11). Invariant: a request
 * is served only in a turn of its lane, counted from the verified token's team before the body is
 * read or any SQL runs, and given back when the response closes — finished, failed or abandoned by
 * the client. Two lanes: at most MAX_IN_FLIGHT ordinary requests at once (MAX_IN_FLIGHT_ALONE
 * while one team alone sent any within a second: its requests mostly wait on the database, and
 * more at once keep it busy; with others, fewer keep each one's turn short), and apart from them at
 * most MAX_LARGE_REQUESTS_IN_FLIGHT requests whose bodies are large (LARGE_REQUEST_FROM_BYTES or
 * more, or of unknown length): parsing, serializing and writing megabytes holds the event loop
 * and a database core in long stretches, so few may run at once, and a team's small requests never
 * wait behind its own or others' large ones. In each lane a team alone may use every turn; when
 * teams want more than there is, a freed turn goes to the waiting team with the fewest in flight
 * (then the one served longest ago), so each keeps about an equal share and a team that floods
 * waits behind its own requests, not in front of others'. A wait is bounded (its lane's
 * *_QUEUE_WAIT_MS), and one team waits in at most half of ADMISSION_QUEUE_MAX; past either,
 * RATE_LIMITED (HTTP 429).
 */
@Injectable()
export class TeamAdmission {
  private readonly ordinary: Lane;
  private readonly large: Lane;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: FairnessMetrics,
  ) {
    const { maxInFlight, maxInFlightAlone, maxLargeInFlight, queueMax, queueWaitMs, largeQueueWaitMs } = config.admission;
    // A team may run on every turn and wait in half the queue: the share bites only under contention.
    const lane = (name: AdmissionLane, turns: number, aloneTurns: number, waitMs: number, waitSetting: string): Lane => ({
      name,
      turns: new TeamFairSlots(turns, queueMax, aloneTurns + Math.max(1, Math.floor(queueMax / 2)), {
        slots: aloneTurns,
        contentionWindowMs: CONTENTION_WINDOW_MS,
      }),
      waitMs,
      queueSetting: 'ADMISSION_QUEUE_MAX',
      waitSetting,
    });
    this.ordinary = lane('ordinary', maxInFlight, maxInFlightAlone, queueWaitMs, 'ADMISSION_QUEUE_WAIT_MS');
    this.large = lane('large', maxLargeInFlight, maxLargeInFlight, largeQueueWaitMs, 'LARGE_REQUEST_QUEUE_WAIT_MS');
    // The gauges read the lanes' counts when scraped: nothing is reported per request.
    metrics.watch(this.ordinary.name, this.ordinary.turns);
    metrics.watch(this.large.name, this.large.turns);
  }

  /**
   * Resolves once the request is admitted for `teamId`, in the lane its body's size picks; its turn
   * is given back when `res` closes. Throws RateLimitedError when the team has no room to wait or
   * the wait passed its bound.
   */
  async admit(req: Request, res: Response, teamId: string, edge: AdmissionEdge): Promise<void> {
    const lane = this.isLarge(req) ? this.large : this.ordinary;
    // The common case, a free turn, allocates no wait: no signal, no listener, no timer.
    const turn = lane.turns.tryAcquire(teamId) ?? (await this.waitForTurn(lane, res, teamId));
    if (typeof turn !== 'function') {
      if (turn.refused !== 'abandoned') this.metrics.refused(edge);
      throw this.refusal(lane, turn);
    }
    if (res.closed || req.destroyed) return turn();
    res.once('close', turn);
    // An ordinary request gives its turn back early if it parks in a pool's queue (stepAsideFromAdmission;
    // a turn gives back once). A large one keeps its turn: what bounds it is the event-loop work
    // still ahead of it (serializing, the statement's text), not the pool.
    const budget = currentRequestBudget();
    if (budget !== undefined && lane === this.ordinary) budget.admissionTurn = turn;
  }

  private async waitForTurn(lane: Lane, res: Response, teamId: string): Promise<ReleaseSlot | SlotRefusal> {
    const gone = new AbortController();
    const leave = (): void => gone.abort();
    // `close` comes once, also when the client goes away first: a waiting request leaves the queue.
    res.once('close', leave);
    try {
      return await lane.turns.acquire(teamId, lane.waitMs, gone.signal);
    } finally {
      res.off('close', leave);
    }
  }

  /** A body of LARGE_REQUEST_FROM_BYTES or more, or one whose length the request does not say (chunked). */
  private isLarge(req: Request): boolean {
    const length = req.headers['content-length'];
    if (length === undefined) return req.headers['transfer-encoding'] !== undefined;
    return Number(length) >= this.config.admission.largeRequestFromBytes;
  }

  private refusal(lane: Lane, { refused }: SlotRefusal): RateLimitedError {
    const { queueMax, retryAfterSeconds } = this.config.admission;
    if (refused === 'deadline') {
      return new RateLimitedError(
        lane.waitSetting,
        `This server is busy: the request waited ${lane.waitMs} ms for its team's turn (${lane.waitSetting})`,
        retryAfterSeconds,
      );
    }
    return new RateLimitedError(
      lane.queueSetting,
      `Your team already has its share of the ${queueMax} requests that may wait on this server (${lane.queueSetting}); send fewer at once`,
      retryAfterSeconds,
    );
  }
}
