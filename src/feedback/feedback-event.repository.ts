import { arrayLiteral, countChanged, runSql } from '../database/run-sql';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { KeysetPosition } from '../common/pagination/keyset-cursor';
import { type FeedbackEventRecord, type FeedbackEventRow, type NewFeedbackEvent, toFeedbackEventRecord } from './feedback-event.record';

/** A feedback event's columns (alias f), `created_key` with microseconds for keyset cursors. */
export const FEEDBACK_COLUMNS = `f.id, f.recall_event_id, f.team_id, f.profile_id, f.actor_id, f.space_id, f.space_generation, f.query_fingerprint,
  f.contract_version, f.ranking_version, f.fusion_mode, f.search_freshness, f.degraded_branches, f.returned_refs, f.tool_names, f.used, f.answer_supported,
  f.quality, f.missing_context, f.irrelevant, f.feedback_comment, f.irrelevant_result_refs, f.hypothesis_feedback, f.client_feedback_id,
  to_char(f.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key`;

export interface FeedbackEventFilter {
  spaceId?: string | null;
  since?: Date | null;
  until?: Date | null;
  quality?: string | null;
  used?: boolean | null;
  answerSupported?: boolean | null;
  contractVersion?: string | null;
  /** Who submitted it (actor_id). */
  userId?: string | null;
  /** One of the recall's tool names. */
  toolName?: string | null;
  /** True: flagged; false: not flagged (false or unanswered). */
  missingContext?: boolean | null;
  /** True: flagged; false: not flagged (false or unanswered). */
  irrelevant?: boolean | null;
  /** A non-empty comment (true) or none (false). */
  hasComment?: boolean | null;
}

/**
 * A feedback event is visible while its space is ACTIVE at the generation it was recorded at
 * (R-FB-8): Tenancy's `active_spaces` of the team, bound first.
 */
export const VISIBLE = `join active_spaces(?) s on s.space_id = f.space_id and s.generation = f.space_generation`;

/** An event recorded under a client id, and its item's digest (null: recorded before digests, or cleared with the comments). */
export interface ClientKeyedEvent {
  id: string;
  itemDigest: string | null;
}

/** Unique violation: a concurrent replay of the same client id won the insert. */
const UNIQUE_VIOLATION = '23505';

/** Feedback events. Every statement carries the team: another team's events are never read or written. */
@Injectable()
export class FeedbackEventRepository {
  constructor(private readonly em: EntityManager) {}

  /** The actor's events already recorded under these client ids, by client id. */
  async findByClientIds(teamId: string, submitterId: string, clientIds: readonly string[]): Promise<Map<string, ClientKeyedEvent>> {
    if (clientIds.length === 0) return new Map();
    const rows = await runSql<{ id: string; client_feedback_id: string; item_digest: string | null }[]>(
      this.em,
      `select id, client_feedback_id, item_digest from feedback_events where team_id = ? and actor_id = ? and client_feedback_id in (?)`,
      [teamId, submitterId, clientIds],
    );
    return new Map(rows.map((r) => [r.client_feedback_id, { id: r.id, itemDigest: r.item_digest }]));
  }

