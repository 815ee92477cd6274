import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';

export const SWEEP_LEASE = 'retention-sweep';

/** Rows a user's deletion removes, by table (the cascade's reach). */
export const USER_DATA_TABLES = ['conversations', 'messages', 'message_tool_results', 'recall_events', 'feedback_events', 'space_members', 'users'] as const;
export type UserDataTable = (typeof USER_DATA_TABLES)[number];

/**
 * The system jobs of retention (R-RT-1..4): unscoped by design, and named for it. Each expiry
 * batch is a short transaction of its own with a statement timeout set for that transaction
 * only (`set_config(…, true)`, PgBouncer-safe), reading through the age index only the rows it
 * deletes, oldest first — so an interrupted sweep resumes where it stopped.
 */
@Injectable()
export class RetentionRepository {
  constructor(private readonly em: EntityManager) {}

  /** Takes the sweep lease unless another holder's is still running; renews it for its holder. */
  async acquireLease(name: string, holder: string, leaseMs: number): Promise<boolean> {
    const rows = await this.em.fork().execute(
      `insert into retention_leases (name, holder, expires_at) values (?, ?, clock_timestamp() + ? * interval '1 millisecond')
       on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
        where retention_leases.expires_at < clock_timestamp() or retention_leases.holder = excluded.holder
       returning holder`,
      [name, holder, leaseMs],
    );
    return rows.length === 1;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.em.fork().execute(`delete from retention_leases where name = ? and holder = ?`, [name, holder]);
  }

  deleteExpiredToolResultsBatch(cutoff: Date, limit: number, timeoutMs: number): Promise<number> {
    return this.batch(
      `delete from message_tool_results where id in (
         select id from message_tool_results where created_at < ? order by created_at limit ?)`,
      [cutoff.toISOString(), limit],
      timeoutMs,
    );
  }

  /** Recall events past the cutoff that no feedback event references (those stay, R-RT-3). */
  deleteExpiredRecallEventsBatch(cutoff: Date, limit: number, timeoutMs: number): Promise<number> {
    return this.batch(
      `delete from recall_events e using (
         select r.team_id, r.id from recall_events r
          where r.created_at < ?
            and not exists (select 1 from feedback_events f where f.team_id = r.team_id and f.recall_event_id = r.id)
          order by r.created_at limit ?) old
        where e.team_id = old.team_id and e.id = old.id`,
      [cutoff.toISOString(), limit],
      timeoutMs,
    );
  }

  deleteExpiredFeedbackEventsBatch(cutoff: Date, limit: number, timeoutMs: number): Promise<number> {
    return this.batch(
      `delete from feedback_events e using (
         select team_id, id from feedback_events where created_at < ? order by created_at limit ?) old
        where e.team_id = old.team_id and e.id = old.id`,
      [cutoff.toISOString(), limit],
      timeoutMs,
    );
  }

  /** Clears the comment texts (the item's and its hypotheses') of feedback past the cutoff; the rows stay. */
  clearExpiredFeedbackCommentsBatch(cutoff: Date, limit: number, timeoutMs: number): Promise<number> {
    return this.batch(
      `update feedback_events e
          set feedback_comment = null,
              hypothesis_feedback = coalesce((select jsonb_agg(h || '{"feedbackComment": null}'::jsonb) from jsonb_array_elements(e.hypothesis_feedback) h), '[]'::jsonb),
              comments_cleared_at = now()
         from (select team_id, id from feedback_events where created_at < ? and comments_cleared_at is null order by created_at limit ?) old
        where e.team_id = old.team_id and e.id = old.id`,
      [cutoff.toISOString(), limit],
      timeoutMs,
    );
  }

  /** The team of a user, or null when there is no such user (any more). */
  async userTeam(userId: string): Promise<string | null> {
    const rows = await this.em.fork().execute<{ team_id: string }[]>(`select team_id from users where id = ?`, [userId]);
    return rows[0]?.team_id ?? null;
  }

  /**
   * Deletes a user of the team and, by cascade, everything of theirs (R-RT-4), in one statement:
   * the counts are read from the same snapshot the delete works on, so they are exact.
   */
  async deleteUserCascade(teamId: string, userId: string): Promise<Record<UserDataTable, number>> {
    const rows = await this.em.fork().execute<Record<UserDataTable, string>[]>(
      `with target as (select id from users where id = ? and team_id = ?),
       counts as (
         select (select count(*) from conversations where user_id in (select id from target)) as conversations,
                (select count(*) from messages where user_id in (select id from target)) as messages,
                (select count(*) from message_tool_results where user_id in (select id from target)) as message_tool_results,
                (select count(*) from recall_events where profile_id in (select id from target)) as recall_events,
                (select count(*) from feedback_events where actor_id in (select id from target) or profile_id in (select id from target)) as feedback_events,
                (select count(*) from space_members where user_id in (select id from target)) as space_members),
       deleted as (delete from users where id in (select id from target) returning id)
       select counts.*, (select count(*) from deleted) as users from counts`,
      [userId, teamId],
    );
    return Object.fromEntries(USER_DATA_TABLES.map((table) => [table, Number(rows[0][table])])) as Record<UserDataTable, number>;
  }

  private batch(sql: string, params: unknown[], timeoutMs: number): Promise<number> {
    return this.em.fork().transactional(async (em) => {
      await em.execute(`select set_config('statement_timeout', ?, true)`, [String(timeoutMs)]);
      const rows = await em.execute<{ n: number }[]>(`with done as (${sql} returning 1) select count(*)::int as n from done`, params);
      return rows[0].n;
    });
  }
}
