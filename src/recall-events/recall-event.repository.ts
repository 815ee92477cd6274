import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { arrayLiteral, countChanged, runSql } from '../database/run-sql';
import { toolNamesArguments, type SnapshotScope } from '../tool-results';
import {
  type NewRecallEvent,
  type RecallEventDraft,
  type RecallEventRecord,
  type RecallEventRow,
  toRecallEventRecord,
} from './recall-event.record';
import { type ResultRef, ResultRefType } from './recall-event.checks';

/** Who may read an event: the team always; the event's user too unless the reader is a team admin. */
export interface RecallEventReader {
  teamId: string;
  /** Null: every user of the team (admin). */
  userId: string | null;
}

/** An event whose space the storing statement decides (the space of the conversation read). */
export type UnplacedRecallEvent = Omit<RecallEventDraft, 'spaceId' | 'spaceGeneration'>;

const RECALL_EVENT_COLUMNS = `e.id, e.team_id, e.profile_id, e.space_id, e.space_generation, e.query_fingerprint, e.query_text,
  e.contract_version, e.ranking_version, e.fusion_mode, e.search_freshness, e.degraded_branches, e.results, e.tool_names, e.semantic_groups,
  e.authored_alternatives, e.clarification_outcome, e.source, e.created_at`;

/** The columns every insert fills from the event itself (as one JSON object, `eventJson`); the space and the refs follow. */
const EVENT_COLUMNS = `team_id, id, profile_id, query_fingerprint, query_text, contract_version, ranking_version, fusion_mode,
  search_freshness, degraded_branches, semantic_groups, authored_alternatives, clarification_outcome, source`;

/** The event's own columns as one JSON object keyed by column name, read with `jsonb_populate_record`. */
export function recallEventJson(event: UnplacedRecallEvent): string {
  return JSON.stringify({
    team_id: event.teamId,
    id: event.id,
    profile_id: event.profileId,
    query_fingerprint: event.queryFingerprint,
    query_text: event.queryText,
    contract_version: event.contractVersion,
    ranking_version: event.rankingVersion,
    fusion_mode: event.fusionMode,
    search_freshness: event.searchFreshness,
    degraded_branches: event.degradedBranches,
    semantic_groups: event.semanticGroups ?? null,
    authored_alternatives: event.authoredAlternatives ?? null,
    clarification_outcome: event.clarificationOutcome,
    source: event.source,
  });
}

/**
 * Recall events. Every statement carries the team: an event of another team is never read or
 * written here. Visibility comes from Tenancy's `active_spaces`; the snapshots a recall reads come from ToolResults' database functions
 * (`tool_results_search`, `tool_results_recent`, `tool_results_conversation_space`), called with
 * typed arguments inside the statement that stores the event: one round trip.
 */
@Injectable()
export class RecallEventRepository {
  constructor(private readonly em: EntityManager) {}

  /** Stores an event of ours with the tool names of the snapshots its caller showed (distinct and sorted here). */
  insert(event: NewRecallEvent): Promise<RecallEventRecord> {
    return this.insertWith(event, `array(select distinct n from unnest(?::text[]) n order by n)`, [arrayLiteral(event.toolNames)]);
  }

  /**
   * Stores an external retriever's event. Its tool names are those of the recording user's own
   * snapshots (in the scope's spaces, at their current generation) among its TOOL_RESULT refs
   * (ToolResults' `tool_results_tool_names`), looked up by the same statement; refs of other types,
   * or naming no such snapshot (a teammate's, a hidden one), give none.
   */
  insertExternal(scope: SnapshotScope, event: Omit<NewRecallEvent, 'toolNames'>): Promise<RecallEventRecord> {
    const snapshotIds = event.results.filter((ref) => ref.type === ResultRefType.TOOL_RESULT).map((ref) => ref.id);
    return this.insertWith(
      event,
      'tool_results_tool_names(?::uuid, ?::uuid, ?::uuid[], ?::uuid[])',
      toolNamesArguments(scope, snapshotIds),
    );
  }

  /** The insert both take: the event's columns, its space, its refs, and the tool names `toolNames` (SQL with its bindings) gives. */
  private async insertWith(event: Omit<NewRecallEvent, 'toolNames'>, toolNames: string, bindings: unknown[]): Promise<RecallEventRecord> {
    const rows = await runSql<RecallEventRow[]>(
      this.em,
      `insert into recall_events as e (${EVENT_COLUMNS}, space_id, space_generation, results, tool_names)
       select ${EVENT_COLUMNS}, ?, ?, ?::jsonb, ${toolNames} from jsonb_populate_record(null::recall_events, ?::jsonb)
       returning ${RECALL_EVENT_COLUMNS}`,
      [event.spaceId, event.spaceGeneration, JSON.stringify(event.results), ...bindings, recallEventJson(event)],
    );
    return toRecallEventRecord(rows[0]);
  }

