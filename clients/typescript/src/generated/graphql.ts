/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type CompactMessagesInput = {
  /** Skip compaction unless it saves at least this many tokens (keeps a cached prefix when the gain is small). */
  clearAtLeastTokens?: number | null | undefined;
  /** Tool names (or "*") whose call arguments longer than the threshold are recorded and replaced by a stub too, the call id, name and pairing kept valid for the format; FULL recall of the stub's mem id gives the arguments back. Unset: the tools the team's policies say to clear. */
  clearToolInputs?: Array<string> | null | undefined;
  conversationId: string;
  /** Tools whose results are never compacted. Unset: the tools the team's policies say never to compact. */
  excludeTools?: Array<string> | null | undefined;
  /** The last N tool results (and calls) stay as they are. Unset: the team's policy for the tool (its own last N), else 3. */
  keepLastN?: number | null | undefined;
  messageFormat?: MessageFormat | null | undefined;
  /** The history in messageFormat: Anthropic Messages [{role, content: [...blocks], id?}], OpenAI Chat messages, Responses input items, Gemini contents or AI SDK ModelMessages */
  messages: unknown;
  /** Results (and arguments) longer than this many characters are candidates. Unset: the team's policy for the tool, else 2000. */
  sizeThreshold?: number | null | undefined;
  spaceId: string;
  /** When compacting, replace eligible results oldest first, only as many as bring the history to this many tokens (all of them when it cannot be reached). Unset: every eligible result. */
  targetTokens?: number | null | undefined;
  /** Compact only when the history is over this many tokens; at or under it the list comes back unchanged (triggered: false). Unset: always (or over targetTokens when that is given). */
  triggerTokens?: number | null | undefined;
};

export type FeedbackEventFilter = {
  answerSupported?: boolean | null | undefined;
  contractVersion?: string | null | undefined;
  /** true: a non-empty feedbackComment; false: none or an empty one. */
  hasComment?: boolean | null | undefined;
  /** true: irrelevant was flagged; false: it was not (false or unanswered). */
  irrelevant?: boolean | null | undefined;
  /** true: missingContext was flagged; false: it was not (false or unanswered). */
  missingContext?: boolean | null | undefined;
  quality?: FeedbackQuality | null | undefined;
  since?: string | null | undefined;
  spaceId?: string | null | undefined;
  /** One of the recall's tool names (toolNames). */
  toolName?: string | null | undefined;
  until?: string | null | undefined;
  used?: boolean | null | undefined;
  /** The user who submitted the feedback (actorId). */
  userId?: string | null | undefined;
};

export type FeedbackNextAction = 'CORRECT_AND_RESUBMIT_FROM_FAILED' | 'DROP_FAILED_AND_RESUBMIT_REST' | 'RETRY_FROM_FAILED';

export type FeedbackQuality = 'HIGH' | 'LOW' | 'MEDIUM';

export type HypothesisFeedbackInput = {
  contradicted?: boolean | null | undefined;
  feedbackComment?: string | null | undefined;
  hypothesisId: string;
  quality?: FeedbackQuality | null | undefined;
  used?: boolean | null | undefined;
};

/** The wire format of a message history given to compactMessages. R-LG-3 */
export type MessageFormat =
  /** AI SDK ModelMessage list: tool-call parts answered by tool-result parts; a compacted output is {type: "text", value: stub}. */
  | 'AI_SDK'
  /** Anthropic Messages: [{role, content: string | blocks, id?}]. */
  | 'ANTHROPIC'
  /** Detected from the tool calls and results in the list. */
  | 'AUTO'
  /** Gemini contents: functionCall parts answered by functionResponse parts; a compacted response is {output: stub}. */
  | 'GEMINI'
  /** OpenAI Chat Completions messages: tool_calls answered by role "tool" messages. */
  | 'OPENAI_CHAT'
  /** OpenAI Responses input items: function_call answered by function_call_output. */
  | 'OPENAI_RESPONSES';

export type RecallFeedbackBatchInput = {
  recalls: Array<RecallFeedbackInput>;
};

