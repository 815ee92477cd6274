import { Entity, Index, type Opt, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { RecallAccountColumns } from './recall-account.columns';

/**
 * One recall as it was answered (R-RC-9): who asked, in which space at which generation, what the
 * query was (a fingerprint; the text only when the team opted in) and which refs came back at
 * which rank, so feedback can be checked against it. Keyed by (team_id, id): the team is the
 * distribution column of the events (docs/requirements.md §10).
 */
@Entity({ tableName: 'recall_events' })
// Retention's per-team age scan (90 days unless feedback references the event), keyset on (created_at, id).
@Index({ name: 'recall_events_team_age', properties: ['team', 'createdAt', 'id'] })
// A user's events, newest first; also the cascade path of a user deletion.
@Index({
  name: 'recall_events_profile_recency',
  expression: 'create index "recall_events_profile_recency" on "recall_events" ("team_id", "profile_id", "created_at")',
})
export class RecallEvent extends RecallAccountColumns {
  [PrimaryKeyProp]?: ['team', 'id'];

  /** `rec_` + ULID. */
  @PrimaryKey({ type: 'varchar', length: 30 })
  id: string;

  /** The query itself, bounded, only when the team enabled `recall_query_text_enabled`. */
  @Property({ type: 'varchar', length: 500, nullable: true })
  queryText?: string | null;

  @Property({ type: 'jsonb', default: '[]' })
  degradedBranches: string[] & Opt = [];

  /** `[{type, id, rank}]`, rank from 1. */
  @Property({ type: 'jsonb' })
  results: unknown;

  @Property({ type: 'jsonb', nullable: true })
  semanticGroups?: unknown;

  @Property({ type: 'jsonb', nullable: true })
  authoredAlternatives?: unknown;

  @Property({ type: 'varchar', length: 64, nullable: true })
  clarificationOutcome?: string | null;

  /**
   * The distinct tool names of the snapshots the recall returned, sorted: stored with the event,
   * since its refs can outlive their snapshots.
   */
  @Property({ type: 'text[]', default: '{}' })
  toolNames: string[] & Opt = [];

  /** INTERNAL (recallMemory, recallBlock) or EXTERNAL (recordRecallEvent). */
  @Property({ type: 'varchar', length: 16 })
  source: string;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
