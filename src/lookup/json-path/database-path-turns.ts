import { Injectable } from '@nestjs/common';
import { TeamFairSlots } from '../../common/concurrency/team-fair-slots';
import { AppConfig } from '../../config/app-config';
import { stepAsideFromAdmission } from '../../observability/request-context';

/**
 * Turns for the JSONPath node lists PostgreSQL evaluates (`$..*`, filters, wildcards) (R-TN-10):
 * each walks a payload of up to megabytes on one database core for up to a second, and a flood of
 * them from one team (aliases × clients) would hold every core of the database. At most
 * JSON_PATH_DATABASE_CONCURRENCY run at once from this replica, a team alone may use them all, and
 * a freed turn goes to the waiting team that runs the fewest; one team waits in at most half of
 * JSON_PATH_QUEUE_MAX, for at most JSON_PATH_QUEUE_WAIT_MS. Single values (a dotted path, a
 * singular path) are cheap reads and take no turn.
 */
@Injectable()
export class DatabasePathTurns {
  private readonly turns: TeamFairSlots;
  private readonly waitMs: number;

  constructor(config: AppConfig) {
    const { databaseConcurrency, queueMax, queueWaitMs } = config.lookup.library;
    this.turns = new TeamFairSlots(databaseConcurrency, queueMax, databaseConcurrency + Math.max(1, Math.floor(queueMax / 2)));
    this.waitMs = queueWaitMs;
  }

  /** `evaluate()` in the team's turn, or null when there is no room to wait or the wait passed its bound. */
  async run<T>(team: string, evaluate: () => Promise<T>): Promise<T | null> {
    let turn = this.turns.tryAcquire(team);
    if (turn === undefined) {
      stepAsideFromAdmission();
      turn = await this.turns.acquire(team, this.waitMs);
    }
    if (typeof turn !== 'function') return null;
    try {
      return await evaluate();
    } finally {
      turn();
    }
  }
}