  /**
   * The refs of an event stored a moment ago, when fewer rows were shown than it was stored with,
   * and the tool names of the rows shown (distinct and sorted here).
   */
  async replaceResults(teamId: string, id: string, results: readonly ResultRef[], toolNames: readonly string[]): Promise<void> {
    await runSql(
      this.em,
      'update recall_events set results = ?::jsonb, tool_names = array(select distinct n from unnest(?::text[]) n order by n) where team_id = ? and id = ?',
      [JSON.stringify(results), arrayLiteral(toolNames), teamId, id],
    );
  }

  /**
   * The query texts stored with these events (null where the team had not opted in), by
   * `team_id:id`, whatever team: for the operator's feedback export, which has no actor.
   */
  async findQueryTexts(events: readonly { teamId: string; id: string }[]): Promise<Map<string, string | null>> {
    if (events.length === 0) return new Map();
    const rows = await runSql<{ team_id: string; id: string; query_text: string | null }[]>(
      this.em,
      `select e.team_id, e.id, e.query_text from recall_events e
        where (e.team_id, e.id) in (select * from unnest(?::uuid[], ?::text[]))`,
      [arrayLiteral(events.map((e) => e.teamId)), arrayLiteral(events.map((e) => e.id))],
    );
    return new Map(rows.map((r) => [`${r.team_id}:${r.id}`, r.query_text]));
  }

  /** The events of `ids` the reader may see (its user's, or the team's for an admin), whatever their space's state (the caller decides what it allows). */
  async findByIds(reader: RecallEventReader, ids: readonly string[]): Promise<RecallEventRecord[]> {
    if (ids.length === 0) return [];
    const rows = await runSql<RecallEventRow[]>(
      this.em,
      `select ${RECALL_EVENT_COLUMNS} from recall_events e
        where e.team_id = ? and e.id in (?) ${reader.userId === null ? '' : 'and e.profile_id = ?'}`,
      reader.userId === null ? [reader.teamId, ids] : [reader.teamId, ids, reader.userId],
    );
    return rows.map(toRecallEventRecord);
  }

  /**
   * The event, while its space is still ACTIVE at the generation it was stored with (a bump, a
   * seal or a retirement hides it); null for a missing one, another team's or another user's.
   */
  async findVisible(reader: RecallEventReader, id: string): Promise<RecallEventRecord | null> {
    const rows = await runSql<RecallEventRow[]>(
      this.em,
      `select ${RECALL_EVENT_COLUMNS} from recall_events e
         join active_spaces(?) s on s.space_id = e.space_id and s.generation = e.space_generation
        where e.team_id = ? and e.id = ? ${reader.userId === null ? '' : 'and e.profile_id = ?'}`,
      reader.userId === null ? [reader.teamId, reader.teamId, id] : [reader.teamId, reader.teamId, id, reader.userId],
    );
    return rows.length > 0 ? toRecallEventRecord(rows[0]) : null;
  }

  // System operations of retention (R-RT-3, R-RT-4): one team's sweep, or one user's deletion.

  /**
   * The team's oldest events past the cutoff, after `after` in (created_at, id) order (its age
   * index), locked until the caller's transaction ends: a feedback item naming one of them waits,
   * and fails if the event is then deleted.
   */
  async lockExpired(teamId: string, cutoff: Date, after: RecallEventPosition | null, limit: number): Promise<RecallEventPosition[]> {
    const rows = await runSql<{ created_key: string; team_id: string; id: string }[]>(
      this.em,
      `select to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key, e.team_id, e.id
         from recall_events e
        where e.team_id = ? and e.created_at < ? ${after ? 'and (e.created_at, e.id) > (?::timestamptz, ?)' : ''}
        order by e.created_at, e.id
        limit ?
          for update`,
      after ? [teamId, cutoff.toISOString(), after.createdKey, after.id, limit] : [teamId, cutoff.toISOString(), limit],
    );
    return rows.map((r) => ({ createdKey: r.created_key, teamId: r.team_id, id: r.id }));
  }

  /** Deletes these events of the team; how many went. */
  deleteEvents(teamId: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return Promise.resolve(0);
    return countChanged(this.em, 'delete from recall_events where team_id = ? and id = any(?::text[])', [teamId, arrayLiteral(ids)]);
  }

  /** Every event of the user's recalls (R-RT-4); how many went. */
  deleteAllOfUser(teamId: string, userId: string): Promise<number> {
    return countChanged(this.em, 'delete from recall_events where team_id = ? and profile_id = ?', [teamId, userId]);
  }
}

/** Where the retention scan of a team's events stands: (created_at with microseconds, id), and the team. */
export interface RecallEventPosition {
  createdKey: string;
  teamId: string;
  id: string;
}
