import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * Who may sweep now (R-RT-2). A lease row rather than an advisory lock: a session lock does not
 * survive PgBouncer's transaction pooling, and a lock per batch would let replicas take turns
 * within one sweep. The holder renews the lease between batches; a replica that died loses it
 * when it expires.
 */
@Entity({ tableName: 'retention_leases' })
export class RetentionLease {
  @PrimaryKey({ type: 'varchar', length: 64 })
  name: string;

  @Property({ type: 'varchar', length: 64 })
  holder: string;

  @Property({ type: 'timestamptz' })
  expiresAt: Date;
}
