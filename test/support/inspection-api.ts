/** The admin inspection of issue 23 as the e2e tests query it: recall events, the new filters, bounded counts, series, links. */
import { ok } from './graphql';
import type { TestApp, TestIdentity } from './test-app';

export const RECALL_EVENTS = `query($filter: RecallEventFilter, $first: Int, $after: String) {
  recallEvents(filter: $filter, first: $first, after: $after) {
    edges { cursor node { id spaceId spaceGeneration source toolNames degradedBranches createdAt } }
    pageInfo { hasNextPage endCursor }
    totalCount totalCountIsExact
  }
}`;

export const FEEDBACK_EVENTS = `query($filter: FeedbackEventFilter, $first: Int, $after: String) {
  feedbackEvents(filter: $filter, first: $first, after: $after) {
    edges { cursor node { id recallEventId actorId toolNames missingContext irrelevant feedbackComment createdAt } }
    pageInfo { hasNextPage endCursor }
    totalCount totalCountIsExact
  }
}`;

/** A recall event with both links: its refs with their snapshots, and the feedback judging it. */
export const RECALL_EVENT_LINKS = `query($id: ID!) {
  recallEvent(id: $id) {
    id toolNames
    returnedResults { type id rank snapshot { memId toolName stub sizeTokens createdAt } }
    feedbackEvents { id recallEventId createdAt toolNames recallEvent { id } }
  }
}`;

export const SERIES = `query($filter: FeedbackEventFilter, $groupBy: FeedbackMetricsGroupBy) {
  feedbackMetrics(filter: $filter, groupBy: $groupBy) {
    group bucketStart events usedRate answerSupportedRate averageQuality missingContextRate irrelevantRate
  }
}`;

export interface ListedRecallEvent {
  id: string;
  spaceId: string;
  spaceGeneration: number;
  source: string;
  toolNames: string[];
  degradedBranches: string[];
  createdAt: string;
}
export interface ListedFeedbackEvent {
  id: string;
  recallEventId: string;
  actorId: string;
  toolNames: string[];
  missingContext: boolean | null;
  irrelevant: boolean | null;
  feedbackComment: string | null;
  createdAt: string;
}
export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  totalCount: number;
  totalCountIsExact: boolean;
}
export interface ReturnedResult {
  type: string;
  id: string;
  rank: number;
  snapshot: { memId: string; toolName: string; stub: string; sizeTokens: number; createdAt: string } | null;
}
export interface SeriesRow {
  group: string;
  bucketStart: string | null;
  events: number;
  usedRate: number;
  answerSupportedRate: number;
  averageQuality: number | null;
  missingContextRate: number;
  irrelevantRate: number;
}

export async function listRecallEvents(
  t: TestApp,
  who: TestIdentity,
  variables: Record<string, unknown> = {},
): Promise<Connection<ListedRecallEvent>> {
  return (await ok<{ recallEvents: Connection<ListedRecallEvent> }>(t, RECALL_EVENTS, { first: 100, ...variables }, who.token))
    .recallEvents;
}

export async function listFeedbackEvents(
  t: TestApp,
  who: TestIdentity,
  variables: Record<string, unknown> = {},
): Promise<Connection<ListedFeedbackEvent>> {
  return (await ok<{ feedbackEvents: Connection<ListedFeedbackEvent> }>(t, FEEDBACK_EVENTS, { first: 100, ...variables }, who.token))
    .feedbackEvents;
}

export async function series(t: TestApp, who: TestIdentity, groupBy: string, filter?: Record<string, unknown>): Promise<SeriesRow[]> {
  return (await ok<{ feedbackMetrics: SeriesRow[] }>(t, SERIES, { groupBy, filter }, who.token)).feedbackMetrics;
}

/** Sets a stored event's time (the owner's pool): for series and ranges at chosen instants. */
export async function setCreatedAt(t: TestApp, table: 'feedback_events' | 'recall_events', id: string, at: string): Promise<void> {
  await t.sql.query(`update ${table} set created_at = $2 where id = $1`, [id, at]);
}
