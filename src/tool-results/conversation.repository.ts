import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { countChanged, runSql } from '../database/run-sql';

/**
 * Conversations and their messages, the rows snapshots hang from. The write path creates them
 * (inside `record_tool_results`). Every statement carries the user's id: another user's rows
 * are never read or deleted here.
 */
@Injectable()
export class ConversationRepository {
  constructor(private readonly em: EntityManager) {}

  /** The user's own conversation, or null for a missing one or another user's. */
  async findOwnConversation(userId: string, conversationId: string): Promise<{ id: string; spaceId: string } | null> {
    const rows = await runSql<{ id: string; space_id: string }[]>(
      this.em,
      `select id, space_id from conversations where user_id = ? and id = ?`,
      [userId, conversationId],
    );
    return rows.length > 0 ? { id: rows[0].id, spaceId: rows[0].space_id } : null;
  }

  /** Every message and conversation of the user, by table (R-RT-4; their snapshots go first). */
  async deleteAllOfUser(userId: string): Promise<{ messages: number; conversations: number }> {
    const messages = await countChanged(this.em, 'delete from messages where user_id = ?', [userId]);
    const conversations = await countChanged(this.em, 'delete from conversations where user_id = ?', [userId]);
    return { messages, conversations };
  }
}
