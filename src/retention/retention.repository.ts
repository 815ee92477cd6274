import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { arrayLiteral, runSql } from '../database/run-sql';

/** The scheduler's sweep of every team: one replica walks the teams at a time. */
export const SWEEP_LEASE = 'retention-sweep';
/** One team's rows: that team's own sweep and the scheduler's (while on that team) exclude each other. */
export const teamLease = (teamId: string) => `${SWEEP_LEASE}:${teamId}`;

/**
 * Retention's own table: the sweep leases, so one replica sweeps at a time (R-RT-2), and one
 * sweep a given team. What the
 * sweep deletes, each module deletes from its own tables (see RetentionSweepService).
 */
@Injectable()
export class RetentionRepository {
  constructor(private readonly em: EntityManager) {}

  /** Takes the sweep lease unless another holder's is still running; renews it for its holder. */
  async acquireLease(name: string, holder: string, leaseMs: number): Promise<boolean> {
    const rows = await runSql(
      this.em,
      `insert into retention_leases (name, holder, expires_at) values (?, ?, clock_timestamp() + ? * interval '1 millisecond')
       on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
        where retention_leases.expires_at < clock_timestamp() or retention_leases.holder = excluded.holder
       returning holder`,
      [name, holder, leaseMs],
      // Leases belong to no tenant: one round trip even inside a team's sweep.
      { noTenantRows: true },
    );
    return rows.length === 1;
  }

  /** Whether `holder` still holds every one of these live leases: one read, so a sweep can check between batches without a commit to flush. */
  async holdsLeases(names: readonly string[], holder: string): Promise<boolean> {
    const rows = await runSql<{ n: number }[]>(
      this.em,
      `select count(*)::int as n from retention_leases where name = any(?::text[]) and holder = ? and expires_at > clock_timestamp()`,
      [arrayLiteral(names), holder],
      { noTenantRows: true },
    );
    return rows[0].n === new Set(names).size;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await runSql(this.em, `delete from retention_leases where name = ? and holder = ?`, [name, holder], { noTenantRows: true });
  }
}
