import { ManyToOne, Property } from '@mikro-orm/core';
import { Space, Team, User } from '../../tenancy';

/**
 * A recall's account of itself (R-RC-9) — whose recall it was, in which space at which generation,
 * under which contract — stored with each recall event and copied into each feedback event that
 * judges it when the feedback is submitted (R-FB-7). Declared once here; both entities extend it,
 * so the two tables cannot drift apart. The team leads each one's key (their `id` is their own).
 */
export abstract class RecallAccountColumns {
  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  /** Whose recall it was: its user (the column is the spec's `profile_id`, GraphQL `profileId`). */
  @ManyToOne(() => User, {
    fieldNames: ['team_id', 'profile_id'],
    ownColumns: ['profile_id'],
    deleteRule: 'cascade',
    updateRule: 'no action',
  })
  user: User;

  @ManyToOne(() => Space, { fieldNames: ['team_id', 'space_id'], ownColumns: ['space_id'], deleteRule: 'cascade', updateRule: 'no action' })
  space: Space;

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