export type RecallFeedbackInput = {
  answerSupported?: boolean | null | undefined;
  /** Idempotency key: a replay of the same item under a recorded key records nothing new; another item under it is CONFLICT. R-FB-5 */
  clientFeedbackId?: string | null | undefined;
  feedbackComment?: string | null | undefined;
  hypothesisFeedback?: Array<HypothesisFeedbackInput> | null | undefined;
  irrelevant?: boolean | null | undefined;
  irrelevantResultRefs?: Array<ResultRefInput> | null | undefined;
  missingContext?: boolean | null | undefined;
  quality?: FeedbackQuality | null | undefined;
  recallEventId: string;
  used: boolean;
};

export type RecallFormat = 'FULL' | 'SUMMARY';

export type ResultRefInput = {
  id: string;
  rank?: number | null | undefined;
  type: ResultRefType;
};

export type ResultRefType = 'COMMUNITY' | 'ENTITY' | 'EVIDENCE' | 'HYPOTHESIS' | 'RELATIONSHIP' | 'TOOL_RESULT';

export type SpaceStatus = 'ACTIVE' | 'RETIRED' | 'SEALED';

/** The whole policy for one tool (an unset setting is none): at least one setting; neverCompact true goes with no other. */
export type ToolCompactionPolicyInput = {
  /** Record and stub its call arguments over the threshold. */
  clearInputs?: boolean | null | undefined;
  /** 0 to 1000. */
  keepLastN?: number | null | undefined;
  /** Never compact the tool's results or inputs. */
  neverCompact?: boolean | null | undefined;
  /** 1 to 10,000,000 characters. */
  sizeThreshold?: number | null | undefined;
};

export type ToolResultInput = {
  conversationId: string;
  /** Optional, for imports; not in the future, not past the retention window. */
  createdAt?: string | null | undefined;
  /** The assistant message that incorporated the tool call. */
  messageId: string;
  spaceId: string;
  toolInput: unknown;
  toolName: string;
  /** JSON, or a string for text output. */
  toolOutput: unknown;
  toolUseId: string;
};

export type CompactMessagesMutationVariables = Exact<{
  input: CompactMessagesInput;
}>;

export type CompactMessagesMutation = {
  compactMessages: {
    messageFormat: MessageFormat;
    compactedCount: number;
    tokensBefore: number;
    tokensAfter: number;
    charsBefore: number;
    charsAfter: number;
    messages: unknown;
    handles: Array<{ memId: string; toolCallId: string; toolName: string; sizeTokens: number; stub: string }>;
  };
};

export type ConsoleFeedbackEventQueryVariables = Exact<{
  id: string;
}>;

export type ConsoleFeedbackEventQuery = {
  feedbackEvent: {
    id: string;
    createdAt: string;
    actorId: string;
    profileId: string;
    spaceId: string;
    spaceGeneration: number;
    contractVersion: string;
    quality: FeedbackQuality | null;
    used: boolean;
    answerSupported: boolean | null;
    missingContext: boolean | null;
    irrelevant: boolean | null;
    feedbackComment: string | null;
    toolNames: Array<string>;
    irrelevantResultRefs: Array<{ type: ResultRefType; id: string; rank: number }>;
    hypothesisFeedback: Array<{
      hypothesisId: string;
      used: boolean | null;
      contradicted: boolean | null;
      quality: FeedbackQuality | null;
      feedbackComment: string | null;
    }>;
    recallEvent: {
      id: string;
      createdAt: string;
      source: string;
      queryFingerprint: string | null;
      searchFreshness: string | null;
      fusionMode: string | null;
      degradedBranches: Array<string>;
      returnedResults: Array<{
        type: ResultRefType;
        id: string;
        rank: number;
        snapshot: { memId: string; toolName: string; stub: string; sizeTokens: number; createdAt: string } | null;
      }>;
      feedbackEvents: Array<{ id: string; createdAt: string; quality: FeedbackQuality | null }> | null;
    } | null;
  } | null;
};

