/* eslint-disable */
import * as types from './graphql';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
  'mutation CompactMessages($input: CompactMessagesInput!) {\n  compactMessages(input: $input) {\n    messageFormat\n    compactedCount\n    tokensBefore\n    tokensAfter\n    charsBefore\n    charsAfter\n    messages\n    handles {\n      memId\n      toolCallId\n      toolName\n      sizeTokens\n      stub\n    }\n  }\n}': typeof types.CompactMessagesDocument;
  'query ConsoleFeedbackEvent($id: ID!) {\n  feedbackEvent(id: $id) {\n    id\n    createdAt\n    actorId\n    profileId\n    spaceId\n    spaceGeneration\n    contractVersion\n    quality\n    used\n    answerSupported\n    missingContext\n    irrelevant\n    feedbackComment\n    toolNames\n    irrelevantResultRefs {\n      type\n      id\n      rank\n    }\n    hypothesisFeedback {\n      hypothesisId\n      used\n      contradicted\n      quality\n      feedbackComment\n    }\n    recallEvent {\n      id\n      createdAt\n      source\n      queryFingerprint\n      searchFreshness\n      fusionMode\n      degradedBranches\n      returnedResults {\n        type\n        id\n        rank\n        snapshot {\n          memId\n          toolName\n          stub\n          sizeTokens\n          createdAt\n        }\n      }\n      feedbackEvents {\n        id\n        createdAt\n        quality\n      }\n    }\n  }\n}': typeof types.ConsoleFeedbackEventDocument;
  'query ConsoleFeedbackEvents($filter: FeedbackEventFilter, $first: Int, $after: String) {\n  feedbackEvents(filter: $filter, first: $first, after: $after) {\n    totalCount\n    totalCountIsExact\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        id\n        createdAt\n        spaceId\n        quality\n        used\n        answerSupported\n        missingContext\n        irrelevant\n        feedbackComment\n        toolNames\n      }\n    }\n  }\n}': typeof types.ConsoleFeedbackEventsDocument;
  'query ConsoleFeedbackTrend($filter: FeedbackEventFilter) {\n  feedbackMetrics(filter: $filter, groupBy: DAY) {\n    group\n    bucketStart\n    events\n    usedRate\n    answerSupportedRate\n    averageQuality\n  }\n}': typeof types.ConsoleFeedbackTrendDocument;
  'query ConsoleMe {\n  me {\n    userId\n    teamId\n    scopes\n  }\n}': typeof types.ConsoleMeDocument;
  'query ConsoleSpaces {\n  spaces {\n    id\n    name\n    status\n    generation\n    memberIds\n  }\n}': typeof types.ConsoleSpacesDocument;
  'mutation CreateSpace($name: String!) {\n  createSpace(name: $name) {\n    id\n    name\n    generation\n    status\n    memberIds\n  }\n}': typeof types.CreateSpaceDocument;
  'query FeatureFlags {\n  featureFlags {\n    key\n    enabled\n  }\n}': typeof types.FeatureFlagsDocument;
  'query FeedbackEvent($id: ID!) {\n  feedbackEvent(id: $id) {\n    id\n    recallEventId\n    spaceId\n    actorId\n    profileId\n    createdAt\n    contractVersion\n    used\n    quality\n    answerSupported\n    irrelevant\n    missingContext\n    feedbackComment\n    returnedRefs {\n      id\n      type\n      rank\n    }\n    irrelevantResultRefs {\n      id\n      type\n      rank\n    }\n    hypothesisFeedback {\n      hypothesisId\n      used\n      quality\n      contradicted\n      feedbackComment\n    }\n  }\n}': typeof types.FeedbackEventDocument;
  'query Me {\n  me {\n    userId\n    teamId\n    scopes\n    spaces {\n      id\n      name\n      generation\n    }\n  }\n}': typeof types.MeDocument;
  'query RecallBlock($conversationId: ID!, $userMessage: String) {\n  recallBlock(conversationId: $conversationId, userMessage: $userMessage) {\n    injected\n    text\n    tokens\n    droppedCount\n    degradations\n    recallEventId\n    lines {\n      memId\n      snapshotId\n      toolName\n      createdAt\n      text\n      tokens\n    }\n    suggestedActions {\n      action\n      recallEventId\n    }\n  }\n}': typeof types.RecallBlockDocument;
  'query RecallEvent($id: ID!) {\n  recallEvent(id: $id) {\n    id\n    spaceId\n    profileId\n    source\n    contractVersion\n    createdAt\n    queryFingerprint\n    queryText\n    fusionMode\n    searchFreshness\n    rankingVersion\n    degradedBranches\n    results {\n      id\n      type\n      rank\n    }\n  }\n}': typeof types.RecallEventDocument;
  'query RecallMemory($spaceId: ID!, $query: String!, $conversationId: ID, $toolName: String, $sinceDays: Int, $limit: Int) {\n  recallMemory(\n    spaceId: $spaceId\n    query: $query\n    conversationId: $conversationId\n    toolName: $toolName\n    sinceDays: $sinceDays\n    limit: $limit\n  ) {\n    recallEventId\n    degradations\n    results {\n      line\n      score\n      ref {\n        id\n        type\n        rank\n      }\n      snapshot {\n        id\n        memId\n        toolName\n        conversationId\n        createdAt\n      }\n    }\n    suggestedActions {\n      action\n      recallEventId\n    }\n  }\n}': typeof types.RecallMemoryDocument;
  'query RecallToolResult($memId: String!, $format: RecallFormat, $query: String, $offset: Int, $maxChars: Int, $jsonPath: String, $lineStart: Int, $lineCount: Int, $maxTokens: Int, $pattern: String, $contextLines: Int) {\n  recallToolResult(\n    memId: $memId\n    format: $format\n    query: $query\n    offset: $offset\n    maxChars: $maxChars\n    jsonPath: $jsonPath\n    lineStart: $lineStart\n    lineCount: $lineCount\n    maxTokens: $maxTokens\n    pattern: $pattern\n    contextLines: $contextLines\n  )\n}': typeof types.RecallToolResultDocument;
  'mutation RecordToolResults($input: [ToolResultInput!]!) {\n  recordToolResults(input: $input) {\n    createdCount\n    duplicateCount\n    snapshots {\n      id\n      memId\n      toolUseId\n      toolName\n      conversationId\n      spaceId\n      createdAt\n      sizeChars\n      handle {\n        stub\n        summaryOneliner\n        sizeTokens\n      }\n    }\n  }\n}': typeof types.RecordToolResultsDocument;
  'mutation SetToolCompactionPolicy($toolName: String!, $policy: ToolCompactionPolicyInput!) {\n  setToolCompactionPolicy(toolName: $toolName, policy: $policy) {\n    toolName\n    neverCompact\n    keepLastN\n    sizeThreshold\n    clearInputs\n    version\n    updatedAt\n  }\n}': typeof types.SetToolCompactionPolicyDocument;
  'mutation SetToolSummaryRule($toolName: String!, $rule: JSON!) {\n  setToolSummaryRule(toolName: $toolName, rule: $rule) {\n    toolName\n    version\n    updatedAt\n    rule\n  }\n}': typeof types.SetToolSummaryRuleDocument;
  'query Spaces {\n  spaces {\n    id\n    name\n    generation\n    status\n    memberIds\n  }\n}': typeof types.SpacesDocument;
  'mutation SubmitRecallFeedback($input: RecallFeedbackBatchInput!) {\n  submitRecallFeedback(input: $input) {\n    recordedCount\n    feedbackEventIds\n    error {\n      code\n      message\n      failedIndex\n      nextAction\n      remediation\n    }\n  }\n}': typeof types.SubmitRecallFeedbackDocument;
};
const documents: Documents = {
  'mutation CompactMessages($input: CompactMessagesInput!) {\n  compactMessages(input: $input) {\n    messageFormat\n    compactedCount\n    tokensBefore\n    tokensAfter\n    charsBefore\n    charsAfter\n    messages\n    handles {\n      memId\n      toolCallId\n      toolName\n      sizeTokens\n      stub\n    }\n  }\n}':
    types.CompactMessagesDocument,
  'query ConsoleFeedbackEvent($id: ID!) {\n  feedbackEvent(id: $id) {\n    id\n    createdAt\n    actorId\n    profileId\n    spaceId\n    spaceGeneration\n    contractVersion\n    quality\n    used\n    answerSupported\n    missingContext\n    irrelevant\n    feedbackComment\n    toolNames\n    irrelevantResultRefs {\n      type\n      id\n      rank\n    }\n    hypothesisFeedback {\n      hypothesisId\n      used\n      contradicted\n      quality\n      feedbackComment\n    }\n    recallEvent {\n      id\n      createdAt\n      source\n      queryFingerprint\n      searchFreshness\n      fusionMode\n      degradedBranches\n      returnedResults {\n        type\n        id\n        rank\n        snapshot {\n          memId\n          toolName\n          stub\n          sizeTokens\n          createdAt\n        }\n      }\n      feedbackEvents {\n        id\n        createdAt\n        quality\n      }\n    }\n  }\n}':
    types.ConsoleFeedbackEventDocument,
  'query ConsoleFeedbackEvents($filter: FeedbackEventFilter, $first: Int, $after: String) {\n  feedbackEvents(filter: $filter, first: $first, after: $after) {\n    totalCount\n    totalCountIsExact\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        id\n        createdAt\n        spaceId\n        quality\n        used\n        answerSupported\n        missingContext\n        irrelevant\n        feedbackComment\n        toolNames\n      }\n    }\n  }\n}':
    types.ConsoleFeedbackEventsDocument,
  'query ConsoleFeedbackTrend($filter: FeedbackEventFilter) {\n  feedbackMetrics(filter: $filter, groupBy: DAY) {\n    group\n    bucketStart\n    events\n    usedRate\n    answerSupportedRate\n    averageQuality\n  }\n}':
    types.ConsoleFeedbackTrendDocument,
  'query ConsoleMe {\n  me {\n    userId\n    teamId\n    scopes\n  }\n}': types.ConsoleMeDocument,
  'query ConsoleSpaces {\n  spaces {\n    id\n    name\n    status\n    generation\n    memberIds\n  }\n}': types.ConsoleSpacesDocument,
  'mutation CreateSpace($name: String!) {\n  createSpace(name: $name) {\n    id\n    name\n    generation\n    status\n    memberIds\n  }\n}':
    types.CreateSpaceDocument,
  'query FeatureFlags {\n  featureFlags {\n    key\n    enabled\n  }\n}': types.FeatureFlagsDocument,
  'query FeedbackEvent($id: ID!) {\n  feedbackEvent(id: $id) {\n    id\n    recallEventId\n    spaceId\n    actorId\n    profileId\n    createdAt\n    contractVersion\n    used\n    quality\n    answerSupported\n    irrelevant\n    missingContext\n    feedbackComment\n    returnedRefs {\n      id\n      type\n      rank\n    }\n    irrelevantResultRefs {\n      id\n      type\n      rank\n    }\n    hypothesisFeedback {\n      hypothesisId\n      used\n      quality\n      contradicted\n      feedbackComment\n    }\n  }\n}':
    types.FeedbackEventDocument,
  'query Me {\n  me {\n    userId\n    teamId\n    scopes\n    spaces {\n      id\n      name\n      generation\n    }\n  }\n}':
    types.MeDocument,
  'query RecallBlock($conversationId: ID!, $userMessage: String) {\n  recallBlock(conversationId: $conversationId, userMessage: $userMessage) {\n    injected\n    text\n    tokens\n    droppedCount\n    degradations\n    recallEventId\n    lines {\n      memId\n      snapshotId\n      toolName\n      createdAt\n      text\n      tokens\n    }\n    suggestedActions {\n      action\n      recallEventId\n    }\n  }\n}':
    types.RecallBlockDocument,
  'query RecallEvent($id: ID!) {\n  recallEvent(id: $id) {\n    id\n    spaceId\n    profileId\n    source\n    contractVersion\n    createdAt\n    queryFingerprint\n    queryText\n    fusionMode\n    searchFreshness\n    rankingVersion\n    degradedBranches\n    results {\n      id\n      type\n      rank\n    }\n  }\n}':
    types.RecallEventDocument,
  'query RecallMemory($spaceId: ID!, $query: String!, $conversationId: ID, $toolName: String, $sinceDays: Int, $limit: Int) {\n  recallMemory(\n    spaceId: $spaceId\n    query: $query\n    conversationId: $conversationId\n    toolName: $toolName\n    sinceDays: $sinceDays\n    limit: $limit\n  ) {\n    recallEventId\n    degradations\n    results {\n      line\n      score\n      ref {\n        id\n        type\n        rank\n      }\n      snapshot {\n        id\n        memId\n        toolName\n        conversationId\n        createdAt\n      }\n    }\n    suggestedActions {\n      action\n      recallEventId\n    }\n  }\n}':
    types.RecallMemoryDocument,
  'query RecallToolResult($memId: String!, $format: RecallFormat, $query: String, $offset: Int, $maxChars: Int, $jsonPath: String, $lineStart: Int, $lineCount: Int, $maxTokens: Int, $pattern: String, $contextLines: Int) {\n  recallToolResult(\n    memId: $memId\n    format: $format\n    query: $query\n    offset: $offset\n    maxChars: $maxChars\n    jsonPath: $jsonPath\n    lineStart: $lineStart\n    lineCount: $lineCount\n    maxTokens: $maxTokens\n    pattern: $pattern\n    contextLines: $contextLines\n  )\n}':
    types.RecallToolResultDocument,
  'mutation RecordToolResults($input: [ToolResultInput!]!) {\n  recordToolResults(input: $input) {\n    createdCount\n    duplicateCount\n    snapshots {\n      id\n      memId\n      toolUseId\n      toolName\n      conversationId\n      spaceId\n      createdAt\n      sizeChars\n      handle {\n        stub\n        summaryOneliner\n        sizeTokens\n      }\n    }\n  }\n}':
    types.RecordToolResultsDocument,
  'mutation SetToolCompactionPolicy($toolName: String!, $policy: ToolCompactionPolicyInput!) {\n  setToolCompactionPolicy(toolName: $toolName, policy: $policy) {\n    toolName\n    neverCompact\n    keepLastN\n    sizeThreshold\n    clearInputs\n    version\n    updatedAt\n  }\n}':
    types.SetToolCompactionPolicyDocument,
  'mutation SetToolSummaryRule($toolName: String!, $rule: JSON!) {\n  setToolSummaryRule(toolName: $toolName, rule: $rule) {\n    toolName\n    version\n    updatedAt\n    rule\n  }\n}':
    types.SetToolSummaryRuleDocument,
  'query Spaces {\n  spaces {\n    id\n    name\n    generation\n    status\n    memberIds\n  }\n}': types.SpacesDocument,
  'mutation SubmitRecallFeedback($input: RecallFeedbackBatchInput!) {\n  submitRecallFeedback(input: $input) {\n    recordedCount\n    feedbackEventIds\n    error {\n      code\n      message\n      failedIndex\n      nextAction\n      remediation\n    }\n  }\n}':
    types.SubmitRecallFeedbackDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'mutation CompactMessages($input: CompactMessagesInput!) {\n  compactMessages(input: $input) {\n    messageFormat\n    compactedCount\n    tokensBefore\n    tokensAfter\n    charsBefore\n    charsAfter\n    messages\n    handles {\n      memId\n      toolCallId\n      toolName\n      sizeTokens\n      stub\n    }\n  }\n}',
): typeof import('./graphql').CompactMessagesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query ConsoleFeedbackEvent($id: ID!) {\n  feedbackEvent(id: $id) {\n    id\n    createdAt\n    actorId\n    profileId\n    spaceId\n    spaceGeneration\n    contractVersion\n    quality\n    used\n    answerSupported\n    missingContext\n    irrelevant\n    feedbackComment\n    toolNames\n    irrelevantResultRefs {\n      type\n      id\n      rank\n    }\n    hypothesisFeedback {\n      hypothesisId\n      used\n      contradicted\n      quality\n      feedbackComment\n    }\n    recallEvent {\n      id\n      createdAt\n      source\n      queryFingerprint\n      searchFreshness\n      fusionMode\n      degradedBranches\n      returnedResults {\n        type\n        id\n        rank\n        snapshot {\n          memId\n          toolName\n          stub\n          sizeTokens\n          createdAt\n        }\n      }\n      feedbackEvents {\n        id\n        createdAt\n        quality\n      }\n    }\n  }\n}',
): typeof import('./graphql').ConsoleFeedbackEventDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query ConsoleFeedbackEvents($filter: FeedbackEventFilter, $first: Int, $after: String) {\n  feedbackEvents(filter: $filter, first: $first, after: $after) {\n    totalCount\n    totalCountIsExact\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n    edges {\n      node {\n        id\n        createdAt\n        spaceId\n        quality\n        used\n        answerSupported\n        missingContext\n        irrelevant\n        feedbackComment\n        toolNames\n      }\n    }\n  }\n}',
): typeof import('./graphql').ConsoleFeedbackEventsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query ConsoleFeedbackTrend($filter: FeedbackEventFilter) {\n  feedbackMetrics(filter: $filter, groupBy: DAY) {\n    group\n    bucketStart\n    events\n    usedRate\n    answerSupportedRate\n    averageQuality\n  }\n}',
): typeof import('./graphql').ConsoleFeedbackTrendDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query ConsoleMe {\n  me {\n    userId\n    teamId\n    scopes\n  }\n}',
): typeof import('./graphql').ConsoleMeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query ConsoleSpaces {\n  spaces {\n    id\n    name\n    status\n    generation\n    memberIds\n  }\n}',
): typeof import('./graphql').ConsoleSpacesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'mutation CreateSpace($name: String!) {\n  createSpace(name: $name) {\n    id\n    name\n    generation\n    status\n    memberIds\n  }\n}',
): typeof import('./graphql').CreateSpaceDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query FeatureFlags {\n  featureFlags {\n    key\n    enabled\n  }\n}',
): typeof import('./graphql').FeatureFlagsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query FeedbackEvent($id: ID!) {\n  feedbackEvent(id: $id) {\n    id\n    recallEventId\n    spaceId\n    actorId\n    profileId\n    createdAt\n    contractVersion\n    used\n    quality\n    answerSupported\n    irrelevant\n    missingContext\n    feedbackComment\n    returnedRefs {\n      id\n      type\n      rank\n    }\n    irrelevantResultRefs {\n      id\n      type\n      rank\n    }\n    hypothesisFeedback {\n      hypothesisId\n      used\n      quality\n      contradicted\n      feedbackComment\n    }\n  }\n}',
): typeof import('./graphql').FeedbackEventDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query Me {\n  me {\n    userId\n    teamId\n    scopes\n    spaces {\n      id\n      name\n      generation\n    }\n  }\n}',
): typeof import('./graphql').MeDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query RecallBlock($conversationId: ID!, $userMessage: String) {\n  recallBlock(conversationId: $conversationId, userMessage: $userMessage) {\n    injected\n    text\n    tokens\n    droppedCount\n    degradations\n    recallEventId\n    lines {\n      memId\n      snapshotId\n      toolName\n      createdAt\n      text\n      tokens\n    }\n    suggestedActions {\n      action\n      recallEventId\n    }\n  }\n}',
): typeof import('./graphql').RecallBlockDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query RecallEvent($id: ID!) {\n  recallEvent(id: $id) {\n    id\n    spaceId\n    profileId\n    source\n    contractVersion\n    createdAt\n    queryFingerprint\n    queryText\n    fusionMode\n    searchFreshness\n    rankingVersion\n    degradedBranches\n    results {\n      id\n      type\n      rank\n    }\n  }\n}',
): typeof import('./graphql').RecallEventDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query RecallMemory($spaceId: ID!, $query: String!, $conversationId: ID, $toolName: String, $sinceDays: Int, $limit: Int) {\n  recallMemory(\n    spaceId: $spaceId\n    query: $query\n    conversationId: $conversationId\n    toolName: $toolName\n    sinceDays: $sinceDays\n    limit: $limit\n  ) {\n    recallEventId\n    degradations\n    results {\n      line\n      score\n      ref {\n        id\n        type\n        rank\n      }\n      snapshot {\n        id\n        memId\n        toolName\n        conversationId\n        createdAt\n      }\n    }\n    suggestedActions {\n      action\n      recallEventId\n    }\n  }\n}',
): typeof import('./graphql').RecallMemoryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query RecallToolResult($memId: String!, $format: RecallFormat, $query: String, $offset: Int, $maxChars: Int, $jsonPath: String, $lineStart: Int, $lineCount: Int, $maxTokens: Int, $pattern: String, $contextLines: Int) {\n  recallToolResult(\n    memId: $memId\n    format: $format\n    query: $query\n    offset: $offset\n    maxChars: $maxChars\n    jsonPath: $jsonPath\n    lineStart: $lineStart\n    lineCount: $lineCount\n    maxTokens: $maxTokens\n    pattern: $pattern\n    contextLines: $contextLines\n  )\n}',
): typeof import('./graphql').RecallToolResultDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'mutation RecordToolResults($input: [ToolResultInput!]!) {\n  recordToolResults(input: $input) {\n    createdCount\n    duplicateCount\n    snapshots {\n      id\n      memId\n      toolUseId\n      toolName\n      conversationId\n      spaceId\n      createdAt\n      sizeChars\n      handle {\n        stub\n        summaryOneliner\n        sizeTokens\n      }\n    }\n  }\n}',
): typeof import('./graphql').RecordToolResultsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'mutation SetToolCompactionPolicy($toolName: String!, $policy: ToolCompactionPolicyInput!) {\n  setToolCompactionPolicy(toolName: $toolName, policy: $policy) {\n    toolName\n    neverCompact\n    keepLastN\n    sizeThreshold\n    clearInputs\n    version\n    updatedAt\n  }\n}',
): typeof import('./graphql').SetToolCompactionPolicyDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'mutation SetToolSummaryRule($toolName: String!, $rule: JSON!) {\n  setToolSummaryRule(toolName: $toolName, rule: $rule) {\n    toolName\n    version\n    updatedAt\n    rule\n  }\n}',
): typeof import('./graphql').SetToolSummaryRuleDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'query Spaces {\n  spaces {\n    id\n    name\n    generation\n    status\n    memberIds\n  }\n}',
): typeof import('./graphql').SpacesDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: 'mutation SubmitRecallFeedback($input: RecallFeedbackBatchInput!) {\n  submitRecallFeedback(input: $input) {\n    recordedCount\n    feedbackEventIds\n    error {\n      code\n      message\n      failedIndex\n      nextAction\n      remediation\n    }\n  }\n}',
): typeof import('./graphql').SubmitRecallFeedbackDocument;

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
