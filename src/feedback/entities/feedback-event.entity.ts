import { Entity, Index, ManyToOne, type Opt, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { RecallAccountColumns, RecallEvent } from '../../recall-events';
import { User } from '../../tenancy';

/**
 * One item of a feedback submission (R-FB-7): the judgment, and what the recall it judges said
 * about itself, copied when it was submitted. Keyed by (team_id, id) like recall events; the
 * composite foreign key (team_id, recall_event_id) → recall_events keeps the key within the team.
 */
@Entity({ tableName: 'feedback_events' })
// Inspection lists a team's events newest first, keyset on (created_at, id).
@Index({
  name: 'feedback_events_team_recency',
  expression: 'create index "feedback_events_team_recency" on "feedback_events" ("team_id", "created_at" desc, "id" desc)',
})
// The export's age scan across teams; retention's per-team one reads the recency index above.
@Index({ name: 'feedback_events_created_at_index', properties: ['createdAt'] })
// Retention: "is this recall event referenced?".
@Index({
  name: 'feedback_events_recall_event_index',
  expression: 'create index "feedback_events_recall_event_index" on "feedback_events" ("team_id", "recall_event_id")',
})
// Retention: a team's events whose comments are still to be cleared, oldest first.
@Index({
  name: 'feedback_events_team_comments_age',
  expression:
    'create index "feedback_events_team_comments_age" on "feedback_events" ("team_id", "created_at") where "comments_cleared_at" is null',
})
// A blind replay records nothing new (R-FB-5): one event per actor and client id.
@Index({
  name: 'feedback_events_client_id_unique',
  expression:
    'create unique index "feedback_events_client_id_unique" on "feedback_events" ("team_id", "actor_id", "client_feedback_id") where "client_feedback_id" is not null',
})
// A user's deletion.
@Index({
  name: 'feedback_events_team_actor',
  expression: 'create index "feedback_events_team_actor" on "feedback_events" ("team_id", "actor_id")',
})
/** The recall's account (RecallAccountColumns) is copied from its event at submission. */
export class FeedbackEvent extends RecallAccountColumns {
  [PrimaryKeyProp]?: ['team', 'id'];

  /** `fb_` + ULID. */
  @PrimaryKey({ type: 'varchar', length: 30 })
  id: string;

  /** The recall judged: (team_id, recall_event_id), the team column shared with the key. */
  @ManyToOne(() => RecallEvent, {
    fieldNames: ['team_id', 'recall_event_id'],
    ownColumns: ['recall_event_id'],
    deleteRule: 'cascade',
    updateRule: 'no action',
  })
  recallEvent: RecallEvent;

  /** Who submitted the judgment: its submitter (the column is the spec's `actor_id`, GraphQL `actorId`). */
  @ManyToOne(() => User, { fieldNames: ['team_id', 'actor_id'], ownColumns: ['actor_id'], deleteRule: 'cascade', updateRule: 'no action' })
  submitter: User;

  @Property({ type: 'jsonb' })
  degradedBranches: string[];

  @Property({ type: 'jsonb' })
  returnedRefs: unknown;

  /** The recall's tool names (distinct, sorted), copied at submission. */
  @Property({ type: 'text[]', default: '{}' })
  toolNames: string[] & Opt = [];

  // The judgment.
  @Property({ type: 'boolean' })
  used: boolean;

  @Property({ type: 'boolean', nullable: true })
  answerSupported?: boolean | null;

  @Property({ type: 'varchar', length: 8, nullable: true })
  quality?: string | null;

  @Property({ type: 'boolean', nullable: true })
  missingContext?: boolean | null;

  @Property({ type: 'boolean', nullable: true })
  irrelevant?: boolean | null;

  @Property({ type: 'varchar', length: 1000, nullable: true })
  feedbackComment?: string | null;

  @Property({ type: 'jsonb' })
  irrelevantResultRefs: unknown;

  @Property({ type: 'jsonb' })
  hypothesisFeedback: unknown;

  @Property({ type: 'varchar', length: 128, nullable: true })
  clientFeedbackId?: string | null;

  /**
   * SHA-256 (hex) of the item's canonical form, with a client id only: a replay of the key with
   * different content is a conflict (R-FB-5). Null for events recorded before it existed, and
   * cleared with the comments (R-RT-3).
   */
  @Property({ type: 'varchar', length: 64, nullable: true })
  itemDigest?: string | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  /** When retention cleared the comment texts (R-RT-3); the judgment stays. */
  @Property({ type: 'timestamptz', nullable: true })
  commentsClearedAt?: Date | null;
}
