import { createHash } from 'node:crypto';
import { newUlid } from '../common/ids/new-ulid';
import { BadUserInputError } from '../common/errors/app-error';
import { isStorableText } from '../common/text/storable-text';
import { safeSlice } from '../common/text/text-bounds';

/** What this service's recalls promise about their answers; stored with every event it records. */
export const RECALL_CONTRACT_VERSION = 'recall-ledger.recall.v1';
/** `recallMemory`: PostgreSQL full-text rank, recency as tie-break. */
export const SEARCH_RANKING_VERSION = 'fts-simple-rank-v1';
/** `recallBlock`: the K newest snapshots of the conversation. */
export const BLOCK_RANKING_VERSION = 'recency-v1';
/** The search document is kept by a trigger: written in the same transaction as the snapshot. */
export const SEARCH_FRESHNESS_SYNCHRONOUS = 'synchronous';
/** One retriever, nothing fused. */
export const FUSION_MODE_SINGLE = 'single';
export const SNAPSHOT_UNAVAILABLE = 'recall_feedback_snapshot_unavailable';
export const SUBMIT_FEEDBACK_ACTION = 'submit_recall_session_feedback';

export const MAX_EVENT_REFS = 50;
export const MAX_REF_ID_CHARS = 256;
export const QUERY_TEXT_MAX_CHARS = 500;
/** recordRecallEvent refuses a longer query; recallBlock's event reads its user message up to this. */
export const MAX_QUERY_CHARS = 2000;
const MAX_LABEL_CHARS = 64;
export const MAX_DEGRADED_BRANCHES = 20;
/** Semantic groups and authored alternatives, serialized. */
export const MAX_EVENT_JSON_BYTES = 16 * 1024;

export enum ResultRefType {
  TOOL_RESULT = 'TOOL_RESULT',
  RELATIONSHIP = 'RELATIONSHIP',
  EVIDENCE = 'EVIDENCE',
  COMMUNITY = 'COMMUNITY',
  HYPOTHESIS = 'HYPOTHESIS',
  ENTITY = 'ENTITY',
}

export enum RecallEventSource {
  INTERNAL = 'INTERNAL',
  EXTERNAL = 'EXTERNAL',
}

export interface ResultRef {
  type: ResultRefType;
  id: string;
  rank: number;
}

export function newRecallEventId(): string {
  return `rec_${newUlid()}`;
}

/** NFKC, lower case, white space collapsed: the same question typed twice fingerprints alike. */
export function normalizeQuery(query: string): string {
  return query.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** SHA-256 hex of the normalized query; null when there is no query. */
export function queryFingerprint(query: string | null | undefined): string | null {
  if (query === null || query === undefined) return null;
  const normalized = normalizeQuery(query);
  return normalized === '' ? null : createHash('sha256').update(normalized).digest('hex');
}

/**
 * The query an event is made of: a recall's question is read from its start, at most
 * MAX_QUERY_CHARS, so a user message of megabytes costs what a long question does.
 */
export function eventQuery(query: string | null | undefined): string | null {
  return query === null || query === undefined ? null : safeSlice(query, MAX_QUERY_CHARS);
}

/** The raw query, bounded, only when the team opted in. */
export function storedQueryText(query: string | null | undefined, optedIn: boolean): string | null {
  if (!optedIn || query === null || query === undefined) return null;
  // Two UTF-16 units a code point at most: only the start of a long query is split into code points.
  return Array.from(safeSlice(query, QUERY_TEXT_MAX_CHARS * 2))
    .slice(0, QUERY_TEXT_MAX_CHARS)
    .join('');
}

/** `recordRecallEvent`'s input as GraphQL hands it over. */
export interface ExternalRecallEventInput {
  spaceId: string;
  query?: string | null;
  contractVersion: string;
  rankingVersion?: string | null;
  fusionMode?: string | null;
  searchFreshness?: string | null;
  degradedBranches?: readonly string[] | null;
  results: readonly ResultRef[];
  semanticGroups?: unknown;
  authoredAlternatives?: unknown;
  clarificationOutcome?: string | null;
}

/** Checks an external recall event's bounds before any SQL runs (R-RC-11, R-OP-5), naming the field. */
export function checkExternalRecallEvent(input: ExternalRecallEventInput, field = 'input'): void {
  if (input.results.length > MAX_EVENT_REFS) {
    throw new BadUserInputError(
      `${field}.results`,
      `${field}.results may hold at most ${MAX_EVENT_REFS} refs; record the top ${MAX_EVENT_REFS}.`,
    );
  }
  const seen = new Set<string>();
  input.results.forEach((ref, index) => {
    const path = `${field}.results.${index}`;
    if (ref.id.length === 0 || ref.id.length > MAX_REF_ID_CHARS)
      throw new BadUserInputError(`${path}.id`, `${path}.id must be 1 to ${MAX_REF_ID_CHARS} characters.`);
    if (!Number.isSafeInteger(ref.rank) || ref.rank < 1)
      throw new BadUserInputError(`${path}.rank`, `${path}.rank must be a whole number from 1.`);
    const key = `${ref.type}:${ref.id}`;
    if (seen.has(key)) throw new BadUserInputError(`${path}.id`, `${path} repeats ${ref.type} ${ref.id}; list each ref once.`);
    seen.add(key);
  });
  if (input.query !== null && input.query !== undefined && input.query.length > MAX_QUERY_CHARS) {
    throw new BadUserInputError(`${field}.query`, `${field}.query must be at most ${MAX_QUERY_CHARS} characters.`);
  }
  const labels = {
    contractVersion: input.contractVersion,
    rankingVersion: input.rankingVersion,
    fusionMode: input.fusionMode,
    searchFreshness: input.searchFreshness,
    clarificationOutcome: input.clarificationOutcome,
  };
  for (const [name, value] of Object.entries(labels)) {
    if (value === null || value === undefined) continue;
    if (value.length === 0 || value.length > MAX_LABEL_CHARS)
      throw new BadUserInputError(`${field}.${name}`, `${field}.${name} must be 1 to ${MAX_LABEL_CHARS} characters.`);
  }
  const branches = input.degradedBranches ?? [];
  if (branches.length > MAX_DEGRADED_BRANCHES || branches.some((b) => b.length === 0 || b.length > MAX_LABEL_CHARS)) {
    throw new BadUserInputError(
      `${field}.degradedBranches`,
      `${field}.degradedBranches may hold at most ${MAX_DEGRADED_BRANCHES} names of 1 to ${MAX_LABEL_CHARS} characters.`,
    );
  }
  const texts: [string, string | null | undefined][] = [
    ['query', input.query],
    ...Object.entries(labels),
    ...input.results.map((ref, i): [string, string] => [`results.${i}.id`, ref.id]),
    ...branches.map((b, i): [string, string] => [`degradedBranches.${i}`, b]),
  ];
  for (const [name, text] of texts) {
    if (text !== null && text !== undefined && !isStorableText(text)) {
      throw new BadUserInputError(
        `${field}.${name}`,
        `${field}.${name} contains a NUL character or an unpaired surrogate, which cannot be stored; remove it.`,
      );
    }
  }
  for (const name of ['semanticGroups', 'authoredAlternatives'] as const) {
    const value = input[name];
    if (value === null || value === undefined) continue;
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
    if (bytes > MAX_EVENT_JSON_BYTES) {
      throw new BadUserInputError(
        `${field}.${name}`,
        `${field}.${name} is ${bytes} bytes serialized; the limit is ${MAX_EVENT_JSON_BYTES} bytes.`,
      );
    }
  }
}
