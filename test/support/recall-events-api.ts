/** recallMemory and the recall events, as the e2e tests query them, and the shapes they answer. */

export const EVENT_ID = /^rec_[0-9A-HJKMNP-TV-Z]{26}$/;

export const RECALL = `query($s: ID!, $q: String!, $c: ID, $tool: String, $days: Int, $limit: Int) {
  recallMemory(spaceId: $s, query: $q, conversationId: $c, toolName: $tool, sinceDays: $days, limit: $limit) {
    recallEventId
    results { ref { type id rank } score line snapshot { id conversationId toolName createdAt } }
    suggestedActions { action recallEventId }
    degradations
  }
}`;
const EVENT_FIELDS = `id teamId profileId spaceId spaceGeneration queryFingerprint queryText contractVersion rankingVersion fusionMode
  searchFreshness degradedBranches results { type id rank } semanticGroups authoredAlternatives clarificationOutcome source createdAt`;
export const EVENT = `query($id: ID!) { recallEvent(id: $id) { ${EVENT_FIELDS} } }`;
export const RECORD_EVENT = `mutation($input: RecallEventInput!) { recordRecallEvent(input: $input) { ${EVENT_FIELDS} } }`;

interface Ref {
  type: string;
  id: string;
  rank: number;
}
export interface Hit {
  ref: Ref;
  score: number;
  line: string;
  snapshot: { id: string; conversationId: string; toolName: string; createdAt: string };
}
export interface Suggestion {
  action: string;
  recallEventId: string;
}
export interface RecallResult {
  recallEventId: string;
  results: Hit[];
  suggestedActions: Suggestion[];
  degradations: string[];
}
export interface RecallEvent {
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
  results: Ref[];
  semanticGroups: unknown;
  authoredAlternatives: unknown;
  clarificationOutcome: string | null;
  source: string;
  createdAt: string;
}
