import type { ResultRef } from './recall-event.checks';

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
  /** The distinct tool names of the snapshots it returned, sorted, as they were when it was stored. */
  toolNames: string[];
  semanticGroups: unknown;
  authoredAlternatives: unknown;
  clarificationOutcome: string | null;
  source: string;
  createdAt: Date;
}

/** What a recall says about itself: copied into every feedback event on it (R-FB-7). */
const RECALL_ACCOUNT_KEYS = [
  'profileId',
  'spaceId',
  'spaceGeneration',
  'queryFingerprint',
  'contractVersion',
  'rankingVersion',
  'fusionMode',
  'searchFreshness',
  'degradedBranches',
  'toolNames',
] as const;

export type RecallAccount = Pick<RecallEventRecord, (typeof RECALL_ACCOUNT_KEYS)[number]>;

export function recallAccountOf(event: RecallEventRecord): RecallAccount {
  return Object.fromEntries(RECALL_ACCOUNT_KEYS.map((key) => [key, event[key]])) as RecallAccount;
}

/** An event to store; the database adds the time. */
export type NewRecallEvent = Omit<RecallEventRecord, 'createdAt'>;

/** An event before its refs and their tool names: what the storing statement, or the caller that showed the rows, adds. */
export type RecallEventDraft = Omit<NewRecallEvent, 'results' | 'toolNames'>;

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
  tool_names: string[];
  semantic_groups: unknown;
  authored_alternatives: unknown;
  clarification_outcome: string | null;
  source: string;
  created_at: string;
}

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
    toolNames: row.tool_names,
    semanticGroups: row.semantic_groups,
    authoredAlternatives: row.authored_alternatives,
    clarificationOutcome: row.clarification_outcome,
    source: row.source,
    createdAt: new Date(row.created_at),
  };
}
