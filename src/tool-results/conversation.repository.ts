import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { arrayLiteral, countChanged, runSql } from '../database/run-sql';

/**
 * Conversations and their messages, the rows snapshots hang from. The write path creates them
 * (inside `record_tool_results`). Every statement carries the user's id: another user's rows
 * are never read or deleted here.
 */
@Injectable()
export class ConversationRepository {
  constructor(private readonly em: EntityManager) {}

  /** The user's own conversation, or null for a missing one or another user's. */
  async findOwnConversation(
    owner: { teamId: string; userId: string },
    conversationId: string,
  ): Promise<{ id: string; spaceId: string } | null> {
    const rows = await runSql<{ id: string; space_id: string }[]>(
      this.em,
      `select id, space_id from conversations where team_id = ? and id = ? and user_id = ?`,
      [owner.teamId, conversationId, owner.userId],
    );
    return rows.length > 0 ? { id: rows[0].id, spaceId: rows[0].space_id } : null;
  }

  /** Every message and conversation of the user, by table (R-RT-4; their snapshots go first). */
  async deleteAllOfUser(teamId: string, userId: string): Promise<{ messages: number; conversations: number }> {
    const messages = await countChanged(this.em, 'delete from messages where team_id = ? and user_id = ?', [teamId, userId]);
    const conversations = await countChanged(this.em, 'delete from conversations where team_id = ? and user_id = ?', [teamId, userId]);
    return { messages, conversations };
  }

  // Retention (R-RT-1): conversations whose snapshots are all gone and that saw nothing since the cutoff.

  /**
   * The oldest idle conversations of these spaces after `after` in (created_at, id) order: created
   * before the cutoff, no snapshot left, no message since the cutoff. Locked until the caller's
   * transaction ends, so a writer that would add to one waits (and then finds it gone); one a
   * writer holds now is skipped, it is in use.
   */
  async lockIdle(
    teamId: string,
    spaceIds: readonly string[],
    cutoff: Date,
    after: ConversationPosition | null,
    limit: number,
  ): Promise<ConversationPosition[]> {
    const rows = await runSql<{ created_key: string; id: string }[]>(
      this.em,
      `select to_char(c.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key, c.id
         from conversations c
        where c.team_id = ? and c.space_id = any(?::uuid[]) and c.created_at < ? ${after ? 'and (c.created_at, c.id) > (?::timestamptz, ?::uuid)' : ''}
          and ${IDLE}
        order by c.created_at, c.id
        limit ?
          for update of c skip locked`,
      [teamId, arrayLiteral(spaceIds), cutoff.toISOString(), ...(after ? [after.createdKey, after.id] : []), cutoff.toISOString(), limit],
    );
    return rows.map((r) => ({ createdKey: r.created_key, id: r.id }));
  }

  /**
   * Deletes those of these (locked) conversations that are still idle, with their messages. Read
   * again in this statement's snapshot: a snapshot committed just before the lock keeps its
   * conversation.
   */
  async deleteIdle(teamId: string, ids: readonly string[], cutoff: Date): Promise<{ conversations: number; messages: number }> {
    if (ids.length === 0) return { conversations: 0, messages: 0 };
    const rows = await runSql<{ conversations: number; messages: number }[]>(
      this.em,
      `with idle as (select c.id from conversations c where c.team_id = ? and c.id = any(?::uuid[]) and ${IDLE}),
            gone_messages as (delete from messages m using idle where m.team_id = ? and m.conversation_id = idle.id returning 1),
            gone as (delete from conversations c using idle where c.team_id = ? and c.id = idle.id returning 1)
       select (select count(*) from gone)::int as conversations, (select count(*) from gone_messages)::int as messages`,
      [teamId, arrayLiteral(ids), cutoff.toISOString(), teamId, teamId],
    );
    return rows[0];
  }
}

/** A conversation with no snapshot and no message since the cutoff (the one parameter). */
const IDLE = `not exists (select 1 from message_tool_results r where r.team_id = c.team_id and r.conversation_id = c.id)
          and not exists (select 1 from messages m where m.team_id = c.team_id and m.conversation_id = c.id and m.created_at >= ?)`;

/** Where the retention scan of a team's conversations stands: (created_at with microseconds, id). */
export interface ConversationPosition {
  createdKey: string;
  id: string;
}
