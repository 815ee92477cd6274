import { runSql } from '../../database/run-sql';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { SqlStatement } from '../../tool-results/snapshot-search';
import {
  INSERT_COLUMNS,
  INSERT_PLACEHOLDERS,
  insertValues,
  type NewRecallEvent,
  RECALL_EVENT_COLUMNS,
  type RecallEventRecord,
  type RecallEventRow,
  toRecallEventRecord,
} from './recall-event.record';
import { type ResultRef, ResultRefType } from './recall-event.rules';

/** Who may read an event: the team always; the profile too unless the reader is a team admin. */
export interface RecallEventReader {
  teamId: string;
  /** Null: every profile of the team (admin). */
  profileId: string | null;
}

/** Recall events. Every statement carries the team: an event of another team is never read or written here. */
@Injectable()
export class RecallEventRepository {
  constructor(private readonly em: EntityManager) {}

  async insert(event: NewRecallEvent): Promise<RecallEventRecord> {
    const rows = await runSql<RecallEventRow[]>(this.em, `insert into recall_events as e ${INSERT_COLUMNS} values (${INSERT_PLACEHOLDERS}, ?::jsonb) returning ${RECALL_EVENT_COLUMNS}`,
      [...insertValues(event), JSON.stringify(event.results)],
    );
    return toRecallEventRecord(rows[0]);
  }

  /**
   * Runs a snapshot search and stores the event of its results in one statement (one round trip):
   * the event's refs are the search's rows, `TOOL_RESULT` at their rank. Each row comes back with
   * the search's columns. PostgreSQL runs a data-modifying CTE to completion whether or not the
   * outer select reads it, so the event is stored even when the search finds nothing.
   */
  async searchAndRecord<Row>(search: SqlStatement, event: Omit<NewRecallEvent, 'results'>): Promise<Row[]> {
    const refs = `coalesce(jsonb_agg(jsonb_build_object('type', '${ResultRefType.TOOL_RESULT}', 'id', h.id, 'rank', h.rank) order by h.rank), '[]'::jsonb)`;
    return runSql<Row[]>(this.em, `with hits as (${search.sql}),
       recorded as (insert into recall_events ${INSERT_COLUMNS} select ${INSERT_PLACEHOLDERS}, ${refs} from hits h returning id)
       select hits.* from hits order by hits.rank`,
      [...search.params, ...insertValues({ ...event, results: [] })],
    );
  }

  /**
   * The recallBlock read and its event in one statement (one round trip): `recent` (the
   * conversation's newest rows with a `rank`) and the event of them, stored in the space of the
   * actor's own conversation at the generation the actor holds for it (`spaces`: the allowed ids as a
   * PostgreSQL array literal, their generations as a JSON object by id). No row at all: the conversation is not the actor's
   * in an allowed space, and nothing was stored. A row with a null `id`: the conversation holds
   * no snapshot (the event was stored, with no refs).
   */
  async recentAndRecord<Row>(
    recent: SqlStatement,
    conversation: { id: string; userId: string },
    spaces: { ids: string; generations: string },
    event: Omit<NewRecallEvent, 'results' | 'spaceId' | 'spaceGeneration'>,
  ): Promise<(Row & { conversation_space_id: string })[]> {
    const refs = `coalesce(jsonb_agg(jsonb_build_object('type', '${ResultRefType.TOOL_RESULT}', 'id', h.id, 'rank', h.rank) order by h.rank), '[]'::jsonb)`;
    const [teamId, id, profileId, , , ...rest] = insertValues({ ...event, spaceId: '', spaceGeneration: 0, results: [] });
    return runSql(this.em, `with conv as (
         select c.space_id, (?::jsonb ->> c.space_id::text)::int as generation from conversations c
          where c.id = ? and c.user_id = ? and c.space_id = any(?::uuid[])),
       hits as (${recent.sql}),
       recorded as (insert into recall_events ${INSERT_COLUMNS}
         select ?, ?, ?, conv.space_id, conv.generation, ${INSERT_PLACEHOLDERS.split(', ').slice(5).join(', ')}, (select ${refs} from hits h) from conv returning id)
       select conv.space_id as conversation_space_id, h.* from conv left join hits h on true order by h.rank`,
      [spaces.generations, conversation.id, conversation.userId, spaces.ids, ...recent.params, teamId, id, profileId, ...rest],
    );
  }

  /** The refs of an event stored a moment ago, when fewer rows were shown than it was stored with. */
  async replaceResults(teamId: string, id: string, results: readonly ResultRef[]): Promise<void> {
    await runSql(this.em, 'update recall_events set results = ?::jsonb where team_id = ? and id = ?', [JSON.stringify(results), teamId, id]);
  }

  /** The team's events among these ids, whatever their space's state (the caller decides what it allows). */
  async findByIds(teamId: string, ids: readonly string[]): Promise<RecallEventRecord[]> {
    if (ids.length === 0) return [];
    const rows = await runSql<RecallEventRow[]>(this.em, `select ${RECALL_EVENT_COLUMNS} from recall_events e where e.team_id = ? and e.id in (?)`, [teamId, ids]);
    return rows.map(toRecallEventRecord);
  }

  /**
   * The event, while its space is still ACTIVE at the generation it was stored with (a bump, a
   * seal or a retirement hides it); null for a missing one, another team's or another profile's.
   */
  async findVisible(reader: RecallEventReader, id: string): Promise<RecallEventRecord | null> {
    const rows = await runSql<RecallEventRow[]>(this.em, `select ${RECALL_EVENT_COLUMNS} from recall_events e
         join spaces s on s.id = e.space_id and s.team_id = e.team_id
        where e.team_id = ? and e.id = ? and s.status = 'ACTIVE' and s.generation = e.space_generation
          ${reader.profileId === null ? '' : 'and e.profile_id = ?'}`,
      reader.profileId === null ? [reader.teamId, id] : [reader.teamId, id, reader.profileId],
    );
    return rows.length > 0 ? toRecallEventRecord(rows[0]) : null;
  }
}
