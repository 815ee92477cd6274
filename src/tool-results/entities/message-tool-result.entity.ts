import { Entity, Index, ManyToOne, type Opt, PrimaryKey, PrimaryKeyProp, Property, Unique } from '@mikro-orm/core';
import { Team, User } from '../../tenancy';
import { Conversation } from './conversation.entity';
import { Message } from './message.entity';

/**
 * One tool call's result as the model saw it (docs/requirements.md §4): the ADR's columns, plus the
 * idempotency key `tool_use_id` (unique per user and space generation), the public address
 * `mem_id` (unique per team), `size_chars`, the user's team and the generation of its space it
 * was written under (reads keep the current one's). Keyed by (team_id, id) like every tenant
 * table, and every key and foreign key carries the team (docs/scaling.md); the indexes lead with
 * team_id, as every statement names the team. Indexes beyond the ADR's serve the scoped reads and
 * the retention scan.
 */
@Entity({ tableName: 'message_tool_results' })
// Top-K of a conversation's current generation with the user predicate reads K rows, not the
// whole conversation nor the hidden generations before it; also a conversation's cascade.
@Index({
  name: 'message_tool_results_conversation_user_generation_recency',
  expression:
    'create index "message_tool_results_conversation_user_generation_recency" on "message_tool_results" ("team_id", "conversation_id", "user_id", "space_generation", "created_at" desc, "id" desc)',
})
// History across conversations, newest first, keyset on (created_at, id); a user's deletion.
@Index({
  name: 'message_tool_results_user_recency',
  expression:
    'create index "message_tool_results_user_recency" on "message_tool_results" ("team_id", "user_id", "created_at" desc, "id" desc)',
})
// Retention's per-team age scan.
@Index({ name: 'message_tool_results_team_created_at', properties: ['team', 'createdAt'] })
// Full-text search of a user's snapshots (R-RC-8): one GIN scan answers the team, the user and the
// words together (btree_gin), instead of AND-ing a words bitmap over every user's rows.
@Index({
  name: 'message_tool_results_user_search',
  expression: 'create index "message_tool_results_user_search" on "message_tool_results" using gin ("team_id", "user_id", "search_vector")',
})
// A replay after a bump records anew in the new generation instead of mapping to the hidden row.
@Unique({
  name: 'message_tool_results_user_tool_use_generation_unique',
  properties: ['team', 'user', 'toolUseId', 'spaceGeneration'],
})
// The public address is the team's: a lookup names the team and the mem id.
@Unique({ name: 'message_tool_results_mem_id_unique', properties: ['team', 'memId'] })
// A message's cascade.
@Index({
  name: 'message_tool_results_team_message',
  expression: 'create index "message_tool_results_team_message" on "message_tool_results" ("team_id", "message_id")',
})
export class MessageToolResult {
  [PrimaryKeyProp]?: ['team', 'id'];

  @ManyToOne(() => Team, { primary: true, deleteRule: 'cascade', updateRule: 'no action', fieldName: 'team_id' })
  team: Team;

  @PrimaryKey({ type: 'uuid' })
  id: string;

  @ManyToOne(() => User, { fieldNames: ['team_id', 'user_id'], ownColumns: ['user_id'], deleteRule: 'cascade', updateRule: 'no action' })
  user: User;

  @ManyToOne(() => Message, {
    fieldNames: ['team_id', 'message_id'],
    ownColumns: ['message_id'],
    deleteRule: 'cascade',
    updateRule: 'no action',
  })
  message: Message;

  @ManyToOne(() => Conversation, {
    fieldNames: ['team_id', 'conversation_id'],
    ownColumns: ['conversation_id'],
    deleteRule: 'cascade',
    updateRule: 'no action',
  })
  conversation: Conversation;

  @Property({ type: 'varchar', length: 128 })
  toolName: string;

  @Property({ type: 'jsonb' })
  toolInput: unknown;

  @Property({ type: 'jsonb' })
  toolOutput: unknown;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'varchar', length: 256 })
  toolUseId: string;

  @Property({ type: 'varchar', length: 20 })
  memId: string;

  @Property({ type: 'integer' })
  sizeChars: number;

  // The handle (R-LG-1), built once from the payload as received and served from here on.
  @Property({ type: 'text' })
  summaryOneliner: string;

  @Property({ type: 'text', nullable: true })
  schemaHint?: string | null;

  @Property({ type: 'text', nullable: true })
  headPreview?: string | null;

  @Property({ type: 'text' })
  stub: string;

  /** Tokens of the payload as the model saw it, counted once at write time. */
  @Property({ type: 'integer' })
  sizeTokens: number;

  /**
   * The search document: tool name, input and output words (`simple` configuration), kept by a
   * trigger on every write path (`message_tool_results_search`, shown with its function in schema.sql),
   * so the service never writes it.
   */
  @Property({ columnType: 'tsvector', nullable: true, lazy: true })
  searchVector?: string | null;

  /** The generation of the conversation's space when written; a bump hides it (R-TN-4). */
  @Property({ type: 'integer' })
  spaceGeneration: number;

  /** Its stub was handed out by compaction: exempt from the per-conversation cap (R-TR-3). */
  @Property({ type: 'boolean', default: false })
  compacted: boolean & Opt = false;
}
