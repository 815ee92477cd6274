import type { ResultRef } from './recall-event.rules';

/** A recall event as stored and served (R-RC-9). */
export interface RecallEventRecord {
  id: string;
  teamId: string;
  profileId: string;
  spaceId: string;
  spaceGeneration: number;
  queryFingerprint: string | null;
  queryText: string | null;
  contractVersion: string;
  rankingVersion: string | null;
  fusionMode: string | null;
  searchFreshness: string | null;
  degradedBranches: string[];
  results: ResultRef[];
  semanticGroups: unknown;
  authoredAlternatives: unknown;
  clarificationOutcome: string | null;
  source: string;
  createdAt: Date;
}

/** An event to store; the database adds the time. */
export type NewRecallEvent = Omit<RecallEventRecord, 'createdAt'>;

export interface RecallEventRow {
  id: string;
  team_id: string;
  profile_id: string;
  space_id: string;
  space_generation: number;
  query_fingerprint: string | null;
  query_text: string | null;
  contract_version: string;
  ranking_version: string | null;
  fusion_mode: string | null;
  search_freshness: string | null;
  degraded_branches: string[];
  results: ResultRef[];
  semantic_groups: unknown;
  authored_alternatives: unknown;
  clarification_outcome: string | null;
  source: string;
  created_at: string;
}

export const RECALL_EVENT_COLUMNS = `e.id, e.team_id, e.profile_id, e.space_id, e.space_generation, e.query_fingerprint, e.query_text,
  e.contract_version, e.ranking_version, e.fusion_mode, e.search_freshness, e.degraded_branches, e.results, e.semantic_groups,
  e.authored_alternatives, e.clarification_outcome, e.source, e.created_at`;

export function toRecallEventRecord(row: RecallEventRow): RecallEventRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    profileId: row.profile_id,
    spaceId: row.space_id,
    spaceGeneration: row.space_generation,
    queryFingerprint: row.query_fingerprint,
    queryText: row.query_text,
    contractVersion: row.contract_version,
    rankingVersion: row.ranking_version,
    fusionMode: row.fusion_mode,
    searchFreshness: row.search_freshness,
    degradedBranches: row.degraded_branches,
    results: row.results,
    semanticGroups: row.semantic_groups,
    authoredAlternatives: row.authored_alternatives,
    clarificationOutcome: row.clarification_outcome,
    source: row.source,
    createdAt: new Date(row.created_at),
  };
}

/** The insert's columns and the values of one event, `results` given as SQL so a statement can compute it. */
export const INSERT_COLUMNS = `(team_id, id, profile_id, space_id, space_generation, query_fingerprint, query_text, contract_version,
  ranking_version, fusion_mode, search_freshness, degraded_branches, semantic_groups, authored_alternatives, clarification_outcome, source, results)`;

export function insertValues(event: NewRecallEvent): unknown[] {
  return [
    event.teamId,
    event.id,
    event.profileId,
    event.spaceId,
    event.spaceGeneration,
    event.queryFingerprint,
    event.queryText,
    event.contractVersion,
    event.rankingVersion,
    event.fusionMode,
    event.searchFreshness,
    JSON.stringify(event.degradedBranches),
    event.semanticGroups === undefined || event.semanticGroups === null ? null : JSON.stringify(event.semanticGroups),
    event.authoredAlternatives === undefined || event.authoredAlternatives === null ? null : JSON.stringify(event.authoredAlternatives),
    event.clarificationOutcome,
    event.source,
  ];
}

/** Placeholders for {@link insertValues}, the last column (`results`) left to the caller. */
export const INSERT_PLACEHOLDERS = '?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?';
