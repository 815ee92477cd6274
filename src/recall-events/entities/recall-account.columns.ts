import { Property } from '@mikro-orm/core';

/**
 * The scalar columns of a recall's account of itself (R-RC-9): stored with each recall event, and
 * copied into each feedback event that judges it when the feedback is submitted (R-FB-7). Declared
 * once here; both entities extend it, so the two tables cannot drift apart.
 */
export abstract class RecallAccountColumns {
  @Property({ type: 'integer' })
  spaceGeneration: number;

  /** SHA-256 hex of the normalized query; null for a recall without one. */
  @Property({ type: 'varchar', length: 64, nullable: true })
  queryFingerprint?: string | null;

  @Property({ type: 'varchar', length: 64 })
  contractVersion: string;

  @Property({ type: 'varchar', length: 64, nullable: true })
  rankingVersion?: string | null;

  @Property({ type: 'varchar', length: 64, nullable: true })
  fusionMode?: string | null;

  @Property({ type: 'varchar', length: 64, nullable: true })
  searchFreshness?: string | null;
}
