import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { RetentionRepository } from './retention.repository';

/** Between batches: true while the sweep still holds every one of `leases`, false once one was taken over. */
export type KeepLeases = (leases: readonly string[]) => Promise<boolean>;

/**
 * The lease protocol of sweeps (R-RT-2): the global sweep lease and one lease per team, each held
 * by a holder (this process plus a run id, so two sweeps of one process exclude each other too)
 * for `RETENTION_LEASE_MS`. Only an expired lease can be taken over.
 */
@Injectable()
export class SweepLeases {
  private readonly processTag = `${hostname().slice(0, 32)}:${process.pid}`;

  constructor(
    private readonly repository: RetentionRepository,
    private readonly config: AppConfig,
  ) {}

  newHolder(): string {
    return `${this.processTag}:${randomUUID().slice(0, 8)}`;
  }

  acquire(lease: string, holder: string): Promise<boolean> {
    return this.repository.acquireLease(lease, holder, this.config.retention.leaseMs);
  }

  release(lease: string, holder: string): Promise<void> {
    return this.repository.releaseLease(lease, holder);
  }

  /**
   * The holder's {@link KeepLeases}, called between batches.
   * Renewing is a committed write, whose flush cost as much as a batch's own once batches got
   * fast (issue 25); but only an expired lease can be taken over, so a renewal well before expiry
   * is as safe as one every batch. The keeper renews once a quarter of the lease has passed and
   * in between only reads whether the leases are still this sweep's.
   */
  keeperFor(holder: string): KeepLeases {
    const { leaseMs } = this.config.retention;
    let renewedAt = Date.now();
    return async (leases) => {
      if (Date.now() - renewedAt < leaseMs / 4) return this.repository.holdsLeases(leases, holder);
      for (const lease of leases) if (!(await this.repository.acquireLease(lease, holder, leaseMs))) return false;
      renewedAt = Date.now();
      return true;
    };
  }
}
