import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { arrayLiteral, runSql } from '../database/run-sql';
import { type ActorColumns, type AllowedSpace, allowedSpacesOf } from '../tenancy';
import type { JsonSelection, PathLookup, PathValue } from './path-value';
import { type SnapshotScope, spaceIdsParam } from './snapshot-scope';
import { SCOPE_PREDICATE, scopeBindings, SNAPSHOTS_FROM } from './tool-result.repository';

/** invalid_text_representation, untranslatable_character: the ::jsonb cast refused the text. */
const NOT_JSON_SQLSTATES = new Set(['22P02', '22P05']);

function isNotJsonText(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NOT_JSON_SQLSTATES.has(code);
}

/** query_canceled: here, the statement timeout of a node-list evaluation. */
function isCanceledByTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '57014';
}

interface PathRow {
  kind: string | null;
  body: string | null;
  body_length: number | null;
  complete: boolean | null;
  items?: number | null;
}

/** The selected value of a snapshot's row; null when nothing is there. */
function pathValueOf(row: PathRow): PathValue | null {
  if (row.kind === null || row.body === null) return null;
  return { kind: row.kind, body: row.body, bodyLength: Number(row.body_length), complete: row.complete === true };
}

/**
 * Values inside a snapshot's payload, picked in PostgreSQL so only the picked text leaves the
 * database (R-LG-2). Scoped like every snapshot read: the owner and the allowed spaces, in SQL.
 */
@Injectable()
export class ToolResultJsonPathRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * The value a selection picks inside the user's snapshot, evaluated in PostgreSQL so only the
   * value's text (cut at `maxChars`) leaves the database. A text output that holds JSON is read
   * as JSON. Null: no such snapshot of the user's; `value: null`: nothing is there, or the text
   * is not JSON.
   */
  async findJsonPathValue(scope: SnapshotScope, memId: string, selection: JsonSelection, maxChars: number): Promise<PathLookup | null> {
    try {
      if (selection.kind !== 'nodes') return await this.findPathValue(scope, memId, selection, maxChars);
      // `tool_results_path_nodes` sets the tenant settings from its arguments; the selection's
      // statement timeout bounds it.
      const rows = await runSql<PathRow[]>(
        this.em,
        'select kind, body, body_length, complete, items from tool_results_path_nodes(?::uuid, ?::uuid, ?::uuid[], ?, ?::jsonpath, ?::int, ?::int)',
        [scope.teamId, scope.userId, spaceIdsParam(scope), memId, selection.sqlPath, selection.maxNodes + 1, maxChars],
        { setsOwnScope: true, timeoutMs: selection.timeoutMs },
      );
      if (rows.length === 0) return null;
      if (Number(rows[0].items) > selection.maxNodes) return { tooMany: true };
      return { value: pathValueOf(rows[0]) };
    } catch (error) {
      if (isNotJsonText(error)) return { value: null };
      if (isCanceledByTimeout(error) && selection.kind === 'nodes') return { timedOut: true };
      throw error;
    }
  }

  /** A single value (a dotted path's keys or a singular SQL/JSON path): one round trip through `tool_results_path_value`. */
  private async findPathValue(
    scope: SnapshotScope,
    memId: string,
    selection: Exclude<JsonSelection, { kind: 'nodes' }>,
    maxChars: number,
  ): Promise<PathLookup | null> {
    const rows = await runSql<PathRow[]>(
      this.em,
      'select kind, body, body_length, complete from tool_results_path_value(?::uuid, ?::uuid, ?::uuid[], ?, ?::text[], ?::jsonpath, ?::int)',
      [
        scope.teamId,
        scope.userId,
        spaceIdsParam(scope),
        memId,
        selection.kind === 'keys' ? arrayLiteral(selection.keys) : null,
        selection.kind === 'value' ? selection.sqlPath : null,
        maxChars,
      ],
      // The function makes the tenant settings from p_team/p_user itself: one round trip (R-TN-8).
      { setsOwnScope: true },
    );
    return rows.length === 0 ? null : { value: pathValueOf(rows[0]) };
  }

  /**
   * `findJsonPathValue` of a single value for a caller not yet read from the database
   * (`tool_results_path_value_for_token`): the token's user and allowed spaces are read with the
   * guard's `actor_spaces` in the same round trip. 'unresolved': no such user yet, or a text output
   * that is not JSON (the statement failed) — the caller reads its actor the guard's way and asks
   * `findJsonPathValue`. A token older than its user's deletion fails with RL004, as the guard's
   * statement does.
   */
  async findPathValueForToken(
    claims: { userId: string; teamId: string; issuedAt: number },
    memId: string,
    selection: Exclude<JsonSelection, { kind: 'nodes' }>,
    maxChars: number,
  ): Promise<'unresolved' | { allowedSpaces: AllowedSpace[]; lookup: PathLookup | null }> {
    let rows: (PathRow & ActorColumns)[];
    try {
      rows = await runSql<(PathRow & ActorColumns)[]>(
        this.em,
        'select * from tool_results_path_value_for_token(?::uuid, ?::uuid, to_timestamp(?), ?, ?::text[], ?::jsonpath, ?::int)',
        [
          claims.userId,
          claims.teamId,
          claims.issuedAt,
          memId,
          selection.kind === 'keys' ? arrayLiteral(selection.keys) : null,
          selection.kind === 'value' ? selection.sqlPath : null,
          maxChars,
        ],
        { setsOwnScope: true },
      );
    } catch (error) {
      if (isNotJsonText(error)) return 'unresolved';
      throw error;
    }
    const row = rows[0];
    if (row.actor_status === 'new') return 'unresolved';
    return { allowedSpaces: allowedSpacesOf(row), lookup: row.actor_status === 'missing' ? null : { value: pathValueOf(row) } };
  }

  /**
   * The user's snapshot's payload as PostgreSQL's JSON text, when it has at most `maxChars`
   * characters; its size either way. Text, not parsed: a large payload's JSON.parse belongs to
   * the worker that evaluates it, not to the event loop. Null: no such snapshot of the user's.
   */
  async findJsonDocument(
    scope: SnapshotScope,
    memId: string,
    maxChars: number,
  ): Promise<{ sizeChars: number; documentText?: string } | null> {
    const rows = await runSql<{ size_chars: number; tool_output: string | null }[]>(
      this.em,
      `select r.size_chars, case when r.size_chars <= ? then r.tool_output::text end as tool_output from ${SNAPSHOTS_FROM}
        where ${SCOPE_PREDICATE} and r.mem_id = ?`,
      [maxChars, ...scopeBindings(scope), memId],
    );
    if (rows.length === 0) return null;
    const { size_chars: sizeChars, tool_output: output } = rows[0];
    return sizeChars <= maxChars && output !== null ? { sizeChars, documentText: output } : { sizeChars };
  }
}