export type ConsoleFeedbackEventsQueryVariables = Exact<{
  filter?: FeedbackEventFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;

export type ConsoleFeedbackEventsQuery = {
  feedbackEvents: {
    totalCount: number;
    totalCountIsExact: boolean;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    edges: Array<{
      node: {
        id: string;
        createdAt: string;
        spaceId: string;
        quality: FeedbackQuality | null;
        used: boolean;
        answerSupported: boolean | null;
        missingContext: boolean | null;
        irrelevant: boolean | null;
        feedbackComment: string | null;
        toolNames: Array<string>;
      };
    }>;
  };
};

export type ConsoleFeedbackTrendQueryVariables = Exact<{
  filter?: FeedbackEventFilter | null | undefined;
}>;

export type ConsoleFeedbackTrendQuery = {
  feedbackMetrics: Array<{
    group: string | null;
    bucketStart: string | null;
    events: number;
    usedRate: number;
    answerSupportedRate: number;
    averageQuality: number | null;
  }>;
};

export type ConsoleMeQueryVariables = Exact<{ [key: string]: never }>;

export type ConsoleMeQuery = { me: { userId: string; teamId: string; scopes: Array<string> } };

export type ConsoleSpacesQueryVariables = Exact<{ [key: string]: never }>;

export type ConsoleSpacesQuery = {
  spaces: Array<{ id: string; name: string; status: SpaceStatus; generation: number; memberIds: Array<string> }>;
};

export type CreateSpaceMutationVariables = Exact<{
  name: string;
}>;

export type CreateSpaceMutation = {
  createSpace: { id: string; name: string; generation: number; status: SpaceStatus; memberIds: Array<string> };
};

export type FeatureFlagsQueryVariables = Exact<{ [key: string]: never }>;

export type FeatureFlagsQuery = { featureFlags: Array<{ key: string; enabled: boolean }> };

export type FeedbackEventQueryVariables = Exact<{
  id: string;
}>;

export type FeedbackEventQuery = {
  feedbackEvent: {
    id: string;
    recallEventId: string;
    spaceId: string;
    actorId: string;
    profileId: string;
    createdAt: string;
    contractVersion: string;
    used: boolean;
    quality: FeedbackQuality | null;
    answerSupported: boolean | null;
    irrelevant: boolean | null;
    missingContext: boolean | null;
    feedbackComment: string | null;
    returnedRefs: Array<{ id: string; type: ResultRefType; rank: number }>;
    irrelevantResultRefs: Array<{ id: string; type: ResultRefType; rank: number }>;
    hypothesisFeedback: Array<{
      hypothesisId: string;
      used: boolean | null;
      quality: FeedbackQuality | null;
      contradicted: boolean | null;
      feedbackComment: string | null;
    }>;
  } | null;
};

export type MeQueryVariables = Exact<{ [key: string]: never }>;

export type MeQuery = {
  me: { userId: string; teamId: string; scopes: Array<string>; spaces: Array<{ id: string; name: string; generation: number }> };
};

export type RecallBlockQueryVariables = Exact<{
  conversationId: string;
  userMessage?: string | null | undefined;
}>;

export type RecallBlockQuery = {
  recallBlock: {
    injected: boolean;
    text: string;
    tokens: number;
    droppedCount: number;
    degradations: Array<string>;
    recallEventId: string | null;
    lines: Array<{ memId: string; snapshotId: string; toolName: string; createdAt: string; text: string; tokens: number }>;
    suggestedActions: Array<{ action: string; recallEventId: string }>;
  };
};

export type RecallEventQueryVariables = Exact<{
  id: string;
}>;

export type RecallEventQuery = {
  recallEvent: {
    id: string;
    spaceId: string;
    profileId: string;
    source: string;
    contractVersion: string;
    createdAt: string;
    queryFingerprint: string | null;
    queryText: string | null;
    fusionMode: string | null;
    searchFreshness: string | null;
    rankingVersion: string | null;
    degradedBranches: Array<string>;
    results: Array<{ id: string; type: ResultRefType; rank: number }>;
  } | null;
};

export type RecallMemoryQueryVariables = Exact<{
  spaceId: string;
  query: string;
  conversationId?: string | null | undefined;
  toolName?: string | null | undefined;
  sinceDays?: number | null | undefined;
  limit?: number | null | undefined;
}>;

export type RecallMemoryQuery = {
  recallMemory: {
    recallEventId: string;
    degradations: Array<string>;
    results: Array<{
      line: string;
      score: number;
      ref: { id: string; type: ResultRefType; rank: number };
      snapshot: { id: string; memId: string; toolName: string; conversationId: string; createdAt: string } | null;
    }>;
    suggestedActions: Array<{ action: string; recallEventId: string }>;
  };
};

export type RecallToolResultQueryVariables = Exact<{
  memId: string;
  format?: RecallFormat | null | undefined;
  query?: string | null | undefined;
  offset?: number | null | undefined;
  maxChars?: number | null | undefined;
  jsonPath?: string | null | undefined;
  lineStart?: number | null | undefined;
  lineCount?: number | null | undefined;
  maxTokens?: number | null | undefined;
  pattern?: string | null | undefined;
  contextLines?: number | null | undefined;
}>;

export type RecallToolResultQuery = { recallToolResult: string };

export type RecordToolResultsMutationVariables = Exact<{
  input: Array<ToolResultInput> | ToolResultInput;
}>;

export type RecordToolResultsMutation = {
  recordToolResults: {
    createdCount: number;
    duplicateCount: number;
    snapshots: Array<{
      id: string;
      memId: string;
      toolUseId: string;
      toolName: string;
      conversationId: string;
      spaceId: string;
      createdAt: string;
      sizeChars: number;
      handle: { stub: string; summaryOneliner: string; sizeTokens: number };
    }>;
  };
};

export type SetToolCompactionPolicyMutationVariables = Exact<{
  toolName: string;
  policy: ToolCompactionPolicyInput;
}>;

export type SetToolCompactionPolicyMutation = {
  setToolCompactionPolicy: {
    toolName: string;
    neverCompact: boolean;
    keepLastN: number | null;
    sizeThreshold: number | null;
    clearInputs: boolean;
    version: number;
    updatedAt: string;
  };
};

export type SetToolSummaryRuleMutationVariables = Exact<{
  toolName: string;
  rule: unknown;
}>;

export type SetToolSummaryRuleMutation = { setToolSummaryRule: { toolName: string; version: number; updatedAt: string; rule: unknown } };

export type SpacesQueryVariables = Exact<{ [key: string]: never }>;

export type SpacesQuery = {
  spaces: Array<{ id: string; name: string; generation: number; status: SpaceStatus; memberIds: Array<string> }>;
};

export type SubmitRecallFeedbackMutationVariables = Exact<{
  input: RecallFeedbackBatchInput;
}>;

export type SubmitRecallFeedbackMutation = {
  submitRecallFeedback: {
    recordedCount: number;
    feedbackEventIds: Array<string>;
    error: { code: string; message: string; failedIndex: number; nextAction: FeedbackNextAction; remediation: string } | null;
  };
};

export class TypedDocumentString<TResult, TVariables> extends String implements DocumentTypeDecoration<TResult, TVariables> {
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const CompactMessagesDocument = new TypedDocumentString(`
    mutation CompactMessages($input: CompactMessagesInput!) {
  compactMessages(input: $input) {
    messageFormat
    compactedCount
    tokensBefore
    tokensAfter
    charsBefore
    charsAfter
    messages
    handles {
      memId
      toolCallId
      toolName
      sizeTokens
      stub
    }
  }
}
    `) as unknown as TypedDocumentString<CompactMessagesMutation, CompactMessagesMutationVariables>;
export const ConsoleFeedbackEventDocument = new TypedDocumentString(`
    query ConsoleFeedbackEvent($id: ID!) {
  feedbackEvent(id: $id) {
    id
    createdAt
    actorId
    profileId
    spaceId
    spaceGeneration
    contractVersion
    quality
    used
    answerSupported
    missingContext
    irrelevant
    feedbackComment
    toolNames
    irrelevantResultRefs {
      type
      id
      rank
    }
    hypothesisFeedback {
      hypothesisId
      used
      contradicted
      quality
      feedbackComment
    }
    recallEvent {
      id
      createdAt
      source
      queryFingerprint
      searchFreshness
      fusionMode
      degradedBranches
      returnedResults {
        type
        id
        rank
        snapshot {
          memId
          toolName
          stub
          sizeTokens
          createdAt
        }
      }
      feedbackEvents {
        id
        createdAt
        quality
      }
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleFeedbackEventQuery, ConsoleFeedbackEventQueryVariables>;
export const ConsoleFeedbackEventsDocument = new TypedDocumentString(`
    query ConsoleFeedbackEvents($filter: FeedbackEventFilter, $first: Int, $after: String) {
  feedbackEvents(filter: $filter, first: $first, after: $after) {
    totalCount
    totalCountIsExact
    pageInfo {
      hasNextPage
      endCursor
    }
    edges {
      node {
        id
        createdAt
        spaceId
        quality
        used
        answerSupported
        missingContext
        irrelevant
        feedbackComment
        toolNames
      }
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleFeedbackEventsQuery, ConsoleFeedbackEventsQueryVariables>;
export const ConsoleFeedbackTrendDocument = new TypedDocumentString(`
    query ConsoleFeedbackTrend($filter: FeedbackEventFilter) {
  feedbackMetrics(filter: $filter, groupBy: DAY) {
    group
    bucketStart
    events
    usedRate
    answerSupportedRate
    averageQuality
  }
}
    `) as unknown as TypedDocumentString<ConsoleFeedbackTrendQuery, ConsoleFeedbackTrendQueryVariables>;
export const ConsoleMeDocument = new TypedDocumentString(`
    query ConsoleMe {
  me {
    userId
    teamId
    scopes
  }
}
    `) as unknown as TypedDocumentString<ConsoleMeQuery, ConsoleMeQueryVariables>;
export const ConsoleSpacesDocument = new TypedDocumentString(`
    query ConsoleSpaces {
  spaces {
    id
    name
    status
    generation
    memberIds
  }
}
    `) as unknown as TypedDocumentString<ConsoleSpacesQuery, ConsoleSpacesQueryVariables>;
export const CreateSpaceDocument = new TypedDocumentString(`
    mutation CreateSpace($name: String!) {
  createSpace(name: $name) {
    id
    name
    generation
    status
    memberIds
  }
}
    `) as unknown as TypedDocumentString<CreateSpaceMutation, CreateSpaceMutationVariables>;
export const FeatureFlagsDocument = new TypedDocumentString(`
    query FeatureFlags {
  featureFlags {
    key
    enabled
  }
}
    `) as unknown as TypedDocumentString<FeatureFlagsQuery, FeatureFlagsQueryVariables>;
export const FeedbackEventDocument = new TypedDocumentString(`
    query FeedbackEvent($id: ID!) {
  feedbackEvent(id: $id) {
    id
    recallEventId
    spaceId
    actorId
    profileId
    createdAt
    contractVersion
    used
    quality
    answerSupported
    irrelevant
    missingContext
    feedbackComment
    returnedRefs {
      id
      type
      rank
    }
    irrelevantResultRefs {
      id
      type
      rank
    }
    hypothesisFeedback {
      hypothesisId
      used
      quality
      contradicted
      feedbackComment
    }
  }
}
    `) as unknown as TypedDocumentString<FeedbackEventQuery, FeedbackEventQueryVariables>;
export const MeDocument = new TypedDocumentString(`
    query Me {
  me {
    userId
    teamId
    scopes
    spaces {
      id
      name
      generation
    }
  }
}
    `) as unknown as TypedDocumentString<MeQuery, MeQueryVariables>;
export const RecallBlockDocument = new TypedDocumentString(`
    query RecallBlock($conversationId: ID!, $userMessage: String) {
  recallBlock(conversationId: $conversationId, userMessage: $userMessage) {
    injected
    text
    tokens
    droppedCount
    degradations
    recallEventId
    lines {
      memId
      snapshotId
      toolName
      createdAt
      text
      tokens
    }
    suggestedActions {
      action
      recallEventId
    }
  }
}
    `) as unknown as TypedDocumentString<RecallBlockQuery, RecallBlockQueryVariables>;
export const RecallEventDocument = new TypedDocumentString(`
    query RecallEvent($id: ID!) {
  recallEvent(id: $id) {
    id
    spaceId
    profileId
    source
    contractVersion
    createdAt
    queryFingerprint
    queryText
    fusionMode
    searchFreshness
    rankingVersion
    degradedBranches
    results {
      id
      type
      rank
    }
  }
}
    `) as unknown as TypedDocumentString<RecallEventQuery, RecallEventQueryVariables>;
export const RecallMemoryDocument = new TypedDocumentString(`
    query RecallMemory($spaceId: ID!, $query: String!, $conversationId: ID, $toolName: String, $sinceDays: Int, $limit: Int) {
  recallMemory(
    spaceId: $spaceId
    query: $query
    conversationId: $conversationId
    toolName: $toolName
    sinceDays: $sinceDays
    limit: $limit
  ) {
    recallEventId
    degradations
    results {
      line
      score
      ref {
        id
        type
        rank
      }
      snapshot {
        id
        memId
        toolName
        conversationId
        createdAt
      }
    }
    suggestedActions {
      action
      recallEventId
    }
  }
}
    `) as unknown as TypedDocumentString<RecallMemoryQuery, RecallMemoryQueryVariables>;
export const RecallToolResultDocument = new TypedDocumentString(`
    query RecallToolResult($memId: String!, $format: RecallFormat, $query: String, $offset: Int, $maxChars: Int, $jsonPath: String, $lineStart: Int, $lineCount: Int, $maxTokens: Int, $pattern: String, $contextLines: Int) {
  recallToolResult(
    memId: $memId
    format: $format
    query: $query
    offset: $offset
    maxChars: $maxChars
    jsonPath: $jsonPath
    lineStart: $lineStart
    lineCount: $lineCount
    maxTokens: $maxTokens
    pattern: $pattern
    contextLines: $contextLines
  )
}
    `) as unknown as TypedDocumentString<RecallToolResultQuery, RecallToolResultQueryVariables>;
export const RecordToolResultsDocument = new TypedDocumentString(`
    mutation RecordToolResults($input: [ToolResultInput!]!) {
  recordToolResults(input: $input) {
    createdCount
    duplicateCount
    snapshots {
      id
      memId
      toolUseId
      toolName
      conversationId
      spaceId
      createdAt
      sizeChars
      handle {
        stub
        summaryOneliner
        sizeTokens
      }
    }
  }
}
    `) as unknown as TypedDocumentString<RecordToolResultsMutation, RecordToolResultsMutationVariables>;
export const SetToolCompactionPolicyDocument = new TypedDocumentString(`
    mutation SetToolCompactionPolicy($toolName: String!, $policy: ToolCompactionPolicyInput!) {
  setToolCompactionPolicy(toolName: $toolName, policy: $policy) {
    toolName
    neverCompact
    keepLastN
    sizeThreshold
    clearInputs
    version
    updatedAt
  }
}
    `) as unknown as TypedDocumentString<SetToolCompactionPolicyMutation, SetToolCompactionPolicyMutationVariables>;
export const SetToolSummaryRuleDocument = new TypedDocumentString(`
    mutation SetToolSummaryRule($toolName: String!, $rule: JSON!) {
  setToolSummaryRule(toolName: $toolName, rule: $rule) {
    toolName
    version
    updatedAt
    rule
  }
}
    `) as unknown as TypedDocumentString<SetToolSummaryRuleMutation, SetToolSummaryRuleMutationVariables>;
export const SpacesDocument = new TypedDocumentString(`
    query Spaces {
  spaces {
    id
    name
    generation
    status
    memberIds
  }
}
    `) as unknown as TypedDocumentString<SpacesQuery, SpacesQueryVariables>;
export const SubmitRecallFeedbackDocument = new TypedDocumentString(`
    mutation SubmitRecallFeedback($input: RecallFeedbackBatchInput!) {
  submitRecallFeedback(input: $input) {
    recordedCount
    feedbackEventIds
    error {
      code
      message
      failedIndex
      nextAction
      remediation
    }
  }
}
    `) as unknown as TypedDocumentString<SubmitRecallFeedbackMutation, SubmitRecallFeedbackMutationVariables>;