  /**
   * Inserts one event in a statement of its own (committed on return: durable before the next
   * item is tried) and returns it. A replay that races another to the same client id gets the
   * winner instead, whose digest the caller compares with its own.
   */
  async insert(event: NewFeedbackEvent): Promise<ClientKeyedEvent> {
    try {
      await runSql(
        this.em,
        `insert into feedback_events (team_id, id, recall_event_id, profile_id, actor_id, space_id, space_generation, query_fingerprint,
           contract_version, ranking_version, fusion_mode, search_freshness, degraded_branches, returned_refs, used, answer_supported, quality,
           missing_context, irrelevant, feedback_comment, irrelevant_result_refs, hypothesis_feedback, client_feedback_id, item_digest, tool_names)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?::text[])`,
        [
          event.teamId,
          event.id,
          event.recallEventId,
          event.profileId,
          event.actorId,
          event.spaceId,
          event.spaceGeneration,
          event.queryFingerprint,
          event.contractVersion,
          event.rankingVersion,
          event.fusionMode,
          event.searchFreshness,
          JSON.stringify(event.degradedBranches),
          JSON.stringify(event.returnedRefs),
          event.used,
          event.answerSupported,
          event.quality,
          event.missingContext,
          event.irrelevant,
          event.feedbackComment,
          JSON.stringify(event.irrelevantResultRefs),
          JSON.stringify(event.hypothesisFeedback),
          event.clientFeedbackId,
          event.itemDigest,
          arrayLiteral(event.toolNames),
        ],
      );
      return { id: event.id, itemDigest: event.itemDigest };
    } catch (error) {
      if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION || event.clientFeedbackId === null) throw error;
      const existing = await this.findByClientIds(event.teamId, event.actorId, [event.clientFeedbackId]);
      const winner = existing.get(event.clientFeedbackId);
      if (winner === undefined) throw error;
      return winner;
    }
  }

  /** The team's visible events, newest first, keyset-paginated on (created_at, id). */
  async list(teamId: string, filter: FeedbackEventFilter, after: KeysetPosition | null, limit: number): Promise<FeedbackEventRecord[]> {
    const { where, params } = filterSql(teamId, filter);
    if (after) {
      where.push('(f.created_at, f.id) < (?::timestamptz, ?)');
      params.push(after.createdAt, after.id);
    }
    const rows = await runSql<FeedbackEventRow[]>(
      this.em,
      `select ${FEEDBACK_COLUMNS} from feedback_events f ${VISIBLE}
        where ${where.join(' and ')}
        order by f.created_at desc, f.id desc
        limit ?`,
      [teamId, ...params, limit],
    );
    return rows.map(toFeedbackEventRecord);
  }

  async findVisible(teamId: string, id: string): Promise<FeedbackEventRecord | null> {
    const rows = await runSql<FeedbackEventRow[]>(
      this.em,
      `select ${FEEDBACK_COLUMNS} from feedback_events f ${VISIBLE} where f.team_id = ? and f.id = ?`,
      [teamId, teamId, id],
    );
    return rows.length > 0 ? toFeedbackEventRecord(rows[0]) : null;
  }

  /** How many of the team's visible events match, reading at most `cap + 1` of them (the page's filter and visibility). */
  async countUpTo(teamId: string, filter: FeedbackEventFilter, cap: number): Promise<number> {
    const { where, params } = filterSql(teamId, filter);
    const rows = await runSql<{ n: number }[]>(
      this.em,
      `select count(*)::int as n from (select 1 from feedback_events f ${VISIBLE} where ${where.join(' and ')} limit ?) capped`,
      [teamId, ...params, cap + 1],
    );
    return rows[0].n;
  }

  /** The visible events judging one recall event, oldest first (through the (team_id, recall_event_id) index). */
  async listForRecallEvent(teamId: string, recallEventId: string): Promise<FeedbackEventRecord[]> {
    const rows = await runSql<FeedbackEventRow[]>(
      this.em,
      `select ${FEEDBACK_COLUMNS} from feedback_events f ${VISIBLE}
        where f.team_id = ? and f.recall_event_id = ?
        order by f.created_at, f.id`,
      [teamId, teamId, recallEventId],
    );
    return rows.map(toFeedbackEventRecord);
  }

  // System operations of retention (R-RT-3, R-RT-4): one team's sweep, or one user's deletion.

  /** The team's oldest events past the cutoff, read through its recency index; how many went. */
  deleteExpiredBatch(teamId: string, cutoff: Date, limit: number): Promise<number> {
    return countChanged(
      this.em,
      `delete from feedback_events e using (
         select id from feedback_events where team_id = ? and created_at < ? order by created_at limit ?) old
        where e.team_id = ? and e.id = old.id`,
      [teamId, cutoff.toISOString(), limit, teamId],
    );
  }

  /**
   * Clears the comment texts (the item's and its hypotheses') of the team's events past the cutoff;
   * the rows stay. The item digest goes with them: it hashes the comments, and a guessable short
   * comment could be confirmed from it. A replay of the key after that returns the event as it is (R-FB-5).
   */
  clearExpiredCommentsBatch(teamId: string, cutoff: Date, limit: number): Promise<number> {
    return countChanged(
      this.em,
      `update feedback_events e
          set feedback_comment = null,
              hypothesis_feedback = coalesce((select jsonb_agg(h || '{"feedbackComment": null}'::jsonb) from jsonb_array_elements(e.hypothesis_feedback) h), '[]'::jsonb),
              item_digest = null,
              comments_cleared_at = now()
         from (select id from feedback_events
                where team_id = ? and created_at < ? and comments_cleared_at is null order by created_at limit ?) old
        where e.team_id = ? and e.id = old.id`,
      [teamId, cutoff.toISOString(), limit, teamId],
    );
  }

  /** Which of these recall events some feedback event refers to, as `team_id:id`. */
  async findReferencedRecallEvents(teamId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await runSql<{ recall_event_id: string }[]>(
      this.em,
      `select distinct f.recall_event_id from feedback_events f where f.team_id = ? and f.recall_event_id = any(?::text[])`,
      [teamId, arrayLiteral(ids)],
    );
    return new Set(rows.map((r) => r.recall_event_id));
  }

  /** Every event the user gave or that judges one of the user's recalls (R-RT-4); how many went. */
  deleteAllOfUser(teamId: string, userId: string): Promise<number> {
    return countChanged(this.em, 'delete from feedback_events where team_id = ? and (actor_id = ? or profile_id = ?)', [
      teamId,
      userId,
      userId,
    ]);
  }
}

/** The filter's conditions over alias f (the team's first), with their bindings; bind `active_spaces`' team before them. */
export function filterSql(teamId: string, filter: FeedbackEventFilter): { where: string[]; params: unknown[] } {
  const where = ['f.team_id = ?'];
  const params: unknown[] = [teamId];
  const add = (sql: string, value: unknown) => {
    where.push(sql);
    params.push(value);
  };
  if (filter.spaceId) add('f.space_id = ?', filter.spaceId);
  if (filter.since) add('f.created_at >= ?', filter.since.toISOString());
  if (filter.until) add('f.created_at < ?', filter.until.toISOString());
  if (filter.quality) add('f.quality = ?', filter.quality);
  if (filter.used !== null && filter.used !== undefined) add('f.used = ?', filter.used);
  if (filter.answerSupported !== null && filter.answerSupported !== undefined) add('f.answer_supported = ?', filter.answerSupported);
  if (filter.contractVersion) add('f.contract_version = ?', filter.contractVersion);
  if (filter.userId) add('f.actor_id = ?', filter.userId);
  if (filter.toolName) add('f.tool_names @> array[?::text]', filter.toolName);
  if (isSet(filter.missingContext)) where.push(filter.missingContext ? 'f.missing_context' : 'f.missing_context is not true');
  if (isSet(filter.irrelevant)) where.push(filter.irrelevant ? 'f.irrelevant' : 'f.irrelevant is not true');
  if (isSet(filter.hasComment)) where.push(`coalesce(f.feedback_comment, '') ${filter.hasComment ? '<>' : '='} ''`);
  return { where, params };
}

function isSet(value: boolean | null | undefined): value is boolean {
  return value !== null && value !== undefined;
}
